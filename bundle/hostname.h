/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The grammar of network rules, shared by both sides of the boundary: the
 * manifest checker (translate/manifest/netrule.c) that decides what a
 * reviewer approves, and bento-egress (hooks/egress/rules.c) that enforces
 * it.  They must agree on every pattern and every match, so there is one
 * implementation, here.
 *
 * Host patterns: "*", a suffix wildcard ".example.com" (any name strictly
 * below it), an IP literal in the one form inet_ntop() prints (IPv4-mapped
 * IPv6 only as the dotted quad), or a host name of LDH labels (1-63 of
 * A-Z a-z 0-9 '-', no hyphen at either end) whose last label is not all
 * digits.  A second spelling of an address would let the reviewer read one
 * thing while the proxy matches another, so it is refused, naming the one.
 * Port patterns: "*", "N" or "LO-HI", plain decimal 1-65535 (no sign, no
 * leading zero).  Pure string logic: no I/O, no locale.
 */
#ifndef BENTO_HOSTNAME_H
#define BENTO_HOSTNAME_H

#include <stdbool.h>
#include <stddef.h>

#define BENTO_HOST_MAX 253
/* Room for the canonical text of any IP literal (INET6_ADDRSTRLEN). */
#define BENTO_IP_CANON_MAX 46

/* Why a host pattern is refused; BENTO_HOST_OK when it is not. */
enum bento_host_problem {
        BENTO_HOST_OK,
        BENTO_HOST_EMPTY,
        BENTO_HOST_RESERVED,      /* CR, LF, TAB, space or '%' (an IPv6 zone) */
        BENTO_HOST_TOO_LONG,      /* over BENTO_HOST_MAX */
        BENTO_HOST_BARE_DOT,      /* "." */
        BENTO_HOST_SUFFIX_IP,     /* ".10.0.0.1" */
        BENTO_HOST_NOT_CANONICAL, /* an IP literal in a second spelling */
        BENTO_HOST_PARTIAL_IP,    /* digits and dots that are no full address: "127.1" */
        BENTO_HOST_BAD_NAME,
};

enum bento_port_problem {
        BENTO_PORT_OK,
        BENTO_PORT_EMPTY,
        BENTO_PORT_SYNTAX, /* not plain decimal or a lo-hi range */
        BENTO_PORT_RANGE,  /* a number outside 1-65535 */
        BENTO_PORT_INVERTED,
};

/* Check a host pattern (NULL counts as empty).  For BENTO_HOST_NOT_CANONICAL
 * canon (BENTO_IP_CANON_MAX bytes) receives the one accepted spelling. */
enum bento_host_problem bento_host_pattern_check(const char *host, char canon[BENTO_IP_CANON_MAX]);

/* Check a port pattern (NULL counts as empty). */
enum bento_port_problem bento_port_pattern_check(const char *port);

/* The reason for a refusal, written to why: the same words whichever side
 * refuses.  shown is the pattern as the caller quotes it (sanitised when
 * it came from a manifest), len the pattern's real length, canon what
 * bento_host_pattern_check wrote. */
void bento_host_problem_text(enum bento_host_problem p, const char *shown, size_t len,
                             const char *canon, char *why, size_t size);
void bento_port_problem_text(enum bento_port_problem p, const char *shown, char *why, size_t size);

/* Whether s is an IP literal; its canonical text goes to canon. */
bool bento_ip_canonical(const char *s, char *canon, size_t size);

/* Whether s is a canonical port number: plain decimal 1-65535. */
bool bento_port_canonical(const char *s);

/* Normalise a host in place: ASCII A-Z lower-cased (nothing else folded,
 * whatever the locale) and one trailing '.' removed. */
void bento_host_normalise(char *host);

/* Whether a valid pattern matches a target, both already normalised by
 * bento_host_normalise (so "A.example.com." has become "a.example.com",
 * while "a.." keeps its second dot and matches no rule for "a").  A suffix
 * wildcard needs at least one character before its dot.  Ports match
 * numerically in a range and as strings otherwise; a target port that is
 * not canonical matches no range. */
bool bento_host_matches(const char *pattern, const char *host);
bool bento_port_matches(const char *pattern, const char *port);

#endif
