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

int bento_jsonw_init(struct bento_jsonw *w, bool pretty, struct bento_err *err)
{
        yajl_gen g = yajl_gen_alloc(NULL);

        *w = (struct bento_jsonw){.pretty = pretty, .err = err};
        if (!g)
                return w->r = bento_err_set(err, ENOMEM, "cannot write JSON");
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

void bento_jsonw_string(struct bento_jsonw *w, const char *s)
{
        if (!ready(w))
                return;
        if (!s) {
                bento_jsonw_fail(w, EINVAL, "cannot write JSON: a required string is not set");
                return;
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
        const unsigned char *buf = NULL;
        size_t len = 0;
        char *copy;

        if (!ready(w))
                return w->r;
        check(w, yajl_gen_get_buf(w->gen, &buf, &len));
        if (w->r < 0)
                return w->r;
        copy = malloc(len + 1);
        if (!copy)
                return w->r = bento_err_set(w->err, ENOMEM, "cannot write JSON");
        memcpy(copy, buf, len);
        if (w->pretty)
                len = fold_empty(copy, len);
        copy[len] = '\0';
        bento_jsonw_done(w);
        *ret_buf = copy;
        *ret_len = len;
        return 0;
}
