/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who may remove a shield mount point while other runs are alive (issue
 * 14).  Removing a name (rmdir, unlink) that is a mount point in another
 * live mount namespace detaches the mounts there: if run A removes the
 * .vscode it made while run B, on the same write grant, has its shield
 * mounted on it, B's shield is gone and B can write a real
 * .vscode/tasks.json onto the host.  So a run never removes a point
 * another run may be using:
 *
 *   - the key is the directory that holds the names (its device and
 *     inode), whatever path or grant reached it, so nested grants, bind
 *     mounts and different manifests on one checkout all agree on it;
 *   - every run holds flock(LOCK_SH) on the key's lock file of each
 *     directory holding a name it makes, or mounts a shield on, from
 *     before it looks at the names until its sandbox is gone (the runtime
 *     inherits the descriptors, so a SIGKILLed bento still holds them
 *     while its sandbox lives);
 *   - what a run makes is registered at once, in a file of its own next
 *     to the lock (KEY.TAG.points, written atomically), so a crash leaves
 *     a record, not an orphan;
 *   - at the end a run asks for LOCK_EX | LOCK_NB: the one that gets it is
 *     the last user of that directory, and removes every registered point
 *     that is still the object registered and still empty (the runs'
 *     records, its own included, merged into one); the others leave their
 *     record for it.
 *
 * The files live in a private directory bento makes without following a
 * symlink and checks is its own and 0700: /run/bento/mount-points as root,
 * else $XDG_RUNTIME_DIR/bento/mount-points, or /tmp/bento-UID/mount-points
 * without it.  A record is read back as hostile: point_registry_parse()
 * accepts exactly what point_registry_format() writes, and the removal
 * still checks every identity.
 */
#ifndef BENTO_POINT_LOCKS_H
#define BENTO_POINT_LOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "beneath.h"
#include "err.h"

/* The most points one record may hold (far above the shields' needs). */
#define POINT_REGISTRY_MAX 1024

struct point_entry {
        char *name; /* one component, in the record's directory */
        struct bento_ident id;
};

/* One record: the directory (as reached) and the points made in it. */
struct point_registry {
        char *dir; /* absolute and clean */
        struct point_entry *v;
        size_t n;
};

/* "DEV:INO" (decimal, as printed) of len bytes at s; EINVAL otherwise. */
int point_ident_parse(const char *s, size_t len, struct bento_ident *ret);

/* Parse a record: the header line, "dir PATH", then "point DEV:INO NAME"
 * lines, each ending in a newline; anything else fails whole (EINVAL). */
int point_registry_parse(const char *text, size_t len, struct point_registry *ret,
                         struct bento_err *err);
/* The record as text (NULL when out of memory). */
char *point_registry_format(const struct point_registry *r);
/* Add name (a real name, no '/', no newline: EINVAL) with id, once. */
int point_registry_add(struct point_registry *r, const char *name, const struct bento_ident *id);
void point_registry_done(struct point_registry *r);

struct point_lock {
        struct bento_ident key; /* the directory holding the names */
        int fd;                 /* its lock file, LOCK_SH held */
        struct point_registry mine;
};

/* All zero is a valid empty set: the private directory is opened when
 * first needed. */
struct point_locks {
        int dirfd;    /* the private directory, when tag[0] */
        char tag[40]; /* this run's records' names: KEY.TAG.points */
        struct point_lock *v;
        size_t n;
};

/* Use dirfd (duplicated) as the private directory: tests. */
int point_locks_open_at(struct point_locks *l, int dirfd, struct bento_err *err);

/* Hold LOCK_SH on the directory dfd (reached as path) unless held
 * already.  One descriptor per directory (about one per write grant), and
 * bento-runtime holds a copy of each: there is no count limit but the
 * open file limit, and EMFILE names it with the number of locks held. */
int point_locks_hold(struct point_locks *l, int dfd, const char *path, struct bento_err *err);

/* Record that name in dfd (held) is id, made by this run. */
int point_locks_register(struct point_locks *l, int dfd, const char *name,
                         const struct bento_ident *id, struct bento_err *err);

/* The lock descriptors, for a child that must hold them too (at most
 * max; returns how many). */
size_t point_locks_fds(const struct point_locks *l, int *fds, size_t max);

/* The run is over: for each directory, deepest first, remove the points
 * registered there when no other run holds it, else leave this run's
 * record.  Then let go of everything; calling it again does nothing. */
void point_locks_release(struct point_locks *l);

#endif
