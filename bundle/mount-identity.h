/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `bento translate` saw at each mount's host path, carried in the
 * bundle so that bento-runtime mounts exactly that (threat-model.md,
 * "what was checked is what is mounted").  A path in a bundle is only a
 * name: whoever can write one of its parents between translate (or the
 * checks of `bento run`) and the mount can make it name something else,
 * such as a symlink to ~/.ssh.  The device and inode number cannot be
 * redirected that way.
 *
 * The annotation holds one word per recorded mount, separated by spaces:
 * "<index>:<kind>:<st_dev>:<st_ino>", index into config.json's mounts, and
 * kind one of
 *   b  source and destination are the same host object (a bind of a path
 *      onto itself: grants, system paths, read-only shields);
 *   d  the destination exists and is this object (a tmpfs or an empty
 *      file mounted over a host path);
 *   p  the destination did not exist; this is its parent directory, where
 *      the runtime creates it.
 * Runtimes that do not know the annotation (runc, crun) ignore it.
 */
#ifndef BENTO_MOUNT_IDENTITY_H
#define BENTO_MOUNT_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define BENTO_MOUNT_IDENTITY_ANNOTATION "org.bento.mount-identity"

enum bento_mount_identity_kind {
        BENTO_MOUNT_ID_NONE = 0,
        BENTO_MOUNT_ID_SAME = 'b',
        BENTO_MOUNT_ID_DEST = 'd',
        BENTO_MOUNT_ID_PARENT = 'p',
};

struct bento_mount_identity {
        enum bento_mount_identity_kind kind;
        uint64_t dev;
        uint64_t ino;
};

/* The annotation's text for ids[0..n) (entries of kind NONE are left out);
 * *ret is heap-allocated ("" when nothing is recorded).  0 or -ENOMEM. */
int bento_mount_identity_format(const struct bento_mount_identity *ids, size_t n, char **ret);

/* Parse the annotation for a config with n_mounts mounts into *ret, an
 * array of n_mounts entries (kind NONE where nothing is recorded).  Any
 * word that is not exactly of the form above, an index out of range or a
 * mount named twice is an error that says which word: the annotation
 * comes from a config.json, which is hostile input. */
int bento_mount_identity_parse(const char *text, size_t n_mounts, struct bento_mount_identity **ret,
                               struct bento_err *err);

#endif
