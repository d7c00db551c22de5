/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bind remount (MS_REMOUNT | MS_BIND | flags) said as one mount_setattr(2)
 * on the mount's descriptor.  mount(2) replaces every per-mount flag, so
 * keeping the flags a user namespace inherited locked needs them read
 * first (statvfs); mount_setattr changes only what it is told to, so
 * "keep what the mount has" is simply nothing cleared.
 */
#ifndef RT_MOUNT_REMOUNT_ATTR_H
#define RT_MOUNT_REMOUNT_ATTR_H

#include <sys/mount.h>
#include <stdbool.h>

/* The mount_setattr form of MS_REMOUNT | MS_BIND | flags (per-mount MS_*
 * flags only).  keep_current: every flag the mount has stays, and so does
 * its access-time mode unless flags names one (what a remount with the
 * flags statvfs reports added does, except for one case: with nodiratime
 * on the mount or in flags and no mode named, mount(2) made a strictatime
 * mount relatime, as statvfs has no word for strictatime; it stays
 * strictatime here).  Otherwise the flags not named are
 * cleared, as mount(2) does, and the access-time mode and nodiratime are
 * as mount(2) makes them: carried over when flags names neither, else the
 * named mode (relatime when none). */
struct mount_attr rt_remount_attr(unsigned long flags, bool keep_current);

/* mount_setattr(fd, "", AT_EMPTY_PATH) with rt_remount_attr(flags,
 * keep_current).  0 or -errno; -ENOSYS, -EINVAL (an attribute the kernel
 * does not know) and -EPERM (a locked flag) ask for the mount(2) way. */
int rt_remount_by_setattr(int fd, unsigned long flags, bool keep_current);

#endif
