/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento profile SCRIPT [flags] [-- ARGS]: the flags into struct profile_opts, then the
 * session (profile/session.c) does the rest.  A usage error is answered as a refusal
 * document when --json was asked for anywhere.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "manifest/path.h"
#include "profile/session-internal.h"

enum {
        PROFILE_INTERPRETER,
        PROFILE_OUT,
        PROFILE_ALLOW_NETWORK,
        PROFILE_ACCEPT_ALIAS,
        PROFILE_JSON,
};

const struct bento_opt cmd_profile_opts[] = {
    {"interpreter", 0, BENTO_OPT_VALUE, PROFILE_INTERPRETER, "X", NULL},
    {"out", 0, BENTO_OPT_VALUE, PROFILE_OUT, "MANIFEST", NULL},
    {"allow-network", 0, BENTO_OPT_BOOL, PROFILE_ALLOW_NETWORK, NULL, NULL},
    {"accept-alias", 0, BENTO_OPT_VALUE, PROFILE_ACCEPT_ALIAS, "TREE", NULL},
    {"json", 0, BENTO_OPT_BOOL, PROFILE_JSON, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

/* The same scan as parse_args(), only for --json, going on past what it cannot parse. */
static bool json_wanted(int argc, char **argv)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        bool json = false;
        int r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_profile_opts, &h, &err)) != 0)
                if (r > 0 && h.id == PROFILE_JSON)
                        json = h.on;
        return json;
}

static int usage(const struct profile_opts *o, const char *msg)
{
        if (o->json)
                return profile_refuse(o, msg);
        return bento_usage_error("profile", "%s", msg);
}

/* The first operand is the script; every operand after "--" once it is known is one of
 * its arguments (argv has room for all of them). */
static int take(struct profile_opts *o, const struct bento_argv *a, const struct bento_argv_hit *h)
{
        switch (h->id) {
        case BENTO_ARGV_OPERAND:
                if (!o->script)
                        o->script = h->value;
                else if (a->operands_only)
                        o->args[o->n_args++] = (char *) h->value;
                else
                        return usage(o, "profile takes one script; its arguments go after \"--\"");
                return 0;
        case PROFILE_INTERPRETER:
                o->interpreter = h->value;
                return 0;
        case PROFILE_OUT:
                o->out = h->value;
                return 0;
        case PROFILE_ALLOW_NETWORK:
                o->allow_network = h->on;
                return 0;
        case PROFILE_ACCEPT_ALIAS:
                if (o->n_accept_alias == RUN_ENV_MAX)
                        return usage(o, "too many --accept-alias trees");
                o->accept_alias[o->n_accept_alias] = path_absolute(h->value);
                if (!o->accept_alias[o->n_accept_alias++])
                        return usage(o, "out of memory");
                return 0;
        default:
                return 0; /* --json: json_wanted() has set o->json */
        }
}

static int parse_args(int argc, char **argv, struct profile_opts *o)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int r;

        o->json = json_wanted(argc, argv);
        o->args = calloc((size_t) argc + 1, sizeof(char *));
        if (!o->args)
                return usage(o, "out of memory");
        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_profile_opts, &h, &err)) > 0) {
                r = take(o, &a, &h);
                if (r != 0)
                        return r;
        }
        if (r < 0) {
                cli_flag_problem(&a, &err);
                return usage(o, err.msg);
        }
        if (!o->script)
                return usage(o, "profile needs a script path");
        if (o->out && !o->out[0])
                return usage(o, "--out needs a path");
        return 0;
}

int cmd_profile(int argc, char **argv)
{
        struct profile_opts o = {0};
        int r = parse_args(argc, argv, &o);

        if (r == 0)
                r = profile_session(&o);
        else
                for (size_t i = 0; i < o.n_accept_alias; i++)
                        free(o.accept_alias[i]);
        free(o.args);
        return r;
}
