/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host-side operations on names beneath a directory that a sandboxed
 * program may have written to (a write grant): open, create, look at and
 * remove, none of which ever follows a symlink or leaves the directory.
 * A sandbox can replace any directory of its grant by a symlink to
 * anywhere on the host; a root process that then walks the old path with
 * open(2), stat(2) or unlink(2) would act on the symlink's target.  Here
 * every lookup goes through openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
 * from a descriptor of the directory, or, on a kernel without openat2, a
 * walk that opens one component at a time with O_NOFOLLOW | O_DIRECTORY;
 * a symlink anywhere on the way fails the call (ELOOP or ENOTDIR).
 *
 * Creation is exclusive (mkdirat, or O_CREAT | O_EXCL): a name that is
 * already there is reported as EEXIST and never taken for one's own, and
 * the identity (device and inode) of what was created is returned so
 * that removal can check it is still the same object.
 *
 * Returns are 0 (or a descriptor) or -errno; descriptors are O_CLOEXEC.
 */
#ifndef BENTO_BENEATH_H
#define BENTO_BENEATH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* Skip openat2 and walk component by component (tests, old kernels). */
#define BENTO_BENEATH_WALK 1u

/* What was created, to recognise it later. */
struct bento_ident {
        dev_t dev;
        ino_t ino;
};

/* Open the directory rel beneath dirfd as an O_PATH descriptor.  rel is
 * relative and holds no ".." (EINVAL otherwise); "" or "." is dirfd's
 * own directory.  A symlink on the way fails with ELOOP or ENOTDIR. */
int bento_beneath_open(int dirfd, const char *rel, unsigned flags);

/* The same for an absolute path, walked from "/": no component of it may
 * be a symlink. */
int bento_beneath_open_abs(const char *path, unsigned flags);

/* The same from root, "/" opened once by a caller with many paths to open
 * (O_PATH | O_DIRECTORY). */
int bento_beneath_open_abs_at(int root, const char *path, unsigned flags);

/* rel split into the path of its parent (parent[0] == '\0': rel is a name
 * right in the directory it is relative to) and its last component, which
 * must be a real name (not empty, "." or "..": EINVAL).  Nothing is opened. */
int bento_beneath_split(const char *rel, char parent[PATH_MAX], char name[NAME_MAX + 1]);

/* Open the directory holding rel beneath dirfd (O_PATH, no symlink on
 * the way); name gets rel's last component, which must be a real name
 * (not empty, "." or "..": EINVAL). */
int bento_beneath_open_parent(int dirfd, const char *rel, unsigned flags, char name[NAME_MAX + 1]);

/* Create rel beneath dirfd: a directory (mode) when dir, else an empty
 * regular file (mode).  Its parent must exist and is reached without
 * following a symlink; the name itself must not exist (EEXIST when it
 * does, whatever it is).  *ret (may be NULL) gets what was created. */
int bento_beneath_make(int dirfd, const char *rel, bool dir, mode_t mode, unsigned flags,
                       struct bento_ident *ret);

/* Remove rel beneath dirfd when it is an empty directory or an empty
 * regular file, and, when id is not NULL, the object id names.  The
 * parent is reached without following a symlink, the name is looked at
 * with AT_SYMLINK_NOFOLLOW and removed relative to the parent.  0 when
 * removed; -ENOENT when nothing is there; -ESTALE when something else is
 * (another object, or a symlink); -ENOTEMPTY when it is not empty;
 * -errno otherwise. */
int bento_beneath_remove(int dirfd, const char *rel, const struct bento_ident *id, unsigned flags);

#endif
