/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interactive converge loop (docs/cli/bento-profile.md, "INTERACTIVE"): run, propose,
 * ask about each path not seen before, run again with the accepted ones mounted, until a
 * round shows nothing new or the round cap.  Prompts come from /dev/tty (stdin when there
 * is none) and go to stderr; the target's stdin is nothing, so it cannot eat the answers.
 *
 * Answers: y accepts, a accepts this and every later path that is not risky, q or end of
 * input stops (keeping what was accepted), anything else declines for good.  A Ctrl-C at a
 * prompt ends bento at once (the default action): nothing is written.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "approval/approval.h"
#include "cleanup.h"
#include "policy/policy.h"
#include "jsonr.h"
#include "manifest/path.h"
#include "session-internal.h"

enum answer { ANSWER_NO, ANSWER_YES, ANSWER_ALL, ANSWER_QUIT };

struct loop {
        struct profile_ctx *c;
        FILE *tty;
        char **reads, **writes, **declined_reads, **declined_writes; /* strv */
        size_t n_reads, n_writes, n_declined_reads, n_declined_writes;
        bool all, quit;
        int exec; /* -1 undecided, 0 declined, 1 accepted */
};

static void loop_done(struct loop *l)
{
        if (l->tty && l->tty != stdin)
                fclose(l->tty);
        strv_free(l->reads);
        strv_free(l->writes);
        strv_free(l->declined_reads);
        strv_free(l->declined_writes);
}

/* Ctrl-C at a prompt is the default action: bento ends and writes nothing.  The rounds
 * block it (run/sandbox.c takes it from a signalfd), so it is let through here. */
static void allow_interrupt(void)
{
        sigset_t set;

        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        signal(SIGINT, SIG_DFL);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static enum answer ask(struct loop *l, const char *question)
{
        char line[64];
        size_t len;

        fprintf(stderr, "%s [y]es / [n]o / [a]ll / [q]uit > ", question);
        fflush(stderr);
        allow_interrupt();
        if (!fgets(line, sizeof(line), l->tty))
                return ANSWER_QUIT; /* end of input */
        len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0)
                return ANSWER_YES;
        if (strcasecmp(line, "a") == 0 || strcasecmp(line, "all") == 0)
                return ANSWER_ALL;
        if (strcasecmp(line, "q") == 0 || strcasecmp(line, "quit") == 0)
                return ANSWER_QUIT;
        return ANSWER_NO;
}

