/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The handshake between `create` and the container init: one
 * SOCK_SEQPACKET socketpair, fixed-size messages, numbered steps commented
 * identically on both sides.  Errors inside the init travel back verbatim
 * (errno + message) so `create` can print the real reason.
 */
#ifndef RT_SYNC_H
#define RT_SYNC_H

#include <stdint.h>
#include <sys/types.h>

#include "err.h"

enum rt_sync_type {
        RT_SYNC_PID = 1,          /* intermediate -> parent: code = host pid of the init */
        RT_SYNC_MAPS_DONE,        /* parent -> init: maps written, cgroup entered, oom score
                                   * set; code = the init's host pid */
        RT_SYNC_MOUNTED,          /* init -> parent: mounts made, before pivot_root */
        RT_SYNC_HOOKS_DONE,       /* parent -> init: prestart and createRuntime hooks ran */
        RT_SYNC_PTY,              /* init -> parent: pty master attached (SCM_RIGHTS) */
        RT_SYNC_READY,            /* init -> parent: set up, parked on exec.fifo */
        RT_SYNC_ERROR,            /* either way: code = errno, msg = reason */
        RT_SYNC_GO,               /* parent -> init: cloned, make your own namespaces now */
        RT_SYNC_BIND_REQUEST,     /* init -> parent: my mount namespace exists, open the
                                   * bind sources in it (mount/sources.h) */
        RT_SYNC_BIND_FDS,         /* parent -> init: the next bind sources (SCM_RIGHTS),
                                   * code = how many */
        RT_SYNC_SHARED_ROOT,      /* init -> parent: the detached root tree's identity
                                   * (mount/shared-root.h), msg = "id unique dev ino" */
        RT_SYNC_SHARED_ROOT_KEPT, /* parent -> init: recorded, attach it */
};

struct rt_sync_msg {
        uint32_t type;
        int32_t code;
        char msg[BENTO_ERR_MSG_MAX];
};

/* Most fds one message carries. */
#define RT_SYNC_MAX_FDS 16

/* Send a message, optionally with one fd attached (fd < 0: none). */
int rt_sync_send(int sock, enum rt_sync_type type, int32_t code, const char *msg, int fd);

/* Send a message (no text) with n_fds (<= RT_SYNC_MAX_FDS) fds attached. */
int rt_sync_send_fds(int sock, enum rt_sync_type type, int32_t code, const int *fds, size_t n_fds);

/* Send a one-byte payload with fd attached (the console-socket protocol).
 * Returns 0 or a negative errno. */
int rt_sync_send_raw_fd(int sock, int fd);

/* Send an error as RT_SYNC_ERROR. */
void rt_sync_send_err(int sock, const struct bento_err *err);

/* Receive one message; *ret_fd gets an attached fd or -1 (may be NULL when
 * no fd is expected: a stray fd is then closed).  Returns 0, or -EPIPE when
 * the other side went away. */
int rt_sync_recv(int sock, struct rt_sync_msg *msg, int *ret_fd);

/* The same keeping up to max attached fds (fds[0 .. *ret_n - 1], close-on-
 * exec; any more are closed). */
int rt_sync_recv_fds(int sock, struct rt_sync_msg *msg, int *fds, size_t max, size_t *ret_n);

/* Receive and require `type`; an RT_SYNC_ERROR from the other side, an
 * unexpected type or a closed socket become err. */
int rt_sync_expect(int sock, enum rt_sync_type type, struct rt_sync_msg *msg, int *ret_fd,
                   struct bento_err *err);

#endif
