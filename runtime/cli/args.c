/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime's use of the shared option parser, and its value parsers (see args.h). */
#include "args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int rt_args_next(struct bento_argv *a, const struct bento_opt *opts, int *ret_id,
                 const char **ret_value, struct bento_err *err)
{
        struct bento_argv_hit hit;
        int r;

        a->help = rt_verb_help;
        r = bento_argv_next(a, opts, &hit, err);
        if (r > 0) {
                *ret_id = hit.id;
                *ret_value = hit.value;
        }
        return r;
}

int rt_args_none(struct bento_argv *a, struct bento_err *err)
{
        static const struct bento_opt none[] = {{NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL}};
        const char *value = NULL;
        int id;

        return rt_args_next(a, none, &id, &value, err);
}

int rt_args_parse_uint(const char *s, const char *what, int *ret, struct bento_err *err)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || !end || *end || end == s || v < 0 || v > INT_MAX)
                return bento_err_setx(err, EINVAL, "%s: '%s' is not a non-negative integer", what,
                                      s);
        *ret = (int) v;
        return 0;
}

int rt_args_parse_bool(const char *s, const char *what, bool *ret, struct bento_err *err)
{
        if (bento_argv_bool(s, ret) < 0)
                return bento_err_setx(err, EINVAL, "%s: expected true or false, got '%s'", what, s);
        return 0;
}
