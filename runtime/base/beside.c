/* SPDX-License-Identifier: Apache-2.0 */
#include "beside.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *rt_program_beside_self(const char *name, struct bento_err *err)
{
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        char *slash, *path = NULL;

        if (n <= 0) {
                bento_err_set(err, n < 0 ? errno : EIO, "cannot find bento-runtime's directory");
                return NULL;
        }
        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash)
                *slash = '\0';
        if (asprintf(&path, "%s/%s", self, name) < 0) {
                bento_err_set(err, ENOMEM, "%s", name);
                return NULL;
        }
        return path;
}
