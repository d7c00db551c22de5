/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mount(2) helpers that work on resolved targets (base/safe-path.h) instead of
 * path strings: the kernel is handed /proc/self/fd/N of the target's O_PATH
 * fd, so nothing between resolution and mount can redirect it.  Used by
 * mounts.c, cgroupfs.c and devices.c.  All return 0 or -errno and
 * leave messages to the caller.
 */
#ifndef RT_MOUNT_UTIL_H
#define RT_MOUNT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/safe-path.h"

/* The per-mount flags a bind remount can change. */
#define RT_MS_PER_MOUNT                                                                            \
        (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME | \
         MS_STRICTATIME | MS_NOSYMFOLLOW)

/* Write into buf (PATH_MAX bytes) the path to give mount(2) for t:
 * /proc/self/fd/N while /proc is a procfs, otherwise root->path + t->path
 * (only happens after pivot_root, when nothing else runs in the container
 * yet).  Whether /proc is a procfs is asked once per root, and again after
 * a mount through these helpers that may have covered it.  0 or
 * -ENAMETOOLONG. */
int rt_target_mount_path(const struct rt_root *root, const struct rt_target *t, char *buf);

/* A mount on the absolute, canonical path abs could change what
 * /proc/self/fd names: abs is "/", /proc, or in /proc a directory of self,
 * thread-self or a process id, or below one. */
bool rt_mount_may_cover_proc_fds(const char *abs);

/* mount(src, t, type, flags, data). */
int rt_mount_on(const struct rt_root *root, const struct rt_target *t, const char *src,
                const char *type, unsigned long flags, const char *data);

/* Bind the object behind the O_PATH fd src_fd onto t (MS_REC when asked). */
int rt_bind_fd_on(const struct rt_root *root, const struct rt_target *t, int src_fd,
                  bool recursive);

/* Attach the detached mount tree tree_fd (open_tree OPEN_TREE_CLONE) on t
 * (move_mount). */
int rt_attach_tree_on(const struct rt_root *root, const struct rt_target *t, int tree_fd);

/* One statx of t->fd: its mode, device and inode into st (NULL: not
 * wanted), and the mount it is on noted in t (safe-path.h), which
 * rt_target_reopen then need not ask again.  0 or -errno. */
int rt_target_stat(struct rt_target *t, struct stat *st);

/* The id of the mount fd's object is on (statx STATX_MNT_ID).  0 or -errno. */
int rt_fd_mount_id(int fd, uint64_t *id);

/* After something was mounted onto t, make t->fd name the root of the new
 * top mount: t->path is opened again (no symlinks allowed) and checked to be
 * a mount root on a different mount than before.  -EXDEV if not. */
int rt_target_reopen(const struct rt_root *root, struct rt_target *t);

/* MS_REMOUNT|MS_BIND|flags on the mount whose root is t.  The flags the
 * mount already has (ro, nosuid, nodev, noexec, atime, nosymfollow) are
 * kept when keep_locked is true, and on a retry after EPERM (a user
 * namespace cannot clear flags it inherited locked).  One mount_setattr
 * where the kernel has it (remount-attr.h), else statvfs and mount(2). */
int rt_remount_bind(const struct rt_root *root, const struct rt_target *t, unsigned long flags,
                    bool keep_locked);

/* Apply propagation changes one by one (mount(NULL, t, NULL, flag)). */
int rt_set_propagation(const struct rt_root *root, const struct rt_target *t,
                       const unsigned long *props, size_t n);

/* mount_setattr(AT_RECURSIVE) with MOUNT_ATTR_* bits; no-op when both are 0. */
int rt_setattr_recursive(const struct rt_target *t, uint64_t set, uint64_t clr);

#endif
