/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the session's files share: the checked inputs of one `bento profile` (session.c),
 * the single pass (session-pass.c), the converge loop (session-loop.c) and the writing of
 * the result (session-write.c).
 */
#ifndef BENTO_PROFILE_SESSION_INTERNAL_H
#define BENTO_PROFILE_SESSION_INTERNAL_H

#include "profile.h"
#include "session.h"

struct profile_ctx {
        const struct profile_opts *o;
        char *script;    /* absolute, clean */
        const char *out; /* --out, or out_owned */
        char *out_owned;
        const char *home;          /* $HOME when absolute and not "/", else NULL */
        struct manifest *existing; /* the manifest at --out, or NULL */
        struct profile_interp interp;
        char **env_names; /* the discovery names set on this host */
        size_t n_env_names;
};

void profile_ctx_done(struct profile_ctx *c);

/* A refusal in the output mode asked for; returns 125. */
int profile_refuse(const struct profile_opts *o, const char *reason);

/* What the proposal is computed against, from c. */
void profile_context_of(const struct profile_ctx *c, struct profile_context *pc);

/* One round from the discovery manifest with extra grants to its proposal: run, parse,
 * propose.  A refusal (-EPERM) or failure leaves err set. */
struct profile_step {
        struct profile_round round;
        struct profile_observation obs;
        struct profile_proposal prop;
};

/* Grants added to the discovery policy (the loop's accepted paths, the retry's directories). */
struct profile_grants {
        char *const *read, *const *write;
        size_t n_read, n_write;
};

int profile_step_run(const struct profile_ctx *c, const struct profile_grants *extra,
                     bool interactive, struct profile_step *ret, struct bento_err *err);
void profile_step_done(struct profile_step *s);

/* The proposal p merged with --out (declined may be NULL), finished and written, the lines
 * and --json document printed.  Returns the exit status. */
int profile_write_result(const struct profile_ctx *c, struct profile_step *s,
                         const struct profile_declined *declined, const char *incomplete_reason);

int profile_single_pass(struct profile_ctx *c);
int profile_converge(struct profile_ctx *c);

#endif
