/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proxy's own resolver (docs/egress.md, "How it works"): a name is looked
 * up in the hosts file, then asked of the name servers resolv.conf lists,
 * directly (UDP, and TCP when an answer comes back truncated).  No NSS
 * module is ever loaded into the proxy, so what a name resolves to does not
 * depend on plugins of the host's nsswitch.conf (LDAP, mDNS, a container
 * engine's), and the whole lookup is bounded by the caller's deadline.
 *
 * What is read from resolv.conf: `nameserver` (the first three; none means
 * 127.0.0.1 and ::1), `search` and `domain` (the last of them wins, as in
 * glibc), and the options ndots:N, timeout:N, attempts:N and use-vc.  The
 * search list is not derived from the host name when resolv.conf has none.
 *
 * The parsing functions are pure, for the unit tests and the fuzz target.
 */
#ifndef BENTO_EGRESS_DNS_H
#define BENTO_EGRESS_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "resolve.h"

#define DNS_NS_MAX       3
#define DNS_SEARCH_MAX   6
#define DNS_NAME_MAX     253
#define DNS_TYPE_A       1
#define DNS_TYPE_CNAME   5
#define DNS_TYPE_AAAA    28
#define DNS_UDP_MAX      1232 /* what we ask for, and what we read (EDNS0 is not sent) */
#define DNS_QUERY_MAX    (12 + DNS_NAME_MAX + 2 + 4)
#define DNS_TIMEOUT_MAX  30
#define DNS_ATTEMPTS_MAX 5

struct dns_conf {
        struct sockaddr_storage ns[DNS_NS_MAX];
        socklen_t ns_len[DNS_NS_MAX];
        size_t n_ns;
        char search[DNS_SEARCH_MAX][DNS_NAME_MAX + 1];
        size_t n_search;
        int ndots;      /* a name with at least this many dots is tried as is first (1) */
        int timeout_ms; /* per query to one server (5000) */
        int attempts;   /* rounds over the servers (2) */
        bool use_tcp;   /* options use-vc: TCP from the start */
};

/* An IP literal (no zone) as a socket address with port; false when s
 * is not one. */
bool dns_ip_literal(const char *s, unsigned short port, struct sockaddr_storage *ss,
                    socklen_t *len);

/* resolv.conf text -> *ret.  Never fails: a line it does not understand
 * is skipped, as the C library does; the defaults fill what is missing.
 * port: the name servers' port (53; the tests pass their own). */
void dns_conf_parse(const char *text, size_t len, unsigned short port, struct dns_conf *ret);

/* The same from a file; a missing or unreadable file gives the defaults. */
void dns_conf_load(const char *path, struct dns_conf *ret);

/* The addresses a hosts file gives name (compared without case), with the
 * port set, added to *out.  Returns 0 when the name is listed, -ENOENT when
 * not (or the file cannot be read).  Lines the file cannot mean are
 * skipped, as getaddrinfo does. */
int dns_hosts_lookup(const char *path, const char *name, unsigned short port,
                     struct egress_addrs *out);

/* One query for name and type (A or AAAA) with the given id, recursion
 * desired, into buf.  Returns its length, or 0 when the name cannot be put
 * into a query (an empty label, a label over 63 bytes, over 253 bytes). */
size_t dns_query_build(uint8_t *buf, size_t size, uint16_t id, const char *name, uint16_t type);

/* What one answer says about name and type.
 *   0         addresses of that type (after any CNAME chain) added to *out;
 *   -ENOENT   the name does not exist, or has no address of that type;
 *   -EAGAIN   the server failed or refused (ask the next one);
 *   -EMSGSIZE the answer was truncated (ask again over TCP);
 *   -EBADMSG  not an answer to that query (wrong id, question, malformed).
 * *out changes only on success.  Never reads outside msg[0..len). */
int dns_answer_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name, uint16_t type,
                     unsigned short port, struct egress_addrs *out);

/* Every address of name from the servers of conf, before deadline_ms
 * (egress_now_ms() clock).  Returns 0 with at least one address, -ENOENT
 * when the name has none, -EAGAIN when no server answered in time. */
int dns_lookup(const struct dns_conf *conf, const char *name, unsigned short port,
               int64_t deadline_ms, struct egress_addrs *out);

#endif
