/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A run's claim on the directories it makes (the run directory and its
 * /dev/shm twin, dir.c), so that a run killed with SIGKILL leaves nothing
 * for good: the next run of the same user removes what it left.
 *
 *   - Before a run makes a directory, it writes the directory's path into
 *     its claim, a file of its own in bento's private directory
 *     (policy/private-dir.h, runs/CLAIM), and after making it, the
 *     directory's identity (device and inode).  A run killed at any point
 *     leaves a claim naming everything it made.
 *   - The claim's file is held with flock(LOCK_SH) for as long as anything
 *     may use the directories: by bento, and by bento-runtime, which
 *     inherits a copy and keeps it until the sandbox is gone.
 *   - Every run starts by sweeping: a claim it can lock LOCK_EX | LOCK_NB
 *     has no holder left, so the directories it names are removed, then the
 *     claim.  A run's own claim goes as the run ends, after its directories.
 *
 * A claim is read back as hostile, like everything in a directory a
 * sandbox might once have reached: only a name made the way bento makes
 * its run directories (bento-XXXXXX or bento-run-XXXXXX), reached without
 * a symlink, owned by this user, is removed; with its identity recorded it
 * must be that very directory and is emptied without leaving its file
 * system or following a symlink; without one (a run killed between mkdir
 * and the identity) it is removed only when empty.
 */
#ifndef BENTO_RUN_CLAIM_H
#define BENTO_RUN_CLAIM_H

#include <stdbool.h>
#include <sys/types.h>

#include "beneath.h"
#include "err.h"

/* The most directories one claim names (a run makes two). */
#define RUN_CLAIM_DIRS 8

/* All zero is "none taken". */
struct run_claim {
        bool held;
        int dirfd;     /* bento's private runs/ directory */
        int fd;        /* runs/<name>, LOCK_SH held */
        off_t len;     /* what the claim holds so far */
        char name[40]; /* pid-random */
};

/* Sweep the claims no run holds any more, then take one for this run. */
int run_claim_take(struct run_claim *c, struct bento_err *err);
/* The same in the runs/ directory dirfd (duplicated): tests. */
int run_claim_take_at(struct run_claim *c, int dirfd, struct bento_err *err);

/* Make parent/<prefix>XXXXXX (0700, random), claimed first; *ret gets its
 * path. */
int run_claim_mkdir(struct run_claim *c, const char *parent, const char *prefix, char **ret,
                    struct bento_err *err);

/* The claim's descriptor, for bento-runtime to hold (-1 without one). */
int run_claim_fd(const struct run_claim *c);

/* A read-only descriptor of the claim (close-on-exec, numbered min or
 * above) holding LOCK_SH on its own, for a holder that must not be able
 * to write it: the target of the Landlock-only tier.  -errno on failure. */
int run_claim_reader(const struct run_claim *c, int min);

/* The claimed directories are gone: remove the claim and let go of it.
 * Calling it again does nothing. */
void run_claim_drop(struct run_claim *c);

/* One directory a claim names: an absolute, clean path whose last
 * component is a name bento gives its run directories, and its identity
 * when the claim got that far. */
struct run_claimed {
        char *path;
        struct bento_ident id;
        bool has_id;
};

/* The directories a claim's text names (at most max, paths malloc'd):
 * "dir PATH" and "ident DEV:INO" lines after the header, up to the first
 * line that is not one (a claim cut short by a kill ends in one). */
size_t run_claim_parse(const char *text, size_t len, struct run_claimed *v, size_t max);

/* Remove the directories of every claim no run holds (run_claim_take does
 * this first; dirfd is a runs/ directory; tests call it directly). */
void run_claims_sweep(int dirfd);

#endif
