/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento_run(): `bento run --json [--network-gate SOCKET] PATH`, its event
 * stream read line by line and handed to the observer, the target's output
 * copied to the caller's descriptors, and the final event kept as the
 * result.  bento's stream is trusted no more than it must be: lines are
 * capped, and one that does not parse is skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"
#include "json.h"

#define RUN_ARGS_FIXED 12

struct reader {
        const struct bento_run_options *o;
        struct bento_result *res;
        bool final;
};

static const char *str(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_STRING ? v->u.string.s : NULL;
}

static void emit(const struct reader *rd, const struct bento_event *ev)
{
        if (rd->o->observer)
                rd->o->observer(ev, rd->o->observer_userdata);
}

static void write_all(int fd, const char *p, size_t len)
{
        while (fd >= 0 && len > 0) {
                ssize_t n = write(fd, p, len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                p += n;
                len -= (size_t) n;
        }
}

static void output(const struct reader *rd, const struct bento_json *j, bool err)
{
        const char *data = str(j, "data");
        cleanup_free char *raw = NULL;
        size_t len = 0;

        if (!data || embed_base64_decode(data, strlen(data), &raw, &len) < 0)
                return;
        write_all(err ? rd->o->stderr_fd : rd->o->stdout_fd, raw, len);
        emit(rd, &(struct bento_event){.kind = err ? BENTO_EVENT_STDERR : BENTO_EVENT_STDOUT,
                                       .data = raw,
                                       .len = len});
}

/* One DENIAL event per entry of the verdict's list key. */
static void denials(const struct reader *rd, const struct bento_json *j, const char *key)
{
        const struct bento_json *list = bento_json_get(j, key);

        for (size_t i = 0; list && list->type == BENTO_JSON_ARRAY && i < list->u.array.n; i++) {
                const struct bento_json *d = list->u.array.items[i];

                if (d->type == BENTO_JSON_OBJECT && str(d, "host") && str(d, "port"))
                        emit(rd, &(struct bento_event){.kind = BENTO_EVENT_DENIAL,
                                                       .what = key,
                                                       .host = str(d, "host"),
                                                       .port = str(d, "port")});
        }
}

static int final(struct reader *rd, const struct bento_json *j, const char *line,
                 enum bento_event_kind kind)
{
        static const char *const lists[] = {"egress_denied", "gate_denied", "guard_blocked",
                                            "untunneled"};
        const struct bento_json *code = bento_json_get(j, "exit_code");
        const char *reason = str(j, "reason");

        if (rd->final)
                return 0; /* exactly one counts: the first */
        rd->final = true;
        for (size_t i = 0; kind == BENTO_EVENT_VERDICT && i < sizeof(lists) / sizeof(*lists); i++)
                denials(rd, j, lists[i]);
        rd->res->kind = kind;
        rd->res->exit_code = kind == BENTO_EVENT_VERDICT && code &&
                                     code->type == BENTO_JSON_NUMBER && code->u.number.fits_i64
                                 ? (int) code->u.number.i
                                 : 125;
        rd->res->json = strdup(line);
        rd->res->reason = reason ? strdup(reason) : NULL;
        if (!rd->res->json || (reason && !rd->res->reason))
                return -ENOMEM;
        emit(rd,
             &(struct bento_event){
                 .kind = kind, .exit_code = rd->res->exit_code, .reason = reason, .json = line});
        return 0;
}

static int one_line(struct reader *rd, const char *line, size_t len)
{
        struct bento_err ignored = {0};
        struct bento_json *j = NULL;
        const char *event;
        int r = 0;

        if (bento_json_parse(line, len, EMBED_OUTPUT_MAX, &j, &ignored) < 0)
                return 0;
        event = str(j, "event");
        if (event && strcmp(event, "stdout") == 0)
                output(rd, j, false);
        else if (event && strcmp(event, "stderr") == 0)
                output(rd, j, true);
        else if (event && strcmp(event, "verdict") == 0)
                r = final(rd, j, line, BENTO_EVENT_VERDICT);
        else if (event && strcmp(event, "refusal") == 0)
                r = final(rd, j, line, BENTO_EVENT_REFUSAL);
        else if (event && strcmp(event, "failed") == 0)
                r = final(rd, j, line, BENTO_EVENT_FAILED);
        bento_json_free(j);
        return r;
}

/* The stream, line by line, as it comes. */
static int read_events(struct reader *rd, int fd)
{
        cleanup_free char *buf = NULL;
        size_t len = 0, cap = 0;

        for (;;) {
                char *nl;
                ssize_t n;

                if (cap - len < 65536) {
                        char *nb;

                        if (cap > EMBED_OUTPUT_MAX)
                                return -E2BIG; /* one line that long is not bento's */
                        nb = realloc(buf, cap ? cap * 2 : 131072);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = cap ? cap * 2 : 131072;
                }
                n = read(fd, buf + len, cap - len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : 0;
                len += (size_t) n;
                while ((nl = memchr(buf, '\n', len))) {
                        int r;

                        *nl = '\0';
                        r = one_line(rd, buf, (size_t) (nl - buf));
                        if (r < 0)
                                return r;
                        len -= (size_t) (nl + 1 - buf);
                        memmove(buf, nl + 1, len);
                }
        }
}

/* bento run's arguments (after "bento"); the strings are borrowed, *timeout_buf too. */
static const char **run_args(const char *path, const struct bento_run_options *o, const char *gate,
                             char *timeout_buf, size_t timeout_size)
{
        const char **a = calloc(RUN_ARGS_FIXED + 2 * o->n_env, sizeof(char *));
        size_t n = 0;

        if (!a)
                return NULL;
        a[n++] = "run";
        a[n++] = "--json";
        if (o->posture == BENTO_POSTURE_STRICT)
                a[n++] = "--strict";
        if (o->posture == BENTO_POSTURE_ALLOW_DEGRADED)
                a[n++] = "--allow-degraded";
        if (o->allow_unapproved)
                a[n++] = "--allow-unapproved";
        for (size_t i = 0; i < o->n_env; i++) {
                a[n++] = "--env";
                a[n++] = o->env[i];
        }
        if (gate) {
                a[n++] = "--network-gate";
                a[n++] = gate;
        }
        if (gate && o->gate_timeout > 0) {
                snprintf(timeout_buf, timeout_size, "%d", o->gate_timeout);
                a[n++] = "--network-gate-timeout";
                a[n++] = timeout_buf;
        }
        a[n++] = "--";
        a[n++] = path;
        return a;
}

void bento_run_options_init(struct bento_run_options *o)
{
        *o = (struct bento_run_options){.stdout_fd = -1, .stderr_fd = -1};
}

int bento_run(const char *path, const struct bento_run_options *o, struct bento_result *ret)
{
        struct embed_gate gate = {.listen_fd = -1, .stop_fd = -1, .stop_w = -1, .dir_fd = -1};
        struct reader rd = {.o = o, .res = ret};
        cleanup_free const char **args = NULL;
        struct embed_child c;
        char timeout[16];
        int r = 0, status;

        *ret = (struct bento_result){.kind = BENTO_EVENT_FAILED, .exit_code = 125};
        if (o->gate)
                r = embed_gate_start(&gate, o->gate, o->gate_userdata);
        if (r >= 0 &&
            !(args = run_args(path, o, o->gate ? gate.path : NULL, timeout, sizeof(timeout))))
                r = -ENOMEM;
        if (r >= 0)
                r = embed_spawn(o->bento, args, false, &c);
        if (r < 0) {
                embed_gate_stop(&gate);
                return r;
        }
        r = read_events(&rd, c.out);
        close(c.out);
        status = embed_wait(c.pid);
        /* the proxy has hung up by now (it leaves with the sandbox) */
        embed_gate_stop(&gate);
        if (r >= 0 && !rd.final)
                r = -EPROTO; /* bento ended without saying how */
        if (r >= 0 && status >= 0)
                ret->exit_code = status; /* bento's own status is the final word */
        if (r < 0)
                bento_result_done(ret);
        return r;
}

void bento_result_done(struct bento_result *r)
{
        free(r->reason);
        free(r->json);
        *r = (struct bento_result){.kind = BENTO_EVENT_FAILED, .exit_code = 125};
}

const char *bento_embed_version(void)
{
        return BENTO_VERSION;
}
