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

enum { INSPECT_JSON };

const struct bento_opt cmd_inspect_opts[] = {
    {"json", 0, BENTO_OPT_BOOL, INSPECT_JSON, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

/* The bundle directory, or the usage error (printed; 125). */
static int parse_args(int argc, char **argv, const char **ret_dir, bool *ret_json)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_inspect_opts, &h, &err)) > 0) {
                if (h.id == BENTO_ARGV_OPERAND && npos++ == 0)
                        *ret_dir = h.value;
                else if (h.id == INSPECT_JSON)
                        *ret_json = h.on;
        }
        if (r < 0)
                return cli_usage_problem("inspect", &a, &err);
        return cli_one_operand("inspect", "a bundle directory", npos);
}

int cmd_inspect(int argc, char **argv)
{
        struct inspect_report r = {0};
        struct bento_err err = {0};
        const char *dir = NULL;
        bool json = false;
        int rc;

        rc = parse_args(argc, argv, &dir, &json);
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
