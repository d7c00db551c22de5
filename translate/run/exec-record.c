/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec record of a run (exec-record.h): the gate's record file parsed
 * as hostile input, then said in words (every string quoted, so an argv
 * holding a newline cannot forge a line) and as JSON (invalid UTF-8
 * becomes U+FFFD, as in the rest of the stream).
 */
#include "exec-record.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "hex.h"
#include "json.h"
#include "report/text.h"
#include "utf8.h"

/* The gate stops writing at 8 MiB (bundle/exec-gate-record.h); one more
 * line's worth of slack. */
#define RECORD_FILE_MAX (9u << 20)
#define RECORD_LINE_MAX (1u << 20)

static const char *incomplete_gate =
    "the exec gate did not finish its record (it stopped or failed before the sandbox ended), "
    "so execs may be missing";
static const char *incomplete_lines = "the record file holds lines bento could not read";

static bool flag(const struct bento_json *o, const char *key)
{
        const struct bento_json *v = bento_json_get(o, key);

        return v && v->type == BENTO_JSON_BOOL && v->u.boolean;
}

static bool number(const struct bento_json *o, const char *key, long min, long max, long *ret)
{
        const struct bento_json *v = bento_json_get(o, key);

        if (!v || v->type != BENTO_JSON_NUMBER || !v->u.number.fits_i64 || v->u.number.i < min ||
            v->u.number.i > max)
                return false;
        *ret = (long) v->u.number.i;
        return true;
}

/* A hex string of the record; NULL when absent or not hex. */
static char *unhex(const struct bento_json *v)
{
        char *s = NULL;
        size_t len = 0;

        if (!v || v->type != BENTO_JSON_STRING || bento_hex_decode(v->u.string.s, &s, &len) < 0)
                return NULL;
        return s;
}

static void exec_done(struct run_exec *e)
{
        for (size_t i = 0; i < e->argc; i++)
                free(e->argv[i]);
        free(e->argv);
        free(e->exe);
}

/* One exec line into e; false when it is not one. */
static bool parse_exec(const struct bento_json *o, struct run_exec *e)
{
        const struct bento_json *argv = bento_json_get(o, "argv"), *exe = bento_json_get(o, "exe");
        long fd = 0;

        *e = (struct run_exec){0};
        if (!number(o, "pid", 0, INT32_MAX, &e->pid) || !argv || argv->type != BENTO_JSON_ARRAY)
                return false;
        e->exe = unhex(exe);
        if (exe && !e->exe)
                return false;
        e->has_dirfd = number(o, "dirfd", INT32_MIN, INT32_MAX, &fd);
        e->dirfd = (int) fd;
        e->exe_truncated = flag(o, "exe_truncated");
        e->argv_truncated = flag(o, "argv_truncated");
        e->argv_unreadable = flag(o, "argv_unreadable");
        e->argv = calloc(argv->u.array.n + 1, sizeof(*e->argv));
        if (!e->argv)
                return false;
        for (size_t i = 0; i < argv->u.array.n; i++) {
                e->argv[i] = unhex(argv->u.array.items[i]);
                if (!e->argv[i]) {
                        exec_done(e);
                        return false;
                }
                e->argc++;
        }
        return true;
}

/* One line; false when it could not be read. */
static bool one_line(struct run_exec_record *r, const char *line, size_t len, bool *ended)
{
        cleanup_bento_json struct bento_json *j = NULL;
        struct bento_err ignored = {0};
        struct run_exec e, *nv;
        long omitted = 0;

        if (bento_json_parse(line, len, RECORD_LINE_MAX, &j, &ignored) < 0 ||
            j->type != BENTO_JSON_OBJECT)
                return false;
        if (flag(j, "end")) {
                *ended = number(j, "omitted", 0, LONG_MAX, &omitted);
                r->omitted = (unsigned long) omitted;
                return *ended;
        }
        if (*ended || !parse_exec(j, &e))
                return false; /* nothing follows the end line */
        nv = reallocarray(r->runs, r->n + 1, sizeof(*nv));
        if (!nv) {
                exec_done(&e);
                return false;
        }
        r->runs = nv;
        r->runs[r->n++] = e;
        return true;
}

void run_exec_record_read(const char *path, bool started, struct run_exec_record *r)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        bool ended = false, bad = false;
        size_t len = 0;

        r->complete = false;
        if (!started) {
                r->reason = "the target was never started";
                return;
        }
        if (bento_read_file(path, RECORD_FILE_MAX, &data, &len, &ignored) < 0) {
                r->reason = incomplete_gate;
                return;
        }
        for (char *p = data, *end = data + len; p < end;) {
                char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);

                bad |= !nl || !one_line(r, p, n, &ended);
                p += n + 1;
        }
        if (!ended)
                r->reason = incomplete_gate;
        else if (bad)
                r->reason = incomplete_lines;
        r->complete = ended && !bad && r->omitted == 0;
}

void run_exec_record_done(struct run_exec_record *r)
{
        for (size_t i = 0; i < r->n; i++)
                exec_done(&r->runs[i]);
        free(r->runs);
        r->runs = NULL;
        r->n = 0;
}

