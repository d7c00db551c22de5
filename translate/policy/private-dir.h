/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento's private directory: where runs of one user leave each other notes
 * (the shield mount point locks, policy/point-locks.h; the claims on run
 * directories, run/claim.h).  /run/bento as root; $XDG_RUNTIME_DIR/bento
 * otherwise, or /tmp/bento-UID without it.  Every component is made 0700
 * when missing and reached without following a symlink, and must then be a
 * directory of this user's that no one else may enter: on /tmp, another
 * user could have made the name first.
 */
#ifndef BENTO_PRIVATE_DIR_H
#define BENTO_PRIVATE_DIR_H

#include "err.h"

/* An O_RDONLY | O_DIRECTORY descriptor of sub (one name) in bento's
 * private directory, made if missing.  what says, in the error, what runs
 * could not agree on without it ("who removes shield mount points"). */
int bento_private_dir(const char *sub, const char *what, struct bento_err *err);

#endif
