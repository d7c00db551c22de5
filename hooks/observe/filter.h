/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the classic-BPF seccomp filter the target runs under.  It
 * sends every system call of the table (systab.h) and every call not of
 * the x86_64 ABI (another audit arch, or the x32 bit) to the observer, and
 * lets the rest run without a stop: with SECCOMP_RET_USER_NOTIF to the
 * filter's listener (the notification transport, trace.c), or with
 * SECCOMP_RET_TRACE to the tracer where a listener cannot be had.
 */
#ifndef BENTO_OBSERVE_FILTER_H
#define BENTO_OBSERVE_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

/* Room for the filter: 5 instructions of prologue and epilogue, one per
 * table row. */
#define OBS_FILTER_MAX 256

/* Build the filter into prog (OBS_FILTER_MAX instructions), returning
 * action (SECCOMP_RET_USER_NOTIF or SECCOMP_RET_TRACE) for the calls the
 * observer sees; with gadget, the lookups the preload library makes from
 * its gadget (ring.h) pass.  Returns the number of instructions, or 0 if the table
 * does not fit (a jump offset of classic BPF is 8 bits). */
size_t obs_filter_build(struct sock_filter *prog, unsigned int action, bool gadget);

/* Install the SECCOMP_RET_USER_NOTIF filter on the calling thread, after
 * PR_SET_NO_NEW_PRIVS, with a listener whose waiters only a fatal signal
 * interrupts once their notification was received (the result stop of
 * trace.c relies on it).  Returns the listener's descriptor or -errno:
 * EBUSY when a filter of the chain already has a listener (only one may),
 * EINVAL on a kernel older than 5.19. */
int obs_filter_install_notify(bool gadget);

/* Install the SECCOMP_RET_TRACE filter instead.  Returns 0 or -errno. */
int obs_filter_install_trace(bool gadget);

#endif
