/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network gate (docs/embedding.md, "The network gate protocol"): an
 * embedder's unix socket that bento-egress asks about a destination no rule
 * allows.  The hook connects once, as root, before the daemon drops its
 * privileges, so the socket needs no permission for nobody and the
 * sandboxed program, which starts later in its own mount and network
 * namespaces, never holds or reaches it.  Over that one connection:
 *
 *   egress -> gate  "bento-network-gate 1\n"              once, at connect
 *   egress -> gate  "<id> <host> <port>\n"                one per question
 *   gate -> egress  "<id> allow\n" or "<id> deny\n"
 *
 * ids count up from 1.  Anything else is a denial: no answer within the
 * timeout (that question only; a late answer is skipped by its id), a
 * closed socket, an unknown word, a malformed or overlong line or an id
 * never asked (the last three, and a closed socket, end the gate for the
 * rest of the run: every later question is denied unasked).  The gate only
 * widens: it is asked after the rules miss, never about an IP literal the
 * upstream guard would refuse, and what it admits is still dialled through
 * the guard without a literal grant.
 */
#ifndef BENTO_EGRESS_GATE_H
#define BENTO_EGRESS_GATE_H

#include <stdbool.h>

#include "err.h"

enum egress_gate_answer {
        EGRESS_GATE_SAYS_ALLOW,
        EGRESS_GATE_SAYS_DENY,
        EGRESS_GATE_SILENT, /* no usable answer: timeout, closed, garbage */
};

/* Connect to the gate socket at path and send the greeting.  Returns the
 * connected (non-blocking, close-on-exec) descriptor, or -errno with err
 * set. */
int egress_gate_connect(const char *path, int timeout_ms, struct bento_err *err);

/* Use fd (from egress_gate_connect(), or -1: no gate) with this timeout
 * per question.  Call once, before any thread starts. */
void egress_gate_init(int fd, int timeout_ms);

/* Whether there is a gate at all. */
bool egress_gate_enabled(void);

/* Whether host may be put to the gate: not when it is an IP literal the
 * upstream guard refuses without a literal grant (private or reserved),
 * so the gate cannot be used to reach what the proxy never dials. */
bool egress_gate_askable(const char *host);

/* Ask about host:port (normalised, as the request parser leaves them).
 * Thread-safe; waits at most the timeout, also for its turn. */
enum egress_gate_answer egress_gate_ask(const char *host, const char *port);

#endif