static bool listed(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

/* A path the user must always be asked about, even after "all". */
static bool risky(const struct profile_proposal *p, const char *path)
{
        for (size_t i = 0; i < p->n_flagged; i++)
                if (p->flagged[i].reason == PROFILE_FLAG_FOREIGN_HOME_SHIELD &&
                    p->flagged[i].path && strcmp(p->flagged[i].path, path) == 0)
                        return true;
        return false;
}

static int decide(struct loop *l, const struct profile_proposal *p, bool write, const char *path)
{
        char ***acc = write ? &l->writes : &l->reads;
        size_t *n_acc = write ? &l->n_writes : &l->n_reads;
        char ***dec = write ? &l->declined_writes : &l->declined_reads;
        size_t *n_dec = write ? &l->n_declined_writes : &l->n_declined_reads;
        cleanup_free char *q = NULL;
        enum answer a = ANSWER_YES;

        if (!l->all || risky(p, path)) {
                if (asprintf(&q, "[bento]   grant %s %s?", write ? "write" : "read", path) < 0)
                        return -ENOMEM;
                a = ask(l, q);
        }
        if (a == ANSWER_QUIT) {
                l->quit = true;
                return 0;
        }
        l->all |= a == ANSWER_ALL;
        return bento_strv_append(a == ANSWER_NO ? dec : acc, a == ANSWER_NO ? n_dec : n_acc, path);
}

static bool is_new(const struct loop *l, bool write, const char *path)
{
        if (write)
                return !listed(l->writes, l->n_writes, path) &&
                       !listed(l->declined_writes, l->n_declined_writes, path);
        return !listed(l->reads, l->n_reads, path) &&
               !listed(l->declined_reads, l->n_declined_reads, path);
}

static size_t count_new(const struct loop *l, const struct manifest *m)
{
        size_t n = 0;

        for (size_t i = 0; i < m->n_read; i++)
                n += is_new(l, false, m->read[i]);
        for (size_t i = 0; i < m->n_write; i++)
                n += is_new(l, true, m->write[i]);
        return n;
}

static int ask_exec(struct loop *l, int round)
{
        enum answer a;

        fprintf(stderr, "[bento] round %d: the target spawned a subprocess.\n", round);
        a = l->all ? ANSWER_YES
                   : ask(l, "[bento]   grant exec (let the target spawn subprocesses)?");
        l->quit = a == ANSWER_QUIT;
        l->all |= a == ANSWER_ALL;
        l->exec = a == ANSWER_YES || a == ANSWER_ALL;
        return 0;
}

/* The questions of one round; returns how many paths were new. */
static int ask_round(struct loop *l, const struct profile_step *s, int round, size_t *n_new)
{
        const struct manifest *m = s->prop.m;
        int r = 0;

        if (s->obs.execed && l->exec < 0)
                r = ask_exec(l, round);
        *n_new = count_new(l, m);
        if (*n_new == 0 || l->quit)
                return r;
        fprintf(stderr, "[bento] round %d: the target attempted %zu new path(s):\n", round, *n_new);
        for (size_t i = 0; r >= 0 && !l->quit && i < m->n_read; i++)
                if (is_new(l, false, m->read[i]))
                        r = decide(l, &s->prop, false, m->read[i]);
        for (size_t i = 0; r >= 0 && !l->quit && i < m->n_write; i++)
                if (is_new(l, true, m->write[i]))
                        r = decide(l, &s->prop, true, m->write[i]);
        return r;
}

static int replace_strv(char ***v, size_t *n, char *const *src, size_t n_src)
{
        cleanup_strv char **nv = calloc(1, sizeof(char *));
        size_t nn = 0;

        if (!nv)
                return -ENOMEM;
        for (size_t i = 0; i < n_src; i++)
                if (bento_strv_append(&nv, &nn, src[i]) < 0)
                        return -ENOMEM;
        strv_free(*v);
        *v = TAKE_PTR(nv);
        *n = nn;
        return 0;
}

/* The last round's proposal with exactly what was accepted. */
static int final_proposal(struct loop *l, struct profile_step *s)
{
        struct manifest *m = s->prop.m;

        m->exec = l->exec == 1 ? MANIFEST_EXEC_ALL : MANIFEST_EXEC_NONE;
        if (replace_strv(&m->read, &m->n_read, l->reads, l->n_reads) < 0 ||
            replace_strv(&m->write, &m->n_write, l->writes, l->n_writes) < 0)
                return -ENOMEM;
        return 0;
}

static int rounds(struct loop *l, struct profile_step *last, const char **reason,
                  struct bento_err *err)
{
        for (int round = 1;; round++) {
                size_t n_new = 0;
                int r;

                profile_step_done(last);
                r = profile_step_run(l->c,
                                     &(struct profile_grants){.read = l->reads,
                                                              .write = l->writes,
                                                              .n_read = l->n_reads,
                                                              .n_write = l->n_writes},
                                     true, last, err);
                if (r >= 0)
                        r = ask_round(l, last, round, &n_new);
                if (r < 0)
                        return r;
                if (l->quit) {
                        *reason = "you quit before it converged";
                        return 0;
                }
                if (n_new == 0) {
                        fprintf(stderr, "[bento] round %d: no new attempted paths - converged.\n",
                                round);
                        return 0;
                }
                if (round == PROFILE_ROUND_CAP) {
                        fprintf(stderr,
                                "[bento] stopped after %d rounds without converging - the "
                                "proposal holds what was accepted so far.\n",
                                PROFILE_ROUND_CAP);
                        *reason = "it hit the round cap without converging";
                        return 0;
                }
        }
}

/* docs/cli/bento-profile.md, "INTERACTIVE": the --allow-network confirmation. */
static bool confirm_network(struct loop *l)
{
        char line[16];

        fputs("[bento] WARNING: --allow-network forwards the target's connections to the real "
              "network\n[bento] WARNING: while the content of every path you grant is mounted "
              "in the sandbox.\n[bento] Continue with network forwarding? [y/N] > ",
              stderr);
        fflush(stderr);
        allow_interrupt();
        if (!fgets(line, sizeof(line), l->tty))
                return false;
        line[strcspn(line, "\r\n")] = '\0';
        return strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
}

/* A resumed grant that reaches another home's shielded paths is asked about like a new
 * one, even after "all" (it is what the foreign-home-shield flag always asks about).
 * Returns whether to mount it; anything but yes or all keeps it out, and the decline
 * holds for the rounds and the file written. */
static bool resume_ask(struct loop *l, bool write, const char *path)
{
        cleanup_free char *q = NULL;
        enum answer a;

        if (asprintf(&q,
                     "[bento]   resume: %s reaches shielded paths in a home that is "
                     "not yours; grant %s %s?",
                     path, write ? "write" : "read", path) < 0)
                return false;
        a = ask(l, q);
        return a == ANSWER_YES || a == ANSWER_ALL;
}

/* The existing manifest's grants of one kind, absolute (against the manifest's directory
 * and home); unexpandable ones are left out. */
static int resume_expand(const struct profile_ctx *c, const char *base, bool write, char ***ret,
                         size_t *n_ret)
{
        char *const *v = write ? c->existing->write : c->existing->read;
        size_t n = write ? c->existing->n_write : c->existing->n_read;

        for (size_t i = 0; i < n; i++) {
                cleanup_free char *abs = NULL;
                struct bento_err ignored = {0};

                if (policy_expand(v[i], base, c->home, &abs, &ignored) < 0)
                        continue;
                if (bento_strv_append(ret, n_ret, abs) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int resume_kind(struct loop *l, const char *base, bool write)
{
        struct profile_ctx *c = l->c;
        struct profile_context pc;
        cleanup_strv char **abs = NULL;
        cleanup_free bool *foreign = NULL;
        struct bento_err err = {0};
        size_t n = 0;

        if (resume_expand(c, base, write, &abs, &n) < 0)
                return -ENOMEM;
        foreign = calloc(n ? n : 1, sizeof(*foreign));
        if (!foreign)
                return -ENOMEM;
        profile_context_of(c, &pc);
        if (profile_foreign_shield_check(&pc, abs, n, foreign, &err) < 0)
                return -err.code;
        for (size_t i = 0; i < n; i++) {
                char ***acc = write ? &l->writes : &l->reads;
                size_t *n_acc = write ? &l->n_writes : &l->n_reads;
                char ***dec = write ? &l->declined_writes : &l->declined_reads;
                size_t *n_dec = write ? &l->n_declined_writes : &l->n_declined_reads;
                bool take = !foreign[i] || resume_ask(l, write, abs[i]);

                if (take)
                        fprintf(stderr, "[bento] resuming from %s: mounting approved %s %s\n",
                                c->out, write ? "write" : "read", abs[i]);
                if (bento_strv_append(take ? acc : dec, take ? n_acc : n_dec, abs[i]) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Resume (docs/cli/bento-profile.md, "INTERACTIVE"): an --out this host approved, for this
 * script, has its grants mounted from round 1 without asking (those reaching another
 * home's shields are asked about), and its exec: all accepted.  Anything else mounts
 * nothing. */
static int loop_resume(struct loop *l)
{
        struct profile_ctx *c = l->c;
        cleanup_free char *base = c->existing ? path_absolute(c->out) : NULL;
        struct approval_status st;
        char *slash;
        int r;

        if (!c->existing)
                return 0;
        if (!base)
                return -ENOMEM;
        if (approval_check(c->existing, NULL, &st) != MANIFEST_APPROVAL_CURRENT) {
                fprintf(stderr,
                        "[bento] %s is not approved, so its grants are not mounted; "
                        "each path is asked about.\n",
                        c->out);
                return 0;
        }
        slash = strrchr(base, '/');
        *(slash == base ? slash + 1 : slash) = '\0';
        r = resume_kind(l, base, false);
        if (r >= 0)
                r = resume_kind(l, base, true);
        if (r >= 0 && c->existing->exec == MANIFEST_EXEC_ALL)
                l->exec = 1;
        return r;
}

int profile_converge(struct profile_ctx *c)
{
        struct loop l = {.c = c, .exec = -1};
        struct profile_step last = {0};
        struct bento_err err = {0};
        const char *reason = NULL;
        int r = 0;

        l.tty = fopen("/dev/tty", "re");
        if (!l.tty)
                l.tty = stdin;
        if (c->o->allow_network && !confirm_network(&l)) {
                loop_done(&l);
                return profile_refuse(c->o, "aborted: re-run without --allow-network to "
                                            "record connections instead of forwarding them");
        }
        r = loop_resume(&l);
        if (r < 0)
                r = bento_err_set(&err, -r, "resuming from %s", c->out);
        fprintf(stderr,
                "[bento] profiling %s under default-deny; real content is mounted only for the "
                "script's own directory and the paths you accept, and the target's stdin is "
                "empty.\n",
                c->script);
        if (r >= 0)
                r = rounds(&l, &last, &reason, &err);
        if (r >= 0)
                r = final_proposal(&l, &last) < 0 ? bento_err_set(&err, ENOMEM, "profile") : 0;
        if (r >= 0) {
                struct profile_declined d = {.reads = l.declined_reads,
                                             .n_reads = l.n_declined_reads,
                                             .writes = l.declined_writes,
                                             .n_writes = l.n_declined_writes,
                                             .exec = l.exec == 0};

                r = profile_write_result(c, &last, &d, reason);
        } else {
                r = profile_refuse(c->o, err.msg);
        }
        profile_step_done(&last);
        loop_done(&l);
        return r;
}
