/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime's side of the shared command-line parser (bundle/argv.h):
 * engines send `--opt value`, `--opt=value`, `-o value`, bare flags and
 * `--`, with the options before the positional arguments (runc/crun
 * convention), so the runtime parses in the parser's stop-at-the-first-
 * operand mode and answers `VERB --help` from the verb's table.
 */
#ifndef RT_ARGS_H
#define RT_ARGS_H

#include <stdbool.h>

#include "argv.h"
#include "err.h"

/* Parse the next option of a verb (argv[0] is the verb, a->i starts at 1).
 * `--help` or `-h` where the table has no option of that name prints the
 * verb's help (rt_verb_help) and exits 0, as runc and crun do.  Returns 1
 * with *ret_id (and *ret_value for options with a value), 0 when the
 * options are over (a->i then indexes the first positional argument), or
 * a negative errno with err naming the bad option. */
int rt_args_next(struct bento_argv *a, const struct bento_opt *opts, int *ret_id,
                 const char **ret_value, struct bento_err *err);

/* A verb without options of its own: only --help and "--".  Returns 0
 * with a->i at the first positional argument, or a negative errno. */
int rt_args_none(struct bento_argv *a, struct bento_err *err);

/* Parse a non-negative decimal integer that fits in an int. */
int rt_args_parse_uint(const char *s, const char *what, int *ret, struct bento_err *err);

/* A boolean option's value, in Go's strconv.ParseBool spellings as runc
 * takes them (bento_argv_bool). */
int rt_args_parse_bool(const char *s, const char *what, bool *ret, struct bento_err *err);

#endif
