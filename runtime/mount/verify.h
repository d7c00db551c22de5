/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mounting what was checked (bundle/mount-identity.h): where a bento
 * bundle recorded what a mount's host path was when its policy was
 * checked, the source and destination are verified against that record on
 * the descriptors that are then mounted, so no rename, symlink or
 * RENAME_EXCHANGE between the check and the mount can substitute another
 * object.  Mounts without a record are resolved as before.
 */
#ifndef RT_MOUNT_VERIFY_H
#define RT_MOUNT_VERIFY_H

#include <sys/stat.h>

#include "err.h"
#include "mount-identity.h"
#include "oci-config.h"
#include "base/safe-path.h"

/* The records of cfg's mounts, one per mount (kind NONE where none), or
 * *ret = NULL when the config carries no record at all.  A malformed
 * annotation is an error. */
int rt_mount_identities(const struct oci_config *cfg, struct bento_mount_identity **ret,
                        struct bento_err *err);

/* Check a bind source, by the fstat() of the descriptor that is mounted,
 * against id (kind SAME); 0 when id has nothing to say about the source. */
int rt_verify_source(const struct stat *st, const struct bento_mount_identity *id,
                     const char *source, struct bento_err *err);

/* The directory of the last recorded mount point, kept open for the next
 * mount point in the same directory (a bento bundle makes several in /etc,
 * the home and each write grant, one after the other): it is looked up and
 * looked at once for all of them.  What an open descriptor names does not
 * change, so it stays the directory the path led to, without a symlink,
 * when it was resolved; only a mount on it or above it could make the path
 * lead elsewhere, and rt_dest_dir_mounted() forgets it then.  Each mount is
 * still found again by its path afterwards (rt_target_reopen). */
struct rt_dest_dir {
        struct rt_target dir; /* fd -1: nothing kept */
        struct stat st;       /* dir's device, inode and type */
        bool stat_ok;
};

/* Something was mounted on path (canonical): forget the directory if the
 * mount covers it. */
void rt_dest_dir_mounted(struct rt_dest_dir *d, const char *path);

void rt_dest_dir_done(struct rt_dest_dir *d);

static inline void cleanup_rt_dest_dir_fn(struct rt_dest_dir *d)
{
        rt_dest_dir_done(d);
}

#define cleanup_rt_dest_dir __attribute__((cleanup(cleanup_rt_dest_dir_fn)))

/* Resolve dest inside root like rt_safe_resolve() with flags (RT_SP_MKDIR
 * or RT_SP_MKFILE), but, where id records the destination or its parent,
 * never create anything but the last component, inside the very parent
 * that was recorded, and fail unless the object reached is the recorded
 * one.  kept (may be NULL) holds the parent directory between calls. */
int rt_resolve_verified_dest(const struct rt_root *root, const char *dest, unsigned int flags,
                             const struct bento_mount_identity *id, struct rt_dest_dir *kept,
                             struct rt_target *t, struct bento_err *err);

#endif
