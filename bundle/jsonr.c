/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Typed readers over struct bento_json (see jsonr.h).  Everything that turns
 * a document value into a C value and may reject it lives here, so that the
 * config.json and state-record readers word their errors the same way.
 */
#include "jsonr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "utf8.h"

/* Keys longer than this are abbreviated in paths: a path is for a human to
 * find the value, and err.msg has a fixed size. */
#define KEY_SHOWN_MAX 48

void bento_jsonr_init(struct bento_jsonr *r, struct bento_err *err)
{
        r->err = err;
        r->len = 0;
        r->path[0] = '\0';
}

/* Append text; when it does not fit, end the path with "..." and keep it
 * full so that later pushes add nothing. */
static void append(struct bento_jsonr *r, const char *text)
{
        size_t room = sizeof(r->path) - r->len;
        size_t n = strlen(text);

        if (n < room) {
                memcpy(r->path + r->len, text, n + 1);
                r->len += n;
                return;
        }
        r->len = sizeof(r->path) - 1;
        memcpy(r->path + r->len - 3, "...", 4);
}

static bool is_identifier(const char *key)
{
        if (!((*key >= 'a' && *key <= 'z') || (*key >= 'A' && *key <= 'Z') || *key == '_'))
                return false;
        for (const char *p = key; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '_'))
                        return false;
        return true;
}

size_t bento_jsonr_push_key(struct bento_jsonr *r, const char *key)
{
        size_t mark = r->len;
        char buf[KEY_SHOWN_MAX * 2 + 8];
        size_t o = 0, i;

        if (is_identifier(key) && strlen(key) <= KEY_SHOWN_MAX) {
                if (r->len > 0)
                        append(r, ".");
                append(r, key);
                return mark;
        }
        buf[o++] = '[';
        buf[o++] = '"';
        for (i = 0; i < KEY_SHOWN_MAX && key[i]; i++) {
                if (key[i] == '"' || key[i] == '\\')
                        buf[o++] = '\\';
                buf[o++] = key[i];
        }
        if (key[i]) {
                /* cut at a character boundary, not inside a UTF-8 sequence */
                while (i > 0 && bento_utf8_continuation((unsigned char) key[i])) {
                        i--;
                        o--;
                }
                buf[o++] = '.';
                buf[o++] = '.';
                buf[o++] = '.';
        }
        memcpy(buf + o, "\"]", 3);
        append(r, buf);
        return mark;
}

size_t bento_jsonr_push_index(struct bento_jsonr *r, size_t index)
{
        size_t mark = r->len;
        char buf[32];

        snprintf(buf, sizeof(buf), "[%zu]", index);
        append(r, buf);
        return mark;
}

void bento_jsonr_pop(struct bento_jsonr *r, size_t mark)
{
        if (mark < sizeof(r->path)) {
                r->len = mark;
                r->path[mark] = '\0';
        }
}

