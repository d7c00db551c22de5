/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Linux security module labels of runtime-spec: process.apparmorProfile,
 * process.selinuxLabel (applied at the target's execve through the calling
 * thread's /proc/thread-self/attr exec attribute) and linux.mountLabel (an
 * SELinux context= mount option, see mount/mounts.c).
 *
 * Whether an LSM is enabled is judged on the host, before the container
 * exists (its /sys may be masked): AppArmor when
 * /sys/module/apparmor/parameters/enabled reads Y and
 * /sys/kernel/security/apparmor is a directory; SELinux when
 * /sys/fs/selinux/enforce exists or a selinuxfs is mounted.  root prefixes
 * those paths ("" for the host; a test tree in the unit tests).
 */
#ifndef RT_LSM_H
#define RT_LSM_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum rt_lsm {
        RT_LSM_APPARMOR,
        RT_LSM_SELINUX,
};

/* "AppArmor", "SELinux". */
const char *rt_lsm_name(enum rt_lsm lsm);

bool rt_lsm_enabled(enum rt_lsm lsm, const char *root);

/* Why rt_lsm_enabled() said no, for the warning ("... is not Y"). */
const char *rt_lsm_disabled_reason(enum rt_lsm lsm);

/* What the exec attribute takes: "exec <profile>" for AppArmor, the
 * context itself for SELinux.  -ENAMETOOLONG when it does not fit. */
int rt_lsm_exec_value(enum rt_lsm lsm, const char *label, char *out, size_t size);

/* Write value into an open attribute file with one write(): the kernel
 * takes a label whole or refuses it, so a short write is an error too. */
int rt_lsm_write_attr(int fd, const char *value, const char *what, struct bento_err *err);

/* Set the label the calling thread's next execve() switches to.  The
 * attribute is opened under /proc/thread-self/attr (AppArmor's own
 * apparmor/exec first, the shared exec file after), without following
 * symlinks, and must be on a procfs: a config that mounted something else
 * on /proc must not make the label go nowhere.  what names the config
 * property in errors. */
int rt_lsm_set_exec_label(enum rt_lsm lsm, const char *label, const char *what,
                          struct bento_err *err);

/* The data string for a new filesystem of type fstype with linux.mountLabel
 * label (NULL: none): data with context="label" added, in out, for the
 * filesystems that take an SELinux context (not proc, sysfs, cgroup or
 * mqueue, as runc).  *ret points at out or at data unchanged.
 * -ENAMETOOLONG when it does not fit. */
int rt_lsm_mount_data(const char *fstype, const char *data, const char *label, char *out,
                      size_t size, const char **ret);

#endif
