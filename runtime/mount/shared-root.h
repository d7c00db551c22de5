/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mounts for a container without a mount namespace of its own: the config
 * lists no "mount" namespace (the container shares the runtime's) or joins
 * one by path.  The specification still wants its mounts made, as runc and
 * crun make them, under root.path in that namespace.  They are never left
 * loose there:
 *
 *   1. the init clones root.path (with what is mounted below it) into one
 *      detached mount tree and makes it private, so nothing mounted below
 *      it later propagates to other namespaces;
 *   2. the runtime records the tree's mount id in the state directory
 *      (intent first: a runtime killed from here on leaves a record that
 *      names the tree), and says so;
 *   3. only then does the init attach the tree over root.path and make
 *      every mount of the container beneath it, and chroot into it.
 *
 * One lazy unmount of that tree, found again by its id, takes every mount
 * of the container with it: at `delete`, and when `create` fails.  A
 * runtime killed before step 3 leaves nothing, since a detached tree
 * disappears with the last descriptor of it.
 */
#ifndef RT_MOUNT_SHARED_ROOT_H
#define RT_MOUNT_SHARED_ROOT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/context.h"
#include "state.h"

/* What identifies the attached tree. */
struct rt_shared_root {
        uint64_t mnt_id;        /* statx STATX_MNT_ID of the tree (0: none) */
        uint64_t mnt_id_unique; /* STATX_MNT_ID_UNIQUE, never reused (0: kernel < 6.8) */
        uint64_t ns_inode;      /* the mount namespace the tree is attached in */
        uint64_t root_dev;      /* root.path's directory, as the init saw it */
        uint64_t root_ino;
        char *rootfs;  /* root.path, absolute */
        char *ns_path; /* the namespace joined by path; NULL: the runtime's own */
};

/* The config needs something mounted (mounts, masked or read-only paths, a
 * read-only root, devices, a console, a root propagation) while it has no
 * mount namespace of its own. */
bool rt_shared_root_wanted(const struct rt_context *ctx);

/* Refuse, by JSON path, what cannot work: a container in a user namespace
 * of its own, or a runtime without root, may not mount in a namespace
 * owned by the host's user namespace. */
int rt_shared_root_check(const struct rt_context *ctx, struct bento_err *err);

/* Init side, before its first mount: steps 1 and 3 above, around the
 * runtime's answer on the sync socket. */
int rt_shared_root_attach(const struct rt_context *ctx, int sock, struct bento_err *err);

/* Runtime side: receive the tree's identity from the init (pid), record it
 * through ctx->intent and in ctx->shared_root, and let the init attach it.
 * Nothing happens unless rt_shared_root_wanted(). */
int rt_shared_root_serve(const struct rt_context *ctx, pid_t pid, int sock, struct bento_err *err);

/* The state record's "sharedRoot" member: {mountId, mountIdUnique?,
 * mountNamespace, rootDev, rootIno, rootfs, mountNamespacePath?}. */
struct bento_json *rt_shared_root_describe(const struct rt_shared_root *s);

/* Detach the tree, after checking that what sits at root.path in its
 * namespace is still that tree.  The tree being gone (its namespace gone,
 * or unmounted already) is success; a tree that is covered by another
 * mount is an error naming both, and so is a record that does not parse.
 * A tree in a mount namespace this process cannot reach is a warning. */
int rt_shared_root_remove(const struct rt_shared_root *s, struct bento_err *err);

/* rt_shared_root_remove for what a state record names, if anything. */
int rt_shared_root_remove_recorded(const struct bento_record *rec, struct bento_err *err);

void rt_shared_root_done(struct rt_shared_root *s);

#endif
