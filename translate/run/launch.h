/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The launcher of the Landlock-only tier (docs/degraded.md): the hidden verb
 *
 *   bento __launch-degraded --exec MODE --applied-fd N [--hold-fd N] [--gate SOCKET]
 *         [--cwd DIR] [--ro PATH]... [--rw PATH]... [--hide PATH]... -- TARGET...
 *
 * that `bento run --allow-degraded` starts (degraded.c) when admission put
 * the run on that tier.  It runs in the caller's namespaces, in a process
 * group of its own, with the target's environment already made, and
 * confines itself before it becomes the target (launch.c): inherited
 * descriptors closed on exec (all but the run's claim, read-only,
 * --hold-fd), the standard descriptors screened, no new privileges, not
 * dumpable, Landlock (launch-landlock.c), the seccomp fences
 * (launch-filter.c), the exec block through bento-exec-gate, and then
 * execve().  Any step that fails refuses the run: nothing is started
 * under a weaker confinement than the one reported.
 *
 * What it tells bento, one line each on the applied descriptor (closed by
 * the exec, so bento reads to end of file):
 *
 *   landlock ABI        the ruleset is enforced
 *   hidden N            --hide number N (from 0) exists and got no rule
 *   ok                  every layer is on; execve() comes next
 *   refused REASON      a layer could not be applied; exit 125
 *   unreached REASON    every layer was on, but the target could not be
 *                       started; exit 125
 *
 * Arguments are bento's own data, never a user's.
 */
#ifndef BENTO_RUN_LAUNCH_H
#define BENTO_RUN_LAUNCH_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest/manifest.h"

#define LAUNCH_VERB      "__launch-degraded"
#define LAUNCH_PATHS_MAX 4096

struct launch {
        enum manifest_exec exec;
        int applied_fd;
        int hold_fd;      /* the run's claim, read-only (claim.h), or -1: the target keeps it */
        const char *gate; /* the exec gate's socket, NULL under exec: all */
        const char *cwd;
        const char *ro[LAUNCH_PATHS_MAX], *rw[LAUNCH_PATHS_MAX], *hide[LAUNCH_PATHS_MAX];
        size_t n_ro, n_rw, n_hide;
        bool kept[LAUNCH_PATHS_MAX]; /* hide[i] was left out of the ruleset (it exists) */
        char **target;               /* NULL-terminated, target[0] absolute */
};

/* The verb: never returns on success (it is the target then). */
int launch_main(int argc, char **argv);

/* Build and enforce the ruleset (sets no_new_privs first); the ABI, or
 * -errno with err set. */
int launch_landlock(struct launch *l, struct bento_err *err);

/* A classic BPF program, built by the two functions below (apart from
 * installing it, so that the unit tests can run it on made-up calls). */
#define LAUNCH_FILTER_MAX 256
struct launch_prog {
        struct sock_filter f[LAUNCH_FILTER_MAX];
        unsigned n;
        bool overflow; /* more than LAUNCH_FILTER_MAX instructions: never loaded */
};

void launch_fences_program(bool strict, struct launch_prog *p);
void launch_exec_gate_program(struct launch_prog *p);

/* The egress, cross-process, terminal and privilege-bit fences, plus the
 * none-strict process rules when strict. */
int launch_install_fences(bool strict, struct bento_err *err);

/* The exec filter; returns its user-notification listener. */
int launch_install_exec_gate(struct bento_err *err);

#endif
