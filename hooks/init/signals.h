/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-init's signal sets, in the kernel's 64-bit form (sys.h): the ones
 * it never blocks, and the fresh signal state it gives the target.  The
 * same rules as bundle/sigstate.h, with the system calls themselves.
 */
#ifndef BENTO_INIT_SIGNALS_H
#define BENTO_INIT_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

#include "sys.h"

/* Signals that say something about bento-init's own code (blocking them
 * would hide its own crash), and the two no process can catch: never
 * blocked, never forwarded, never reset. */
init_sigset init_synchronous_signals(void);

/* The 64-bit hex mask on the line "\n<field>" of text (a NUL-terminated
 * /proc/<pid>/status), or false when there is none or it is not one. */
bool init_status_mask(const char *text, const char *field, uint64_t *ret);

/* The signals that are ignored or have a handler in this process, from
 * /proc/self/status; all 64 when that cannot be read or parsed, so that
 * resetting them is never less than resetting each. */
init_sigset init_signals_not_default(void);

/* Each signal of set to its default disposition, then the mask to mask:
 * for the target's child, which shares our memory until its exec. */
void init_signals_reset(init_sigset set, init_sigset mask);

#endif
