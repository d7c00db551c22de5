/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The observer's report (docs/profile.md, "The report"): the text
 * bento-observe writes to fd 3 from inside the sandbox, read back into a
 * struct profile_observation.  The observer shares the box with the
 * program it watches, so the text is hostile input: size-capped, one
 * record kind per line from a closed set, fields separated by exactly one
 * space, numbers plain decimal, paths absolute and percent-encoded in the
 * one spelling the encoder produces.  Anything else is an error naming the
 * line and column, never a guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "profile.h"

#define FIELDS_MAX      4
#define WORD_MAX        64   /* a syscall name or a reason word */
#define DROPPED_KINDS   1024 /* distinct (name, reason) pairs kept apart */
#define NUMBER_MAX_DIGS 10
#define UNIX_LOOKBACK   8

struct field {
        const char *s;
        size_t len;
        size_t col; /* 1-based */
};

struct line {
        size_t no;
        struct field f[FIELDS_MAX];
        size_t n;
};

static int bad(struct bento_err *err, const struct line *l, size_t col, const char *what)
{
        return bento_err_setx(err, EINVAL, "observer report line %zu:%zu: %s", l->no, col, what);
}

static bool field_is(const struct field *f, const char *word)
{
        return f->len == strlen(word) && memcmp(f->s, word, f->len) == 0;
}

/* Split on single spaces; an empty field (two spaces, a leading or trailing
 * space) is an error. */
static int split(const char *s, size_t len, struct line *l, struct bento_err *err)
{
        size_t start = 0;

        l->n = 0;
        for (size_t i = 0; i <= len; i++) {
                if (i < len && s[i] != ' ')
                        continue;
                if (i == start)
                        return bad(err, l, i + 1, "empty field");
                if (l->n == FIELDS_MAX)
                        return bad(err, l, start + 1, "too many fields");
                l->f[l->n++] = (struct field){s + start, i - start, start + 1};
                start = i + 1;
        }
        return 0;
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

static bool must_escape(unsigned char c)
{
        return c <= 0x20 || c >= 0x7f || c == '%';
}

int profile_percent_decode(const char *s, size_t len, char **ret, size_t *ret_bad)
{
        cleanup_free char *out = malloc(len + 1);
        size_t o = 0;

        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) s[i];
                int hi, lo;

                if (c != '%') {
                        if (must_escape(c))
                                return *ret_bad = i, -EINVAL;
                        out[o++] = (char) c;
                        continue;
                }
                hi = i + 2 < len ? hexval(s[i + 1]) : -1;
                lo = hi >= 0 ? hexval(s[i + 2]) : -1;
                if (hi < 0 || lo < 0)
                        return *ret_bad = i, -EINVAL;
                c = (unsigned char) (hi << 4 | lo);
                /* One spelling only: a byte that needs no escape is never
                 * escaped, and a NUL cannot be part of a path. */
                if (c == 0 || !must_escape(c))
                        return *ret_bad = i, -EINVAL;
                out[o++] = (char) c;
                i += 2;
        }
        out[o] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

static int path_field(const struct line *l, const struct field *f, char **ret,
                      struct bento_err *err)
{
        size_t at = 0;
        int r;

        if (f->s[0] != '/')
                return bad(err, l, f->col, "the path is not absolute");
        r = profile_percent_decode(f->s, f->len, ret, &at);
        if (r == -ENOMEM)
                return bento_err_set(err, ENOMEM, "observer report");
        if (r < 0)
                return bad(err, l, f->col + at, "bad percent-encoding in the path");
        return 0;
}

/* unwatched: a read or probe in a tree the observer was told not to wait
 * for (--no-result-under); nothing else may be reported without a result. */
static int result_field(const struct line *l, const struct field *f, bool may_be_unwatched,
                        enum profile_result *ret, struct bento_err *err)
{
        if (may_be_unwatched && field_is(f, "unwatched"))
                *ret = PROFILE_RESULT_UNWATCHED;
        else if (field_is(f, "ok"))
                *ret = PROFILE_RESULT_OK;
        else if (field_is(f, "absent"))
                *ret = PROFILE_RESULT_ABSENT;
        else if (field_is(f, "error"))
                *ret = PROFILE_RESULT_ERROR;
        else
                return bad(err, l, f->col,
                           may_be_unwatched ? "the result is not ok, absent, error or unwatched"
                                            : "the result is not ok, absent or error");
        return 0;
}

