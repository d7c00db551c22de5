/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The gate's listening socket: a unix stream socket at the path a bundle
 * names in linux.seccomp.listenerPath.  It is created with mode 0700, so
 * only the gate's own user (and root) can connect, and a peer whose
 * credentials are neither is turned away.  Nothing that already exists at
 * the path is ever replaced.  The socket is removed as soon as the one
 * runtime connection has come in (a second runtime then fails to connect:
 * fail closed), and at the end only if it is still the one the gate made.
 */
#ifndef BENTO_GATE_LISTENER_H
#define BENTO_GATE_LISTENER_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/un.h>

#include "err.h"

struct gate_listener {
        int fd; /* -1 when closed */
        char path[sizeof(((struct sockaddr_un *) 0)->sun_path)];
        dev_t dev; /* of the socket file, to remove only our own */
        ino_t ino;
};

/* Who connected. */
struct gate_peer {
        pid_t pid;
        uid_t uid;
};

/* Bind and listen at path (shorter than a sun_path, not existing yet).  The
 * socket is non-blocking and O_CLOEXEC.  Returns 0 or -errno (EADDRINUSE
 * when the path exists, ENAMETOOLONG). */
int gate_listener_open(struct gate_listener *l, const char *path, struct bento_err *err);

/* Accept one connection (non-blocking, O_CLOEXEC).  Returns the connected
 * fd with *ret_peer filled; -EAGAIN when nobody is waiting; -EPERM with err
 * filled when the peer is neither the gate's user nor root (the connection
 * is closed, the socket keeps listening); other -errno on failure. */
int gate_listener_accept(struct gate_listener *l, struct gate_peer *ret_peer,
                         struct bento_err *err);

/* Stop listening and remove the socket file if it is still ours.  Safe to
 * call more than once. */
void gate_listener_close(struct gate_listener *l);

#endif
