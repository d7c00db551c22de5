/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CONNECT proxy (docs/egress.md, "How it works"): accepts connections on the listening
 * socket inside the container's network namespace and serves each in a
 * handler thread that dials from the host's.
 *
 * Why threads and not one epoll loop: a handler resolves a name (dns.h),
 * dials and relays, each a sequence of waits against one deadline; an
 * event loop would need a state machine for each, while a thread per
 * connection keeps each handler straight-line code whose every wait is a
 * poll() against a deadline.  The threads are capped (max_conns; the next client gets a 503
 * at once), run on small stacks, and hold bounded buffers (the 64 KiB head
 * and 32 KiB of relay buffers), so the host side costs at most about
 * max_conns * 200 KiB however hostile the clients are.
 */
#ifndef BENTO_EGRESS_PROXY_H
#define BENTO_EGRESS_PROXY_H

#include "config.h"

/* Serve until the process behind pidfd exits (the container init), then
 * return 0.  Returns -errno if the accept loop cannot go on at all. */
int egress_proxy_serve(int listen_fd, int pidfd, const struct egress_config *cfg);

/* Number of connections accepted so far. */
unsigned long egress_proxy_accepted(void);

/* Number of transient accept() failures (EMFILE, ENOMEM, ...) so far; the
 * loop retries them with a backoff of 5 ms doubling to 1 s. */
unsigned long egress_proxy_accept_errors(void);

#endif
