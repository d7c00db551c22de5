/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tunnel: bytes copied both ways between the client (inside the
 * sandbox) and the upstream, with a fixed 16 KiB buffer per direction (so a
 * tunnel's memory is bounded whatever the peers do), an idle timeout that
 * any byte in either direction refreshes, a deadline for the upstream's
 * first byte, a cap on the tunnel's whole life, and half-close: EOF from one
 * side becomes shutdown(SHUT_WR) on the other once its buffer is flushed.
 */
#ifndef BENTO_EGRESS_RELAY_H
#define BENTO_EGRESS_RELAY_H

#include <stddef.h>

#include "config.h"

/* Run the tunnel to its end.  Both sockets must be non-blocking; the
 * caller closes them.  Returns 0 when the tunnel ended by EOF on both
 * sides, -ETIMEDOUT on a timeout, -errno on a socket error. */
int egress_relay(int client, int upstream, const struct egress_limits *lim);

#endif
