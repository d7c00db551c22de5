/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loading the manifest a verb was given, with the errors every verb prints
 * the same way (docs/manifest.md, "SYNTAX RULES", docs/cli/bento.md, "EXIT STATUS"; the words are
 * manifest_load_error()'s).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "commands.h"

int cli_load_manifest(const char *path, struct manifest **ret)
{
        struct manifest_problems problems = {0};
        struct bento_err err = {0};
        cleanup_free char *msg = NULL;

        if (manifest_load(path, ret, &problems, &err) == 0)
                return 0;
        msg = manifest_load_error(path, &problems, &err);
        manifest_problems_done(&problems);
        fprintf(stderr, "bento: %s\n", msg ? msg : err.msg);
        return BENTO_EXIT_REFUSED;
}

int cli_check_env_override(const struct manifest *m, const char *arg)
{
        const char *eq = strchr(arg, '=');

        if (!eq || eq == arg) {
                fprintf(stderr, "bento: --env \"%s\": want NAME=VALUE\n", arg);
                return BENTO_EXIT_REFUSED;
        }
        for (size_t i = 0; i < m->n_env; i++)
                if (strlen(m->env[i]) == (size_t) (eq - arg) &&
                    strncmp(m->env[i], arg, (size_t) (eq - arg)) == 0)
                        return 0;
        fprintf(stderr,
                "bento: --env %.*s: \"%.*s\" is not in the manifest's env allowlist; add it to "
                "`env:` (and approve the manifest again) to pass it\n",
                (int) (eq - arg), arg, (int) (eq - arg), arg);
        return BENTO_EXIT_REFUSED;
}
