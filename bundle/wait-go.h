/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The go of `bento-runtime run --wait-fd N` (docs/man/bento-runtime.1), as
 * bento sends it (translate/run/sandbox.c) and the runtime takes it
 * (runtime/cli/run-go.c): messages of one byte on a unix stream socket,
 * WAIT_GO_HOLD with up to WAIT_GO_FDS descriptors for the runtime to hold
 * until it ends, any number of times, then WAIT_GO once.  End-of-file
 * before WAIT_GO: the caller gave the run up.
 */
#ifndef BENTO_WAIT_GO_H
#define BENTO_WAIT_GO_H

#define WAIT_GO      'g'
#define WAIT_GO_HOLD 'h'
#define WAIT_GO_FDS  250 /* below the kernel's SCM_MAX_FD (253) */

#endif
