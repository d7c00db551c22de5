/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the bundle bento profile runs (compile/compile.h, struct compile_profile)
 * and the discovery policy it is made from (profile/session-policy.c): the observer is the
 * container's process with the target after "--", Landlock is left out, an empty tmpfs
 * covers the real home before any grant, the egress proxy is there with no allow rule, and
 * none of it leaks into a bundle made without the option.  The discovery policy grants the
 * script's directory unless it is broad, allows every exec, and forwards the network only
 * when asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "json.h"
#include "profile/session.h"
#include "tap.h"

static char dir[] = "/tmp/bento-profile-bundle-XXXXXX";
static char proj[96], home[96], script[128];
static const struct profile_discovery plain = {.script = script, .interpreter = "/bin/sh"};

static int setup(void)
{
        FILE *f;

        if (!mkdtemp(dir))
                return -1;
        snprintf(proj, sizeof(proj), "%s/proj", dir);
        snprintf(home, sizeof(home), "%s/home", dir);
        snprintf(script, sizeof(script), "%s/s.sh", proj);
        if (mkdir(proj, 0755) < 0 || mkdir(home, 0700) < 0 || !(f = fopen(script, "w")))
                return -1;
        fputs("#!/bin/sh\necho hi\n", f);
        fclose(f);
        return setenv("HOME", home, 1);
}

static struct bento_json *config_of(const struct manifest *m, const struct compile_profile *pr)
{
        cleanup_policy struct policy *p = NULL;
        struct compile_opts o = {.bundle_dir = dir, .profile = pr, .no_exec_gate = true};
        cleanup_free char *text = NULL;
        struct bento_json *j = NULL;
        struct bento_err err = {0};
        size_t len = 0;

        if (policy_resolve(m, NULL, &p, &err) < 0 || compile_config(p, &o, &text, &len, &err) < 0 ||
            bento_json_parse(text, len, 1 << 22, &j, &err) < 0) {
                printf("# %s\n", err.msg);
                return NULL;
        }
        return j;
}

static const char *str_at(const struct bento_json *arr, size_t i)
{
        if (!arr || arr->type != BENTO_JSON_ARRAY || i >= arr->u.array.n ||
            arr->u.array.items[i]->type != BENTO_JSON_STRING)
                return NULL;
        return arr->u.array.items[i]->u.string.s;
}

/* The index of the mount at dest, or -1. */
static long mount_at(const struct bento_json *cfg, const char *dest, const char *type)
{
        const struct bento_json *mounts = bento_json_get(cfg, "mounts");

        for (size_t i = 0; mounts && i < mounts->u.array.n; i++) {
                const struct bento_json *m = mounts->u.array.items[i];
                const struct bento_json *d = bento_json_get(m, "destination");
                const struct bento_json *t = bento_json_get(m, "type");

                if (d && strcmp(d->u.string.s, dest) == 0 && t && strcmp(t->u.string.s, type) == 0)
                        return (long) i;
        }
        return -1;
}

/* First by line: the script, its directory and a home. */
TEST(setup)
{
        ASSERT_OK(setup());
}

TEST(broad_directories)
{
        ASSERT_TRUE(profile_dir_is_broad("/", NULL));
        ASSERT_TRUE(profile_dir_is_broad("/tmp", NULL));
        ASSERT_TRUE(profile_dir_is_broad("/home", NULL));
        ASSERT_TRUE(profile_dir_is_broad("/var/home", NULL));
        ASSERT_TRUE(profile_dir_is_broad("/home/u", "/home/u"));
        ASSERT_TRUE(!profile_dir_is_broad("/home/u/proj", "/home/u"));
        ASSERT_TRUE(!profile_dir_is_broad("/tmp/proj", "/home/u"));
        ASSERT_TRUE(!profile_dir_is_broad("/var/lib", NULL));
}

