/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for what bento-egress reads from a sandboxed program
 * before any tunnel exists: the end of the request head and the request
 * line (hooks/egress/request.c), and the rule parser (rules.c) fed the same
 * bytes as a HOST:PORT spec.
 *
 * Besides "no crash, no leak, no undefined behaviour", a parsed CONNECT
 * must satisfy what the proxy relies on afterwards: a canonical port and a
 * non-empty host without upper-case ASCII and without any character the
 * screen refuses.  (Only one trailing dot is stripped, as bento-manifest(5) says, so
 * "a.." keeps one.)  A violation aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "request.h"
#include "rules.h"

static void check_connect(const struct egress_request *r)
{
        size_t n = strlen(r->host);

        must(n > 0 && n <= EGRESS_HOST_MAX, "host length");
        must(bento_port_canonical(r->port), "canonical port");
        must(!egress_unsafe_class(r->host, n), "host passes the screen");
        for (size_t i = 0; i < n; i++)
                must(r->host[i] < 'A' || r->host[i] > 'Z', "host lower-cased");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *) data;
        struct egress_request req;
        struct egress_rule rule;
        struct bento_err err = {0};
        char *spec;
        ssize_t end;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        end = egress_head_end(text, size);
        must(end == -1 || (end > 0 && (size_t) end <= size), "head end in range");
        egress_request_parse(text, end > 0 ? (size_t) end : size, &req);
        if (req.kind == EGRESS_REQ_CONNECT || req.kind == EGRESS_REQ_UNTUNNELED)
                check_connect(&req);
        else
                must(req.reason[0] != '\0', "a refusal says why");

        spec = malloc(size + 1);
        if (!spec)
                return 0;
        memcpy(spec, data, size);
        spec[size] = '\0';
        if (egress_rule_parse(spec, &rule, &err) == 0) {
                must(rule.host[0] != '\0', "rule host");
                must(egress_port_pattern_check(rule.port, &err) == 0, "rule port re-validates");
        }
        free(spec);
        return 0;
}
