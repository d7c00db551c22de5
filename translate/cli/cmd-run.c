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

/* An --accept-alias tree as given, made absolute against the working
 * directory (symlinks are resolved where it is checked). */
static char *absolute_path(const char *p)
{
        cleanup_free char *cwd = NULL;

        if (p[0] == '/')
                return path_clean(p);
        cwd = getcwd(NULL, 0);
        return cwd ? path_join(cwd, p) : NULL;
}

/* §3.1: scanned left to right before anything else, so that even a usage
 * error is answered as a refusal event.  The last --json wins. */
static bool json_wanted(int argc, char **argv)
{
        bool json = false;

        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
                if (cli_bool_flag(argv[i], "--json", &json) != 0)
                        continue; /* a bad value leaves json as it was */
                if (strcmp(argv[i], "--env") == 0 || strcmp(argv[i], "--run-id") == 0 ||
                    strcmp(argv[i], "--accept-alias") == 0)
                        i++;
        }
        return json;
}

static int usage(const struct run_opts *o, const char *msg)
{
        if (o->json)
                return run_refuse(o, msg, NULL);
        return bento_usage_error("run", "%s", msg);
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
        int npos = 0;
        bool dashdash = false, json_again = false;

        o->json = json_wanted(argc, argv);
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                /* Only checked here: json_wanted() has set o->json. */
                int json = cli_bool_flag(a, "--json", &json_again);

                if (dashdash || a[0] != '-' || a[1] == '\0') {
                        if (npos++ == 0)
                                o->manifest = a;
                } else if (strcmp(a, "--") == 0)
                        dashdash = true;
                else if (strcmp(a, "--strict") == 0)
                        o->strict = true;
                else if (strcmp(a, "--allow-degraded") == 0)
                        o->allow_degraded = true;
                else if (strcmp(a, "--allow-unapproved") == 0)
                        o->allow_unapproved = true;
                else if (json < 0)
                        return usage(o, "invalid value for --json (want true or false)");
                else if (json > 0)
                        continue;
                else if (strcmp(a, "--env") == 0 && i + 1 < argc) {
                        if (o->n_env == RUN_ENV_MAX)
                                return usage(o, "too many --env values");
                        o->env[o->n_env++] = argv[++i];
                } else if (strcmp(a, "--run-id") == 0 && i + 1 < argc)
                        o->run_id = argv[++i];
                else if (strcmp(a, "--accept-alias") == 0 && i + 1 < argc) {
                        if (o->n_accept_alias == RUN_ENV_MAX)
                                return usage(o, "too many --accept-alias trees");
                        o->accept_alias[o->n_accept_alias] = absolute_path(argv[++i]);
                        if (!o->accept_alias[o->n_accept_alias++])
                                return usage(o, "out of memory");
                } else
                        return usage(o, "unknown flag, or a flag without its value");
        }
        if (npos == 0)
                return usage(o, "run needs a manifest path");
        if (npos > 1)
                return usage(o, "run takes a manifest path and nothing else");
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
