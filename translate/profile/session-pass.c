/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One round from discovery to proposal, and the non-interactive single pass
 * (docs/cli/bento-profile.md, "NON-INTERACTIVE"): one default-deny run, and one more only
 * when the run did not finish and a directory it wanted to write in was missing inside the
 * directory discovery granted for writing; the second run then has those directories
 * created (as `bento run` creates a missing write grant).  Never with --allow-network: the
 * repeat would make real connections again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "jsonr.h"
#include "session-internal.h"

void profile_step_done(struct profile_step *s)
{
        profile_round_done(&s->round);
        profile_observation_done(&s->obs);
        profile_proposal_done(&s->prop);
}

static int observe(const struct profile_step *s, struct profile_observation *obs,
                   struct bento_err *err)
{
        int r;

        if (s->round.report_truncated)
                return bento_err_setx(err, EFBIG,
                                      "the observer's report was larger than bento reads "
                                      "(%u bytes); the observation is unusable",
                                      PROFILE_REPORT_MAX);
        r = profile_observation_parse(s->round.report ? s->round.report : "", s->round.report_len,
                                      obs, err);
        if (r >= 0)
                r = profile_observation_add_egress(obs, &s->round.egress, err);
        if (r >= 0 && obs->sigsys)
                r = bento_err_setx(err, EPERM,
                                   "refusing to profile: a process of the target (pid %ld) was "
                                   "killed by seccomp (SIGSYS), which makes the observation "
                                   "unusable: it used the 32-bit syscall ABI or installed a "
                                   "sandbox of its own",
                                   obs->sigsys_pid);
        return r;
}

int profile_step_run(const struct profile_ctx *c, const struct profile_grants *extra,
                     bool interactive, struct profile_step *ret, struct bento_err *err)
{
        cleanup_manifest struct manifest *m = NULL;
        const struct profile_opts *o = c->o;
        struct profile_run_opts ro = {.json = o->json,
                                      .interactive = interactive,
                                      .accept_alias = o->accept_alias,
                                      .n_accept_alias = o->n_accept_alias,
                                      .report_max = PROFILE_REPORT_MAX};
        struct profile_context pc;
        int r;

        *ret = (struct profile_step){0};
        r = profile_discovery_manifest(
            &(struct profile_discovery){.script = c->script,
                                        .interpreter = c->interp.interpreter,
                                        .interpreter_args = c->interp.args,
                                        .n_interpreter_args = c->interp.n_args,
                                        .args = o->args,
                                        .n_args = o->n_args,
                                        .allow_network = o->allow_network,
                                        .extra_read = extra->read,
                                        .extra_write = extra->write,
                                        .n_extra_read = extra->n_read,
                                        .n_extra_write = extra->n_write},
            &m, err);
        if (r >= 0)
                r = profile_run_round(m, &ro, &ret->round, err);
        if (r >= 0 && ret->round.out.cancelled)
                return bento_err_setx(err, ECANCELED,
                                      "the profiled run was cancelled (interrupted); nothing "
                                      "was written");
        if (r >= 0)
                r = observe(ret, &ret->obs, err);
        profile_context_of(c, &pc);
        pc.shields = ret->round.shields; /* the set the round built, not a second build */
        if (r >= 0)
                r = profile_propose(&ret->obs, &pc, &ret->prop, err);
        return r;
}

/* The proposed write directories that are missing on the host and lie strictly inside the
 * one discovery granted: the retry creates them. */
