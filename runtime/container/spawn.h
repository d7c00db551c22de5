/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cloning the container init and walking it through the handshake, up to
 * the point where it is parked on exec.fifo.
 */
#ifndef RT_SPAWN_H
#define RT_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/context.h"
#include "cgroup/cgroup.h"
#include "base/clone.h"
#include "namespace/namespaces.h"

struct rt_spawn_opts {
        const char *console_socket; /* optional */
        /* foreground `run` without --console-socket: keep the pty master
         * (rt_spawned.console_fd) to proxy it to our own stdio */
        bool keep_console;
        const char *fifo_path; /* exec.fifo, already made */
        /* work of the caller's that needs no init, done while the init sets
         * itself up (after sync #1); may be NULL */
        int (*meanwhile)(void *arg, struct bento_err *err);
        void *meanwhile_arg;
};

struct rt_spawned {
        pid_t pid; /* host pid of the init */
        int pidfd;
        struct rt_cgroup_info cgroup; /* the cgroup it was placed in */
        int console_fd;               /* the pty master with keep_console, else -1 */
};

/* On failure the init (if any) is killed, and reaped when it is our child. */
int rt_spawn_init(const struct rt_context *ctx, const struct rt_ns_plan *plan,
                  const struct rt_spawn_opts *opts, struct rt_spawned *ret, struct bento_err *err);

#endif
