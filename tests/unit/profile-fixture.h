/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host the profile unit tests propose against: a private directory
 * under the working directory (not /tmp, which the proposal treats
 * specially; the /tmp cases get tmpdir), a project with probe.py, data/
 * and out/, a fake home with a credential store, a fake passwd file and an
 * empty environment, so nothing reads the real home.  Removed at exit.
 * Include once, after tap.h.
 */
#ifndef BENTO_TEST_PROFILE_FIXTURE_H
#define BENTO_TEST_PROFILE_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "profile/profile.h"

#define UID 4242

static struct bento_err err;
static char base[512];
static char tmpdir[] = "/tmp/bento-profile-XXXXXX";
static char home[600], proj[600], script[700], passwd[600];
static char *const env_names[] = {"HOME", "LOGNAME", "USER"};

static const char *env_lookup(const char *name, void *userdata)
{
        (void) name;
        (void) userdata;
        return NULL;
}

static struct shield_env shield_env;

/* fmt with its one "%s" replaced by rest (a rotating static buffer). */
__attribute__((unused)) static const char *at(const char *fmt, const char *rest)
{
        static char bufs[16][1024];
        static int k;
        char *b = bufs[k++ % 16];
        const char *hit = strstr(fmt, "%s");

        if (!hit)
                snprintf(b, sizeof(bufs[0]), "%s", fmt);
        else
                snprintf(b, sizeof(bufs[0]), "%.*s%s%s", (int) (hit - fmt), fmt, rest, hit + 2);
        return b;
}

__attribute__((unused)) static void mkdirs(const char *path)
{
        char buf[1024];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        mkdir(buf, 0755);
                        *p = '/';
                }
        mkdir(buf, 0755);
}

__attribute__((unused)) static void touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
        (void) st;
        (void) flag;
        (void) f;
        return remove(p);
}

/* The fake host must sit where the proposal treats paths as ordinary:
 * not under /tmp (sandbox scratch), nor a floored tree (/etc /var /boot
 * /opt /srv /root) or a home container.  The working directory, unless the
 * checkout itself lives in one of those (CI may clone under /tmp or
 * /root); then a directory at the root, which only root can make (the
 * unit tests run as root in `make check`). */
static const char *fixture_parent(const char *cwd)
{
        static const char *const odd[] = {"/tmp", "/var",  "/etc",  "/boot", "/opt",
                                          "/srv", "/root", "/home", "/run",  "/usr"};

        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
                size_t n = strlen(odd[i]);

                if (strncmp(cwd, odd[i], n) == 0 && (cwd[n] == '/' || cwd[n] == '\0'))
                        return "";
        }
        return cwd;
}

__attribute__((constructor)) static void setup(void)
{
        char cwd[400];
        FILE *f;

        if (!getcwd(cwd, sizeof(cwd)))
                abort();
        snprintf(base, sizeof(base), "%s/.test-profile-XXXXXX", fixture_parent(cwd));
        if (!mkdtemp(base) || !mkdtemp(tmpdir))
                abort();
        snprintf(home, sizeof(home), "%s/home", base);
        snprintf(proj, sizeof(proj), "%s/proj", base);
        snprintf(script, sizeof(script), "%s/probe.py", proj);
        snprintf(passwd, sizeof(passwd), "%s/passwd", base);
        mkdirs(home);
        mkdirs(at("%s/data", proj));
        mkdirs(at("%s/out", proj));
        mkdirs(at("%s/py/bin", base));
        touch(script);
        touch(at("%s/data/sample.txt", proj));
        touch(at("%s/notes.txt", home));
        mkdirs(at("%s/.ssh", home));
        touch(at("%s/.ssh/id_rsa", home));
        touch(at("%s/file.txt", proj));
        if (symlink("/proc/self/mounts", at("%s/mtab", proj)) < 0)
                abort();
        f = fopen(passwd, "we");
        if (!f)
                abort();
        fprintf(f, "root:x:0:0:root:/root:/bin/sh\nu:x:%d:%d:U:%s:/bin/sh\n", UID, UID, home);
        fclose(f);
        shield_env = (struct shield_env){.home = home,
                                         .home_set = true,
                                         .uid = UID,
                                         .passwd_path = passwd,
                                         .getenv = env_lookup};
}

__attribute__((destructor)) static void teardown(void)
{
        nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

__attribute__((unused)) static struct profile_context context(void)
{
        return (struct profile_context){.entrypoint = script,
                                        .interpreter = "python3",
                                        .env_names = env_names,
                                        .n_env_names = 3,
                                        .shield_env = &shield_env,
                                        .path_env = "/usr/bin:/bin"};
}

/* Parse "observe 1\n" + body (each %s replaced by the base directory)
 * and propose with ctx. */
__attribute__((unused)) static int propose_ctx(const char *body, const struct profile_context *ctx,
                                               struct profile_proposal *p)
{
        struct profile_observation o = {0};
        cleanup_free char *text = NULL;
        char *hit;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        int r;

        if (!f)
                return -ENOMEM;
        fputs("observe 1\n", f);
        for (const char *s = body; *s; s = hit + 2) {
                hit = strstr(s, "%s");
                if (!hit) {
                        fputs(s, f);
                        break;
                }
                fwrite(s, 1, hit - s, f);
                fputs(base, f);
        }
        fclose(f);
        err = (struct bento_err){0};
        r = profile_observation_parse(text, len, &o, &err);
        if (r >= 0)
                r = profile_propose(&o, ctx, p, &err);
        profile_observation_done(&o);
        return r;
}

__attribute__((unused)) static int propose(const char *body, struct profile_proposal *p)
{
        struct profile_context c = context();

        return propose_ctx(body, &c, p);
}

__attribute__((unused)) static const struct profile_item *
find(const struct profile_item *v, size_t n, const char *path, enum profile_reason reason)
{
        for (size_t i = 0; i < n; i++)
                if (v[i].path && strcmp(v[i].path, path) == 0 && v[i].reason == reason)
                        return &v[i];
        return NULL;
}

__attribute__((unused)) static bool has(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

#endif
