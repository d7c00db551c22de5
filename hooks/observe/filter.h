/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the classic-BPF seccomp filter the target runs under.  It
 * sends every system call of the table (systab.h) and every call not of
 * the x86_64 ABI (another audit arch, or the x32 bit) to the tracer with
 * SECCOMP_RET_TRACE, and lets the rest run without a stop.
 */
#ifndef BENTO_OBSERVE_FILTER_H
#define BENTO_OBSERVE_FILTER_H

#include <linux/filter.h>
#include <stddef.h>

/* Room for the filter: 5 instructions of prologue and epilogue, one per
 * table row. */
#define OBS_FILTER_MAX 256

/* Build the filter into prog (OBS_FILTER_MAX instructions).  Returns the
 * number of instructions, or 0 if the table does not fit (a jump offset
 * of classic BPF is 8 bits). */
size_t obs_filter_build(struct sock_filter *prog);

/* Install it on the calling thread, after PR_SET_NO_NEW_PRIVS.  Returns 0
 * or -errno. */
int obs_filter_install(void);

#endif
