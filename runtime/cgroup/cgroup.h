/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's cgroup: created where the caller lives (cgroupfs driver
 * on cgroup v1, the v1 "hybrid" layout and v2; or a transient systemd scope
 * with --systemd-cgroup), linux.resources written and read back, the init
 * moved in before it runs any container code, and removed on delete.
 *
 * Conventions: 0 or a negative errno with err filled.  Limits that did not
 * take (the kernel holds another value than the one asked for) are errors.
 */
#ifndef RT_CGROUP_H
#define RT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/context.h"
#include "json.h"
#include "state.h"

struct cg_pending;
struct cg_prepared;

#define RT_CGROUP_MAX_SELF 16

struct rt_cgroup_info {
        char *path;                 /* the cgroup path relative to the hierarchy root, "/a/b/<id>",
                                     * of the unified hierarchy (v2) or the freezer (v1; every
                                     * hierarchy's path is in applied.paths); NULL when the
                                     * container got no cgroup of its own */
        bool systemd;               /* created as a systemd scope */
        struct bento_json *applied; /* object: what the kernel holds after applying,
                                     * e.g. {"memory.limit": 268435456, ...}; may be NULL */
        struct cg_pending *pending; /* entered, not yet read back: rt_cgroup_enter_finish */
        struct cg_prepared *prepared; /* rt_cgroup_prepare done, rt_cgroup_enter not yet */
        /* The init was cloned straight into the container's cgroup2
         * cgroup (CLONE_INTO_CGROUP with rt_cgroup_clone_fd), so no
         * cgroup.procs write is needed there: set by the caller of the
         * clone, read by rt_cgroup_enter. */
        bool cloned_into;
        /* The v1 hierarchies' "tasks" files of the container's cgroup,
         * opened by us, for the init to write "0" into: it moves itself.
         * The kernel moves a thread that moves itself without taking the
         * global lock (cgroup_threadgroup_rwsem) that a move by pid takes,
         * and that lock waits for an RCU grace period, several ms on a
         * busy host.  Closed by rt_cgroup_info_done. */
        int self_fds[RT_CGROUP_MAX_SELF];
        size_t n_self_fds;
};

/* In `create`, before the init is cloned.  With into_v2 on a host with a
 * cgroup2 mount at its usual place (pure v2, or hybrid's "unified") and
 * the cgroupfs driver, the layout is read, the limits checked, the paths
 * chosen and the container's cgroup2 cgroup made, for the init to be
 * cloned into it (rt_cgroup_clone_fd); otherwise all of that waits for
 * rt_cgroup_enter, which runs while the init sets itself up.  ret is reset
 * first; release it with rt_cgroup_info_done, and remove a cgroup made
 * here with rt_cgroup_info_remove. */
int rt_cgroup_prepare(const struct rt_context *ctx, bool into_v2, struct rt_cgroup_info *ret,
                      struct bento_err *err);

/* The directory (O_PATH) of the cgroup2 cgroup rt_cgroup_prepare made, for
 * clone3's clone_args.cgroup; -1 when there is none.  Owned by info. */
int rt_cgroup_clone_fd(const struct rt_cgroup_info *info);

/* In `create`, after rt_cgroup_prepare and the clone, before the init was
 * released into the container setup.  Without linux.resources and without cgroupsPath a
 * rootless runtime may get no cgroup (info->path NULL); everything else is
 * an error when it cannot be done.  The init is moved into v2 cgroups here
 * unless it was cloned into its cgroup (info->cloned_into), and into
 * systemd ones; into v1 ones it moves itself, through ret->self_fds, as
 * the first thing it does at sync #1.  The limits are written and checked
 * here; reading back everything the kernel holds for the record
 * (info->applied) may be left to rt_cgroup_enter_finish, which `create`
 * calls while the released init sets itself up. */
int rt_cgroup_enter(const struct rt_context *ctx, pid_t pid, struct rt_cgroup_info *info,
                    struct bento_err *err);

/* Fill info->applied when rt_cgroup_enter left it for later (no-op
 * otherwise).  On failure the cgroup can still be removed with
 * rt_cgroup_info_remove. */
int rt_cgroup_enter_finish(struct rt_cgroup_info *info, struct bento_err *err);

void rt_cgroup_info_done(struct rt_cgroup_info *info);

/* Remove the container's cgroup (all hierarchies), waiting briefly for it to
 * drain.  No-op when rec->cgroup_path is NULL.  ret_oom_kills (may be NULL)
 * gets what rt_cgroup_oom_kills would have said just before; it is left
 * alone without a cgroup. */
int rt_cgroup_remove(const struct bento_record *rec, long *ret_oom_kills, struct bento_err *err);

/* The same for a cgroup that rt_cgroup_prepare or rt_cgroup_enter made but
 * that no record holds yet (a create failing after the init was cloned);
 * no-op without one.  Kill and reap the init first. */
int rt_cgroup_info_remove(const struct rt_cgroup_info *info, struct bento_err *err);

/* 1 when frozen, 0 when not (or no cgroup), negative errno on error. */
int rt_cgroup_is_frozen(const struct bento_record *rec);

int rt_cgroup_freeze(const struct bento_record *rec, bool freeze, struct bento_err *err);

/* Pids in the container's cgroup (host pids), sorted. */
int rt_cgroup_pids(const struct bento_record *rec, pid_t **ret, size_t *ret_n,
                   struct bento_err *err);

/* Signal every process in the cgroup; the cgroup is frozen meanwhile so no
 * process escapes by forking.  The init (rec->pid) is signalled through
 * init_pidfd (when >= 0) while still frozen, so it cannot see its children
 * die and exit on its own first; an init that is already gone is fine. */
int rt_cgroup_signal_all(const struct bento_record *rec, int sig, int init_pidfd,
                         struct bento_err *err);

/* The record is hostile input: 0 when pid is in the container's cgroup,
 * or below it, in every hierarchy the record names (/proc/<pid>/cgroup, so
 * v1, hybrid and v2 alike); -EPERM otherwise, err naming the pid, the
 * container and the cgroup it is not in; -ENOENT (err untouched) when the
 * container has no cgroup.  Pin pid with a pidfd first and check it lived
 * through the call, so the answer is about that process. */
int rt_cgroup_check_member(const struct bento_record *rec, pid_t pid, struct bento_err *err);

/* Move pid into the container's cgroup (every hierarchy): `exec` uses it
 * for the processes it starts.  No-op without a cgroup. */
int rt_cgroup_attach(const struct bento_record *rec, pid_t pid, struct bento_err *err);

/* How many processes the OOM killer killed in the container's cgroup so
 * far (memory.oom_control oom_kill on v1, memory.events oom_kill on v2);
 * 0 without a cgroup, negative errno when unreadable. */
long rt_cgroup_oom_kills(const struct bento_record *rec);

/* The absolute path of memory.events in the container's cgroup on cgroup
 * v2 (allocated), for cgroup/oom-watch.c; NULL on v1 or without one. */
char *rt_cgroup_memory_events_path(const struct bento_record *rec);

/* Apply a LinuxResources object to the live cgroup; *ret_applied gets the
 * values read back. */
int rt_cgroup_update(const struct bento_record *rec, const struct bento_json *resources,
                     struct bento_json **ret_applied, struct bento_err *err);

#endif
