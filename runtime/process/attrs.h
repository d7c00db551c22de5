/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Process attributes of runtime-spec 1.2 that live through execve():
 * process.scheduler (sched_setattr), process.ioPriority (ioprio_set),
 * process.execCPUAffinity (sched_setaffinity; `exec` processes only, as
 * runtime-spec says), linux.personality (personality), linux.memoryPolicy
 * (set_mempolicy), and the LSM exec labels process.apparmorProfile and
 * process.selinuxLabel (lsm.h).
 *
 *   rt_process_attrs_prepare()  in `create` and `exec`, before anything is
 *                               made: refuses what this kernel cannot do
 *                               (SCHED_ISO, SCHED_DEADLINE parameters it
 *                               would refuse, node lists a mode cannot take)
 *                               with the JSON path; a label of an LSM that
 *                               is not enabled on this host is dropped from
 *                               the model with a warning that names it.
 *   rt_exec_affinity_initial()  `exec`, in the intermediate, before the
 *                               process is moved into the container's cgroup.
 *   rt_process_attrs_apply()    in the container init or the exec process,
 *                               after the cgroup is joined and BEFORE the
 *                               seccomp filter (a profile may well forbid
 *                               these calls) and the identity switch (some
 *                               need CAP_SYS_NICE or CAP_SYS_ADMIN): the
 *                               final affinity, personality, memory policy,
 *                               I/O priority, scheduler, then the exec label.
 */
#ifndef RT_PROCESS_ATTRS_H
#define RT_PROCESS_ATTRS_H

#include <stdbool.h>

#include "err.h"
#include "oci-config.h"

/* lnx: the container's linux section (personality, memoryPolicy, and for
 * `create` mountLabel); exec: proc is an `exec` process. */
int rt_process_attrs_prepare(struct oci_process *proc, struct oci_linux *lnx, bool exec,
                             struct bento_err *err);

int rt_exec_affinity_initial(const struct oci_process *proc, struct bento_err *err);

int rt_process_attrs_apply(const struct oci_process *proc, const struct oci_linux *lnx, bool exec,
                           struct bento_err *err);

#endif
