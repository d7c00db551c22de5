/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Path spelling for the shields, path resolution and the compiler: a lexical clean that matches the
 * spec's clean() (Go's path.Clean, which the reference behaviour was written against),
 * component-boundary containment, and the §5.6 "Existing" resolution.  realpath(3) cannot be used
 * for the latter: a shield must land on where a path *would* be once created, so a missing tail and
 * a dangling final link have to resolve too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"

/* Enough for any real chain; the kernel itself gives up at 40. */
#define RESOLVE_LINKS_MAX 40
/* Linux's PATH_MAX, spelled here so no header named limits.h is needed. */
#define LINK_TARGET_MAX 4096

/* Back out of the last component written, never past `floor` (the root
 * slash, or a leading run of ".." in a relative path). */
static size_t clean_back(const char *out, size_t w, size_t floor)
{
        w--;
        while (w > floor && out[w] != '/')
                w--;
        return w;
}

char *path_clean(const char *p)
{
        size_t n = strlen(p), w = 0, floor = 0;
        bool rooted = n > 0 && p[0] == '/';
        char *out = malloc(n + 3);

        if (!out)
                return NULL;
        if (rooted)
                out[w++] = '/', floor = 1;
        for (size_t r = 0; r < n;) {
                size_t len = strcspn(p + r, "/");

                if (len == 0 || (len == 1 && p[r] == '.')) {
                        r += len ? len : 1;
                        continue;
                }
                if (len == 2 && p[r] == '.' && p[r + 1] == '.') {
                        r += 2;
                        if (w > floor)
                                w = clean_back(out, w, floor);
                        else if (!rooted) {
                                if (w > 0)
                                        out[w++] = '/';
                                memcpy(out + w, "..", 2);
                                w += 2;
                                floor = w;
                        }
                        continue;
                }
                if (w != (rooted ? 1 : 0))
                        out[w++] = '/';
                memcpy(out + w, p + r, len);
                w += len;
                r += len;
        }
        if (w == 0)
                out[w++] = '.';
        out[w] = '\0';
        return out;
}

char *path_join(const char *a, const char *b)
{
        cleanup_free char *both = NULL;

        if (asprintf(&both, "%s/%s", a, b) < 0)
                return NULL;
        return path_clean(both);
}

bool path_within(const char *parent, const char *child)
{
        return strcmp(parent, child) == 0 || path_beneath(parent, child);
}

bool path_beneath(const char *parent, const char *child)
{
        size_t n = strlen(parent);

        if (strcmp(parent, "/") == 0)
                return child[0] == '/' && child[1] != '\0';
        return strncmp(parent, child, n) == 0 && child[n] == '/' && child[n + 1] != '\0';
}

/* readlink into a heap string; NULL when it fails (treated as missing). */
static char *read_link(const char *path)
{
        char buf[LINK_TARGET_MAX];
        ssize_t n = readlink(path, buf, sizeof(buf) - 1);

        if (n <= 0)
                return NULL;
        buf[n] = '\0';
        return strdup(buf);
}

/* cur is a clean absolute directory; step it to its parent in place. */
static void step_up(char *cur)
{
        char *slash = strrchr(cur, '/');

        if (slash == cur)
                cur[1] = '\0';
        else if (slash)
                *slash = '\0';
}

/* Replace *rest with target + "/" + tail. */
static int splice_link(char **rest, const char *target, const char *tail)
{
        char *spliced = NULL;

        if (asprintf(&spliced, "%s/%s", target, tail) < 0)
                return -ENOMEM;
        free(*rest);
        *rest = spliced;
        return 0;
}

int path_resolve(const char *p, char **ret)
{
        cleanup_free char *rest = path_clean(p);
        cleanup_free char *cur = strdup("/");
        unsigned links = 0;
        size_t i = 0;

        if (!rest || !cur)
                return -ENOMEM;
        for (;;) {
                cleanup_free char *next = NULL, *target = NULL;
                struct stat st;
                size_t len;

                i += strspn(rest + i, "/");
                len = strcspn(rest + i, "/");
                if (len == 0)
                        break;
                if (len == 1 && rest[i] == '.') {
                        i += len;
                        continue;
                }
                if (len == 2 && rest[i] == '.' && rest[i + 1] == '.') {
                        step_up(cur);
                        i += len;
                        continue;
                }
                if (asprintf(&next, "%s%s%.*s", cur, strcmp(cur, "/") ? "/" : "", (int) len,
                             rest + i) < 0)
                        return -ENOMEM;
                i += len;
                if (lstat(next, &st) < 0 || (S_ISLNK(st.st_mode) && !(target = read_link(next)))) {
                        /* Missing (or unreadable): the rest can only be spelled. */
                        *ret = path_join(next, rest + i);
                        return *ret ? 0 : -ENOMEM;
                }
                if (!S_ISLNK(st.st_mode)) {
                        free(cur);
                        cur = TAKE_PTR(next);
                        continue;
                }
                if (++links > RESOLVE_LINKS_MAX) {
                        /* A loop: leave the path as it was spelled. */
                        *ret = path_clean(p);
                        return *ret ? 0 : -ENOMEM;
                }
                if (target[0] == '/') {
                        /* Back to "/"; cur always holds at least "/". */
                        cur[0] = '/';
                        cur[1] = '\0';
                }
                if (splice_link(&rest, target, rest + i) < 0)
                        return -ENOMEM;
                i = 0;
        }
        *ret = TAKE_PTR(cur);
        return 0;
}
