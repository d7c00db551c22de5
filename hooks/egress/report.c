/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON-lines decision report (see report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "jsonw.h"
#include "request.h"

static int report_fd = -1;
static unsigned long report_max;
static unsigned long report_lines;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct {
        const char *name;
        int status;
        const char *remedy;
} decisions[_EGRESS_DECISION_MAX] = {
    [EGRESS_ALLOW] = {"allow", 200, NULL},
    [EGRESS_DENY] = {"deny", 403,
                     "the destination is not in the network allowlist: add a rule for this host "
                     "and port (manifest network:, or bento-egress --allow HOST:PORT) and "
                     "re-approve; the program saw a 403 from the proxy"},
    [EGRESS_REFUSED] = {"refused", 400,
                        "the program sent something other than a well-formed CONNECT "
                        "host:port request; it saw a 400 from the proxy"},
    [EGRESS_AT_CAPACITY] = {"refused-at-capacity", 503,
                            "the egress proxy was at its connection limit; the program saw a "
                            "503 and may retry"},
    [EGRESS_UNTUNNELED] = {"untunneled", 400,
                           "the destination was addressed as plain http:// without CONNECT, so "
                           "no rule can carry it: use https, or a client that tunnels through "
                           "the proxy (curl --proxytunnel); editing the rules will not help"},
    [EGRESS_BLOCKED] = {"blocked", 502,
                        "allowed by a rule, but the name resolved to an address the sandbox "
                        "must not reach (loopback, link-local/cloud metadata, or private "
                        "space); usually split-horizon DNS: grant the private IP address "
                        "literally; loopback and metadata are never reachable"},
    [EGRESS_UNREACHABLE] = {"unreachable", 502,
                            "allowed, but the destination could not be resolved or did not "
                            "accept the connection"},
    [EGRESS_FAULT] = {"fault", 502, "the egress proxy failed internally while handling this"},
    [EGRESS_GATE] = {"gate", 200, NULL},
    [EGRESS_GATE_DENY] = {"gate-deny", 403,
                          "no rule allows the destination and the network gate refused it; the "
                          "program saw a 403 from the proxy"},
    [EGRESS_GATE_FAULT] = {"gate-fault", 403,
                           "no rule allows the destination and the network gate gave no answer "
                           "in time (or closed, or answered nonsense), which is a refusal; the "
                           "program saw a 403 from the proxy"},
};

const char *egress_decision_name(enum egress_decision d)
{
        return d < _EGRESS_DECISION_MAX ? decisions[d].name : "fault";
}

int egress_decision_status(enum egress_decision d)
{
        return d < _EGRESS_DECISION_MAX ? decisions[d].status : 502;
}

const char *egress_decision_remedy(enum egress_decision d)
{
        return d < _EGRESS_DECISION_MAX ? decisions[d].remedy : NULL;
}

int egress_report_open(const char *path, struct bento_err *err)
{
        int fd =
            open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);

        if (fd < 0)
                return bento_err_set(err, errno,
                                     "cannot open the report file '%s' (its directory must "
                                     "exist and be writable)",
                                     path);
        return fd;
}

void egress_report_init(int fd, unsigned long max_lines)
{
        report_fd = fd;
        report_max = max_lines;
}

/* Finish w and append it as one line.  Lines that cannot be encoded (a
 * string that is not UTF-8) are dropped: the report is best effort and
 * must never stop the proxy. */
static void emit(struct bento_jsonw *w)
{
        cleanup_free char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_finish(w, &buf, &len) < 0)
                return;
        buf[len] = '\n'; /* overwrites the terminator: write() needs none */
        (void) !write(report_fd, buf, len + 1);
}

static bool begin(struct bento_jsonw *w, struct bento_err *err, const char *event)
{
        if (report_fd < 0 || bento_jsonw_init(w, false, err) < 0)
                return false;
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "event", event);
        return true;
}

void egress_report_start(pid_t pid, const char *container, const struct egress_rule *rules,
                         size_t n_rules)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err err = {0};
        char target[EGRESS_HOST_MAX + 16];

        if (!begin(&w, &err, "start"))
                return;
        bento_jsonw_kint(&w, "pid", pid);
        bento_jsonw_kstring_opt(&w, "container", container);
        bento_jsonw_kstring(&w, "listen", "127.0.0.1:3128");
        bento_jsonw_key(&w, "rules");
        bento_jsonw_open_array(&w);
        for (size_t i = 0; i < n_rules; i++) {
                egress_format_target(rules[i].host, rules[i].port, target, sizeof(target));
                bento_jsonw_string(&w, target);
        }
        bento_jsonw_close_array(&w);
        bento_jsonw_close_object(&w);
        emit(&w);
}

/* Count a decision line against the cap; true when it may be written.
 * The line that crosses the cap is replaced by the "truncated" marker. */
static bool take_line(bool *write_marker)
{
        bool ok;

        pthread_mutex_lock(&report_lock);
        report_lines++;
        ok = report_lines <= report_max;
        *write_marker = report_lines == report_max + 1;
        pthread_mutex_unlock(&report_lock);
        return ok;
}

void egress_report_decision(enum egress_decision d, const char *host, const char *port,
                            const char *reason)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err err = {0};
        bool marker = false;

        if (report_fd < 0)
                return;
        if (!take_line(&marker)) {
                if (marker && begin(&w, &err, "truncated")) {
                        bento_jsonw_kuint(&w, "limit", report_max);
                        bento_jsonw_close_object(&w);
                        emit(&w);
                }
                return;
        }
        if (!begin(&w, &err, "decision"))
                return;
        bento_jsonw_kstring(&w, "decision", egress_decision_name(d));
        if (host && host[0])
                bento_jsonw_kstring(&w, "host", host);
        if (port && port[0])
                bento_jsonw_kstring(&w, "port", port);
        bento_jsonw_kint(&w, "status", egress_decision_status(d));
        bento_jsonw_kstring_opt(&w, "reason", reason);
        bento_jsonw_kstring_opt(&w, "remedy", egress_decision_remedy(d));
        bento_jsonw_close_object(&w);
        emit(&w);
}

void egress_report_degraded(int e)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err err = {0};
        char reason[128];

        if (!begin(&w, &err, "degraded"))
                return;
        snprintf(reason, sizeof(reason), "accept() failed: %s", strerror(e));
        bento_jsonw_kstring(&w, "reason", reason);
        bento_jsonw_close_object(&w);
        emit(&w);
}

void egress_report_stop(pid_t pid, unsigned long connections, unsigned long accept_errors)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err err = {0};

        if (!begin(&w, &err, "stop"))
                return;
        bento_jsonw_kint(&w, "pid", pid);
        bento_jsonw_kuint(&w, "connections", connections);
        bento_jsonw_kuint(&w, "accept_errors", accept_errors);
        bento_jsonw_close_object(&w);
        emit(&w);
}
