/* SPDX-License-Identifier: Apache-2.0 */
/* The processes a Landlock-only run leaves behind (escapees.c). */
#ifndef BENTO_RUN_ESCAPEES_H
#define BENTO_RUN_ESCAPEES_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* Make bento the child subreaper of what it starts from now on. */
int run_escapees_adopt(struct bento_err *err);

/* Kill and reap every child of bento except keep[0..n_keep), until none is
 * left.  Returns how many were killed, or -errno (-EAGAIN: some were still
 * appearing after many rounds). */
long run_escapees_kill(const pid_t *keep, size_t n_keep);

#endif
