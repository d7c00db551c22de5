/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Argument checks the verbs share (docs/cli/bento.md, "EXIT STATUS"): booleans spelled as Go's
 * strconv.ParseBool spells them, boolean flags (--json, --json=<bool>)
 * built on them, and the count of a verb's one operand.  Only the last
 * prints (a usage error); a bad flag value is worded by the verb.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

int cli_parse_bool(const char *s, bool *ret)
{
        static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
        static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};

        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
                if (strcmp(s, yes[i]) == 0)
                        return *ret = true, 0;
                if (strcmp(s, no[i]) == 0)
                        return *ret = false, 0;
        }
        return -EINVAL;
}

int cli_bool_flag(const char *arg, const char *name, bool *ret)
{
        size_t n = strlen(name);

        if (strncmp(arg, name, n) != 0)
                return 0;
        if (arg[n] == '\0')
                return *ret = true, 1;
        if (arg[n] != '=')
                return 0;
        return cli_parse_bool(arg + n + 1, ret) < 0 ? -EINVAL : 1;
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
