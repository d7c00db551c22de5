/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which signals have a disposition other than the default.  A process that
 * hands a fresh signal state to a program it execs (the runtime's init,
 * bento-init's target) used to reset all 64 one call each; on a VM where a
 * system call costs about 2 us that is a tenth of a millisecond on the path
 * to the target, for the two or three signals that were ever changed.
 */
#ifndef BENTO_SIGSTATE_H
#define BENTO_SIGSTATE_H

#include <signal.h>

/* The signals that are ignored or have a handler in this process, from the
 * SigIgn and SigCgt lines of /proc/self/status; every signal when that
 * cannot be read or parsed (no /proc), so that resetting the set is always
 * at least as thorough as resetting each signal. */
void bento_signals_not_default(sigset_t *set);

#endif
