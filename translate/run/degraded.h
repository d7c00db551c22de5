/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Landlock-only tier, bento's side (degraded.c; docs/degraded.md):
 * what the tier refuses on top of the full one, the sets the launcher
 * (launch.h) confines the target to, its start in a process group of its
 * own with a private scratch directory as HOME and TMPDIR, the wait, the
 * group killed at the end, and what the launcher said it applied.
 */
#ifndef BENTO_RUN_DEGRADED_H
#define BENTO_RUN_DEGRADED_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "policy/policy.h"
#include "run.h"

/* A shield a full run would have engaged that this tier leaves reachable. */
struct run_exposed {
        const struct shield_rule *rule; /* points into the policy's shield set */
        const char *why;                /* static */
};

struct run_degraded {
        char *scratch;           /* <run dir>/scratch, 0700: HOME (by default), TMPDIR, TMP, TEMP */
        const char *gate_socket; /* the exec gate's socket (set by the caller; borrowed) */
        const struct run_claim *claim; /* the run directory's (run_degraded_env; borrowed) */
        int hold_fd;                   /* the claim's read-only copy the target keeps */
        char hold_arg[16];
        int landlock_abi;
        bool started; /* the launcher reached execve() with every layer on */
        /* The hidden shields below a read path that the launcher kept out of
         * its ruleset by granting their siblings (docs/degraded.md). */
        const struct shield_rule **hidden;
        bool *kept; /* per hidden: the launcher found it and gave it no rule */
        size_t n_hidden;
        struct run_exposed *exposed;
        size_t n_exposed;
};

/* docs/degraded.md: a write grant that holds a write shield (the full tier
 * remounts it read-only; this tier has no mounts).  Heap sentence, or NULL
 * when nothing refuses. */
char *run_degraded_refusal(const struct policy *p);

/* The target's environment for this tier: env (compile_env()'s) with HOME
 * moved to the scratch directory unless the manifest passes HOME through,
 * and TMPDIR, TMP and TEMP set to it.  Makes the scratch directory. */
int run_degraded_env(struct run_degraded *dg, const struct run_dir *d, const struct policy *p,
                     const struct run_opts *o, char ***env, struct bento_err *err);

/* gate: spawned by the caller when exec is blocked, on dg->gate_socket.
 * Launch, wait, kill the group, read what the launcher applied. */
int run_degraded(struct run_degraded *dg, const struct policy *p, struct run_gate *gate,
                 const struct run_stdio *io, char **env, struct run_outcome *out,
                 struct bento_err *err);

/* The shields this run left reachable, with the launcher's account
 * (after run_degraded()). */
int run_degraded_exposure(struct run_degraded *dg, const struct policy *p, struct bento_err *err);

void run_degraded_done(struct run_degraded *dg);

#endif
