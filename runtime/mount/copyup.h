/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `tmpcopyup` mount option (a crun/runc extension podman uses for
 * --tmpfs): a tmpfs mounted over a directory of the image starts with a
 * copy of what that directory held.
 */
#ifndef RT_MOUNT_COPYUP_H
#define RT_MOUNT_COPYUP_H

/* Copy everything below the directory src_dir into the directory dst_dir
 * (any fds naming directories, O_PATH is fine): directories, regular files,
 * symlinks, device nodes and FIFOs with their owners and permission bits;
 * sockets are skipped, as are device nodes where mknod is not permitted.
 * dst_dir itself takes src_dir's owner and mode.  Never follows a symlink;
 * nesting deeper than 64 levels fails with -ELOOP.  0 or -errno. */
int rt_copy_tree(int src_dir, int dst_dir);

#endif
