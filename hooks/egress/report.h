/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision report: one compact JSON object per line, appended to the
 * file named by --report / --report-dir, for `bento run` (and people) to
 * read after the run.  The format is documented in docs/egress.md; in
 * short, every line has "event":
 *
 *   {"event":"start","pid":1234,"container":"ID","listen":"127.0.0.1:3128",
 *    "rules":["example.com:443"]}
 *   {"event":"decision","decision":"deny","host":"api.github.com",
 *    "port":"443","status":403,"reason":"...","remedy":"..."}
 *   {"event":"truncated","limit":10000}
 *   {"event":"degraded","reason":"accept() failed: Too many open files"}
 *   {"event":"stop","pid":1234,"connections":17,"accept_errors":0}
 *
 * "decision" is one of the names in docs/egress.md, "The report (for `bento run`)": allow, deny,
 * refused, refused-at-capacity, untunneled, blocked, unreachable, fault.  "host" and "port" are
 * what the client asked for, never a resolved address; either may be absent for a request too
 * malformed to name one.  Lines are written with a single write() on an O_APPEND descriptor, so
 * they never interleave; after `limit` decision lines one "truncated" line is written and further
 * decisions are counted but not written, so a hostile client cannot fill the disk.
 */
#ifndef BENTO_EGRESS_REPORT_H
#define BENTO_EGRESS_REPORT_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "rules.h"

enum egress_decision {
        EGRESS_ALLOW,
        EGRESS_DENY,
        EGRESS_REFUSED,
        EGRESS_AT_CAPACITY,
        EGRESS_UNTUNNELED,
        EGRESS_BLOCKED,
        EGRESS_UNREACHABLE,
        EGRESS_FAULT,
        EGRESS_GATE,       /* no rule, admitted by the network gate (gate.h) */
        EGRESS_GATE_DENY,  /* no rule, the gate said deny */
        EGRESS_GATE_FAULT, /* no rule, the gate gave no usable answer */
        _EGRESS_DECISION_MAX,
};

/* The documented name of a decision ("allow", "refused-at-capacity", ...). */
const char *egress_decision_name(enum egress_decision d);

/* The HTTP status a decision answers with (200, 403, 400, 502, 503). */
int egress_decision_status(enum egress_decision d);

/* The advice `bento run` prints for a refused destination (NULL for
 * allow). */
const char *egress_decision_remedy(enum egress_decision d);

/* Open (create, append) the report file; returns the fd or -errno with err
 * filled.  The file is created 0600 and never followed if a symlink. */
int egress_report_open(const char *path, struct bento_err *err);

/* Set the descriptor and the line cap used by the calls below (fd -1: no
 * report).  Call once, before any thread starts. */
void egress_report_init(int fd, unsigned long max_lines);

/* The "start" line. */
void egress_report_start(pid_t pid, const char *container, const struct egress_rule *rules,
                         size_t n_rules);

/* One decision line; host/port may be NULL or empty; reason may be NULL. */
void egress_report_decision(enum egress_decision d, const char *host, const char *port,
                            const char *reason);

/* The "degraded" line: the accept loop hit a transient failure (errno e)
 * and is backing off, so clients may have been turned away. */
void egress_report_degraded(int e);

/* The "stop" line, with the number of connections accepted and of
 * transient accept() failures. */
void egress_report_stop(pid_t pid, unsigned long connections, unsigned long accept_errors);

#endif
