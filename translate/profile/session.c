/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento profile from its flags to the manifest it writes (docs/cli/bento-profile.md): the
 * preflight refusals (the script, an --out for another entrypoint or one that does not
 * parse), the interpreter, then one default-deny pass with at most one retry when stdin is
 * not a terminal, or the converge loop (session-loop.c) when it is; and last the proposal
 * merged into an existing --out, spelled relocatably and written atomically.
 *
 * Exit: 0 complete, 4 incomplete (the reason said), 125 refused or failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "report/text.h"
#include "jsonr.h"
#include "session-internal.h"

int profile_refuse(const struct profile_opts *o, const char *reason)
{
        struct bento_err ignored = {0};

        if (o->json) {
                (void) profile_json_refusal(stdout, reason, NULL, &ignored);
                fflush(stdout);
        } else {
                text_print_wrapped(stderr, reason, 78 - 7, "bento: ", "       ");
        }
        return BENTO_EXIT_REFUSED;
}

void profile_ctx_done(struct profile_ctx *c)
{
        free(c->script);
        free(c->out_owned);
        manifest_free(c->existing);
        profile_interp_done(&c->interp);
        strv_free(c->env_names);
}

/* An --out that exists must parse and be for this script. */
static int check_out(struct profile_ctx *c, struct bento_err *err)
{
        struct manifest_problems problems = {0};
        struct stat st;
        int r;

        if (lstat(c->out, &st) < 0)
                return errno == ENOENT ? 0 : bento_err_set(err, errno, "--out \"%s\"", c->out);
        r = manifest_load(c->out, &c->existing, &problems, err);
        manifest_problems_done(&problems);
        if (r < 0) {
                char why[sizeof(err->msg)];

                snprintf(why, sizeof(why), "%s", err->msg);
                return bento_err_setx(err, EINVAL,
                                      "refusing to merge into %s: it does not parse as a manifest "
                                      "(%s); pass --out elsewhere or delete it",
                                      c->out, why);
        }
        return profile_merge_check(c->existing, c->out, c->script, c->home, err);
}

static int interpreter(struct profile_ctx *c, struct bento_err *err)
{
        cleanup_free char *line = NULL, *args_line = NULL;
        int r;

        if (c->o->interpreter) {
                c->interp.interpreter = strdup(c->o->interpreter);
                c->interp.args = calloc(1, sizeof(char *));
                return c->interp.interpreter && c->interp.args
                           ? 0
                           : bento_err_set(err, ENOMEM, "interpreter");
        }
        r = profile_interpreter_guess_file(c->script, &c->interp, err);
        if (r < 0)
                return r;
        line = profile_interpreter_line(&c->interp);
        args_line = profile_interpreter_args_line(&c->interp);
        if (line)
                fprintf(stderr, "%s\n", line);
        if (args_line)
                fprintf(stderr, "%s\n", args_line);
        return 0;
}

static int env_names(struct profile_ctx *c)
{
        c->env_names = calloc(1, sizeof(char *));
        if (!c->env_names)
                return -ENOMEM;
        for (const char *const *name = profile_discovery_env; *name; name++) {
                const char *value = getenv(*name);

                if (value && value[0] && bento_strv_append(&c->env_names, &c->n_env_names, *name))
                        return -ENOMEM;
        }
        return 0;
}

/* Everything checked before the target first runs. */
static int preflight(struct profile_ctx *c, struct bento_err *err)
{
        const struct profile_opts *o = c->o;
        struct stat st;
        const char *home = getenv("HOME");

        if (stat(o->script, &st) < 0)
                return bento_err_set(err, errno, "entrypoint \"%s\"", o->script);
        c->script = path_absolute(o->script);
        if (!c->script)
                return bento_err_set(err, ENOMEM, "profile");
        c->home = home && home[0] == '/' && strcmp(home, "/") != 0 ? home : NULL;
        if (o->out) {
                c->out = o->out;
        } else {
                if (asprintf(&c->out_owned, "%s.manifest.yaml", o->script) < 0)
                        return bento_err_set(err, ENOMEM, "profile");
                c->out = c->out_owned;
        }
        if (env_names(c) < 0)
                return bento_err_set(err, ENOMEM, "profile");
        if (check_out(c, err) < 0)
                return -EPERM;
        return interpreter(c, err);
}

void profile_context_of(const struct profile_ctx *c, struct profile_context *pc)
{
        *pc = (struct profile_context){.entrypoint = c->script,
                                       .interpreter = c->interp.interpreter,
                                       .interpreter_args = c->interp.args,
                                       .n_interpreter_args = c->interp.n_args,
                                       .env_names = c->env_names,
                                       .n_env_names = c->n_env_names};
}

int profile_session(struct profile_opts *o)
{
        struct profile_ctx c = {.o = o};
        struct bento_err err = {0};
        int r;

        /* A reader that goes away must not kill bento with a sandbox up. */
        signal(SIGPIPE, SIG_IGN);
        if (preflight(&c, &err) < 0)
                r = profile_refuse(o, err.msg);
        else if (isatty(STDIN_FILENO))
                r = profile_converge(&c);
        else
                r = profile_single_pass(&c);
        profile_ctx_done(&c);
        for (size_t i = 0; i < o->n_accept_alias; i++)
                free(o->accept_alias[i]);
        return r;
}
