/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Name resolution on the host side, and NAT64 prefix discovery.
 *
 * Names are resolved in the host's network namespace (the sandbox has no
 * resolver) by the proxy's own resolver (dns.h): the host's /etc/hosts,
 * then the name servers of its /etc/resolv.conf (or --resolv-conf), never
 * through NSS.  A names file given with --hosts-file (for tests: it lets a
 * test make a name resolve to loopback or to the metadata address without
 * touching the host's /etc/hosts) is consulted first: a name listed there
 * resolves to exactly the addresses listed, and nothing else is asked.  IP
 * literals are not resolved at all.
 *
 * Every address returned is what the dialler checks and then dials: no
 * second lookup happens between the guard and connect().
 */
#ifndef BENTO_EGRESS_RESOLVE_H
#define BENTO_EGRESS_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"
#include "guard.h"

#define EGRESS_ADDRS_MAX 16

struct egress_addrs {
        struct sockaddr_storage a[EGRESS_ADDRS_MAX];
        socklen_t len[EGRESS_ADDRS_MAX];
        size_t n;
};

/* Load a names file ("ADDRESS NAME..." lines, '#' comments, as
 * /etc/hosts).  Call once before any thread starts.  Returns 0 or -errno
 * with err naming the file and line. */
int egress_hosts_load(const char *path, struct bento_err *err);

/* The resolv.conf to read instead of /etc/resolv.conf (--resolv-conf).
 * Call once before any thread starts. */
void egress_resolv_conf_set(const char *path);

/* Resolve host (normalised, no brackets) for TCP to port (canonical),
 * giving up at deadline_ms (egress_now_ms() clock).  Returns 0 with at
 * least one address, -ENOENT when the name has no address, -EAGAIN when no
 * name server answered in time, other -errno. */
int egress_resolve(const char *host, const char *port, int64_t deadline_ms,
                   struct egress_addrs *ret);

/* Start discovering the host's DNS64 prefixes (ipv4only.arpa AAAA, 3 s
 * timeout) in a background thread.  Returns 0 or -errno. */
int egress_nat64_start(void);

/* The discovery result, waiting for it if it is still running (never
 * longer than the 3 s timeout); NULL when discovery was never started. */
const struct egress_nat64 *egress_nat64_get(void);

#endif
