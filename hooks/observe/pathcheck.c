/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: whether a path is clean and beneath one of a list of
 * trees, by its spelling alone (nothing is looked up).  Shared by the
 * observer, which decides with it which calls need no result, and by its
 * preload library (shim/), which decides with it which calls it records
 * itself; so this file uses nothing of libc but string functions.
 */
#include <string.h>

#include "pathcheck.h"

bool obs_path_clean(const char *p)
{
        if (p[0] != '/')
                return false;
        for (const char *c = p; *c; c++) {
                if (c[0] != '/')
                        continue;
                if (c[1] == '/' || (c[1] == '\0' && c != p))
                        return false;
                if (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
                        return false;
                if (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0'))
                        return false;
        }
        return true;
}

bool obs_path_under(const char *p, const char *const *trees, size_t n)
{
        if (n == 0 || !obs_path_clean(p))
                return false;
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(trees[i]);

                if (strcmp(trees[i], "/") == 0 ||
                    (strncmp(p, trees[i], len) == 0 && (p[len] == '\0' || p[len] == '/')))
                        return true;
        }
        return false;
}
