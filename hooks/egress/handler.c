/* SPDX-License-Identifier: Apache-2.0 */
/* One proxied connection (see handler.h). */
#include "handler.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "dial.h"
#include "gate.h"
#include "io.h"
#include "relay.h"
#include "report.h"
#include "request.h"
#include "resolve.h"

/* Read until the head is complete.  Returns the head length (the bytes
 * after it, up to *ret_len, were pipelined), 0 when the client went away or
 * ran out of time, -E2BIG when the head is over the cap. */
static ssize_t read_head(int fd, char *buf, size_t *ret_len, int64_t deadline_ms)
{
        size_t len = 0;

        for (;;) {
                ssize_t n = recv(fd, buf + len, EGRESS_HEAD_MAX - len, 0);
                int w;

                if (n > 0) {
                        ssize_t end;

                        len += (size_t) n;
                        end = egress_head_end(buf, len);
                        if (end > 0) {
                                *ret_len = len;
                                return end;
                        }
                        if (len == EGRESS_HEAD_MAX)
                                return -E2BIG;
                        continue;
                }
                if (n == 0 || (errno != EAGAIN && errno != EINTR))
                        return 0;
                w = egress_wait(fd, POLLIN, deadline_ms);
                if (w <= 0)
                        return 0;
        }
}

static void refuse(int fd, enum egress_decision d, const char *host, const char *port,
                   const char *body, const struct egress_config *cfg)
{
        egress_report_decision(d, host, port, body);
        (void) egress_send_status(fd, egress_decision_status(d), body, cfg->limits.write_ms);
}

/* Resolve, dial through the guard, answer, relay.  how is EGRESS_ALLOW
 * (a rule) or EGRESS_GATE (the network gate), which never carries a
 * literal grant: the gate widens the rules, not the guard. */
static void tunnel(int fd, const struct egress_request *req, const char *pending,
                   size_t pending_len, const struct egress_config *cfg, enum egress_decision how)
{
        const struct egress_limits *lim = &cfg->limits;
        struct egress_addrs addrs = {0};
        char target[EGRESS_HOST_MAX + 16], body[EGRESS_HOST_MAX + 64];
        bool literal = how == EGRESS_ALLOW &&
                       egress_literal_grant(cfg->rules, cfg->n_rules, req->host, req->port);
        bool guarded = false;
        cleanup_close int up = -1;
        int64_t deadline;
        int r;

        egress_format_target(req->host, req->port, target, sizeof(target));
        /* the same words for a guard refusal and a plain failure, and never
         * the resolved address: the program learns nothing from the
         * difference */
        snprintf(body, sizeof(body), "bento could not reach %s", target);
        /* --dial-timeout covers the lookup and the connect together */
        deadline = egress_now_ms() + lim->dial_ms;
        r = egress_resolve(req->host, req->port, deadline, &addrs);
        if (r >= 0)
                r = up = egress_dial(&addrs, literal, deadline, &guarded);
        if (r < 0) {
                refuse(fd, guarded ? EGRESS_BLOCKED : EGRESS_UNREACHABLE, req->host, req->port,
                       body, cfg);
                return;
        }
        egress_report_decision(how, req->host, req->port, NULL);
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        if (egress_write_all(fd, ok, sizeof(ok) - 1, egress_now_ms() + lim->write_ms) < 0)
                return;
        /* bytes pipelined after the head (a TLS ClientHello) go first */
        if (pending_len > 0 &&
            egress_write_all(up, pending, pending_len, egress_now_ms() + lim->idle_ms) < 0)
                return;
        (void) egress_relay(fd, up, lim);
}

/* No rule allows the request: the gate's word, if there is a gate and
 * the destination is one it may be asked about. */
static enum egress_decision ask_gate(const struct egress_request *req)
{
        if (!egress_gate_enabled() || !egress_gate_askable(req->host))
                return EGRESS_DENY;
        switch (egress_gate_ask(req->host, req->port)) {
        case EGRESS_GATE_SAYS_ALLOW:
                return EGRESS_GATE;
        case EGRESS_GATE_SAYS_DENY:
                return EGRESS_GATE_DENY;
        default:
                return EGRESS_GATE_FAULT;
        }
}

static void decide(int fd, const struct egress_request *req, const char *pending,
                   size_t pending_len, const struct egress_config *cfg)
{
        char target[EGRESS_HOST_MAX + 16], body[EGRESS_HOST_MAX + 320];

        egress_format_target(req->host, req->port, target, sizeof(target));
        switch (req->kind) {
        case EGRESS_REQ_BAD:
                refuse(fd, EGRESS_REFUSED, req->host, req->port, req->reason, cfg);
                return;
        case EGRESS_REQ_UNTUNNELED:
                snprintf(body, sizeof(body),
                         "bento egress proxy tunnels CONNECT only: %s was requested as plain "
                         "http; use https, or a client that tunnels through the proxy (curl "
                         "--proxytunnel)",
                         target);
                refuse(fd, EGRESS_UNTUNNELED, req->host, req->port, body, cfg);
                return;
        case EGRESS_REQ_CONNECT:
                break;
        }
        if (!egress_rules_allow(cfg->rules, cfg->n_rules, req->host, req->port)) {
                enum egress_decision d = ask_gate(req);

                if (d == EGRESS_GATE) {
                        tunnel(fd, req, pending, pending_len, cfg, EGRESS_GATE);
                        return;
                }
                /* the same words whether or not a gate was asked */
                snprintf(body, sizeof(body),
                         "bento denied egress to %s (not in the manifest's network allowlist)",
                         target);
                refuse(fd, d, req->host, req->port, body, cfg);
                return;
        }
        tunnel(fd, req, pending, pending_len, cfg, EGRESS_ALLOW);
}

void egress_handle(int fd, const struct egress_config *cfg)
{
        cleanup_close int client = fd;
        cleanup_free char *buf = malloc(EGRESS_HEAD_MAX);
        struct egress_request req;
        size_t len = 0;
        ssize_t head;

        if (!buf) {
                refuse(client, EGRESS_FAULT, NULL, NULL,
                       "bento egress proxy could not complete the request", cfg);
                return;
        }
        head = read_head(client, buf, &len, egress_now_ms() + cfg->limits.head_ms);
        if (head == -E2BIG) {
                refuse(client, EGRESS_REFUSED, NULL, NULL,
                       "request head larger than 64 KiB: expected a CONNECT request", cfg);
                return;
        }
        if (head <= 0)
                return; /* gone or too slow: nothing to answer */
        egress_request_parse(buf, (size_t) head, &req);
        decide(client, &req, buf + head, len - (size_t) head, cfg);
}
