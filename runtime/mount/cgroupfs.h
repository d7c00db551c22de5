/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mounts of type "cgroup" (the container's /sys/fs/cgroup).
 *
 * cgroup v2 host (/sys/fs/cgroup is a cgroup2 fs): a fresh cgroup2 mount
 * when the container has its own cgroup namespace, else a recursive bind of
 * the host's /sys/fs/cgroup.
 *
 * cgroup v1 or hybrid host (/sys/fs/cgroup is a tmpfs of hierarchies): a
 * tmpfs at the destination and, for every hierarchy in /proc/self/cgroup
 * that is mounted directly below the host's /sys/fs/cgroup, a directory of
 * the same name holding the init's own cgroup: a bind of
 * <host mount>/<path from /proc/self/cgroup>, or a fresh cgroup mount of
 * that hierarchy when the container has its own cgroup namespace.  A
 * hybrid host's cgroup2 mount (/sys/fs/cgroup/unified) is treated the same
 * way.  Co-mounted controllers get symlinks ("cpu" -> "cpu,cpuacct").  Flag
 * options (ro, nosuid, ...) apply to every one of these mounts.
 *
 * Must run after the init was placed in its cgroups and, when it has one,
 * after it entered its cgroup namespace.
 */
#ifndef RT_MOUNTS_CGROUP_H
#define RT_MOUNTS_CGROUP_H

#include "base/context.h"
#include "options.h"
#include "base/safe-path.h"

/* Mount onto dst (already resolved inside root); on success dst->fd names
 * the new mount.  0 or -errno with err filled. */
int rt_mount_cgroup(const struct rt_context *ctx, const struct rt_root *root, struct rt_target *dst,
                    const struct rt_mount_opts *opts, struct bento_err *err);

#endif
