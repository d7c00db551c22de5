/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scheduler, I/O priority, CPU affinity, personality, NUMA memory policy
 * and LSM exec labels (see attrs.h).  Each attribute is one small
 * check and one small apply function; the model has already refused names
 * runtime-spec does not define, so what is checked here is what this
 * kernel can do.  Kernel refusals are reported with the JSON path and the
 * likely reason.
 */
#include "attrs.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "idlist.h"
#include "base/log.h"
#include "lsm.h"

/* uapi values (linux/sched.h, linux/sched/types.h, linux/ioprio.h,
 * linux/mempolicy.h), so the build does not depend on header versions */
#define POLICY_FIFO           1
#define POLICY_RR             2
#define POLICY_ISO            4
#define POLICY_DEADLINE       6
#define SCHED_FLAG_UTIL_CLAMP (0x20 | 0x40)
#define SCHED_ATTR_SIZE_VER0  48
#define SCHED_ATTR_SIZE_VER1  56
#define DL_RUNTIME_MIN        1024ull
#define DL_RUNTIME_MAX        (1ull << 63)
#define IOPRIO_WHO_PROCESS    1
#define IOPRIO_CLASS_SHIFT    13
#define MPOL_DEFAULT          0
#define MPOL_PREFERRED        1
#define MPOL_LOCAL            4

struct sched_attr_v1 {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;
        uint32_t sched_util_max;
};

/* ---- checks, in `create` and `exec` ---------------------------------------- */

/* The parameters sched_setattr() refuses for SCHED_DEADLINE, named before
 * the container exists (wording as crun's, which tools match on). */
static int check_deadline(const struct oci_scheduler *s, struct bento_err *err)
{
        const char *pre = "process.scheduler: sched_setattr: `SCHED_DEADLINE`";

        if (!s->has_runtime)
                return bento_err_setx(err, EINVAL, "%s requires `runtime`", pre);
        if (!s->has_deadline)
                return bento_err_setx(err, EINVAL, "%s requires `deadline`", pre);
        if (s->runtime == 0)
                return bento_err_setx(err, EINVAL, "%s runtime must be greater than 0", pre);
        if (s->runtime < DL_RUNTIME_MIN || s->runtime > DL_RUNTIME_MAX)
                return bento_err_setx(err, EINVAL,
                                      "%s runtime (%" PRIu64 ") must be between %llu and %llu "
                                      "nanoseconds",
                                      pre, s->runtime, DL_RUNTIME_MIN, DL_RUNTIME_MAX);
        if (s->runtime > s->deadline)
                return bento_err_setx(err, EINVAL,
                                      "%s runtime (%" PRIu64 ") must be <= deadline (%" PRIu64 ")",
                                      pre, s->runtime, s->deadline);
        if (s->period && s->deadline > s->period)
                return bento_err_setx(err, EINVAL,
                                      "%s deadline (%" PRIu64 ") must be <= period (%" PRIu64 ")",
                                      pre, s->deadline, s->period);
        return 0;
}

static int check_scheduler(const struct oci_scheduler *s, struct bento_err *err)
{
        bool realtime;

        if (!s)
                return 0;
        realtime = s->policy == POLICY_FIFO || s->policy == POLICY_RR;
        if (s->policy == POLICY_ISO)
                return bento_err_setx(err, ENOTSUP,
                                      "process.scheduler.policy: SCHED_ISO is reserved but "
                                      "not implemented by the Linux kernel");
        if (s->policy == POLICY_DEADLINE)
                return check_deadline(s, err);
        if (realtime && (s->priority < 1 || s->priority > 99))
                return bento_err_setx(err, EINVAL,
                                      "process.scheduler.priority: %s needs a priority between 1 "
                                      "and 99, got %" PRId32,
                                      oci_name_of(oci_sched_policies, s->policy), s->priority);
        if (!realtime && s->priority != 0)
                return bento_err_setx(err, EINVAL,
                                      "process.scheduler.priority: only SCHED_FIFO and SCHED_RR "
                                      "take a priority; %s needs 0, got %" PRId32,
                                      oci_name_of(oci_sched_policies, s->policy), s->priority);
        return 0;
}

static bool list_empty(const char *list)
{
        return !list || !list[0];
}

