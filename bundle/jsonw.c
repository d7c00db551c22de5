/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sticky-error JSON writer of jsonw.h.  All yajl_gen status codes are
 * converted to bento errors here and nowhere else.
 */
#include "jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

int bento_jsonw_status(int status, struct bento_err *err)
{
        switch ((yajl_gen_status) status) {
        case yajl_gen_status_ok:
                return 0;
        case yajl_gen_invalid_string:
                return bento_err_setx(err, EILSEQ, "cannot write JSON: string is not valid UTF-8");
        case yajl_max_depth_exceeded:
                return bento_err_setx(err, E2BIG, "cannot write JSON: nested too deeply");
        case yajl_gen_invalid_number:
                return bento_err_setx(err, EINVAL, "cannot write JSON: number is not finite");
        case yajl_gen_keys_must_be_strings:
        case yajl_gen_in_error_state:
        case yajl_gen_generation_complete:
        case yajl_gen_no_buf:
                break;
        }
        /* The rest are call-order bugs in the writer itself. */
        return bento_err_setx(err, EINVAL, "cannot write JSON: generator misuse (status %d)",
                              status);
}

/* Room for n more bytes and a NUL; false when out of memory. */
static bool reserve(struct bento_jsonw *w, size_t n)
{
        size_t cap = w->cap ? w->cap : 4096;
        char *b;

        if (w->len + n < w->cap)
                return true;
        while (cap <= w->len + n)
                cap *= 2;
        b = realloc(w->buf, cap);
        if (!b)
                return false;
        w->buf = b;
        w->cap = cap;
        return true;
}

/* yajl's print callback.  It cannot fail; running out of memory is kept
 * as the sticky failure, and the rest of the document is dropped. */
static void print(void *ctx, const char *s, size_t n)
{
        struct bento_jsonw *w = ctx;

        if (w->r < 0)
                return;
        if (!reserve(w, n)) {
                w->r = bento_err_set(w->err, ENOMEM, "cannot write JSON");
                return;
        }
        /* A newline right after an opening bracket and its newline: the
         * close of an empty container (a value or indentation comes first
         * in any other). */
        if (n == 1 && s[0] == '\n' && w->len >= 2 && w->buf[w->len - 1] == '\n' &&
            (w->buf[w->len - 2] == '[' || w->buf[w->len - 2] == '{'))
                w->last_empty = w->len + 1;
        memcpy(w->buf + w->len, s, n);
        w->len += n;
}

int bento_jsonw_init(struct bento_jsonw *w, bool pretty, struct bento_err *err)
{
        yajl_gen g = yajl_gen_alloc(NULL);

        *w = (struct bento_jsonw){.pretty = pretty, .err = err};
        if (!g)
                return w->r = bento_err_set(err, ENOMEM, "cannot write JSON");
        yajl_gen_config(g, yajl_gen_print_callback, print, w);
        yajl_gen_config(g, yajl_gen_validate_utf8, 1);
        if (pretty) {
                yajl_gen_config(g, yajl_gen_beautify, 1);
                yajl_gen_config(g, yajl_gen_indent_string, "  ");
        }
        w->gen = g;
        return 0;
}

void bento_jsonw_done(struct bento_jsonw *w)
{
        if (w->gen)
                yajl_gen_free(w->gen);
        w->gen = NULL;
        free(w->buf);
        free(w->quoted);
        w->buf = w->quoted = NULL;
        w->len = w->cap = w->cap_quoted = w->last_empty = 0;
}

int bento_jsonw_fail(struct bento_jsonw *w, int code, const char *fmt, ...)
{
        char msg[BENTO_ERR_MSG_MAX];
        va_list ap;

        if (w->r < 0)
                return w->r;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return w->r = bento_err_setx(w->err, code, "%s", msg);
}

/* Fold one generator call into the sticky state. */
static void check(struct bento_jsonw *w, yajl_gen_status st)
{
        if (w->r >= 0 && st != yajl_gen_status_ok)
                w->r = bento_jsonw_status(st, w->err);
}

