/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento inspect <bundle-dir> [--json]: the policy a bundle's config.json
 * enforces, in manifest terms, and everything in it no bento manifest
 * could have produced (report/inspect.h).
 *
 * Exit status: 0 when nothing is flagged; 3 when something is (the same
 * code doctor uses for "a core guarantee is not held"), after the full
 * report; 125 when the bundle cannot be read at all or on a usage error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report/inspect.h"

#define INSPECT_EXIT_FLAGGED 3

int cmd_inspect(int argc, char **argv)
{
        struct inspect_report r = {0};
        struct bento_err err = {0};
        const char *dir = NULL;
        bool json = false, dashdash = false;
        int npos = 0, rc;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (!dashdash && strcmp(a, "--") == 0)
                        dashdash = true;
                else if (!dashdash && strcmp(a, "--json") == 0)
                        json = true;
                else if (!dashdash && a[0] == '-' && a[1] != '\0')
                        return bento_usage_error("inspect", "unknown flag: %s", a);
                else if (npos++ == 0)
                        dir = a;
        }
        rc = cli_one_operand("inspect", "a bundle directory", npos);
        if (rc != 0)
                return rc;
        if (inspect_bundle(dir, &r, &err) < 0) {
                fprintf(stderr, "bento: cannot inspect %s: %s\n", dir, err.msg);
                return BENTO_EXIT_REFUSED;
        }
        if (json)
                rc = inspect_print_json(stdout, &r, &err);
        else
                rc = (inspect_print_human(stdout, &r), 0);
        if (rc < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "bento: %s\n", rc < 0 ? err.msg : "writing the report failed");
                inspect_report_done(&r);
                return BENTO_EXIT_REFUSED;
        }
        rc = r.n_flags ? INSPECT_EXIT_FLAGGED : 0;
        inspect_report_done(&r);
        return rc;
}
