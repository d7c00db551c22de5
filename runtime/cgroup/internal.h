/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the cgroup modules (cgroup.c, layout.c, limits.c,
 * apply.c, devices.c, devices-bpf.c, systemd.c);
 * not for other code.
 *
 * A layout is the set of hierarchies a process can be placed in: one per
 * mounted v1 hierarchy ("memory", "cpu,cpuacct", "name=systemd", ...) plus
 * the unified one ("unified") on hybrid and pure v2 hosts.  Each hierarchy
 * knows where it is mounted, where the caller sits in it, and (once
 * chosen) where the container's cgroup is.  Mount points always come from
 * /proc/self/mountinfo; only the cgroup paths come from a state record, and
 * those are checked to stay below the hierarchy root and never to take in
 * the caller's own cgroup.
 */
#ifndef RT_CGROUP_INTERNAL_H
#define RT_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "json.h"
#include "oci-config.h"

#define CG_MAX_HIER 16

enum cg_mode {
        CG_MODE_V1,     /* v1 hierarchies only */
        CG_MODE_HYBRID, /* v1 hierarchies plus a cgroup2 mount */
        CG_MODE_V2,     /* one unified hierarchy */
};

struct cg_hier {
        char *key; /* "memory", "cpu,cpuacct", "name=systemd"; "unified" for v2 */
        bool v2;
        char *mnt;  /* mount point of (the root of) this hierarchy */
        char *root; /* the mount's root within the hierarchy ("/" normally): the
                     * paths below are relative to it, /proc/<pid>/cgroup's are not */
        char *base; /* the caller's cgroup, relative to the hierarchy root */
        char *path; /* the container's cgroup, relative to the root; NULL: unused */
        int made;   /* trailing components of path that this runtime created */
};

struct cg_layout {
        enum cg_mode mode;
        struct cg_hier h[CG_MAX_HIER];
        size_t n;
        bool from_mountinfo; /* mounts from mountinfo, not just their usual places */
};

/* What linux.resources asks for, checked (limits.c). */
struct cg_limits {
        bool has_mem_limit, has_mem_reservation, has_mem_swap, has_swappiness, has_oom_disable;
        int64_t mem_limit, mem_reservation, mem_swap; /* -1: unlimited */
        /* memory.kernelTCP: v1 still has memory.kmem.tcp.limit_in_bytes */
        bool has_mem_kernel_tcp;
        int64_t mem_kernel_tcp;
        uint64_t swappiness;
        bool oom_disable;
        bool has_shares, has_quota, has_period;
        uint64_t shares, period;
        int64_t quota; /* -1: unlimited */
        const char *cpus, *mems;
        bool has_rt_runtime, has_rt_period; /* cpu.realtime*: v1 with RT group scheduling */
        int64_t rt_runtime;                 /* -1: unlimited */
        uint64_t rt_period;
        bool has_pids;
        int64_t pids;                     /* -1: unlimited */
        const struct bento_json *devices; /* validated array, or NULL */
        const struct bento_json *unified; /* validated object (v2 only), or NULL */
        struct cg_blkio {
                uint64_t weight, leaf_weight;         /* 0: not set */
                const struct bento_json *weights;     /* weightDevice, validated, or NULL */
                const struct bento_json *throttle[4]; /* enum cg_throttle order, or NULL */
        } blkio;
};

/* linux.resources.blockIO's throttle arrays, in this order everywhere. */
enum cg_throttle { CG_READ_BPS, CG_WRITE_BPS, CG_READ_IOPS, CG_WRITE_IOPS, CG_N_THROTTLE };

/* ---- layout.c ---- */

const char *cg_mode_name(enum cg_mode mode);

/* The hierarchies of this host and the caller's place in each.  Their
 * mounts are looked for at the usual places first (usual.c), and in
 * /proc/self/mountinfo when one is not there or `mountinfo` is set. */
int cg_layout_load(struct cg_layout *ret, bool mountinfo, struct bento_err *err);
void cg_layout_done(struct cg_layout *l);

/* h is mounted at mnt, the mount showing the hierarchy from root on: 1 with
 * h->mnt and h->root set and h->base made relative to root, 0 when the
 * caller's cgroup (h->base) is not below root, -ENOMEM. */
int cg_hier_set_mount(struct cg_hier *h, const char *mnt, const char *root);

