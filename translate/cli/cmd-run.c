/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run MANIFEST [flags] [-- ARGS]: the flags into struct run_opts,
 * then the run pipeline (run/pipeline.c) does the rest.  A usage error is
 * answered as a refusal event when --json was asked for anywhere.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "commands.h"
#include "manifest/path.h"
#include "run/run.h"

enum {
        RUN_STRICT,
        RUN_ALLOW_DEGRADED,
        RUN_ALLOW_UNAPPROVED,
        RUN_ENV,
        RUN_ACCEPT_ALIAS,
        RUN_RUN_ID,
        RUN_RECORD_EXEC,
        RUN_NETWORK_GATE,
        RUN_NETWORK_GATE_TIMEOUT,
        RUN_JSON,
};

const struct bento_opt cmd_run_opts[] = {
    {"strict", 0, BENTO_OPT_BOOL, RUN_STRICT, NULL, NULL},
    {"allow-degraded", 0, BENTO_OPT_BOOL, RUN_ALLOW_DEGRADED, NULL, NULL},
    {"allow-unapproved", 0, BENTO_OPT_BOOL, RUN_ALLOW_UNAPPROVED, NULL, NULL},
    {"env", 0, BENTO_OPT_VALUE, RUN_ENV, "NAME=VALUE", NULL},
    {"accept-alias", 0, BENTO_OPT_VALUE, RUN_ACCEPT_ALIAS, "TREE", NULL},
    {"run-id", 0, BENTO_OPT_VALUE, RUN_RUN_ID, "ID", NULL},
    {"record-exec", 0, BENTO_OPT_BOOL, RUN_RECORD_EXEC, NULL, NULL},
    {"network-gate", 0, BENTO_OPT_VALUE, RUN_NETWORK_GATE, "SOCKET", NULL},
    {"network-gate-timeout", 0, BENTO_OPT_VALUE, RUN_NETWORK_GATE_TIMEOUT, "SECONDS", NULL},
    {"json", 0, BENTO_OPT_BOOL, RUN_JSON, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

/* docs/cli/bento.md, "EXIT STATUS": scanned left to right before anything else, so that even a
 * usage error is answered as a refusal event.  The same parser as parse_args() (a flag's value is
 * the next word, "--" ends the flags), going on past what it cannot parse; the last --json wins. */
static bool json_wanted(int argc, char **argv)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        bool json = false;
        int r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_run_opts, &h, &err)) != 0)
                if (r > 0 && h.id == RUN_JSON)
                        json = h.on;
        return json;
}

static int usage(const struct run_opts *o, const char *msg)
{
        if (o->json)
                return run_refuse(o, msg, NULL);
        return bento_usage_error("run", "%s", msg);
}

/* --network-gate-timeout: whole seconds, 1 to 600 (bento-egress --gate-timeout). */
static int gate_timeout(struct run_opts *o, const char *s)
{
        char *end = NULL;
        long v = strtol(s, &end, 10);

        if (end == s || *end || v < 1 || v > 600)
                return usage(o, "--network-gate-timeout: want a number of seconds from 1 to 600");
        o->network_gate_timeout = (int) v;
        return 0;
}

/* One flag or operand; 0, or the usage error's exit status. */
static int take(struct run_opts *o, const struct bento_argv_hit *h, int *npos)
{
        switch (h->id) {
        case BENTO_ARGV_OPERAND:
                if ((*npos)++ == 0)
                        o->manifest = h->value;
                return 0;
        case RUN_STRICT:
                o->strict = h->on;
                return 0;
        case RUN_ALLOW_DEGRADED:
                o->allow_degraded = h->on;
                return 0;
        case RUN_ALLOW_UNAPPROVED:
                o->allow_unapproved = h->on;
                return 0;
        case RUN_ENV:
                if (o->n_env == RUN_ENV_MAX)
                        return usage(o, "too many --env values");
                o->env[o->n_env++] = (char *) h->value;
                return 0;
        case RUN_RUN_ID:
                o->run_id = h->value;
                return 0;
        case RUN_RECORD_EXEC:
                o->record_exec = h->on;
                return 0;
        case RUN_NETWORK_GATE:
                o->network_gate = h->value;
                return 0;
        case RUN_NETWORK_GATE_TIMEOUT:
                return gate_timeout(o, h->value);
        case RUN_ACCEPT_ALIAS:
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

static int parse_args(int argc, char **argv, struct run_opts *o)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        o->json = json_wanted(argc, argv);
        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_run_opts, &h, &err)) > 0) {
                r = take(o, &h, &npos);
                if (r != 0)
                        return r;
        }
        if (r < 0) {
                cli_flag_problem(&a, &err);
                return usage(o, err.msg);
        }
        if (npos == 0)
                return usage(o, "run needs a manifest path");
        if (npos > 1)
                return usage(o, "run takes a manifest path and nothing else");
        if (o->network_gate_timeout && !o->network_gate)
                return usage(o, "--network-gate-timeout needs --network-gate");
        return 0;
}

int cmd_run(int argc, char **argv)
{
        struct run_opts o = {0};
        int r = parse_args(argc, argv, &o);

        if (r != 0) {
                for (size_t i = 0; i < o.n_accept_alias; i++)
                        free(o.accept_alias[i]);
                return r;
        }
        return run_pipeline(&o);
}