int bento_jsonr_fail(struct bento_jsonr *r, const char *fmt, ...)
{
        char msg[BENTO_ERR_MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (r->len == 0)
                return bento_err_setx(r->err, EINVAL, "%s", msg);
        return bento_err_setx(r->err, EINVAL, "%s: %s", r->path, msg);
}

static int oom(struct bento_jsonr *r)
{
        return bento_err_set(r->err, ENOMEM, "reading %s", r->len ? r->path : "the document");
}

int bento_jsonr_fail_type(struct bento_jsonr *r, const char *want, const struct bento_json *v)
{
        return bento_jsonr_fail(r, "expected %s, got %s", want,
                                v ? bento_json_type_name(v->type) : "null");
}

/* A number of the wrong kind is clearer quoted as written: "got -1",
 * "got 1.5", "got 4294967296". */
static int fail_number(struct bento_jsonr *r, const char *want, const struct bento_json *v)
{
        const char *text = v->u.number.text;

        if (!text)
                return bento_jsonr_fail_type(r, want, v);
        return bento_jsonr_fail(r, "expected %s, got %.40s%s", want, text,
                                strlen(text) > 40 ? "..." : "");
}

int bento_jsonr_string_value(struct bento_jsonr *r, const struct bento_json *v, char **ret)
{
        char *s;

        if (!v || v->type != BENTO_JSON_STRING)
                return bento_jsonr_fail_type(r, "a string", v);
        s = strdup(v->u.string.s);
        if (!s)
                return oom(r);
        *ret = s;
        return 0;
}

static void uint_want(char *buf, size_t size, uint64_t max)
{
        if (max == UINT32_MAX)
                snprintf(buf, size, "an unsigned 32-bit integer");
        else if (max == UINT64_MAX)
                snprintf(buf, size, "an unsigned 64-bit integer");
        else
                snprintf(buf, size, "an integer between 0 and %" PRIu64, max);
}

int bento_jsonr_uint_value(struct bento_jsonr *r, const struct bento_json *v, uint64_t max,
                           uint64_t *ret)
{
        char want[64];

        uint_want(want, sizeof(want), max);
        if (!v || v->type != BENTO_JSON_NUMBER)
                return bento_jsonr_fail_type(r, want, v);
        if (!v->u.number.is_int || !v->u.number.fits_u64 || v->u.number.u > max)
                return fail_number(r, want, v);
        *ret = v->u.number.u;
        return 0;
}

int bento_jsonr_int_value(struct bento_jsonr *r, const struct bento_json *v, int64_t min,
                          int64_t max, int64_t *ret)
{
        char want[80];

        if (min == INT32_MIN && max == INT32_MAX)
                snprintf(want, sizeof(want), "a 32-bit integer");
        else if (min == INT64_MIN && max == INT64_MAX)
                snprintf(want, sizeof(want), "a 64-bit integer");
        else
                snprintf(want, sizeof(want), "an integer between %" PRId64 " and %" PRId64, min,
                         max);
        if (!v || v->type != BENTO_JSON_NUMBER)
                return bento_jsonr_fail_type(r, want, v);
        if (!v->u.number.is_int || !v->u.number.fits_i64 || v->u.number.i < min ||
            v->u.number.i > max)
                return fail_number(r, want, v);
        *ret = v->u.number.i;
        return 0;
}

void bento_strv_free_n(char **v, size_t n)
{
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

int bento_strv_append(char ***v, size_t *n, const char *s)
{
        char **grown = realloc(*v, (*n + 2) * sizeof(char *));
        char *copy;

        if (!grown)
                return -ENOMEM;
        *v = grown;
        copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        grown[*n] = copy;
        grown[++*n] = NULL;
        return 0;
}

int bento_jsonr_strv_value(struct bento_jsonr *r, const struct bento_json *v, char ***ret,
                           size_t *ret_n)
{
        char **strv;
        size_t n, i;

        if (!v || v->type != BENTO_JSON_ARRAY)
                return bento_jsonr_fail_type(r, "an array of strings", v);
        n = v->u.array.n;
        strv = calloc(n + 1, sizeof(*strv));
        if (!strv)
                return oom(r);
        for (i = 0; i < n; i++) {
                size_t mark = bento_jsonr_push_index(r, i);
                int k = bento_jsonr_string_value(r, v->u.array.items[i], &strv[i]);

                bento_jsonr_pop(r, mark);
                if (k < 0) {
                        bento_strv_free_n(strv, i);
                        return k;
                }
        }
        *ret = strv;
        *ret_n = n;
        return 0;
}

const struct bento_json *bento_jsonr_get(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        if (v && v->type == BENTO_JSON_NULL)
                return NULL;
        return v;
}

int bento_jsonr_member(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                       enum bento_json_type type, bool required, const struct bento_json **ret)
{
        const struct bento_json *v = bento_jsonr_get(obj, key);
        size_t mark;
        int k = 0;

        if (!v && !required)
                return 0;
        mark = bento_jsonr_push_key(r, key);
        if (!v)
                k = bento_jsonr_fail(r, "required property is missing");
        else if (v->type != type)
                k = bento_jsonr_fail_type(r, bento_json_type_name(type), v);
        bento_jsonr_pop(r, mark);
        if (k < 0)
                return k;
        *ret = v;
        return 1;
}

/* Shared frame of the scalar member readers: look up, report a missing
 * required member, and leave the path pointing at the member. */
static int lookup(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                  bool required, const struct bento_json **ret, size_t *ret_mark)
{
        const struct bento_json *v = bento_jsonr_get(obj, key);

        if (!v && !required)
                return 0;
        *ret_mark = bento_jsonr_push_key(r, key);
        if (!v) {
                int k = bento_jsonr_fail(r, "required property is missing");

                bento_jsonr_pop(r, *ret_mark);
                return k;
        }
        *ret = v;
        return 1;
}

int bento_jsonr_string(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                       bool required, char **ret)
{
        const struct bento_json *v = NULL;
        size_t mark = 0;
        int k = lookup(r, obj, key, required, &v, &mark);

        if (k <= 0)
                return k;
        k = bento_jsonr_string_value(r, v, ret);
        bento_jsonr_pop(r, mark);
        return k < 0 ? k : 1;
}

int bento_jsonr_bool(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     bool *ret)
{
        const struct bento_json *v = NULL;
        size_t mark = 0;
        int k = lookup(r, obj, key, false, &v, &mark);

        if (k <= 0)
                return k;
        k = v->type == BENTO_JSON_BOOL ? 1 : bento_jsonr_fail_type(r, "a boolean", v);
        bento_jsonr_pop(r, mark);
        if (k > 0)
                *ret = v->u.boolean;
        return k;
}

int bento_jsonr_uint(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     bool required, uint64_t max, uint64_t *ret)
{
        const struct bento_json *v = NULL;
        size_t mark = 0;
        int k = lookup(r, obj, key, required, &v, &mark);

        if (k <= 0)
                return k;
        k = bento_jsonr_uint_value(r, v, max, ret);
        bento_jsonr_pop(r, mark);
        return k < 0 ? k : 1;
}

int bento_jsonr_u32(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                    bool required, uint32_t *ret)
{
        uint64_t u = 0;
        int k = bento_jsonr_uint(r, obj, key, required, UINT32_MAX, &u);

        if (k > 0)
                *ret = (uint32_t) u;
        return k;
}

int bento_jsonr_int(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                    bool required, int64_t min, int64_t max, int64_t *ret)
{
        const struct bento_json *v = NULL;
        size_t mark = 0;
        int k = lookup(r, obj, key, required, &v, &mark);

        if (k <= 0)
                return k;
        k = bento_jsonr_int_value(r, v, min, max, ret);
        bento_jsonr_pop(r, mark);
        return k < 0 ? k : 1;
}

int bento_jsonr_strv(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     char ***ret, size_t *ret_n)
{
        const struct bento_json *v = NULL;
        size_t mark = 0;
        int k = lookup(r, obj, key, false, &v, &mark);

        if (k <= 0)
                return k;
        k = bento_jsonr_strv_value(r, v, ret, ret_n);
        bento_jsonr_pop(r, mark);
        return k < 0 ? k : 1;
}

int bento_jsonr_objects(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                        size_t elem_size, void **ret, size_t *ret_n, bento_jsonr_item_fn fn)
{
        const struct bento_json *arr = NULL;
        size_t mark;
        char *items;
        int k = bento_jsonr_member(r, obj, key, BENTO_JSON_ARRAY, false, &arr);

        if (k <= 0 || arr->u.array.n == 0)
                return k;
        items = calloc(arr->u.array.n, elem_size);
        if (!items)
                return bento_err_set(r->err, ENOMEM, "%s", key);
        /* Published before the items are filled, so that the owner's free
         * function releases what a failing item already allocated. */
        *ret = items;
        *ret_n = arr->u.array.n;
        mark = bento_jsonr_push_key(r, key);
        for (size_t i = 0; i < arr->u.array.n; i++) {
                const struct bento_json *item = arr->u.array.items[i];
                size_t imark = bento_jsonr_push_index(r, i);

                if (item->type != BENTO_JSON_OBJECT)
                        k = bento_jsonr_fail_type(r, "an object", item);
                else
                        k = fn(r, item, items + i * elem_size);
                bento_jsonr_pop(r, imark);
                if (k < 0)
                        break;
        }
        bento_jsonr_pop(r, mark);
        return k < 0 ? k : 1;
}

int bento_jsonr_raw_object(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                           struct bento_json **ret)
{
        const struct bento_json *v = NULL;
        struct bento_json *copy;
        int k = bento_jsonr_member(r, obj, key, BENTO_JSON_OBJECT, false, &v);

        if (k <= 0)
                return k;
        copy = bento_json_dup(v);
        if (!copy)
                return bento_err_set(r->err, ENOMEM, "%s", key);
        *ret = copy;
        return 1;
}

int bento_jsonr_abs_path(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                         bool required, char **ret)
{
        cleanup_free char *s = NULL;
        int k = bento_jsonr_string(r, obj, key, required, &s);

        if (k <= 0)
                return k;
        /* k > 0 means s is set; the analyzer cannot see that the err.c setters
         * always return < 0, so it also tries k > 0 after a failure. */
        /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
        if (s[0] != '/') {
                size_t mark = bento_jsonr_push_key(r, key);

                k = bento_jsonr_fail(r, "must be an absolute path, got \"%.200s\"", s);
                bento_jsonr_pop(r, mark);
                return k;
        }
        *ret = TAKE_PTR(s);
        return 1;
}
