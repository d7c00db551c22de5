/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shield mount points in write grants (docs/manifest.md, "CREDENTIAL SHIELDS").  A shield on a path
 * that does not exist yet inside a write grant needs an empty directory or file there to mount
 * onto, and that lands on the host, in the grant.  The grant is the sandbox's to change: by the
 * time the mount points are removed, any directory of it may have been renamed away and replaced by
 * a symlink to anywhere on the host.  So every operation here is made relative to a descriptor of
 * the grant's root and never follows a symlink (bundle/beneath.h), and what is removed is what was
 * made:
 *
 *   - `bento run` creates the points itself before the runtime starts
 *     (exclusively: a name that exists by then is not its own), records
 *     the device and inode of each, and exactly those objects are removed
 *     afterwards, deepest first, while they are still empty;
 *   - a translated bundle, which any runtime may run, carries a poststop
 *     hook, `bento __remove-mount-points --beneath GRANT DEV:INO PATH...`
 *     (the group repeated per grant).  The hook cannot know what the
 *     runtime created, so it removes an empty directory or empty regular
 *     file found at exactly each name, reached from GRANT without a
 *     symlink, and acts on no grant whose root is no longer DEV:INO.
 *     What the sandbox can make it remove is then an empty file or
 *     directory inside its own write grant, which it could remove itself.
 *
 * Either way the removal is left to the last run using the directory
 * that holds the name (point-locks.h): removing a name that is a mount
 * point in another live run's namespace would take that run's shield
 * away.
 */
#ifndef BENTO_MOUNT_POINTS_H
#define BENTO_MOUNT_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "beneath.h"
#include "err.h"
#include "point-locks.h"
#include "policy.h"

/* The hook's option that opens each grant's group of paths. */
#define MOUNT_POINTS_BENEATH "--beneath"

enum mount_point_state {
        MOUNT_POINT_LISTED,  /* missing when listed; not (or not yet) made by bento */
        MOUNT_POINT_MADE,    /* bento created it: id is what it created */
        MOUNT_POINT_UNKNOWN, /* the hook's: someone made it, identity unknown */
};

struct mount_point {
        char *path;  /* absolute, clean, strictly beneath grant */
        char *grant; /* the deepest write grant (resolved) holding it */
        bool dir;    /* a directory (a parent, or a directory shield), else a file */
        enum mount_point_state state;
        struct bento_ident id;       /* MOUNT_POINT_MADE */
        struct bento_ident grant_id; /* grant's root when listed; 0:0 when it was missing */
        size_t found;                /* the order it was found in: of repeats, the first stays */
};

/* Grouped by grant (sorted), deepest first within a grant. */
struct mount_points {
        struct mount_point *v;
        size_t n;
        size_t cap; /* allocated entries of v */
};

/* The shield mount points p needs that do not exist on the host: each
 * missing shielded path and its missing parents up to its write grant.
 * A missing shielded path outside every write grant fails (EPERM). */
int mount_points_list(const struct policy *p, struct mount_points *ret, struct bento_err *err);

/* bento run: hold (point-locks.h) the directory of every shield mount of
 * p that lies in a write grant.  Before the points are listed, so that no
 * run removes one this run will find there; with must_exist after they
 * are made, which then must all be there (ESTALE otherwise). */
int mount_points_hold(const struct policy *p, struct point_locks *l, bool must_exist,
                      struct bento_err *err);

/* bento run: create every listed point, parents first, each in a
 * directory held in l, and record each one made there.  A name that
 * already exists is left alone (and never removed by this run); any
 * other failure, a symlink on the way included, fails the run.  Removal
 * is point_locks_release()'s, by the last run out of each directory. */
int mount_points_make(struct mount_points *mp, struct point_locks *l, struct bento_err *err);

/* The hook: record what is at each name now (an empty directory or file
 * is what gets removed) in l, for point_locks_release(). */
void mount_points_hand_over(const struct mount_points *mp, struct point_locks *l);

/* The hook's argv after the verb: MOUNT_POINTS_BENEATH GRANT DEV:INO
 * PATH..., repeated.  Each path is absolute, clean and strictly beneath
 * its grant; EINVAL otherwise.  Points come back MOUNT_POINT_UNKNOWN. */
int mount_points_parse(const char *const *argv, size_t n, struct mount_points *ret,
                       struct bento_err *err);

/* "DEV:INO" of id into buf. */
void mount_points_format_id(const struct bento_ident *id, char buf[48]);

void mount_points_done(struct mount_points *mp);

#endif
