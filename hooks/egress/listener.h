/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proxy's listening socket, made inside the container's network
 * namespace: enter it (setns), bring `lo` up, check that nothing but `lo`
 * is up there (an interface with a route out would let the program bypass
 * the proxy, so the filter would be a lie), bind 127.0.0.1:3128, and come
 * back.  The socket stays in the namespace it was made in, while the
 * process that accepts on it dials from the host's.
 *
 * Must be called while the process is single-threaded: setns() moves only
 * the calling thread, and nothing else may run in the wrong namespace.
 */
#ifndef BENTO_EGRESS_LISTENER_H
#define BENTO_EGRESS_LISTENER_H

#include <stdbool.h>

#include "err.h"

#define EGRESS_LISTEN_PORT 3128

/* Returns the listening socket (non-blocking, close-on-exec) or -errno with
 * err filled.  With allow_interfaces the "only lo" check is skipped. */
int egress_listener_create(int netns_fd, bool allow_interfaces, struct bento_err *err);

#endif
