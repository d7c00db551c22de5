/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsing what a client sends the proxy before a tunnel exists: the end of
 * the request head, and the request line (docs/egress.md, "How it works").  Input is
 * hostile and arbitrary bytes; the parser never allocates and never reads
 * past len.  Pure functions, so the unit tests and the fuzz target link
 * them directly.
 */
#ifndef BENTO_EGRESS_REQUEST_H
#define BENTO_EGRESS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rules.h"

/* The cap on request line + headers. */
#define EGRESS_HEAD_MAX ((size_t) 64 * 1024)

enum egress_req_kind {
        EGRESS_REQ_CONNECT,    /* a well-formed CONNECT host:port */
        EGRESS_REQ_UNTUNNELED, /* plain http(s):// proxying: answered 400 */
        EGRESS_REQ_BAD,        /* anything else: answered 400 */
};

struct egress_request {
        enum egress_req_kind kind;
        /* CONNECT and UNTUNNELED: the destination, host normalised (lower
         * case, one trailing dot removed, IPv6 without brackets).  For BAD
         * requests a best-effort destination when one could be told apart
         * (a bare host without port), else empty. */
        char host[EGRESS_HOST_MAX + 1];
        char port[8];
        /* BAD: the text of the 400 body, naming the problem. */
        char reason[320];
};

/* Offset just past the blank line ending the head ("\r\n\r\n" or "\n\n",
 * mixed forms too), or -1 when the head is not complete in buf[0..len). */
ssize_t egress_head_end(const char *buf, size_t len);

/* Parse the request line at the start of head (len bytes, the head as
 * delimited by egress_head_end).  Always fills *ret; never fails. */
void egress_request_parse(const char *head, size_t len, struct egress_request *ret);

/* "host:port", or "[host]:port" for an IPv6 host, into buf. */
void egress_format_target(const char *host, const char *port, char *buf, size_t size);

/* The class of the first character the manifest's character screen (docs/manifest.md, "SYNTAX
 * RULES") refuses in s[0..len) ("a control character", "invalid UTF-8", ...), or NULL. */
const char *egress_unsafe_class(const char *s, size_t len);

#endif