void run_exec_record_plan(struct run_exec_record *r, bool wanted, enum manifest_exec exec,
                          const struct host_report *report)
{
        const struct layer_status *gate = host_report_get(report, BENTO_LAYER_EXEC_BLOCK);

        *r = (struct run_exec_record){.wanted = wanted};
        if (!wanted)
                return;
        if (exec != MANIFEST_EXEC_ALL) {
                snprintf(r->reason_buf, sizeof(r->reason_buf),
                         "the manifest says exec: %s, so the exec gate refuses every exec after "
                         "the target's own and there is nothing to record; --record-exec "
                         "watches exec: all runs",
                         manifest_exec_to_string(exec));
        } else if (gate->state != BENTO_STATE_ENFORCED) {
                snprintf(r->reason_buf, sizeof(r->reason_buf),
                         "this host cannot run the exec gate that records the execs (%.400s)",
                         gate->detail[0] ? gate->detail : "the exec-block layer is unavailable");
        } else {
                r->watched = true;
                return;
        }
        r->reason = r->reason_buf;
}

/* ---- words ---------------------------------------------------------------- */

static void human_exec(const struct run_exec *e)
{
        cleanup_free char *exe = e->exe ? text_quote(e->exe) : NULL;
        char where[32] = "";

        if (e->has_dirfd)
                snprintf(where, sizeof(where), " (relative to fd %d)", e->dirfd);
        fprintf(stderr, "[bento]   pid %ld: %s%s%s argv", e->pid, exe ? exe : "(unreadable path)",
                e->exe_truncated ? " (path cut short)" : "", where);
        for (size_t i = 0; i < e->argc; i++) {
                cleanup_free char *q = text_quote(e->argv[i]);

                fprintf(stderr, " %s", q ? q : "\"?\"");
        }
        if (e->argc == 0 && !e->argv_unreadable)
                fputs(" (empty)", stderr);
        if (e->argv_unreadable)
                fputs(" (the rest could not be read)", stderr);
        else if (e->argv_truncated)
                fputs(" (cut short)", stderr);
        fputc('\n', stderr);
}

void run_exec_record_human(const struct run_exec_record *r)
{
        cleanup_free char *msg = NULL;

        if (!r->wanted)
                return;
        if (!r->watched) {
                msg = text_printf("exec record: not watched - %s.", r->reason);
                text_print_wrapped(stderr, msg ? msg : "exec record: not watched.", TEXT_WIDTH,
                                   "[bento] ", "[bento]   ");
                return;
        }
        fprintf(stderr, "[bento] exec record: %zu exec call(s), in order, the target first:\n",
                r->n);
        for (size_t i = 0; i < r->n; i++)
                human_exec(&r->runs[i]);
        if (r->omitted)
                fprintf(stderr,
                        "[bento]   ... and %lu more the gate counted but did not write down "
                        "(its record reached its size cap)\n",
                        r->omitted);
        if (r->reason) {
                msg = text_printf("the exec record is incomplete: %s.", r->reason);
                text_print_wrapped(stderr, msg ? msg : "the exec record is incomplete.", TEXT_WIDTH,
                                   "[bento] ", "[bento]   ");
        }
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_string(struct bento_jsonw *w, const char *s)
{
        cleanup_free char *valid = bento_utf8_lossy(s, strlen(s));

        if (!valid)
                bento_jsonw_fail(w, -ENOMEM, "exec record");
        else
                bento_jsonw_string(w, valid);
}

static void json_exec(struct bento_jsonw *w, const struct run_exec *e)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kint(w, "pid", e->pid);
        bento_jsonw_key(w, "exe");
        json_string(w, e->exe ? e->exe : "");
        if (!e->exe)
                bento_jsonw_kbool(w, "exe_unreadable", true);
        if (e->exe_truncated)
                bento_jsonw_kbool(w, "exe_truncated", true);
        if (e->has_dirfd)
                bento_jsonw_kint(w, "dirfd", e->dirfd);
        bento_jsonw_key(w, "argv");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < e->argc; i++)
                json_string(w, e->argv[i]);
        bento_jsonw_close_array(w);
        if (e->argv_truncated || e->argv_unreadable)
                bento_jsonw_kbool(w, "argv_truncated", true);
        if (e->argv_unreadable)
                bento_jsonw_kbool(w, "argv_unreadable", true);
        bento_jsonw_close_object(w);
}

void run_exec_record_json(struct bento_jsonw *w, const struct run_exec_record *r)
{
        if (!r->wanted)
                return;
        bento_jsonw_key(w, "exec_record");
        bento_jsonw_open_object(w);
        bento_jsonw_kbool(w, "watched", r->watched);
        bento_jsonw_kstring_opt(w, "reason", r->reason);
        bento_jsonw_kbool(w, "complete", r->watched && r->complete);
        if (r->omitted)
                bento_jsonw_kuint(w, "omitted", r->omitted);
        bento_jsonw_key(w, "runs");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n; i++)
                json_exec(w, &r->runs[i]);
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
}