static bool ready(struct bento_jsonw *w)
{
        if (w->r >= 0 && !w->gen)
                w->r = bento_err_setx(w->err, EINVAL, "cannot write JSON: writer not set up");
        return w->r >= 0;
}

void bento_jsonw_open_object(struct bento_jsonw *w)
{
        if (ready(w))
                check(w, yajl_gen_map_open(w->gen));
}

void bento_jsonw_close_object(struct bento_jsonw *w)
{
        if (ready(w))
                check(w, yajl_gen_map_close(w->gen));
}

void bento_jsonw_open_array(struct bento_jsonw *w)
{
        if (ready(w))
                check(w, yajl_gen_array_open(w->gen));
}

void bento_jsonw_close_array(struct bento_jsonw *w)
{
        if (ready(w))
                check(w, yajl_gen_array_close(w->gen));
}

void bento_jsonw_key(struct bento_jsonw *w, const char *key)
{
        if (ready(w))
                check(w, yajl_gen_string(w->gen, (const unsigned char *) key, strlen(key)));
}

/* Printable ASCII other than '"' and '\\': valid UTF-8 that yajl writes
 * as it is (it escapes no solidus unless told to). */
static bool plain(const char *s, size_t *len)
{
        const unsigned char *p = (const unsigned char *) s;

        for (; *p; p++)
                if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
                        return false;
        *len = (size_t) (p - (const unsigned char *) s);
        return true;
}

void bento_jsonw_string(struct bento_jsonw *w, const char *s)
{
        yajl_gen_status st;
        size_t n;

        if (!ready(w))
                return;
        if (!s) {
                bento_jsonw_fail(w, EINVAL, "cannot write JSON: a required string is not set");
                return;
        }
        /* Most strings are plain paths.  Quoted, yajl_gen_number() writes
         * them with the separators and indentation yajl_gen_string() would
         * (both are atoms to the generator; only a key must be a string),
         * without its UTF-8 check and escaping byte by byte: a quarter of
         * writing the config of 10,000 write grants.  tests/unit/test-json.c
         * holds the two to the same bytes. */
        if (w->r >= 0 && plain(s, &n)) {
                if (n + 3 > w->cap_quoted) {
                        char *q = realloc(w->quoted, 2 * (n + 3));

                        if (!q) {
                                bento_jsonw_fail(w, ENOMEM, "cannot write JSON");
                                return;
                        }
                        w->quoted = q;
                        w->cap_quoted = 2 * (n + 3);
                }
                w->quoted[0] = '"';
                memcpy(w->quoted + 1, s, n);
                w->quoted[n + 1] = '"';
                st = yajl_gen_number(w->gen, w->quoted, n + 2);
                /* refused before anything was written: a string where a
                 * key goes, which yajl_gen_string() takes */
                if (st != yajl_gen_keys_must_be_strings) {
                        check(w, st);
                        return;
                }
        }
        check(w, yajl_gen_string(w->gen, (const unsigned char *) s, strlen(s)));
}

void bento_jsonw_uint(struct bento_jsonw *w, uint64_t u)
{
        char buf[24];

        /* yajl_gen_integer takes a long long: big unsigned values go as text. */
        snprintf(buf, sizeof(buf), "%" PRIu64, u);
        if (ready(w))
                check(w, yajl_gen_number(w->gen, buf, strlen(buf)));
}

void bento_jsonw_int(struct bento_jsonw *w, int64_t i)
{
        if (ready(w))
                check(w, yajl_gen_integer(w->gen, i));
}

void bento_jsonw_bool(struct bento_jsonw *w, bool b)
{
        if (ready(w))
                check(w, yajl_gen_bool(w->gen, b));
}

void bento_jsonw_tree(struct bento_jsonw *w, const struct bento_json *v)
{
        if (ready(w))
                w->r = bento_json_emit(w->gen, v, w->err);
}

