/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container init: the cloned process that sets itself up from the
 * inside (namespaces, filesystem, terminal, process attributes), reports
 * RT_SYNC_READY, waits on exec.fifo for `start`, and execs the target.
 */
#ifndef RT_INIT_H
#define RT_INIT_H

#include "base/context.h"

struct rt_init_args {
        const struct rt_context *ctx;
        int sync_fd; /* the init's end of the handshake socket */
        int fifo_fd; /* exec.fifo opened O_RDWR: read() blocks until `start` writes */
        /* CLONE_NEW* flags left out of the clone: the init makes these
         * namespaces itself with unshare(), after RT_SYNC_GO, while the
         * runtime sets up its cgroup (0: all were made by the clone) */
        unsigned long unshare_flags;
};

/* Find process.args[0] as execvp would, with the PATH of process.env (a
 * default one without): the result goes to out.  ENOENT says "executable
 * file not found in $PATH", the words engines match on.  `exec` uses it
 * too. */
int rt_resolve_executable(const struct oci_process *proc, char *out, size_t size,
                          struct bento_err *err);

/* Never returns: execs the target or _exit()s after reporting the error. */
__attribute__((noreturn)) void rt_init_main(const struct rt_init_args *a);

#endif
