/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Network rule patterns (docs/manifest.md, "NETWORK RULES"): validation of the host and
 * port patterns a manifest grants, and matching a CONNECT target against
 * them.  Validation is strict so that a rule means exactly one thing to the
 * reviewer and to the proxy: IP literals must be written in the one form
 * inet_ntop() prints, numbers in plain decimal, hostnames in LDH labels.
 */
#ifndef BENTO_NETRULE_H
#define BENTO_NETRULE_H

#include <stdbool.h>
#include <stddef.h>

#define NETRULE_HOST_MAX 253

/* Check a host pattern.  Returns 0, or -EINVAL with the reason (without the
 * "network rule <i>: " prefix; the pattern quoted and sanitised) written to
 * why.  Never fails otherwise. */
int netrule_check_host(const char *host, char *why, size_t size);

/* Check a port pattern: "*", "N" or "LO-HI", each number plain decimal in
 * 1..65535.  Same convention as netrule_check_host. */
int netrule_check_port(const char *port, char *why, size_t size);

/* Whether a (valid) rule pattern matches a target.  Hosts are compared after
 * ASCII lower-casing and dropping one trailing dot; ports numerically for a
 * range and as strings otherwise.  The caller has already screened the
 * target. */
bool netrule_host_matches(const char *pattern, const char *host);
bool netrule_port_matches(const char *pattern, const char *port);

#endif