static int number_field(const struct line *l, const struct field *f, long *ret,
                        struct bento_err *err)
{
        long v = 0;

        if (f->len > NUMBER_MAX_DIGS || (f->len > 1 && f->s[0] == '0'))
                return bad(err, l, f->col, "not a plain decimal number");
        for (size_t i = 0; i < f->len; i++) {
                if (f->s[i] < '0' || f->s[i] > '9')
                        return bad(err, l, f->col + i, "not a plain decimal number");
                v = v * 10 + (f->s[i] - '0');
        }
        if (v > INT32_MAX)
                return bad(err, l, f->col, "number out of range");
        *ret = v;
        return 0;
}

static int word_field(const struct line *l, const struct field *f, struct bento_err *err)
{
        if (f->len > WORD_MAX)
                return bad(err, l, f->col, "word too long");
        for (size_t i = 0; i < f->len; i++) {
                char c = f->s[i];

                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_'))
                        return bad(err, l, f->col + i, "unexpected character in a word");
        }
        return 0;
}

static int want_fields(const struct line *l, size_t n, struct bento_err *err)
{
        if (l->n < n)
                return bad(err, l, l->f[l->n - 1].col + l->f[l->n - 1].len, "missing field");
        if (l->n > n)
                return bad(err, l, l->f[n].col, "unexpected field");
        return 0;
}

static int grow(void **v, size_t n, size_t size)
{
        void *nv;

        if (n & (n - 1)) /* room left until the next power of two */
                return 0;
        nv = reallocarray(*v, n ? n * 2 : 16, size);
        if (!nv)
                return -ENOMEM;
        *v = nv;
        return 0;
}

static int add_access(struct profile_observation *o, enum profile_access_kind kind,
                      enum profile_result result, char *path, bool unix_sock)
{
        if (grow((void **) &o->accesses, o->n_accesses, sizeof(*o->accesses)) < 0) {
                free(path);
                return -ENOMEM;
        }
        o->accesses[o->n_accesses++] = (struct profile_access){kind, result, path, unix_sock};
        return 0;
}

static int access_line(struct profile_observation *o, const struct line *l,
                       enum profile_access_kind kind, struct bento_err *err)
{
        enum profile_result res = PROFILE_RESULT_ERROR;
        char *path = NULL;

        bool reading = kind == PROFILE_ACCESS_READ || kind == PROFILE_ACCESS_PROBE;

        if (want_fields(l, 3, err) < 0 || result_field(l, &l->f[1], reading, &res, err) < 0 ||
            path_field(l, &l->f[2], &path, err) < 0)
                return -err->code;
        if (add_access(o, kind, res, path, false) < 0)
                return bento_err_set(err, ENOMEM, "observer report");
        return 0;
}

/* A socket path: mark the access the same syscall produced (the last one
 * with this path), or record it on its own. */
static int unix_line(struct profile_observation *o, const struct line *l, struct bento_err *err)
{
        bool bind;
        char *path = NULL;

        if (want_fields(l, 3, err) < 0)
                return -err->code;
        if (!field_is(&l->f[1], "connect") && !field_is(&l->f[1], "bind"))
                return bad(err, l, l->f[1].col, "expected connect or bind");
        bind = field_is(&l->f[1], "bind");
        if (path_field(l, &l->f[2], &path, err) < 0 || !path)
                return -err->code;
        /* The observer writes it right after the access of the same
         * call, so only the last few are looked at (a bounded cost per
         * line whatever the report holds). */
        for (size_t i = o->n_accesses, k = 0; i-- > 0 && k < UNIX_LOOKBACK; k++)
                if (strcmp(o->accesses[i].path, path) == 0) {
                        o->accesses[i].unix_sock = true;
                        free(path);
                        return 0;
                }
        if (add_access(o, bind ? PROFILE_ACCESS_WRITE : PROFILE_ACCESS_READ, PROFILE_RESULT_OK,
                       path, true) < 0)
                return bento_err_set(err, ENOMEM, "observer report");
        return 0;
}

