/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `run --wait-fd N` (docs/man/bento-runtime.1): a caller can start the
 * runtime before the bundle is written, so that the runtime's own start
 * (the exec, the loader, its first pages) overlaps the caller's work, and
 * let it go once the bundle is complete.  N is a unix stream socket; the
 * go is wait-go.h's: descriptors to hold (close-on-exec) until the runtime
 * ends (bento's mount point locks and its run's claim), then the go.
 * End-of-file before it means the caller gave the run up: the runtime
 * ends, having made nothing.
 */
#ifndef RT_RUN_GO_H
#define RT_RUN_GO_H

#include "err.h"
#include "wait-go.h"

/* Wait on fd for the go.  Returns 1 on the go, 0 when the caller gave up,
 * or -errno (err set) when fd is no such socket or says something else.
 * fd is closed either way. */
int rt_run_wait_go(int fd, struct bento_err *err);

#endif
