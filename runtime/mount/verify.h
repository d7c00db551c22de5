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

/* Resolve dest inside root like rt_safe_resolve() with flags (RT_SP_MKDIR
 * or RT_SP_MKFILE), but, where id records the destination or its parent,
 * never create anything but the last component, inside the very parent
 * that was recorded, and fail unless the object reached is the recorded
 * one. */
int rt_resolve_verified_dest(const struct rt_root *root, const char *dest, unsigned int flags,
                             const struct bento_mount_identity *id, struct rt_target *t,
                             struct bento_err *err);

#endif
