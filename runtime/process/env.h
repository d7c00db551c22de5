/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What runc and crun do for the container's process beyond what
 * config.json spells out, done the same way here (env.c):
 *
 *   rt_listen_fds()          in the runtime: systemd socket activation
 *                            (LISTEN_FDS in our own environment) passes
 *                            that many more descriptors after the
 *                            --preserve-fds ones.
 *   rt_process_make_cwd()    in the init, after pivot_root and before the
 *                            root is made read-only: a missing
 *                            process.cwd is created (0755, as root).
 *   rt_process_inside()      in the init and in an `exec` process, inside
 *                            the container's root, before the identity
 *                            switch and before any seccomp filter: HOME
 *                            from the container's /etc/passwd when the
 *                            environment lacks it, LISTEN_FDS/LISTEN_PID
 *                            for the init, and the standard streams that
 *                            are pipes handed to process.user.uid.
 */
#ifndef RT_PROCESS_ENV_H
#define RT_PROCESS_ENV_H

#include "err.h"
#include "oci-config.h"

/* Largest LISTEN_FDS honoured (more fails nothing: it is ignored). */
#define RT_LISTEN_FDS_MAX 1024

/* LISTEN_FDS of our environment when it is for us (LISTEN_PID unset, as
 * crun accepts, or our pid, as runc requires) and a number from 1 to
 * RT_LISTEN_FDS_MAX, else 0.  *ret_open: how many of those descriptors,
 * counted from 3 + preserve_fds, are open (the first closed one ends
 * them); they go to the container after the --preserve-fds ones. */
int rt_listen_fds(int preserve_fds, int *ret_open);

/* Create proc->cwd inside "/" (the container's root after pivot_root)
 * without leaving it.  Failures are left for the chdir to report, with
 * the same message as before; an existing file stays a file. */
void rt_process_make_cwd(const struct oci_process *proc);

/* listen_fds: rt_listen_fds() of the runtime for the init, 0 for `exec`
 * (neither runc nor crun hands sockets to an exec process).  Changes
 * proc->env (kept NULL-terminated); fails only for lack of memory or an
 * unexpected fchown error. */
int rt_process_inside(struct oci_process *proc, int listen_fds, struct bento_err *err);

#endif
