/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container init: the cloned process that sets itself up from the
 * inside (namespaces, filesystem, terminal, process attributes), reports
 * RT_SYNC_READY, waits on exec.fifo for `start`, and execs the target.
 */
#ifndef RT_INIT_H
#define RT_INIT_H

#include "context.h"

struct rt_init_args {
        const struct rt_context *ctx;
        int sync_fd; /* the init's end of the handshake socket */
        int fifo_fd; /* exec.fifo opened O_RDWR: read() blocks until `start` writes */
};

/* Never returns: execs the target or _exit()s after reporting the error. */
__attribute__((noreturn)) void rt_init_main(const struct rt_init_args *a);

#endif
