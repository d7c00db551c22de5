/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the egress hook decided during a run, read back from its report
 * file (one JSON object per line, docs/egress.md).  The file is written by
 * a program that talked to the sandboxed target, so it is parsed as
 * hostile input: size-capped, line by line, unknown lines skipped.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "json.h"
#include "run.h"

#define EGRESS_REPORT_MAX      (8u << 20)
#define EGRESS_STOP_TIMEOUT_MS 3000

static const char *str(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_STRING ? v->u.string.s : NULL;
}

static int add(struct run_dest **v, size_t *n, const char *host, const char *port)
{
        struct run_dest *nv;

        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i].host, host) == 0 && strcmp((*v)[i].port, port) == 0)
                        return 0;
        nv = reallocarray(*v, *n + 1, sizeof(*nv));
        if (!nv)
                return -ENOMEM;
        *v = nv;
        nv[*n] = (struct run_dest){strdup(host), strdup(port)};
        if (!nv[*n].host || !nv[*n].port) {
                free(nv[*n].host);
                free(nv[*n].port);
                return -ENOMEM;
        }
        (*n)++;
        return 0;
}

static int cmp_dest(const void *a, const void *b)
{
        const struct run_dest *x = a, *y = b;
        int c = strcmp(x->host, y->host);

        return c ? c : strcmp(x->port, y->port);
}

static int one_line(struct run_egress *e, const char *line, size_t len)
{
        struct bento_err ignored = {0};
        struct bento_json *j = NULL;
        const char *event, *decision, *host, *port;
        int r = 0;

        if (bento_json_parse(line, len, EGRESS_REPORT_MAX, &j, &ignored) < 0)
                return 0;
        event = str(j, "event");
        decision = str(j, "decision");
        host = str(j, "host");
        port = str(j, "port");
        if (event && strcmp(event, "truncated") == 0)
                e->truncated = true;
        if (event && strcmp(event, "start") == 0) {
                const struct bento_json *pid = bento_json_get(j, "pid");

                e->started = true;
                if (pid && pid->type == BENTO_JSON_NUMBER && pid->u.number.fits_i64 &&
                    pid->u.number.i > 1 && pid->u.number.i < INT32_MAX)
                        e->daemon = (pid_t) pid->u.number.i;
        }
        if (event && strcmp(event, "stop") == 0)
                e->stopped = true;
        if (!event || strcmp(event, "decision") != 0 || !decision) {
                bento_json_free(j);
                return 0;
        }
        if (strcmp(decision, "fault") == 0)
                e->faults++;
        else
                e->connections++;
        if (strcmp(decision, "refused-at-capacity") == 0)
                e->at_capacity++;
        if (!host)
                host = "";
        if (!port)
                port = "";
        if (strcmp(decision, "deny") == 0)
                r = add(&e->denied, &e->n_denied, host, port);
        else if (strcmp(decision, "blocked") == 0)
                r = add(&e->blocked, &e->n_blocked, host, port);
        else if (strcmp(decision, "untunneled") == 0)
                r = add(&e->untunneled, &e->n_untunneled, host, port);
        else if (strcmp(decision, "gate") == 0)
                r = add(&e->gate_allowed, &e->n_gate_allowed, host, port);
        else if (strcmp(decision, "gate-deny") == 0 || strcmp(decision, "gate-fault") == 0)
                r = add(&e->gate_denied, &e->n_gate_denied, host, port);
        bento_json_free(j);
        return r;
}

int run_egress_read(const char *path, struct run_egress *ret, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        struct bento_err why = {0};
        size_t len = 0;

        *ret = (struct run_egress){0};
        if (bento_read_file(path, EGRESS_REPORT_MAX, &data, &len, &why) < 0)
                return why.code == ENOENT ? 0 : bento_err_setx(err, why.code, "%s", why.msg);
        for (size_t i = 0; i < len;) {
                size_t end = i;
                int r;

                while (end < len && data[end] != '\n')
                        end++;
                r = one_line(ret, data + i, end - i);
                if (r < 0)
                        return bento_err_set(err, -r, "egress report");
                i = end + 1;
        }
        if (ret->n_denied)
                qsort(ret->denied, ret->n_denied, sizeof(*ret->denied), cmp_dest);
        if (ret->n_blocked)
                qsort(ret->blocked, ret->n_blocked, sizeof(*ret->blocked), cmp_dest);
        if (ret->n_untunneled)
                qsort(ret->untunneled, ret->n_untunneled, sizeof(*ret->untunneled), cmp_dest);
        if (ret->n_gate_allowed)
                qsort(ret->gate_allowed, ret->n_gate_allowed, sizeof(*ret->gate_allowed), cmp_dest);
        if (ret->n_gate_denied)
                qsort(ret->gate_denied, ret->n_gate_denied, sizeof(*ret->gate_denied), cmp_dest);
        return 0;
}

/* Wait up to timeout_ms for a process that is not our child to end. */
static void wait_gone(pid_t pid, int timeout_ms)
{
        cleanup_close int fd = (int) syscall(SYS_pidfd_open, pid, 0);
        struct pollfd p = {.fd = fd, .events = POLLIN};

        if (fd >= 0)
                (void) poll(&p, 1, timeout_ms);
}

int run_egress_settle(const char *path, struct run_egress *ret, struct bento_err *err)
{
        int r = run_egress_read(path, ret, err);

        if (r < 0 || !ret->started || ret->stopped || ret->daemon <= 1)
                return r;
        /* The daemon leaves once the container's init is gone, which it is
         * by now; let it write its last line. */
        wait_gone(ret->daemon, EGRESS_STOP_TIMEOUT_MS);
        run_egress_done(ret);
        return run_egress_read(path, ret, err);
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Add one reason to buf, "; " between reasons (docs/cli/bento-run.md, "EXIT STATUS"). */
static void append(char *buf, size_t size, const char *fmt, ...)
{
        size_t o = strlen(buf);
        va_list ap;

        if (o && o + 2 < size) {
                memcpy(buf + o, "; ", 3);
                o += 2;
        }
        va_start(ap, fmt);
        if (o < size)
                vsnprintf(buf + o, size - o, fmt, ap);
        va_end(ap);
}

void run_egress_judge(const struct run_egress *e, struct host_report *r)
{
        char why[HOST_TEXT_MAX] = "";

        if (e->started && !e->stopped)
                append(why, sizeof(why),
                       "the egress proxy stopped serving mid-run; declared egress was refused "
                       "for the remainder");
        if (e->faults)
                append(why, sizeof(why), "the proxy dropped %ld connection(s) on an internal fault",
                       e->faults);
        if (e->at_capacity)
                append(why, sizeof(why),
                       "the proxy was at its connection limit for %ld connection(s)",
                       e->at_capacity);
        if (why[0])
                host_report_set(r, BENTO_LAYER_NETWORK, BENTO_STATE_DEGRADED, why, NULL);
}

static void dests_free(struct run_dest *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].host);
                free(v[i].port);
        }
        free(v);
}

void run_egress_done(struct run_egress *e)
{
        dests_free(e->denied, e->n_denied);
        dests_free(e->blocked, e->n_blocked);
        dests_free(e->untunneled, e->n_untunneled);
        dests_free(e->gate_allowed, e->n_gate_allowed);
        dests_free(e->gate_denied, e->n_gate_denied);
        *e = (struct run_egress){0};
}
