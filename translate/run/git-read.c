/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-process hooks reader's file reads and path rules (git-read.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "git-read.h"

#define MAX_SYMLINKS 32 /* git's own limit in its realpath */

int git_read(struct git_work *w, const char *path, char **text, size_t *len)
{
        cleanup_close int fd = -1;
        cleanup_free char *buf = NULL;
        struct stat st, fst;
        size_t n = 0;

        *text = NULL;
        if (stat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? -ENOENT : GIT_UNSURE;
        /* stat first: a FIFO or a device is never opened (git would block
         * on a FIFO; opening a device can do something). */
        if (!S_ISREG(st.st_mode) || st.st_size > (off_t) GIT_FILE_MAX || !w->files_left ||
            (size_t) st.st_size > w->bytes_left)
                return GIT_UNSURE;
        w->files_left--;
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino ||
            fst.st_dev != st.st_dev)
                return GIT_UNSURE;
        buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return GIT_UNSURE;
        while (n < (size_t) st.st_size) {
                ssize_t r = read(fd, buf + n, (size_t) st.st_size - n);

                if (r <= 0)
                        return GIT_UNSURE; /* it changed under us */
                n += (size_t) r;
        }
        buf[n] = '\0';
        w->bytes_left -= n;
        *len = n;
        *text = TAKE_PTR(buf);
        return 0;
}

char *git_join(const char *a, const char *b)
{
        size_t la = strlen(a);
        char *s = NULL;

        if (asprintf(&s, "%s%s%s", a, la == 0 || a[la - 1] != '/' ? "/" : "", b) < 0)
                return NULL;
        return s;
}

char *git_dirname(const char *path)
{
        const char *slash = strrchr(path, '/');

        if (!slash)
                return strdup(".");
        return strndup(path, slash == path ? 1 : (size_t) (slash - path));
}

static void drop_last(char *resolved)
{
        char *slash = strrchr(resolved, '/');

        if (slash)
                *(slash == resolved ? slash + 1 : slash) = '\0';
}

/* Append "/name" to resolved (size PATH_MAX * 2). */
static int append(char *resolved, const char *name, size_t len)
{
        size_t rl = strlen(resolved);

        if (rl + len + 2 > PATH_MAX * 2)
                return GIT_FAILS; /* git would fail on a path this long */
        if (rl == 0 || resolved[rl - 1] != '/')
                resolved[rl++] = '/';
        memcpy(resolved + rl, name, len);
        resolved[rl + len] = '\0';
        return 0;
}

int git_realpath(const char *path, const char *cwd, bool forgiving, char **ret)
{
        char resolved[PATH_MAX * 2];
        cleanup_free char *rest = NULL;
        int links = 0;

        *ret = NULL;
        if (!*path)
                return GIT_FAILS; /* git: the empty string is not a valid path */
        if (path[0] == '/')
                snprintf(resolved, PATH_MAX, "/");
        else if (strlen(cwd) < PATH_MAX)
                snprintf(resolved, PATH_MAX, "%s", cwd);
        else
                return GIT_FAILS;
        rest = strdup(path);
        if (!rest)
                return GIT_UNSURE;
        for (char *p = rest; *p;) {
                size_t len;
                struct stat st;
                char *next;

                while (*p == '/')
                        p++;
                len = strcspn(p, "/");
                next = p + len;
                if (len == 0 || (len == 1 && p[0] == '.')) {
                        p = next;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        drop_last(resolved);
                        p = next;
                        continue;
                }
                if (append(resolved, p, len) < 0)
                        return GIT_FAILS;
                p = next;
                if (lstat(resolved, &st) < 0) {
                        while (*p == '/')
                                p++;
                        if (errno != ENOENT || (!forgiving && *p))
                                return GIT_FAILS;
                } else if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlink(resolved, target, sizeof(target) - 1);
                        char *joined = NULL;

                        if (links++ > MAX_SYMLINKS || n < 0)
                                return GIT_FAILS;
                        target[n] = '\0';
                        if (target[0] == '/')
                                strcpy(resolved, "/");
                        else
                                drop_last(resolved);
                        if (asprintf(&joined, "%s%s%s", target, *p ? "/" : "", p) < 0)
                                return GIT_UNSURE;
                        free(rest);
                        rest = joined;
                        p = rest;
                }
        }
        *ret = strdup(resolved);
        return *ret ? 0 : GIT_UNSURE;
}

int git_expand(const struct git_hooks_env *env, const char *value, bool real_home, char **ret)
{
        const char *rest = value + 1;

        *ret = NULL;
        if (strncmp(value, "%(prefix)/", 10) == 0)
                return GIT_UNSURE; /* git's install prefix: not modelled */
        if (value[0] != '~') {
                *ret = strdup(value);
                return *ret ? 0 : GIT_UNSURE;
        }
        if (*rest && *rest != '/')
                return GIT_UNSURE; /* "~user/": a password database lookup */
        if (!env->home)
                return 0; /* git cannot expand it */
        if (real_home) {
                cleanup_free char *home = NULL;
                int r = git_realpath(env->home, "/", false, &home);

                if (r < 0)
                        return r;
                return asprintf(ret, "%s%s", home, rest) < 0 ? GIT_UNSURE : 0;
        }
        return asprintf(ret, "%s%s", env->home, rest) < 0 ? GIT_UNSURE : 0;
}

int git_parse_int(const char *value, long long *ret)
{
        char *end;
        long long factor = 1;

        if (!value || !*value)
                return -1;
        errno = 0;
        *ret = strtoll(value, &end, 0);
        if (errno || end == value)
                return -1;
        if (*end && !end[1] && strchr("kKmMgG", *end))
                factor = *end == 'k' || *end == 'K'   ? 1024
                         : *end == 'm' || *end == 'M' ? 1 << 20
                                                      : 1 << 30;
        else if (*end)
                return -1;
        if (__builtin_mul_overflow(*ret, factor, ret))
                return -1;
        return 0;
}

int git_parse_bool(const char *value)
{
        long long n;

        if (!value)
                return 1;
        if (!*value)
                return 0;
        if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on"))
                return 1;
        if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "off"))
                return 0;
        return git_parse_int(value, &n) < 0 ? -1 : n != 0;
}
