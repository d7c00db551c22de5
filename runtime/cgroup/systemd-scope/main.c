/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-systemd-scope: the command line (scope.h says what it is for).
 * Every failure is one line on stderr: the runtime relays it as its own
 * error, so a systemd failure's line is worded as the runtime's
 * ("--systemd-cgroup: ...") and a refused command line names this program.
 */
#include <stdio.h>

#include "scope.h"

int main(int argc, char **argv)
{
        struct scope_args a;
        struct bento_err err = {0};
        int r = scope_args_parse(argc, argv, &a, &err);

        if (r < 0) {
                fprintf(stderr, SCOPE_PROG ": %s\n", err.msg);
                return SCOPE_EXIT_USAGE;
        }
        if (r > 0)
                return 0;
        r = a.verb == SCOPE_START ? scope_start(&a, &err) : scope_stop(&a, &err);
        if (r < 0) {
                fprintf(stderr, "%s\n", err.msg);
                return SCOPE_EXIT_FAILED;
        }
        return 0;
}