static int exec_line(struct profile_observation *o, const struct line *l, struct bento_err *err)
{
        enum profile_result res = PROFILE_RESULT_ERROR;
        char *path = NULL;

        if (want_fields(l, 3, err) < 0 || result_field(l, &l->f[1], false, &res, err) < 0 ||
            path_field(l, &l->f[2], &path, err) < 0)
                return -err->code;
        if (grow((void **) &o->execs, o->n_execs, sizeof(*o->execs)) < 0) {
                free(path);
                return bento_err_set(err, ENOMEM, "observer report");
        }
        o->execs[o->n_execs++] = (struct profile_exec){res, path};
        /* The first image is the target itself, started by the observer: only a later one
         * is a subprocess (exec: all). */
        if (res == PROFILE_RESULT_OK && o->n_execs > 1)
                o->execed = true;
        return 0;
}

static struct profile_dropped *find_dropped(struct profile_observation *o, const struct field *n,
                                            const struct field *r)
{
        for (size_t i = 0; i < o->n_dropped; i++) {
                struct profile_dropped *d = &o->dropped[i];

                if (strlen(d->name) == n->len && memcmp(d->name, n->s, n->len) == 0 &&
                    strlen(d->reason) == r->len && memcmp(d->reason, r->s, r->len) == 0)
                        return d;
        }
        return NULL;
}

static int dropped_line(struct profile_observation *o, const struct line *l, struct bento_err *err)
{
        struct field other = {"other", 5, 0};
        const struct field *name = &l->f[1], *reason = &l->f[2];
        struct profile_dropped *d;

        if (want_fields(l, 3, err) < 0 || word_field(l, name, err) < 0 ||
            word_field(l, reason, err) < 0)
                return -err->code;
        o->dropped_total++;
        d = find_dropped(o, name, reason);
        if (!d && o->n_dropped >= DROPPED_KINDS) /* bound the lookup */
                d = find_dropped(o, (name = &other), (reason = &other));
        if (d) {
                d->count++;
                return 0;
        }
        if (grow((void **) &o->dropped, o->n_dropped, sizeof(*o->dropped)) < 0)
                return bento_err_set(err, ENOMEM, "observer report");
        d = &o->dropped[o->n_dropped];
        *d = (struct profile_dropped){strndup(name->s, name->len), strndup(reason->s, reason->len),
                                      1};
        if (!d->name || !d->reason) {
                free(d->name);
                free(d->reason);
                return bento_err_set(err, ENOMEM, "observer report");
        }
        o->n_dropped++;
        return 0;
}

static int end_line(struct profile_observation *o, const struct line *l, struct bento_err *err)
{
        long v = 0;

        if (want_fields(l, 3, err) < 0)
                return -err->code;
        if (!field_is(&l->f[1], "exit") && !field_is(&l->f[1], "signal"))
                return bad(err, l, l->f[1].col, "expected exit or signal");
        if (number_field(l, &l->f[2], &v, err) < 0)
                return -err->code;
        o->end_signal = field_is(&l->f[1], "signal");
        if ((o->end_signal && (v < 1 || v > 64)) || (!o->end_signal && v > 255))
                return bad(err, l, l->f[2].col, "number out of range");
        o->end_code = (int) v;
        o->finished = true;
        return 0;
}

static int one_line(struct profile_observation *o, const struct line *l, struct bento_err *err)
{
        static const struct {
                const char *word;
                enum profile_access_kind kind;
        } accesses[] = {
            {"read", PROFILE_ACCESS_READ},
            {"write", PROFILE_ACCESS_WRITE},
            {"probe", PROFILE_ACCESS_PROBE},
            {"chdir", PROFILE_ACCESS_CHDIR},
        };
        const struct field *k = &l->f[0];
        long pid = 0;

        for (size_t i = 0; i < sizeof(accesses) / sizeof(accesses[0]); i++)
                if (field_is(k, accesses[i].word))
                        return access_line(o, l, accesses[i].kind, err);
        if (field_is(k, "unix"))
                return unix_line(o, l, err);
        if (field_is(k, "exec"))
                return exec_line(o, l, err);
        if (field_is(k, "dropped"))
                return dropped_line(o, l, err);
        if (field_is(k, "end"))
                return end_line(o, l, err);
        if (!field_is(k, "sigsys"))
                return bad(err, l, 1, "unknown record kind");
        if (want_fields(l, 2, err) < 0 || number_field(l, &l->f[1], &pid, err) < 0)
                return -err->code;
        o->sigsys = true;
        o->sigsys_pid = pid;
        return 0;
}

