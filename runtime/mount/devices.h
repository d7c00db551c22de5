/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device nodes and the standard /dev symlinks inside the container's root
 * (runtime-spec runtime-linux.md, config-linux.md "devices").
 *
 * Default devices: /dev/null, zero, full, random, urandom, tty.  Each node
 * is made with mknod, or, inside a user namespace (where mknod is refused)
 * or when mknod fails with EPERM, an empty file is created and the host's
 * node is bind-mounted onto it.  linux.devices entries are made the same
 * way; a linux.devices entry with a default's path replaces that default.
 * Symlinks: /dev/fd, /dev/stdin, /dev/stdout, /dev/stderr, /dev/ptmx.
 * /dev/console (process.terminal only) is an empty file the terminal code
 * bind-mounts the pty onto.
 */
#ifndef RT_DEVICES_H
#define RT_DEVICES_H

#include <stdbool.h>

#include "base/context.h"
#include "base/safe-path.h"

/* What to create.  RT_DEV_DEFAULTS: the default nodes and the symlinks
 * (used when /dev is a fresh tmpfs or the rootfs's own directory); without
 * it only linux.devices and /dev/console are made (a /dev bind-mounted from
 * elsewhere is not written to beyond what the config asks for). */
enum {
        RT_DEV_DEFAULTS = 1 << 0,
};

/* Create the devices in root (before pivot_root).  An existing node of the
 * same type and number is accepted as is; a different file at the path of a
 * linux.devices entry is an error, while a default device is bind-mounted
 * over whatever is there.  Messages name the entry: "linux.devices[1]
 * (/dev/fuse): mknod: ..." or "device /dev/null: ...".  0 or -errno. */
int rt_devices_create(const struct rt_context *ctx, const struct rt_root *root, unsigned int flags,
                      struct bento_err *err);

/* In the init before the first mount: an error when the root's "dev" is a
 * symbolic link (nothing may be made through it). */
int rt_devices_refuse_dev_symlink(const struct rt_root *root, struct bento_err *err);

/* Static checks for `create`: type is c, b, u or p; path absolute, not "/",
 * not repeated; major and minor present for c, b and u. */
int rt_devices_validate(const struct oci_config *cfg, struct bento_err *err);

#endif
