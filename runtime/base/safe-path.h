/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resolving paths inside a root directory (the container's rootfs) without
 * ever leaving it: symlinks and ".." are interpreted as if the root were "/".
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) does the work when the
 * kernel has it; otherwise, and whenever missing components must be created,
 * a component-by-component walk with O_NOFOLLOW does the same.
 *
 * The result is an O_PATH file descriptor plus the canonical path of the
 * object inside the root (no symlinks, no "." or ".."), so that a mount can
 * be made onto /proc/self/fd/N — a symlink swapped in later cannot redirect
 * it — and the mount stacked there can be found again by its exact path.
 */
#ifndef RT_SAFE_PATH_H
#define RT_SAFE_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An open root directory and its canonical path as this process sees it. */
struct rt_root {
        int fd;              /* O_PATH | O_DIRECTORY */
        char path[PATH_MAX]; /* absolute, no trailing slash except for "/" */
        size_t len;
        unsigned long id; /* different for every rt_root_open() in this process */
        uint64_t mnt_id;  /* the mount fd is on, where its owner noted it; 0: not noted */
};

/* A resolved object inside a root. */
struct rt_target {
        int fd;              /* O_PATH, owned; -1 when not open */
        char path[PATH_MAX]; /* canonical, "/"-based, inside the root */
        /* The mount fd is on, once a statx of fd asked (mnt_noted): an open
         * fd keeps naming the same object on the same mount, so the answer
         * holds until fd is replaced, and a later check of "the mount
         * before" need not ask again.  mnt_known: the kernel reported the
         * mount id and whether fd is a mount's root. */
        bool mnt_noted;
        bool mnt_known;
        bool mnt_root;
        uint64_t mnt_id;
};

enum {
        RT_SP_MKDIR = 1 << 0,      /* create missing components as directories */
        RT_SP_MKFILE = 1 << 1,     /* ... but the last one as an empty file */
        RT_SP_NOFOLLOW = 1 << 2,   /* do not follow a symlink in the last component */
        RT_SP_NOSYMLINKS = 1 << 3, /* fail with -ELOOP on any symlink */
        RT_SP_WALK = 1 << 4,       /* skip openat2 (tests, and old kernels) */
};

/* Open `path` (absolute or relative; both resolved from the root itself),
 * which must be a directory, as a root.  Returns 0 or -errno. */
int rt_root_open(struct rt_root *root, const char *path);

/* Close a root; safe to call twice. */
void rt_root_close(struct rt_root *root);

/* Resolve `path` inside root.  With RT_SP_MKDIR / RT_SP_MKFILE missing
 * components are created (directories 0755, a last file with `mode`);
 * existing objects are used as they are, whatever their type.  On success
 * ret->fd and ret->path are set and 0 is returned; otherwise -errno and
 * *ret is left with fd = -1. */
int rt_safe_resolve(const struct rt_root *root, const char *path, unsigned int flags, mode_t mode,
                    struct rt_target *ret);

/* Open the entry `name` (one component, not "." or "..") of the directory
 * parent without following a symlink there, as an O_PATH fd with extra
 * open flags oflags (e.g. O_DIRECTORY); ret->path = parent->path + "/" +
 * name.  0 or -errno. */
int rt_target_child(const struct rt_target *parent, const char *name, int oflags,
                    struct rt_target *ret);

/* The same for an entry the caller opened in parent itself (say, created
 * with O_CREAT | O_EXCL | O_NOFOLLOW, so no link can be there): fd is
 * taken, closed on failure, and named without opening the entry again. */
int rt_target_child_fd(const struct rt_target *parent, const char *name, int fd,
                       struct rt_target *ret);

/* Close ret->fd; safe to call twice. */
void rt_target_close(struct rt_target *t);

/* Split `path` into a parent path and a last component copied into
 * name[NAME_MAX + 1].  The last component must not be "." or ".." and path
 * must not be "/" (-EINVAL).  parent receives at most PATH_MAX bytes. */
int rt_path_split(const char *path, char *parent, char *name);

/* Write "/proc/self/fd/<fd>" into buf (at least 32 bytes) and return buf. */
const char *rt_fd_path(int fd, char *buf, size_t size);

static inline void cleanup_rt_root_fn(struct rt_root *r)
{
        rt_root_close(r);
}

static inline void cleanup_rt_target_fn(struct rt_target *t)
{
        rt_target_close(t);
}

#define cleanup_rt_root   __attribute__((cleanup(cleanup_rt_root_fn)))
#define cleanup_rt_target __attribute__((cleanup(cleanup_rt_target_fn)))

/* Absolute, canonical path `path` is dir or below it ("/" holds
 * everything).  Also how a mount hides another: one made later at the
 * same point or above it covers it. */
bool rt_path_within(const char *path, const char *dir);

#endif