static int missing_writes(const struct profile_ctx *c, const struct profile_proposal *p,
                          char ***ret, size_t *n)
{
        const struct manifest *m = p->m;
        cleanup_free char *dir = strdup(c->script);
        struct stat st;
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/'); /* the script's path is absolute */
        *(slash == dir ? slash + 1 : slash) = '\0';
        if (profile_dir_is_broad(dir, c->home))
                return 0;
        for (size_t i = 0; i < m->n_write; i++)
                if (path_beneath(dir, m->write[i]) && lstat(m->write[i], &st) < 0 &&
                    errno == ENOENT && bento_strv_append(ret, n, m->write[i]) < 0)
                        return -ENOMEM;
        /* Under /tmp a missing directory is withheld as the sandbox's scratch; inside the
         * script's own directory it is the script's, and counts the same. */
        for (size_t i = 0; i < p->n_withheld; i++) {
                const struct profile_item *it = &p->withheld[i];

                if (it->kind == PROFILE_ITEM_WRITE && it->path &&
                    it->reason == PROFILE_WITHHELD_SANDBOX_SCRATCH && path_beneath(dir, it->path) &&
                    lstat(it->path, &st) < 0 && errno == ENOENT &&
                    bento_strv_append(ret, n, it->path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static bool finished(const struct profile_step *s)
{
        return s->obs.finished && !s->obs.end_signal && s->obs.end_code == 0;
}

/* Pass 1's withheld paths stay withheld: the retry may not turn them into grants (but for
 * the directories it was run again to create). */
static void keep_withheld(const struct profile_step *first, char *const *created, size_t n_created,
                          struct manifest *m)
{
        for (size_t w = 0; w < first->prop.n_withheld; w++) {
                const char *path = first->prop.withheld[w].path;
                bool retried = false;

                for (size_t k = 0; path && k < n_created; k++)
                        retried |= strcmp(created[k], path) == 0;
                if (retried)
                        continue;

                for (size_t i = 0; path && i < m->n_read; i++)
                        if (strcmp(m->read[i], path) == 0) {
                                free(m->read[i]);
                                m->read[i--] = m->read[--m->n_read];
                                m->read[m->n_read] = NULL;
                        }
                for (size_t i = 0; path && i < m->n_write; i++)
                        if (strcmp(m->write[i], path) == 0) {
                                free(m->write[i]);
                                m->write[i--] = m->write[--m->n_write];
                                m->write[m->n_write] = NULL;
                        }
        }
}

static void banner(const struct profile_ctx *c)
{
        fprintf(stderr,
                "[bento] profiling %s under default-deny (egress %s); real content is mounted "
                "only for the script's own directory.\n",
                c->script,
                c->o->allow_network ? "forwarded, --allow-network"
                                    : "recorded and refused; --allow-network forwards it");
}

int profile_single_pass(struct profile_ctx *c)
{
        struct profile_step first = {0}, second = {0};
        cleanup_strv char **missing = NULL;
        struct bento_err err = {0};
        size_t n_missing = 0;
        int r;

        banner(c);
        r = profile_step_run(c, &(struct profile_grants){0}, false, &first, &err);
        if (r >= 0 && !finished(&first) && missing_writes(c, &first.prop, &missing, &n_missing))
                r = bento_err_set(&err, ENOMEM, "profile");
        if (r >= 0 && n_missing && c->o->allow_network)
                fprintf(stderr,
                        "[bento] the run did not finish and wanted %zu missing write "
                        "director%s; not running it again, since --allow-network would "
                        "repeat real connections - keeping the first pass.\n",
                        n_missing, n_missing == 1 ? "y" : "ies");
        if (r >= 0 && n_missing && !c->o->allow_network) {
                fprintf(stderr,
                        "[bento] the run did not finish and a directory it writes in "
                        "was missing; running it once more with %zu director%s "
                        "created.\n",
                        n_missing, n_missing == 1 ? "y" : "ies");
                r = profile_step_run(
                    c, &(struct profile_grants){.write = missing, .n_write = n_missing}, false,
                    &second, &err);
                if (r >= 0)
                        keep_withheld(&first, missing, n_missing, second.prop.m);
        }
        if (r >= 0)
                r = profile_write_result(c, second.prop.m ? &second : &first, NULL, NULL);
        else
                r = profile_refuse(c->o, err.msg);
        profile_step_done(&first);
        profile_step_done(&second);
        return r;
}
