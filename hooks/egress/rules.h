/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Egress rules: one `host:port` pattern pair each, validated and matched
 * with the grammar of bundle/hostname.h, the one bento's manifest
 * `network:` rules are checked with (docs/manifest.md, "NETWORK RULES").  Pure string logic, no
 * I/O, so the unit tests can reach every branch.
 *
 * Host patterns: "*", a suffix wildcard ".example.com" (any name strictly
 * below it), a canonical IPv4/IPv6 literal, or a hostname.  Port patterns:
 * "*", a single port, or an inclusive "lo-hi" range.  On the command line a
 * rule is written HOST:PORT, split at the last colon, so an IPv6 literal may
 * be bracketed ("[2001:db8::1]:443") or not ("2001:db8::1:443").
 */
#ifndef BENTO_EGRESS_RULES_H
#define BENTO_EGRESS_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "hostname.h"

/* the longest host name, BENTO_HOST_MAX, under the name hooks/egress uses */
#define EGRESS_HOST_MAX  BENTO_HOST_MAX
#define EGRESS_MAX_RULES 1024

struct egress_rule {
        char host[EGRESS_HOST_MAX + 1]; /* lower-cased, no trailing dot, no brackets */
        char port[12];                  /* "*", "443" or "8000-8999" */
};

/* Validate a host pattern; on failure err says why in the manifest checker's words
 * ("host \"x\" is not a valid hostname").  Returns 0 or -EINVAL. */
int egress_host_pattern_check(const char *host, struct bento_err *err);

/* Validate a port pattern ("*", "443", "8000-8999").  Returns 0 or -EINVAL. */
int egress_port_pattern_check(const char *port, struct bento_err *err);

/* Parse "HOST:PORT" (IPv6 literals optionally bracketed) into *ret.  Returns 0 or
 * -EINVAL with err naming the rule and the problem. */
int egress_rule_parse(const char *spec, struct egress_rule *ret, struct bento_err *err);

/* Whether some rule allows host:port.  host must already be normalised
 * (bento_host_normalise) and port canonical (bento_port_canonical); the
 * request parser guarantees both.  IP literals match only textually.  No
 * rules: false. */
bool egress_rules_allow(const struct egress_rule *rules, size_t n, const char *host,
                        const char *port);

/* Whether host is an IP literal that some rule names as the same address
 * with a port pattern matching port: the one case where a private address
 * may be dialled (docs/egress.md, "How it works"). */
bool egress_literal_grant(const struct egress_rule *rules, size_t n, const char *host,
                          const char *port);

#endif