static int check_memory_policy(const struct oci_memory_policy *m, struct bento_err *err)
{
        const char *mode;
        bool no_nodes;

        if (!m)
                return 0;
        mode = oci_name_of(oci_mempolicy_modes, m->mode);
        no_nodes = m->mode == MPOL_DEFAULT || m->mode == MPOL_LOCAL;
        /* MPOL_PREFERRED alone may go either way: no nodes means "local" */
        if (no_nodes && !list_empty(m->nodes))
                return bento_err_setx(err, EINVAL,
                                      "linux.memoryPolicy.nodes: %s takes no nodes, got \"%.64s\"",
                                      mode, m->nodes);
        if (!no_nodes && m->mode != MPOL_PREFERRED && list_empty(m->nodes))
                return bento_err_setx(err, EINVAL,
                                      "linux.memoryPolicy.nodes: %s needs at least one node", mode);
        return 0;
}

/* A label for an LSM this host does not run cannot be applied; runc and
 * crun then run without it, and so do we, but say so. */
static void settle_label(char **label, enum rt_lsm lsm, const char *what)
{
        if (!*label)
                return;
        if (!(*label)[0] || !rt_lsm_enabled(lsm, "")) {
                if ((*label)[0])
                        rt_log_warning("%s \"%.200s\" ignored: %s is not enabled on this host (%s)",
                                       what, *label, rt_lsm_name(lsm), rt_lsm_disabled_reason(lsm));
                free(*label);
                *label = NULL;
        }
}

int rt_process_attrs_prepare(struct oci_process *proc, struct oci_linux *lnx, bool exec,
                             struct bento_err *err)
{
        int r;

        r = check_scheduler(proc->scheduler, err);
        if (r >= 0 && lnx)
                r = check_memory_policy(lnx->memory_policy, err);
        if (r < 0)
                return r;
        settle_label(&proc->apparmor_profile, RT_LSM_APPARMOR, "process.apparmorProfile");
        settle_label(&proc->selinux_label, RT_LSM_SELINUX, "process.selinuxLabel");
        /* exec makes no mounts */
        if (!exec && lnx)
                settle_label(&lnx->mount_label, RT_LSM_SELINUX, "linux.mountLabel");
        return 0;
}

/* ---- applying, in the container ---------------------------------------------- */

static int apply_affinity(const char *list, const char *what, struct bento_err *err)
{
        unsigned long want[BENTO_IDLIST_WORDS(OCI_MAX_CPUS)], got[BENTO_IDLIST_WORDS(OCI_MAX_CPUS)];

        if (list_empty(list))
                return 0;
        if (bento_idlist_parse(list, want, OCI_MAX_CPUS, NULL) < 0)
                return bento_err_setx(err, EINVAL, "%s: \"%.64s\" is not a CPU list", what, list);
        if (sched_setaffinity(0, sizeof(want), (cpu_set_t *) want) < 0)
                return bento_err_set(err, errno,
                                     "%s: sched_setaffinity(\"%.64s\") (no CPU of the list is "
                                     "online and in the container's cpuset?)",
                                     what, list);
        /* the kernel drops CPUs it cannot use without a word: check */
        memset(got, 0, sizeof(got));
        if (sched_getaffinity(0, sizeof(got), (cpu_set_t *) got) < 0)
                return bento_err_set(err, errno, "%s: sched_getaffinity", what);
        for (size_t i = 0; i < OCI_MAX_CPUS; i++)
                if (bento_idlist_test(want, i) && !bento_idlist_test(got, i))
                        return bento_err_setx(err, EINVAL,
                                              "%s: CPU %zu of \"%.64s\" is not available to the "
                                              "container (offline, or outside its cpuset)",
                                              what, i, list);
        return 0;
}

static int apply_personality(const struct oci_personality *p, struct bento_err *err)
{
        if (p && personality(p->domain) < 0)
                return bento_err_set(err, errno, "linux.personality: personality(%s)",
                                     oci_name_of(oci_personality_domains, p->domain));
        return 0;
}

static int apply_memory_policy(const struct oci_memory_policy *m, struct bento_err *err)
{
        unsigned long nodes[BENTO_IDLIST_WORDS(OCI_MAX_NODES)];
        bool none;

        if (!m)
                return 0;
        none = list_empty(m->nodes);
        if (!none && bento_idlist_parse(m->nodes, nodes, OCI_MAX_NODES, NULL) < 0)
                return bento_err_setx(err, EINVAL, "linux.memoryPolicy.nodes: not a node list");
        if (syscall(SYS_set_mempolicy, (int) (m->mode | m->flags), none ? NULL : nodes,
                    none ? 0ul : OCI_MAX_NODES + 1ul) < 0)
                return bento_err_set(err, errno,
                                     "linux.memoryPolicy: set_mempolicy(%s, nodes \"%.64s\") "
                                     "(a node that is not online, or a mode and flags this "
                                     "kernel does not take together?)",
                                     oci_name_of(oci_mempolicy_modes, m->mode),
                                     none ? "" : m->nodes);
        return 0;
}

