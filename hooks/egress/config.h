/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one bento-egress instance enforces: its rules and its limits, as
 * parsed from the command line (options.c) and, optionally, an annotation
 * of the container state.  Read-only once the proxy runs.
 */
#ifndef BENTO_EGRESS_CONFIG_H
#define BENTO_EGRESS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "rules.h"

struct egress_limits {
        unsigned max_conns;  /* concurrent handlers; one more gets 503 */
        int head_ms;         /* whole request head, however slowly it trickles */
        int dial_ms;         /* resolving aside, all connect() attempts together */
        int first_byte_ms;   /* upstream's first byte after the tunnel opens */
        int idle_ms;         /* no byte either way */
        long long tunnel_ms; /* a tunnel's whole life */
        int write_ms;        /* sending a status response */
};

struct egress_config {
        struct egress_rule rules[EGRESS_MAX_RULES];
        size_t n_rules;
        struct egress_limits limits;
        unsigned long report_max; /* decision lines written to the report */
        const char *report;       /* --report FILE */
        const char *report_dir;   /* --report-dir DIR: DIR/<container id>.jsonl */
        const char *hosts_file;   /* --hosts-file FILE (tests) */
        const char *resolv_conf;  /* --resolv-conf FILE, or NULL for /etc/resolv.conf */
        const char *annotation;   /* --rules-annotation NAME */
        const char *log;          /* --log FILE: the daemon's stderr */
        const char *gate;         /* --gate SOCKET: the network gate (gate.h), or NULL */
        int gate_ms;              /* --gate-timeout: per question */
        bool allow_interfaces;    /* --allow-interfaces: skip the fence check */
};

#endif
