/* SPDX-License-Identifier: Apache-2.0 */
/* The table-driven command-line parser every program uses (see argv.h). */
#include "argv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bento_opt *find_long(const struct bento_opt *opts, const char *name, size_t len)
{
        for (; opts->name; opts++)
                if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
                        return opts;
        return NULL;
}

static const struct bento_opt *find_short(const struct bento_opt *opts, char c)
{
        for (; opts->name; opts++)
                if (opts->short_name && opts->short_name == c)
                        return opts;
        return NULL;
}

/* Record what is wrong with word (for programs that word it themselves)
 * and the default wording in err. */
__attribute__((format(printf, 6, 7))) static int fail(struct bento_argv *a,
                                                      enum bento_argv_fault fault, const char *word,
                                                      const struct bento_opt *o,
                                                      struct bento_err *err, const char *fmt, ...)
{
        va_list ap;
        char msg[BENTO_ERR_MSG_MAX];

        a->fault = fault;
        a->bad = word;
        a->what = o;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return bento_err_setx(err, EINVAL, "%s", msg);
}

int bento_argv_bool(const char *s, bool *ret)
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

/* o was named by word; inline_value is what followed '=' (or the rest of
 * "-xVALUE"), NULL when nothing did. */
static int take_value(struct bento_argv *a, const struct bento_opt *o, const char *word,
                      const char *inline_value, struct bento_argv_hit *hit, struct bento_err *err)
{
        hit->id = o->id;
        hit->value = NULL;
        hit->on = true;
        switch (o->kind) {
        case BENTO_OPT_FLAG:
                if (inline_value)
                        return fail(a, BENTO_ARGV_NO_VALUE, word, o, err,
                                    "option --%s takes no value", o->name);
                return 1;
        case BENTO_OPT_BOOL:
                if (inline_value && bento_argv_bool(inline_value, &hit->on) < 0)
                        return fail(a, BENTO_ARGV_BAD_BOOL, word, o, err,
                                    "option --%s wants true or false, not '%s'", o->name,
                                    inline_value);
                return 1;
        case BENTO_OPT_VALUE:
        default:
                break;
        }
        if (!inline_value) {
                /* the next word, whatever it looks like: "--env --x" gives --env "--x" */
                if (a->i >= a->argc)
                        return fail(a, BENTO_ARGV_NEEDS_VALUE, word, o, err,
                                    "option --%s needs a value", o->name);
                inline_value = a->argv[a->i++];
        }
        hit->value = inline_value;
        return 1;
}

/* "--name" or "--name=value" */
static int long_option(struct bento_argv *a, const struct bento_opt *opts, const char *word,
                       struct bento_argv_hit *hit, struct bento_err *err)
{
        const char *name = word + 2, *eq = strchr(name, '=');
        const struct bento_opt *o = find_long(opts, name, eq ? (size_t) (eq - name) : strlen(name));

        if (!o)
                return fail(a, BENTO_ARGV_UNKNOWN, word, NULL, err,
                            "unknown option '%s' (see --help)", word);
        return take_value(a, o, word, eq ? eq + 1 : NULL, hit, err);
}

/* "-x", then "-name" (a long name with one dash, as runc takes them), then
 * "-xVALUE" for a short option with a value (as getopt takes them). */
static int short_option(struct bento_argv *a, const struct bento_opt *opts, const char *word,
                        struct bento_argv_hit *hit, struct bento_err *err)
{
        const struct bento_opt *o = find_short(opts, word[1]);

        if (word[2] == '\0' && o)
                return take_value(a, o, word, NULL, hit, err);
        if (word[2] != '\0') {
                const struct bento_opt *l = find_long(opts, word + 1, strlen(word + 1));

                if (l)
                        return take_value(a, l, word, NULL, hit, err);
                if (o && o->kind == BENTO_OPT_VALUE)
                        return take_value(a, o, word, word + 2, hit, err);
        }
        return fail(a, BENTO_ARGV_UNKNOWN, word, NULL, err, "unknown option '%s' (see --help)",
                    word);
}

static bool asks_help(const struct bento_argv *a, const struct bento_opt *opts, const char *word)
{
        if (!a->help)
                return false;
        return (strcmp(word, "--help") == 0 && !find_long(opts, "help", 4)) ||
               (strcmp(word, "-h") == 0 && !find_short(opts, 'h'));
}

static bool is_option(const char *word)
{
        return word[0] == '-' && word[1] != '\0';
}

int bento_argv_next(struct bento_argv *a, const struct bento_opt *opts, struct bento_argv_hit *hit,
                    struct bento_err *err)
{
        const char *word;

        a->fault = BENTO_ARGV_OK;
        for (;;) {
                if (a->i >= a->argc)
                        return 0;
                word = a->argv[a->i];
                if (a->operands_only || !is_option(word)) {
                        if (!a->mixed)
                                return 0;
                        a->i++;
                        *hit = (struct bento_argv_hit){.id = BENTO_ARGV_OPERAND, .value = word};
                        return 1;
                }
                a->i++;
                if (strcmp(word, "--") != 0)
                        break;
                a->operands_only = true;
                if (!a->mixed)
                        return 0;
        }
        if (asks_help(a, opts, word)) {
                a->help(a->argv[0], opts);
                exit(0);
        }
        if (word[1] == '-')
                return long_option(a, opts, word, hit, err);
        return short_option(a, opts, word, hit, err);
}
