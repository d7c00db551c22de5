/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Network rule patterns (docs/manifest.md, "NETWORK RULES"): validation of the host and
 * port patterns a manifest grants, and matching a CONNECT target against
 * them.  The grammar is bundle/hostname.h, shared with bento-egress, so a
 * rule means exactly one thing to the reviewer and to the proxy; this is
 * the manifest-facing wrapper that quotes hostile values safely.
 */
#ifndef BENTO_NETRULE_H
#define BENTO_NETRULE_H

#include <stdbool.h>
#include <stddef.h>

/* Check a host pattern.  Returns 0, or -EINVAL with the reason (without the
 * "network rule <i>: " prefix; the pattern quoted and sanitised) written to
 * why.  Never fails otherwise. */
int netrule_check_host(const char *host, char *why, size_t size);

/* Check a port pattern: "*", "N" or "LO-HI", each number plain decimal in
 * 1..65535.  Same convention as netrule_check_host. */
int netrule_check_port(const char *port, char *why, size_t size);

/* Whether a (valid) rule pattern matches a target, as bento-egress would
 * decide it: both are normalised (ASCII lower case, one trailing dot
 * dropped) and compared with bento_host_matches.  Ports: bento_port_matches.
 * The caller has already screened the target. */
bool netrule_host_matches(const char *pattern, const char *host);

#endif