/* ---- usual.c ---- */

/* Find h's mount at its usual place: /sys/fs/cgroup/<name> for a v1
 * hierarchy, /sys/fs/cgroup for v2 alone and /sys/fs/cgroup/unified next
 * to v1 hierarchies (with_v1), checked with statmount(2) to be a mount of
 * that very hierarchy.  1: found (as cg_hier_set_mount); 2: v2 next to v1
 * and no cgroup2 mount at .../unified, which counts as not mounted (as for
 * crun and runc); 0: not there, or the kernel cannot tell (read
 * mountinfo); -ENOMEM. */
int cg_mount_at_usual_place(struct cg_hier *h, bool with_v1);

/* The hierarchy that carries a controller ("memory", "cpu", "freezer", ...):
 * the v1 one whose key lists it, else the unified one on v2; NULL. */
struct cg_hier *cg_find(const struct cg_layout *l, const char *controller);

/* cgroup path `path` is dir or below it (both canonical: "/" or "/a/b",
 * as cg_layout_set_paths admits them). */
bool cg_path_within(const char *path, const char *dir);

/* Set every hierarchy's path from applied.cgroup ({"paths": {key: path},
 * "created": {key: n}}) of a record; hierarchies it does not name stay
 * unused.  The record is hostile input: paths must be canonical (absolute,
 * no empty, "." or ".." component, no trailing "/"), and none may be or
 * contain the caller's own cgroup (h->base), whose processes (ours among
 * them) a delete would otherwise kill.  Returns 1 when the record names a
 * hierarchy the layout does not have. */
int cg_layout_set_paths(struct cg_layout *l, const struct bento_json *applied,
                        struct bento_err *err);

/* {"paths": {...}, "created": {...}} members added to obj. */
int cg_layout_describe(const struct cg_layout *l, struct bento_json *obj);

/* Every hierarchy's path for the container: an absolute cgroupsPath from
 * the hierarchy's root, a relative one (default "bento-<id>") below the
 * caller's cgroup (h->base); no "." or ".." components, not the caller's
 * own cgroup. */
int cg_layout_choose_paths(struct cg_layout *l, const char *cgroups_path, const char *id,
                           struct bento_err *err);

/* "<mnt><path>/<file>" (file may be NULL); NULL when out of memory. */
char *cg_file(const struct cg_hier *h, const char *file);

/* Write value to a file of the container's cgroup; err names file and value. */
int cg_write(const struct cg_hier *h, const char *file, const char *value, struct bento_err *err);

/* Read a (small) file of the container's cgroup, trailing newline removed:
 * 0 or -errno. */
int cg_read(const struct cg_hier *h, const char *file, char *buf, size_t size);

/* A number, or -1 for "max" (v2) and for v1's "unlimited" sizes. */
int cg_read_num(const struct cg_hier *h, const char *file, int64_t *ret);

/* "key value" lines (memory.events, memory.oom_control): the value of key. */
int cg_read_keyed(const struct cg_hier *h, const char *file, const char *key, int64_t *ret);

/* How many trailing components of h->path cg_make would count as made
 * now (those missing, and the last one in any case: an empty one of that
 * name is taken over), for the intent record written before it runs. */
int cg_to_make(const struct cg_hier *h);

/* mkdir -p of h->path below the mount point; counts what it made. */
int cg_make(struct cg_hier *h, struct bento_err *err);

/* rmdir of the container's cgroup (retrying while it drains) and of the
 * parents it made, as far as they are empty. */
int cg_unmake(struct cg_hier *h, struct bento_err *err);

/* Where pid is, from /proc/<pid>/cgroup: ret[i] (to free) is its cgroup in
 * l->h[i], relative to that hierarchy's mount root as the paths of a
 * layout are; NULL when pid's line for it is missing or names a cgroup
 * the mount does not show. */
int cg_pid_paths(const struct cg_layout *l, pid_t pid, char *ret[CG_MAX_HIER],
                 struct bento_err *err);

/* Host pids in the cgroup (cgroup.procs), sorted and unique. */
int cg_procs(const struct cg_hier *h, pid_t **ret, size_t *ret_n, struct bento_err *err);

/* ---- limits.c ---- */

/* Check a LinuxResources object: types, ranges, and members this driver
 * cannot apply on this host (named by JSON path below `where`).  *ret
 * points into res, which must outlive it. */