void bento_jsonw_strv(struct bento_jsonw *w, char *const *v, size_t n)
{
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++)
                bento_jsonw_string(w, v[i]);
        bento_jsonw_close_array(w);
}

void bento_jsonw_kstring(struct bento_jsonw *w, const char *key, const char *s)
{
        if (!s) {
                bento_jsonw_fail(w, EINVAL, "cannot write JSON: \"%s\" is required but not set",
                                 key);
                return;
        }
        bento_jsonw_key(w, key);
        bento_jsonw_string(w, s);
}

void bento_jsonw_kstring_opt(struct bento_jsonw *w, const char *key, const char *s)
{
        if (s)
                bento_jsonw_kstring(w, key, s);
}

void bento_jsonw_kuint(struct bento_jsonw *w, const char *key, uint64_t u)
{
        bento_jsonw_key(w, key);
        bento_jsonw_uint(w, u);
}

void bento_jsonw_kint(struct bento_jsonw *w, const char *key, int64_t i)
{
        bento_jsonw_key(w, key);
        bento_jsonw_int(w, i);
}

void bento_jsonw_kbool(struct bento_jsonw *w, const char *key, bool b)
{
        bento_jsonw_key(w, key);
        bento_jsonw_bool(w, b);
}

void bento_jsonw_kstrv(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        bento_jsonw_key(w, key);
        bento_jsonw_strv(w, v, n);
}

void bento_jsonw_ktree_opt(struct bento_jsonw *w, const char *key, const struct bento_json *v)
{
        if (!v)
                return;
        bento_jsonw_key(w, key);
        bento_jsonw_tree(w, v);
}

/* yajl's beautifier writes an empty container as "[", newline, newline,
 * indent, "]".  Fold those into "[]" / "{}".  This is safe on the raw
 * output because yajl escapes newlines inside strings: a bracket followed
 * by a raw newline is always structure. */
static size_t fold_empty(char *s, size_t len)
{
        size_t o = 0, i = 0;

        /* Jump from one "\n\n" to the next (memmem is far quicker than a
         * byte loop over a config of ~500 mounts); only there can an empty
         * container start. */
        for (;;) {
                const char *nn = memmem(s + i, len - i, "\n\n", 2);
                size_t at = nn ? (size_t) (nn - s) : len, j = at + 2;

                /* s[at - 1] is the bracket, when at > i */
                if (nn && at > i && (s[at - 1] == '[' || s[at - 1] == '{')) {
                        char close = s[at - 1] == '[' ? ']' : '}';

                        while (j < len && s[j] == ' ')
                                j++;
                        if (j < len && s[j] == close) {
                                memmove(s + o, s + i, at - i);
                                o += at - i;
                                s[o++] = close;
                                i = j + 1;
                                continue;
                        }
                }
                if (!nn) {
                        memmove(s + o, s + i, len - i);
                        return o + (len - i);
                }
                /* no fold here: keep through the first newline */
                memmove(s + o, s + i, at + 1 - i);
                o += at + 1 - i;
                i = at + 1;
        }
}

int bento_jsonw_finish(struct bento_jsonw *w, char **ret_buf, size_t *ret_len)
{
        size_t len;

        if (!ready(w))
                return w->r;
        if (!reserve(w, 0))
                return w->r = bento_err_set(w->err, ENOMEM, "cannot write JSON");
        len = w->len;
        if (w->pretty && w->last_empty) {
                /* Fold up to the last empty container's closing bracket
                 * (the indentation, then the bracket), and move the rest
                 * down: no pattern crosses that bracket. */
                size_t end = w->last_empty, folded;

                while (end < len && w->buf[end] == ' ')
                        end++;
                end = end < len ? end + 1 : len;
                folded = fold_empty(w->buf, end);
                memmove(w->buf + folded, w->buf + end, len - end);
                len = folded + (len - end);
        }
        w->buf[len] = '\0';
        *ret_buf = w->buf;
        *ret_len = len;
        w->buf = NULL;
        bento_jsonw_done(w);
        return 0;
}
