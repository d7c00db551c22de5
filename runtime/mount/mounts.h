/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's filesystem view, built inside the init after it entered
 * its mount namespace.  Three steps, called in this order:
 *
 *   rt_mounts_prepare()  root propagation, the rootfs made a mount point,
 *                        every config mount (resolved safely inside the
 *                        rootfs: a symlink never leads outside), default and
 *                        linux.devices, /dev symlinks, /dev/console when a
 *                        terminal is used.  cwd is left unchanged.
 *   rt_mounts_pivot()    pivot_root into the rootfs (or MS_MOVE + chroot
 *                        with --no-pivot, or only chroot without a mount
 *                        namespace of its own); afterwards "/" is the
 *                        container root.
 *   rt_mounts_finish()   maskedPaths, readonlyPaths, root.readonly, and
 *                        rootfsPropagation applied to the new "/".
 *
 * Each returns 0 or a negative errno with err filled; messages name the JSON
 * path of the entry that failed ("mounts[3] (/proc): ...").
 */
#ifndef RT_MOUNTS_H
#define RT_MOUNTS_H

#include "base/context.h"

struct rt_bind_sources;

/* srcs: the bind sources the runtime opened (sources.h), or none.  The
 * config is the one `create` checked with rt_mounts_validate() and
 * rt_mounts_check_ns() before it cloned the init (the init's copy of it),
 * so it is not checked again here. */
int rt_mounts_prepare(const struct rt_context *ctx, struct rt_bind_sources *srcs,
                      struct bento_err *err);
int rt_mounts_pivot(const struct rt_context *ctx, struct bento_err *err);
int rt_mounts_finish(const struct rt_context *ctx, struct bento_err *err);

/* Checks that need no privileges and can run in `create` before anything
 * is made (bad mount options, relative destinations, unknown device types),
 * so that a broken config leaves nothing behind. */
int rt_mounts_validate(const struct oci_config *cfg, struct bento_err *err);

/* What depends on the namespace plan: without a mount namespace of its own
 * (none listed, or one joined by path) the container is chrooted into
 * root.path, and whatever it needs mounted is mounted beneath one recorded
 * tree there (shared-root.h), which a container with a user namespace of
 * its own, or a runtime without root, cannot do (refused by name);
 * idmapped mounts need root on the host. */
int rt_mounts_check_ns(const struct rt_context *ctx, struct bento_err *err);

#endif