int cg_limits_parse(const struct bento_json *res, enum cg_mode mode, const char *where,
                    struct cg_limits *ret, struct bento_err *err);

/* Anything that needs a cgroup of the container's own (devices alone do
 * not: see cgroup.c). */
bool cg_limits_any(const struct cg_limits *lim);

/* ---- blkio.c ---- */

/* Check linux.resources.blockIO (b, not NULL) into lim->blkio; `where` is
 * the JSON path of the resources object.  v2 has no leaf weights: those
 * are ignored with a warning, as runc ignores them. */
int cg_blkio_parse(const struct bento_json *b, enum cg_mode mode, const char *where,
                   struct cg_limits *lim, struct bento_err *err);

/* Anything in lim->blkio to write. */
bool cg_blkio_any(const struct cg_limits *lim);

/* Write lim->blkio into h (the v1 blkio hierarchy, or the v2 unified one,
 * whose io controller it needs) and read every value back. */
int cg_blkio_apply(const struct cg_hier *h, const struct cg_limits *lim, struct bento_err *err);

/* What the kernel holds ("weight", throttle lists) as the record's
 * applied.cgroup "blockIO" member, added to obj; nothing without h. */
int cg_blkio_snapshot(const struct cg_hier *h, struct bento_json *obj);

/* ---- apply.c ---- */

/* Write the limits and read each one back; a value the kernel does not
 * hold afterwards is an error. */
int cg_apply(const struct cg_layout *l, const struct cg_limits *lim, struct bento_err *err);

/* v1 only: cpuset.cpus/mems of freshly made cpuset cgroups are empty and
 * must be filled from the parent before a task can join. */
int cg_cpuset_init(const struct cg_hier *h, struct bento_err *err);

/* v2 only: enable the controllers the container needs in every ancestor's
 * cgroup.subtree_control. */
int cg_enable_controllers(const struct cg_hier *h, struct bento_err *err);

/* The limits the kernel holds now, as the record's applied.cgroup members
 * ("memory", "cpu", "pids", "devices"), added to obj. */
int cg_snapshot(const struct cg_layout *l, struct bento_json *obj);

/* ---- devices.c ---- */

/* v1 devices cgroup: deny everything, allow the default set (runtime-spec config-linux.md)
 * and the config's linux.devices (cfg may be NULL), then the rules. */
int cg_devices_apply(const struct cg_hier *h, const struct oci_config *cfg,
                     const struct bento_json *rules, struct bento_err *err);

/* ---- devices-bpf.c ---- */

/* v2: the same policy as cg_devices_apply, compiled into an eBPF
 * BPF_CGROUP_DEVICE program (last matching rule wins) and attached to the
 * container's cgroup with BPF_F_ALLOW_MULTI; the cgroup holds the only
 * reference, so removing it removes the program.  *ret_list (owned by the
 * caller, set only on success) is the effective rule list, lowest
 * precedence first, as "allow c 1:3 rwm" / "deny a *:* rwm" strings. */
int cg_devices_bpf_apply(const struct cg_hier *h, const struct oci_config *cfg,
                         const struct bento_json *rules, struct bento_json **ret_list,
                         struct bento_err *err);

/* ---- systemd.c ---- */

/* Put pid into a transient scope (unit named after cgroupsPath or the id)
 * with Delegate=yes and the limits as unit properties; *ret_unit names it.
 * A clear error without a systemd bus. */
int cg_systemd_start(const char *cgroups_path, const char *id, pid_t pid,
                     const struct cg_limits *lim, enum cg_mode mode, char **ret_unit,
                     struct bento_err *err);

/* Every hierarchy's path set to the cgroup pid is in (from /proc/PID/cgroup),
 * as systemd placed it; a hierarchy where that is the caller's own cgroup
 * (h->base) is left unused. */
int cg_systemd_paths_of_pid(struct cg_layout *l, pid_t pid, struct bento_err *err);

/* Stop the scope (a unit that is already gone is not an error). */
int cg_systemd_stop(const char *unit, struct bento_err *err);

/* ---- scope-helper.c ---- */

/* bento-systemd-scope beside this runtime run with argv (argv[0] is set
 * here) and waited for; its line of error, or how it ended, as err. */
int cg_scope_helper_run(char **argv, struct bento_err *err);

#endif
