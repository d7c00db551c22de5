/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json "linux": every namespace fresh, the network one included
 * (with no rules it stays empty; with rules the egress hook opens exactly
 * them), the caller's uid and gid mapped to themselves, the limits as
 * cgroup resources, the seccomp filter (seccomp.c), and the
 * masked and read-only /proc paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"
#include "manifest/path.h"

#define CPU_PERIOD_US    100000
#define CPU_MIN_QUOTA_US 1000 /* the kernel refuses a smaller quota */

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

/* docs/manifest.md, "LIMITS": memory with swap equal to it (no swap), cpu as a quota per 100 ms,
 * pids.  Absent limits are not written at all. */
bool compile_caps_anything(const struct manifest_limits *l)
{
        return l->memory_bytes || l->cpu_hundredths || l->has_pids;
}

static void write_resources(struct bento_jsonw *w, const struct manifest_limits *l)
{
        if (!compile_caps_anything(l))
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
        compile_write_seccomp(w, p, listener, !o->no_exec_gate, o->record_exec,
                              compile_has_init(p, o));
        write_paths(w);
        bento_jsonw_close_object(w);
}
