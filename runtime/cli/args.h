/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line options the way engines send them: `--opt value`,
 * `--opt=value`, `-o value`, bare flags, and `--` ending the options.
 * Options come before positional arguments (runc/crun convention).
 */
#ifndef RT_ARGS_H
#define RT_ARGS_H

#include <stdbool.h>

#include "err.h"

struct rt_opt {
        const char *name; /* long name without "--" */
        char short_name;  /* 0 when none */
        bool has_value;
        int id;
        const char *metavar; /* the value's name in --help ("DIR"), optional */
        const char *help;    /* one line for --help, optional */
};

struct rt_args {
        int argc;
        char **argv;
        int i; /* next argument to look at */
};

/* Parse the next option.  `--help` or `-h` where the table has no option
 * of that name prints the verb's help (argv[0] is the verb, rt_verb_help)
 * and exits 0, as runc and crun do: options are parsed before a verb does
 * anything, so there is nothing to undo.  Returns 1 with *ret_id (and *ret_value for options
 * with a value), 0 when the options are over (a.i then indexes the first
 * positional argument), or a negative errno with err naming the bad option. */
int rt_args_next(struct rt_args *a, const struct rt_opt *opts, int *ret_id, const char **ret_value,
                 struct bento_err *err);

/* Parse a non-negative decimal integer that fits in an int. */
int rt_args_parse_uint(const char *s, const char *what, int *ret, struct bento_err *err);

/* Accept "true"/"false" (and 1/0) for boolean options given a value. */
int rt_args_parse_bool(const char *s, const char *what, bool *ret, struct bento_err *err);

#endif
