/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json "linux": every namespace fresh, the network one included
 * (with no rules it stays empty; with rules the egress hook opens exactly
 * them), the caller's uid and gid mapped to themselves, the limits as
 * cgroup resources, and the seccomp filter of the exec mode (§4.7 and
 * design.md "Exec block").
 *
 * Exec block: execve and execveat go to a seccomp user-notification
 * listener (bento-exec-gate) that lets exactly one through, the runtime's
 * own exec of the target, and refuses every later one.  A runtime that
 * finds nobody listening refuses to start the container, and a gate that
 * goes away makes the kernel fail the calls: the block fails closed.
 * Syscalls of a foreign architecture (i386, x32) are the only thing that
 * kills: the filter lists x86_64 alone, and the bad-architecture action
 * of every runtime is a kill.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile-internal.h"
#include "path.h"

#define CPU_PERIOD_US    100000
#define CPU_MIN_QUOTA_US 1000 /* the kernel refuses a smaller quota */
#define CLONE_THREAD_BIT 0x10000
#define ERRNO_EPERM      1
#define ERRNO_ENOSYS     38

static void write_namespaces(struct bento_jsonw *w)
{
        static const char *const types[] = {"pid",   "network", "ipc", "uts",
                                            "mount", "cgroup",  "user"};

        bento_jsonw_key(w, "namespaces");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "type", types[i]);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void write_map(struct bento_jsonw *w, const char *key, unsigned long id)
{
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "containerID", id);
        bento_jsonw_kuint(w, "hostID", id);
        bento_jsonw_kuint(w, "size", 1);
        bento_jsonw_close_object(w);
        bento_jsonw_close_array(w);
}

/* §1.6: memory with swap equal to it (no swap), cpu as a quota per 100 ms,
 * pids.  Absent limits are not written at all. */
static void write_resources(struct bento_jsonw *w, const struct manifest_limits *l)
{
        if (!l->memory_bytes && !l->cpu_hundredths && !l->has_pids)
                return;
        bento_jsonw_key(w, "resources");
        bento_jsonw_open_object(w);
        if (l->memory_bytes) {
                bento_jsonw_key(w, "memory");
                bento_jsonw_open_object(w);
                bento_jsonw_kuint(w, "limit", l->memory_bytes);
                bento_jsonw_kuint(w, "swap", l->memory_bytes);
                bento_jsonw_close_object(w);
        }
        if (l->cpu_hundredths) {
                /* percent x 100 -> microseconds per 100 ms period. */
                uint64_t quota = l->cpu_hundredths * (CPU_PERIOD_US / 10000);

                bento_jsonw_key(w, "cpu");
                bento_jsonw_open_object(w);
                bento_jsonw_kuint(w, "quota", quota < CPU_MIN_QUOTA_US ? CPU_MIN_QUOTA_US : quota);
                bento_jsonw_kuint(w, "period", CPU_PERIOD_US);
                bento_jsonw_close_object(w);
        }
        if (l->has_pids) {
                bento_jsonw_key(w, "pids");
                bento_jsonw_open_object(w);
                bento_jsonw_kint(w, "limit", l->pids);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_object(w);
}

static void write_rule(struct bento_jsonw *w, const char *const *names, const char *action,
                       int errno_ret)
{
        bento_jsonw_open_object(w);
        bento_jsonw_key(w, "names");
        bento_jsonw_open_array(w);
        for (; *names; names++)
                bento_jsonw_string(w, *names);
        bento_jsonw_close_array(w);
        bento_jsonw_kstring(w, "action", action);
        if (errno_ret)
                bento_jsonw_kuint(w, "errnoRet", (unsigned) errno_ret);
        bento_jsonw_close_object(w);
}

/* clone without CLONE_THREAD: (flags & CLONE_THREAD) == 0 -> EPERM. */
static void write_clone_rule(struct bento_jsonw *w)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kstrv(w, "names", (char *const[]){"clone"}, 1);
        bento_jsonw_kstring(w, "action", "SCMP_ACT_ERRNO");
        bento_jsonw_kuint(w, "errnoRet", ERRNO_EPERM);
        bento_jsonw_key(w, "args");
        bento_jsonw_open_array(w);
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "index", 0);
        bento_jsonw_kuint(w, "value", CLONE_THREAD_BIT);
        bento_jsonw_kuint(w, "valueTwo", 0);
        bento_jsonw_kstring(w, "op", "SCMP_CMP_MASKED_EQ");
        bento_jsonw_close_object(w);
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
}

static void write_seccomp(struct bento_jsonw *w, const struct policy *p, const char *listener,
                          bool gate)
{
        enum manifest_exec mode = p->m->exec;

        bento_jsonw_key(w, "seccomp");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "defaultAction", "SCMP_ACT_ALLOW");
        bento_jsonw_kstrv(w, "architectures", (char *const[]){"SCMP_ARCH_X86_64"}, 1);
        if (mode != MANIFEST_EXEC_ALL && gate) {
                bento_jsonw_kstring(w, "listenerPath", listener);
                bento_jsonw_kstring(w, "listenerMetadata", "bento-exec-gate/1");
        }
        bento_jsonw_key(w, "syscalls");
        bento_jsonw_open_array(w);
        if (mode != MANIFEST_EXEC_ALL && gate)
                write_rule(w, (const char *const[]){"execve", "execveat", NULL}, "SCMP_ACT_NOTIFY",
                           0);
        if (mode == MANIFEST_EXEC_NONE_STRICT) {
                write_rule(w, (const char *const[]){"fork", "vfork", NULL}, "SCMP_ACT_ERRNO",
                           ERRNO_EPERM);
                write_clone_rule(w);
                /* glibc falls back to clone(2) on ENOSYS, which the rule above
                 * can inspect; clone3's flags live in memory it cannot. */
                write_rule(w, (const char *const[]){"clone3", NULL}, "SCMP_ACT_ERRNO",
                           ERRNO_ENOSYS);
        }
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
}

static void write_paths(struct bento_jsonw *w)
{
        static char *const masked[] = {"/proc/acpi", "/proc/asound",        "/proc/kcore",
                                       "/proc/keys", "/proc/latency_stats", "/proc/sched_debug",
                                       "/proc/scsi", "/proc/timer_list",    "/proc/timer_stats"};
        static char *const readonly[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                         "/proc/sysrq-trigger"};

        bento_jsonw_kstrv(w, "maskedPaths", masked, sizeof(masked) / sizeof(masked[0]));
        bento_jsonw_kstrv(w, "readonlyPaths", readonly, sizeof(readonly) / sizeof(readonly[0]));
}

void compile_write_linux(struct bento_jsonw *w, const struct policy *p,
                         const struct compile_opts *o)
{
        cleanup_free char *own = NULL;
        const char *listener = o->listener_path;

        if (!listener) {
                own = path_join(o->bundle_dir, COMPILE_GATE_SOCKET);
                if (!own) {
                        bento_jsonw_fail(w, -ENOMEM, "seccomp");
                        return;
                }
                listener = own;
        }
        bento_jsonw_key(w, "linux");
        bento_jsonw_open_object(w);
        write_namespaces(w);
        write_map(w, "uidMappings", getuid());
        write_map(w, "gidMappings", getgid());
        write_resources(w, o->limits ? o->limits : &p->m->limits);
        bento_jsonw_kstring_opt(w, "cgroupsPath", o->cgroups_path);
        write_seccomp(w, p, listener, !o->no_exec_gate);
        write_paths(w);
        bento_jsonw_close_object(w);
}
