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

/* Set each signal of set (but SIGKILL and SIGSTOP) to its default
 * disposition, and then the mask to mask, with the system calls
 * themselves: for a child that shares its parent's memory until its exec
 * (CLONE_VM|CLONE_VFORK), where a wrapper a sanitizer or libc adds
 * (per-thread state, glibc's refusal of its own two signals) must not
 * run. */
void bento_signals_reset_raw(const sigset_t *set, const sigset_t *mask);

#endif
