/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Why a manifest could not be loaded, in the words every verb and the run
 * pipeline print (manifest.h, manifest_load_error()): the problems with
 * their places, or, for a script handed over by mistake, a pointer to what
 * was probably meant.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest.h"

/* docs/cli/bento-run.md: a script handed over by mistake gets a pointer to what the
 * user probably meant instead of a YAML error about its first line. */
static bool looks_like_script(const char *path)
{
        static const char *const exts[] = {".py", ".sh", ".bash", ".js", ".rb"};
        /* path is never NULL: parse_args() sets it before returning 0.  The
         * analyzer assumes bento_usage_error() (commands.c) may return 0. */
        /* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
        const char *dot = strrchr(path, '.');
        char head[2] = {0};
        cleanup_close int fd = -1;

        for (size_t i = 0; dot && i < sizeof(exts) / sizeof(exts[0]); i++)
                if (strcmp(dot, exts[i]) == 0)
                        return true;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        return fd >= 0 && read(fd, head, 2) == 2 && head[0] == '#' && head[1] == '!';
}

char *manifest_load_error(const char *path, const struct manifest_problems *p,
                          const struct bento_err *err)
{
        cleanup_free char *alt = NULL;
        struct stat st;
        char *msg = NULL;

        if (p->n > 0 && looks_like_script(path)) {
                if (asprintf(&alt, "%s.manifest.yaml", path) >= 0 && stat(alt, &st) == 0) {
                        if (asprintf(&msg,
                                     "%s looks like a script, not a manifest. Did you mean %s?",
                                     path, alt) < 0)
                                msg = NULL;
                } else if (asprintf(&msg,
                                    "%s looks like a script, not a manifest. Write a manifest "
                                    "for it (`man 5 bento-manifest` describes the format) and "
                                    "pass that.",
                                    path) < 0) {
                        msg = NULL;
                }
                return msg;
        }
        return p->n > 0 ? manifest_problems_render(p) : strdup(err->msg);
}
