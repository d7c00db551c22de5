/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How bento's verbs use the shared command-line parser (bundle/argv.h):
 * flags and operands in any order, as the Go original's flag library took
 * them, every boolean flag also as --flag=<bool> in strconv.ParseBool's
 * spellings, and bento's wording of the usage errors (docs/cli/bento.md, "EXIT STATUS").  Only the
 * last two functions print (a usage error).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

void cli_argv_init(struct bento_argv *a, int argc, char **argv)
{
        /* --help was answered by main.c before the verb ran (help NULL) */
        *a = (struct bento_argv){.argc = argc, .argv = argv, .i = 1, .mixed = true};
}

void cli_flag_problem(const struct bento_argv *a, struct bento_err *err)
{
        const char *name = a->what ? a->what->name : "";
        const char *eq = a->bad ? strchr(a->bad, '=') : NULL;

        switch (a->fault) {
        case BENTO_ARGV_UNKNOWN:
                bento_err_setx(err, EINVAL, "unknown flag: %s", a->bad);
                break;
        case BENTO_ARGV_NEEDS_VALUE:
                bento_err_setx(err, EINVAL, "--%s needs a value", name);
                break;
        case BENTO_ARGV_NO_VALUE:
                bento_err_setx(err, EINVAL, "--%s takes no value", name);
                break;
        case BENTO_ARGV_BAD_BOOL:
                bento_err_setx(err, EINVAL, "invalid value for --%s: %s (want true or false)", name,
                               eq ? eq + 1 : "");
                break;
        case BENTO_ARGV_OK:
        default:
                break;
        }
}

int cli_usage_problem(const char *verb, const struct bento_argv *a, struct bento_err *err)
{
        cli_flag_problem(a, err);
        return bento_usage_error(verb, "%s", err->msg);
}

int cli_one_operand(const char *verb, const char *what, int n)
{
        if (n == 0)
                return bento_usage_error(verb, "%s needs %s", verb, what);
        if (n > 1)
                return bento_usage_error(verb, "%s takes %s and nothing else, but got %d arguments",
                                         verb, what, n);
        return 0;
}
