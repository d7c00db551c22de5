/* SPDX-License-Identifier: Apache-2.0 */
/* Option parsing shared by the global options and every verb (see args.h). */
#include "args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const struct rt_opt *find_long(const struct rt_opt *opts, const char *name, size_t len)
{
        for (; opts->name; opts++)
                if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
                        return opts;
        return NULL;
}

static const struct rt_opt *find_short(const struct rt_opt *opts, char c)
{
        for (; opts->name; opts++)
                if (opts->short_name && opts->short_name == c)
                        return opts;
        return NULL;
}

static int take_value(struct rt_args *a, const struct rt_opt *o, const char *inline_value,
                      const char **ret_value, struct bento_err *err)
{
        if (!o->has_value) {
                if (inline_value)
                        return bento_err_setx(err, EINVAL, "option --%s takes no value", o->name);
                return 0;
        }
        if (inline_value) {
                *ret_value = inline_value;
                return 0;
        }
        if (a->i >= a->argc)
                return bento_err_setx(err, EINVAL, "option --%s needs a value", o->name);
        *ret_value = a->argv[a->i++];
        return 0;
}

int rt_args_next(struct rt_args *a, const struct rt_opt *opts, int *ret_id, const char **ret_value,
                 struct bento_err *err)
{
        const struct rt_opt *o;
        const char *arg;
        int r;

        if (a->i >= a->argc)
                return 0;
        arg = a->argv[a->i];
        if (strcmp(arg, "--") == 0) {
                a->i++;
                return 0;
        }
        if (arg[0] != '-' || arg[1] == '\0')
                return 0;
        a->i++;
        *ret_value = NULL;
        if ((!strcmp(arg, "--help") && !find_long(opts, "help", 4)) ||
            (!strcmp(arg, "-h") && !find_short(opts, 'h'))) {
                rt_verb_help(a->argv[0], opts);
                exit(0);
        }
        if (arg[1] == '-') {
                const char *eq = strchr(arg + 2, '=');
                o = find_long(opts, arg + 2, eq ? (size_t) (eq - arg - 2) : strlen(arg + 2));
                if (!o)
                        return bento_err_setx(err, EINVAL, "unknown option '%s' (see --help)", arg);
                r = take_value(a, o, eq ? eq + 1 : NULL, ret_value, err);
        } else {
                /* single-dash long options (-root) are accepted like runc does */
                o = arg[2] == '\0' ? find_short(opts, arg[1])
                                   : find_long(opts, arg + 1, strlen(arg + 1));
                if (!o)
                        return bento_err_setx(err, EINVAL, "unknown option '%s' (see --help)", arg);
                r = take_value(a, o, NULL, ret_value, err);
        }
        if (r < 0)
                return r;
        *ret_id = o->id;
        return 1;
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
        if (!strcmp(s, "true") || !strcmp(s, "1")) {
                *ret = true;
                return 0;
        }
        if (!strcmp(s, "false") || !strcmp(s, "0")) {
                *ret = false;
                return 0;
        }
        return bento_err_setx(err, EINVAL, "%s: expected true or false, got '%s'", what, s);
}