TEST(discovery_policy)
{
        cleanup_manifest struct manifest *m = NULL, *net = NULL, *broad = NULL;
        struct bento_err err = {0};
        char *extra[] = {(char *) "/srv/more"};

        ASSERT_OK(profile_discovery_manifest(
            &(struct profile_discovery){
                .script = script, .interpreter = "/bin/sh", .extra_read = extra, .n_extra_read = 1},
            &m, &err));
        ASSERT_STREQ(m->entrypoint, script);
        ASSERT_EQ(m->exec, MANIFEST_EXEC_ALL);
        ASSERT_EQ(m->n_read, 2);
        ASSERT_STREQ(m->read[0], proj);
        ASSERT_STREQ(m->read[1], "/srv/more");
        ASSERT_EQ(m->n_write, 1);
        ASSERT_STREQ(m->write[0], proj);
        ASSERT_EQ(m->n_network, 0); /* recorded and refused, not forwarded */
        ASSERT_TRUE(m->n_env >= 1 && strcmp(m->env[0], "HOME") == 0);
        for (size_t i = 0; i < m->n_env; i++)
                ASSERT_TRUE(strcmp(m->env[i], "PATH") != 0 && strcmp(m->env[i], "PWD") != 0);
        ASSERT_OK(profile_discovery_manifest(&(struct profile_discovery){.script = script,
                                                                         .interpreter = "/bin/sh",
                                                                         .allow_network = true},
                                             &net, &err));
        ASSERT_EQ(net->n_network, 1);
        ASSERT_STREQ(net->network[0].host, "*");
        ASSERT_STREQ(net->network[0].port, "*");
        /* the script in the home itself: nothing granted */
        setenv("HOME", proj, 1);
        ASSERT_OK(profile_discovery_manifest(&plain, &broad, &err));
        setenv("HOME", home, 1);
        ASSERT_EQ(broad->n_read, 0);
        ASSERT_EQ(broad->n_write, 0);
}

TEST(profile_bundle)
{
        cleanup_manifest struct manifest *m = NULL;
        struct compile_profile pr = {
            .observe = "/opt/b/bento-observe", .home = home, .egress = true};
        cleanup_bento_json struct bento_json *cfg = NULL;
        const struct bento_json *process, *args, *hooks, *hook_args;
        struct bento_err err = {0};
        long home_at, grant_at;

        ASSERT_OK(profile_discovery_manifest(&plain, &m, &err));
        cfg = config_of(m, &pr);
        ASSERT_TRUE(cfg);
        process = bento_json_get(cfg, "process");
        args = bento_json_get(process, "args");
        ASSERT_STREQ(str_at(args, 0), COMPILE_OBSERVE_BOX_PATH);
        ASSERT_STREQ(str_at(args, 1), "--report-fd");
        ASSERT_STREQ(str_at(args, 2), "3");
        ASSERT_STREQ(str_at(args, 3), "--");
        ASSERT_STREQ(str_at(args, 5), script);
        ASSERT_TRUE(!bento_json_get(process, "landlock"));
        /* the observer bound read-only; the home covered before the grant inside it */
        ASSERT_TRUE(mount_at(cfg, COMPILE_OBSERVE_BOX_PATH, "bind") >= 0);
        home_at = mount_at(cfg, home, "tmpfs");
        grant_at = mount_at(cfg, proj, "bind");
        ASSERT_TRUE(home_at >= 0 && grant_at >= 0);
        /* the proxy is there, with no --allow: every CONNECT recorded and refused */
        hooks = bento_json_get(bento_json_get(cfg, "hooks"), "createRuntime");
        ASSERT_TRUE(hooks && hooks->u.array.n == 1);
        hook_args = bento_json_get(hooks->u.array.items[0], "args");
        ASSERT_STREQ(str_at(hook_args, 0), "bento-egress");
        for (size_t i = 0; hook_args && i < hook_args->u.array.n; i++)
                ASSERT_TRUE(strcmp(str_at(hook_args, i), "--allow") != 0);
}

TEST(plain_bundle_unchanged)
{
        cleanup_manifest struct manifest *m = NULL;
        cleanup_bento_json struct bento_json *cfg = NULL;
        const struct bento_json *process;
        struct bento_err err = {0};

        ASSERT_OK(profile_discovery_manifest(&plain, &m, &err));
        cfg = config_of(m, NULL);
        ASSERT_TRUE(cfg);
        process = bento_json_get(cfg, "process");
        ASSERT_TRUE(bento_json_get(process, "landlock"));
        ASSERT_TRUE(strcmp(str_at(bento_json_get(process, "args"), 0), COMPILE_OBSERVE_BOX_PATH));
        ASSERT_EQ(mount_at(cfg, COMPILE_OBSERVE_BOX_PATH, "bind"), -1);
        ASSERT_EQ(mount_at(cfg, home, "tmpfs"), -1);
        ASSERT_TRUE(!bento_json_get(cfg, "hooks"));
}

/* Last by line: what setup made goes. */
TEST(cleanup)
{
        unlink(script);
        rmdir(proj);
        rmdir(home);
        ASSERT_OK(rmdir(dir));
}

TAP_MAIN()