static int header(const char *s, size_t len, struct bento_err *err)
{
        struct line l = {.no = 1};

        if (len == 9 && memcmp(s, "observe 1", 9) == 0)
                return 0;
        if (len >= 8 && memcmp(s, "observe ", 8) == 0)
                return bad(err, &l, 9, "unsupported report version");
        return bad(err, &l, 1, "the report does not start with \"observe 1\"");
}

int profile_observation_parse(const char *data, size_t len, struct profile_observation *ret,
                              struct bento_err *err)
{
        struct line l = {0};
        bool header_seen = false;
        int r = 0;

        *ret = (struct profile_observation){0};
        if (len > PROFILE_REPORT_MAX)
                return bento_err_too_big(err, "the observer report", len, 0, PROFILE_REPORT_MAX);
        if (len == 0)
                return bento_err_setx(err, EINVAL, "the observer report is empty");
        for (size_t i = 0; i < len && r >= 0;) {
                size_t end = i;

                while (end < len && data[end] != '\n')
                        end++;
                l.no++;
                /* A line cut short (the observer died while writing) could
                 * name a shorter path than the one seen: it is left out, and
                 * without its end line the run counts as unfinished. */
                if (end == len)
                        break;
                if (l.no == 1)
                        header_seen = (r = header(data + i, end - i, err)) >= 0;
                else if (ret->finished)
                        r = bad(err, &l, 1, "a record after the end line");
                else if ((r = split(data + i, end - i, &l, err)) >= 0)
                        r = one_line(ret, &l, err);
                i = end + 1;
        }
        if (r >= 0 && !header_seen)
                r = bento_err_setx(err, EINVAL, "the observer report has no complete first line");
        if (r < 0)
                profile_observation_done(ret);
        return r;
}

static int add_dest(struct profile_dest **v, size_t *n, const struct run_dest *d)
{
        struct profile_dest *nv;

        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i].host, d->host) == 0 && strcmp((*v)[i].port, d->port) == 0)
                        return 0;
        nv = reallocarray(*v, *n + 1, sizeof(*nv));
        if (!nv)
                return -ENOMEM;
        *v = nv;
        nv[*n] = (struct profile_dest){strdup(d->host), strdup(d->port)};
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
        const struct profile_dest *x = a, *y = b;
        int c = strcmp(x->host, y->host);

        return c ? c : strcmp(x->port, y->port);
}

static int add_dests(struct profile_dest **v, size_t *n, const struct run_dest *d, size_t nd)
{
        for (size_t i = 0; i < nd; i++)
                if (add_dest(v, n, &d[i]) < 0)
                        return -ENOMEM;
        if (*n > 1)
                qsort(*v, *n, sizeof(**v), cmp_dest);
        return 0;
}

int profile_observation_add_egress(struct profile_observation *o, const struct run_egress *e,
                                   struct bento_err *err)
{
        if (add_dests(&o->connects, &o->n_connects, e->denied, e->n_denied) < 0 ||
            add_dests(&o->connects, &o->n_connects, e->blocked, e->n_blocked) < 0 ||
            add_dests(&o->guard_blocked, &o->n_guard_blocked, e->blocked, e->n_blocked) < 0 ||
            add_dests(&o->untunneled, &o->n_untunneled, e->untunneled, e->n_untunneled) < 0)
                return bento_err_set(err, ENOMEM, "egress report");
        o->dropped_connects += e->faults + e->at_capacity;
        return 0;
}

static void dests_free(struct profile_dest *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].host);
                free(v[i].port);
        }
        free(v);
}

void profile_observation_done(struct profile_observation *o)
{
        for (size_t i = 0; i < o->n_accesses; i++)
                free(o->accesses[i].path);
        free(o->accesses);
        for (size_t i = 0; i < o->n_execs; i++)
                free(o->execs[i].path);
        free(o->execs);
        for (size_t i = 0; i < o->n_dropped; i++) {
                free(o->dropped[i].name);
                free(o->dropped[i].reason);
        }
        free(o->dropped);
        dests_free(o->connects, o->n_connects);
        dests_free(o->guard_blocked, o->n_guard_blocked);
        dests_free(o->untunneled, o->n_untunneled);
        *o = (struct profile_observation){0};
}