static int apply_io_priority(const struct oci_io_priority *io, struct bento_err *err)
{
        int value;

        if (!io)
                return 0;
        value = (int) (io->ioclass << IOPRIO_CLASS_SHIFT) | io->priority;
        if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) < 0)
                return bento_err_set(err, errno,
                                     "process.ioPriority: ioprio_set(%s, %" PRId32 ")%s",
                                     oci_name_of(oci_ioprio_classes, io->ioclass), io->priority,
                                     errno == EPERM ? " (IOPRIO_CLASS_RT needs CAP_SYS_ADMIN or "
                                                      "CAP_SYS_NICE on the host)"
                                                    : "");
        return 0;
}

static const char *sched_hint(const struct oci_scheduler *s, int e)
{
        if (e != EPERM && e != EBUSY)
                return "";
        if (s->policy == POLICY_FIFO || s->policy == POLICY_RR)
                return " (a realtime policy needs CAP_SYS_NICE on the host and, with RT group "
                       "scheduling, a realtime budget in the container's cpu cgroup: "
                       "linux.resources.cpu.realtimeRuntime)";
        if (s->policy == POLICY_DEADLINE)
                return " (SCHED_DEADLINE needs CAP_SYS_NICE on the host, every CPU of the root "
                       "domain in the process's affinity, and free deadline bandwidth)";
        return " (a lower nice value needs CAP_SYS_NICE on the host)";
}

static int apply_scheduler(const struct oci_scheduler *s, struct bento_err *err)
{
        struct sched_attr_v1 a;

        if (!s)
                return 0;
        memset(&a, 0, sizeof(a));
        /* the utilisation clamps are the only fields past the first size */
        a.size = (s->flags & SCHED_FLAG_UTIL_CLAMP) ? SCHED_ATTR_SIZE_VER1 : SCHED_ATTR_SIZE_VER0;
        a.sched_policy = (uint32_t) s->policy;
        a.sched_flags = s->flags;
        a.sched_nice = s->nice;
        a.sched_priority = (uint32_t) s->priority;
        a.sched_runtime = s->runtime;
        a.sched_deadline = s->deadline;
        a.sched_period = s->period;
        /* runtime-spec has no clamp values: a clamp flag sets 0, as crun */
        a.sched_util_min = 0;
        a.sched_util_max = 0;
        if (syscall(SYS_sched_setattr, 0, &a, 0) < 0) {
                int e = errno;
                return bento_err_set(err, e, "process.scheduler: sched_setattr(%s)%s",
                                     oci_name_of(oci_sched_policies, s->policy), sched_hint(s, e));
        }
        return 0;
}

static int apply_labels(const struct oci_process *proc, struct bento_err *err)
{
        int r = 0;

        /* rt_process_attrs_prepare() left a label only when its LSM is on */
        if (proc->apparmor_profile)
                r = rt_lsm_set_exec_label(RT_LSM_APPARMOR, proc->apparmor_profile,
                                          "process.apparmorProfile", err);
        if (r >= 0 && proc->selinux_label)
                r = rt_lsm_set_exec_label(RT_LSM_SELINUX, proc->selinux_label,
                                          "process.selinuxLabel", err);
        return r;
}

int rt_exec_affinity_initial(const struct oci_process *proc, struct bento_err *err)
{
        if (!proc->exec_cpu_affinity)
                return 0;
        return apply_affinity(proc->exec_cpu_affinity->initial, "process.execCPUAffinity.initial",
                              err);
}

int rt_process_attrs_apply(const struct oci_process *proc, const struct oci_linux *lnx, bool exec,
                           struct bento_err *err)
{
        int r = 0;

        /* runtime-spec: execCPUAffinity is not for the container's init.
         * The affinity goes first: SCHED_DEADLINE refuses a later change. */
        if (exec && proc->exec_cpu_affinity)
                r = apply_affinity(proc->exec_cpu_affinity->final, "process.execCPUAffinity.final",
                                   err);
        if (r >= 0 && lnx)
                r = apply_personality(lnx->personality, err);
        if (r >= 0 && lnx)
                r = apply_memory_policy(lnx->memory_policy, err);
        if (r >= 0)
                r = apply_io_priority(proc->io_priority, err);
        if (r >= 0)
                r = apply_scheduler(proc->scheduler, err);
        if (r >= 0)
                r = apply_labels(proc, err);
        return r;
}
