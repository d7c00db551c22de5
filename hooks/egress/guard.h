/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The upstream guard (docs/egress.md, "The upstream guard"): which resolved addresses the proxy may
 * dial.  Every address is one of
 *
 *   reserved  never dialled, not even when a rule names it literally:
 *             loopback, link-local (the cloud metadata address among them),
 *             multicast, unspecified, 0/8, 198.18/15, 240/4, fec0::/10;
 *   private   dialled only when a rule names that exact address: 10/8,
 *             172.16/12, 192.168/16, 100.64/10, fc00::/7;
 *   public    governed by the rules alone.
 *
 * IPv6 addresses that carry an IPv4 address (mapped, compatible,
 * translated, 6to4, NAT64 64:ff9b::/96, ISATAP) are judged by that IPv4, so
 * "::ffff:127.0.0.1" is loopback.  Where the host's DNS64 prefixes are known
 * (egress_nat64_*), addresses under them are decoded too; where discovery
 * was inconclusive, otherwise-public IPv6 is treated as private, since it
 * may be a NAT64 path to anything.  Pure functions, no I/O.
 */
#ifndef BENTO_EGRESS_GUARD_H
#define BENTO_EGRESS_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum egress_class {
        EGRESS_PUBLIC,
        EGRESS_PRIVATE,
        EGRESS_RESERVED, /* strictest last: verdicts combine with max() */
};

#define EGRESS_NAT64_MAX 8

struct egress_pref64 {
        uint8_t bytes[16]; /* the prefix, zero beyond len */
        int len;           /* 32, 40, 48, 56, 64 or 96 */
};

/* What NAT64 discovery (an AAAA lookup of ipv4only.arpa) found. */
struct egress_nat64 {
        struct egress_pref64 prefixes[EGRESS_NAT64_MAX];
        size_t n;
        bool inconclusive; /* the lookup failed other than "no such name/data" */
};

/* "public", "private", "reserved" */
const char *egress_class_name(enum egress_class c);

/* Class of an IPv4 address given in network byte order (4 bytes). */
enum egress_class egress_classify_v4(const uint8_t a[4]);

/* Class of an IPv6 address; nat64 may be NULL (no discovery made). */
enum egress_class egress_classify_v6(const uint8_t a[16], const struct egress_nat64 *nat64);

/* Class of a socket address (AF_INET or AF_INET6; anything else is
 * reserved). */
enum egress_class egress_classify(const struct sockaddr *sa, const struct egress_nat64 *nat64);

/* The IPv4 address embedded at RFC 6052 prefix length len (32, 40, 48, 56,
 * 64, 96).  Below /96 the u-octet (byte 8) must be zero; with
 * zero_suffix, so must every byte after the embedded address.  Returns
 * false when the address does not qualify. */
bool egress_rfc6052_decode(const uint8_t a[16], int len, bool zero_suffix, uint8_t out[4]);

/* Add the Pref64 an ipv4only.arpa AAAA answer reveals (the length at which
 * it embeds 192.0.0.170 or 192.0.0.171).  Returns false when the answer
 * yields no prefix (which makes discovery inconclusive). */
bool egress_nat64_add_answer(struct egress_nat64 *nat64, const uint8_t a[16]);

#endif
