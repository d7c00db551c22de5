/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one command-line parser of every bento program: bento-runtime's
 * global options and verbs, bento's verbs, bento-egress and
 * bento-exec-gate.  A program describes its options in a table and asks
 * for them one at a time; the spellings are the same everywhere:
 *
 *   --name value   --name=value   -n value   -nvalue   (an option with a value)
 *   --name         -n             (a flag; a BOOL flag also --name=BOOL)
 *   -name          (a long name with one dash, as runc accepts)
 *   --             (the options end; what follows is operands, even "-x")
 *   -              (an operand, like any word not starting with '-')
 *   --help, -h     (where the table has no such option: the verb's help)
 *
 * Either the options stop at the first operand (the runtime and the hooks,
 * where what follows may be a command's own argv) or operands and options
 * mix (bento's verbs), in which case each operand is handed back in order.
 */
#ifndef BENTO_ARGV_H
#define BENTO_ARGV_H

#include <stdbool.h>

#include "err.h"

enum bento_opt_kind {
        BENTO_OPT_FLAG,  /* no value; "--name=x" is refused */
        BENTO_OPT_VALUE, /* takes the next word, or what follows "=" */
        BENTO_OPT_BOOL,  /* no value means true; "--name=BOOL" sets it (bento_argv_bool) */
};

struct bento_opt {
        const char *name; /* long name without "--"; NULL ends the table */
        char short_name;  /* 0 when none */
        enum bento_opt_kind kind;
        int id;              /* what bento_argv_next hands back */
        const char *metavar; /* the value's name in --help ("DIR"), optional */
        const char *help;    /* one line for --help, optional */
};

/* The id of an operand in mixed mode (never an option's id). */
#define BENTO_ARGV_OPERAND (-1)

/* What went wrong, for a program that words its usage errors itself. */
enum bento_argv_fault {
        BENTO_ARGV_OK,
        BENTO_ARGV_UNKNOWN,     /* no such option (a->bad is the word) */
        BENTO_ARGV_NEEDS_VALUE, /* the option was the last word */
        BENTO_ARGV_NO_VALUE,    /* "--flag=x" for a FLAG */
        BENTO_ARGV_BAD_BOOL,    /* "--flag=x" for a BOOL, x not a boolean */
};

struct bento_argv {
        int argc;
        char **argv; /* argv[0] is the verb (or the program) */
        int i;       /* next word to look at; start at 1 */
        bool mixed;  /* operands may come between options (handed back as operands) */
        /* Called for --help/-h when the table has no option of that name,
         * then the process exits 0: options are parsed before a verb does
         * anything, so there is nothing to undo.  NULL: --help is unknown
         * (for argv that is data, such as a bundle's hook arguments). */
        void (*help)(const char *verb, const struct bento_opt *opts);
        /* after a failure */
        enum bento_argv_fault fault;
        const char *bad;              /* the word at fault */
        const struct bento_opt *what; /* its option, NULL when unknown */
        /* in mixed mode, once "--" was seen */
        bool operands_only;
};

/* One option or operand. */
struct bento_argv_hit {
        int id;            /* the option's id, or BENTO_ARGV_OPERAND */
        const char *value; /* the value, or the operand; NULL for a flag */
        bool on;           /* a flag: true, or what "=BOOL" said */
};

/* The next option (or, in mixed mode, operand).  Returns 1 with *hit, 0
 * when argv is done (without mixed: a->i indexes the first operand, after
 * a "--"), or -EINVAL with err naming the word and a->fault saying what is
 * wrong with it.  Each call consumes at least one word, so a caller may go
 * on after a failure (a scan that only looks for one flag). */
int bento_argv_next(struct bento_argv *a, const struct bento_opt *opts, struct bento_argv_hit *hit,
                    struct bento_err *err);

/* A boolean as Go's strconv.ParseBool spells it: 1 t T TRUE true True,
 * 0 f F FALSE false False (runc's and bento's original CLIs are Go).
 * Returns 0 with *ret set, or -EINVAL with *ret untouched. */
int bento_argv_bool(const char *s, bool *ret);

#endif
