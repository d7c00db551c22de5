/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON document tree of json.h.  It is built from yajl's event API
 * rather than yajl_tree: the callbacks receive every string with its
 * length, so an escaped \u0000 cannot silently cut a value short, and the
 * builder refuses duplicate keys, deep nesting and malformed UTF-8 while it
 * goes.  Comments are not accepted (config.json is plain JSON; yajl_tree
 * would have allowed them).  Also here: copy, free, emit and the small
 * constructors used by code that builds raw subtrees.
 */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "cleanup.h"
#include "jsonr.h"
#include "jsonw.h"
#include "utf8.h"

struct frame {
        struct bento_json *node; /* the array or object being filled */
        size_t cap;              /* slots allocated in its item (or key and value) arrays */
        char *key;               /* object only: key seen, value still to come */
};

struct builder {
        struct bento_json *root;
        struct frame stack[BENTO_JSON_MAX_DEPTH];
        size_t depth;
        struct bento_err *err;
};

/* Render the path of the value being built.  With `pending`, the path
 * includes the slot the next value goes to (array index or object key). */
static void builder_path(const struct builder *b, bool pending, struct bento_jsonr *r)
{
        for (size_t i = 0; i < b->depth; i++) {
                const struct bento_json *node = b->stack[i].node;
                bool last = i + 1 == b->depth;

                if (last && !pending)
                        break;
                if (node->type == BENTO_JSON_ARRAY)
                        bento_jsonr_push_index(r, node->u.array.n - (last ? 0 : 1));
                else if (last && b->stack[i].key)
                        bento_jsonr_push_key(r, b->stack[i].key);
                else if (!last)
                        bento_jsonr_push_key(r, node->u.object.keys[node->u.object.n - 1]);
        }
}

/* Record a validation error and return 0, which makes yajl cancel. */
static int builder_fail(struct builder *b, bool pending, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int builder_fail(struct builder *b, bool pending, const char *fmt, ...)
{
        char msg[BENTO_ERR_MSG_MAX];
        struct bento_jsonr r;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        bento_jsonr_init(&r, b->err);
        builder_path(b, pending, &r);
        bento_jsonr_fail(&r, "%s", msg);
        return 0;
}

static int builder_oom(struct builder *b)
{
        bento_err_set(b->err, ENOMEM, "parsing JSON");
        return 0;
}

/* Check text of a string value (pending) or of a key (!pending) and copy it. */
static char *take_text(struct builder *b, bool pending, const unsigned char *s, size_t len)
{
        const char *what = pending ? "string" : "object key";
        char *copy;

        if (memchr(s, '\0', len)) {
                builder_fail(b, pending, "%s contains a NUL character", what);
                return NULL;
        }
        /* yajl's own check lets overlong forms, surrogates and values past
         * U+10FFFF through, and its \u decoder can produce an encoded lone
         * surrogate, so decoded text is checked again here. */
        if (!bento_utf8_valid((const char *) s, len)) {
                builder_fail(b, pending, "%s is not valid UTF-8", what);
                return NULL;
        }
        copy = malloc(len + 1);
        if (!copy) {
                builder_oom(b);
                return NULL;
        }
        memcpy(copy, s, len);
        copy[len] = '\0';
        return copy;
}

static bool reserve(void **arr, size_t cap, size_t want, size_t elem)
{
        void *p;

        if (want <= cap)
                return true;
        p = reallocarray(*arr, want, elem);
        if (!p)
                return false;
        *arr = p;
        return true;
}

/* Hang v under the container being filled (or make it the root).  On
 * failure v is freed. */
static int attach(struct builder *b, struct bento_json *v)
{
        struct frame *f;
        size_t n, cap;

        if (!v)
                return builder_oom(b);
        if (b->depth == 0) {
                b->root = v;
                return 1;
        }
        f = &b->stack[b->depth - 1];
        cap = f->cap ? f->cap * 2 : 4;
        if (f->node->type == BENTO_JSON_ARRAY) {
                n = f->node->u.array.n;
                if (n == f->cap) {
                        if (!reserve((void **) &f->node->u.array.items, n, cap, sizeof(v)))
                                goto oom;
                        f->cap = cap;
                }
                f->node->u.array.items[f->node->u.array.n++] = v;
                return 1;
        }
        n = f->node->u.object.n;
        if (n == f->cap) {
                /* keys may grow and values not: cap only moves once both did. */
                if (!reserve((void **) &f->node->u.object.keys, n, cap, sizeof(char *)) ||
                    !reserve((void **) &f->node->u.object.values, n, cap, sizeof(v)))
                        goto oom;
                f->cap = cap;
        }
        f->node->u.object.keys[n] = TAKE_PTR(f->key);
        f->node->u.object.values[n] = v;
        f->node->u.object.n++;
        return 1;
oom:
        bento_json_free(v);
        return builder_oom(b);
}

static struct bento_json *node_new(enum bento_json_type type)
{
        struct bento_json *v = calloc(1, sizeof(*v));

        if (v)
                v->type = type;
        return v;
}

static int on_null(void *ctx)
{
        return attach(ctx, node_new(BENTO_JSON_NULL));
}

static int on_boolean(void *ctx, int value)
{
        struct bento_json *v = node_new(BENTO_JSON_BOOL);

        if (v)
                v->u.boolean = value != 0;
        return attach(ctx, v);
}

/* Fill the numeric views of a number from its text (JSON syntax, already
 * checked by yajl's lexer). */
static void classify_number(struct bento_json *v)
{
        const char *t = v->u.number.text;
        bool neg = t[0] == '-', overflow = false;
        uint64_t mag = 0;

        v->u.number.d = strtod(t, NULL);
        v->u.number.is_int = !strpbrk(t, ".eE");
        if (!v->u.number.is_int) {
                v->u.number.is_neg = v->u.number.d < 0;
                return;
        }
        for (const char *p = t + neg; *p >= '0' && *p <= '9'; p++) {
                unsigned digit = (unsigned) (*p - '0');

                if (mag > (UINT64_MAX - digit) / 10)
                        overflow = true;
                else if (!overflow)
                        mag = mag * 10 + digit;
        }
        /* "-0" is zero, not a negative number. */
        v->u.number.is_neg = neg && (overflow || mag != 0);
        v->u.number.fits_u64 = !v->u.number.is_neg && !overflow;
        v->u.number.u = v->u.number.fits_u64 ? mag : 0;
        if (overflow)
                return;
        if (!v->u.number.is_neg && mag <= INT64_MAX) {
                v->u.number.fits_i64 = true;
                v->u.number.i = (int64_t) mag;
        } else if (v->u.number.is_neg && mag <= (uint64_t) INT64_MAX + 1) {
                v->u.number.fits_i64 = true;
                v->u.number.i = mag == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) mag;
        }
}

static int on_number(void *ctx, const char *text, size_t len)
{
        struct bento_json *v = node_new(BENTO_JSON_NUMBER);

        if (v) {
                v->u.number.text = strndup(text, len);
                if (!v->u.number.text)
                        v = bento_json_free(v);
                else
                        classify_number(v);
        }
        return attach(ctx, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
        struct builder *b = ctx;
        struct bento_json *v;
        char *copy = take_text(b, true, s, len);

        if (!copy)
                return 0;
        v = node_new(BENTO_JSON_STRING);
        if (!v) {
                free(copy);
                return builder_oom(b);
        }
        v->u.string.s = copy;
        v->u.string.len = len;
        return attach(b, v);
}

static int open_container(struct builder *b, enum bento_json_type type)
{
        struct bento_json *v;

        if (b->depth == BENTO_JSON_MAX_DEPTH)
                return builder_fail(b, true, "nested deeper than %d levels", BENTO_JSON_MAX_DEPTH);
        v = node_new(type);
        if (!attach(b, v))
                return 0;
        b->stack[b->depth++] = (struct frame){.node = v};
        return 1;
}

static int on_start_map(void *ctx)
{
        return open_container(ctx, BENTO_JSON_OBJECT);
}

static int on_start_array(void *ctx)
{
        return open_container(ctx, BENTO_JSON_ARRAY);
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
        struct builder *b = ctx;
        struct frame *f = &b->stack[b->depth - 1];

        f->key = take_text(b, false, key, len);
        return f->key != NULL;
}

static int cmp_key(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Find a key that occurs twice.  Small objects (nearly all of them) are
 * checked pairwise; big ones through a sorted copy, so a hostile object
 * with many keys costs n log n rather than n squared.  Returns 1 with
 * *ret set, 0 when all keys differ, -ENOMEM. */
static int find_duplicate(char **keys, size_t n, const char **ret)
{
        cleanup_free char **sorted = NULL;

        if (n <= 16) {
                for (size_t i = 1; i < n; i++)
                        for (size_t j = 0; j < i; j++)
                                if (strcmp(keys[i], keys[j]) == 0) {
                                        *ret = keys[i];
                                        return 1;
                                }
                return 0;
        }
        sorted = reallocarray(NULL, n, sizeof(*sorted));
        if (!sorted)
                return -ENOMEM;
        memcpy(sorted, keys, n * sizeof(*sorted));
        qsort(sorted, n, sizeof(*sorted), cmp_key);
        for (size_t i = 1; i < n; i++)
                if (strcmp(sorted[i], sorted[i - 1]) == 0) {
                        *ret = sorted[i];
                        return 1;
                }
        return 0;
}

static int on_end_map(void *ctx)
{
        struct builder *b = ctx;
        const struct bento_json *obj = b->stack[b->depth - 1].node;
        const char *dup = NULL;
        int k = find_duplicate(obj->u.object.keys, obj->u.object.n, &dup);

        if (k < 0)
                return builder_oom(b);
        if (k > 0)
                return builder_fail(b, false, "duplicate key \"%.100s\"", dup);
        b->depth--;
        return 1;
}

static int on_end_array(void *ctx)
{
        struct builder *b = ctx;

        b->depth--;
        return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* Turn a yajl failure into a message: yajl's short text without its
 * trailing newline, plus the byte offset when the lexer reported it. */
static int yajl_failure(yajl_handle h, const char *data, size_t len, bool with_offset,
                        struct bento_err *err)
{
        unsigned char *text = yajl_get_error(h, 0, (const unsigned char *) data, len);
        size_t tlen = text ? strlen((char *) text) : 0;
        int r;

        while (tlen > 0 && (text[tlen - 1] == '\n' || text[tlen - 1] == ' '))
                text[--tlen] = '\0';
        if (with_offset)
                r = bento_err_setx(err, EINVAL, "invalid JSON at byte %zu: %s",
                                   yajl_get_bytes_consumed(h), text ? (char *) text : "?");
        else
                r = bento_err_setx(err, EINVAL, "invalid JSON: %s", text ? (char *) text : "?");
        if (text)
                yajl_free_error(h, text);
        return r;
}

static void builder_release(struct builder *b)
{
        for (size_t i = 0; i < b->depth; i++)
                free(b->stack[i].key);
        bento_json_free(b->root);
}

static int run_parser(struct builder *b, const char *data, size_t len)
{
        yajl_handle h = yajl_alloc(&callbacks, NULL, b);
        yajl_status st;
        int r = 0;

        if (!h)
                return bento_err_set(b->err, ENOMEM, "parsing JSON");
        yajl_config(h, yajl_allow_comments, 0);
        yajl_config(h, yajl_dont_validate_strings, 0);
        st = yajl_parse(h, (const unsigned char *) data, len);
        if (st == yajl_status_client_canceled)
                r = -b->err->code;
        else if (st != yajl_status_ok)
                r = yajl_failure(h, data, len, true, b->err);
        else if (yajl_complete_parse(h) != yajl_status_ok)
                r = yajl_failure(h, data, len, false, b->err);
        yajl_free(h);
        return r;
}

int bento_json_parse(const char *data, size_t len, size_t max_bytes, struct bento_json **ret,
                     struct bento_err *err)
{
        struct builder b = {.err = err};
        const char *nul;
        size_t i;
        int r;

        if (len > max_bytes)
                return bento_err_too_big(err, "the document", len, false, max_bytes);
        nul = memchr(data, '\0', len);
        if (nul)
                return bento_err_setx(err, EINVAL, "document contains a NUL byte at offset %zu",
                                      (size_t) (nul - data));
        for (i = 0; i < len && strchr(" \t\r\n", data[i]); i++)
                ;
        if (i == len)
                return bento_err_setx(err, EINVAL, "document is empty");
        r = run_parser(&b, data, len);
        if (r >= 0 && !b.root)
                r = bento_err_setx(err, EINVAL, "document is empty");
        if (r < 0) {
                builder_release(&b);
                return r;
        }
        *ret = b.root;
        return 0;
}

struct bento_json *bento_json_get(const struct bento_json *obj, const char *key)
{
        if (!obj || obj->type != BENTO_JSON_OBJECT)
                return NULL;
        for (size_t i = 0; i < obj->u.object.n; i++)
                if (strcmp(obj->u.object.keys[i], key) == 0)
                        return obj->u.object.values[i];
        return NULL;
}

struct bento_json *bento_json_free(struct bento_json *v)
{
        if (!v)
                return NULL;
        switch (v->type) {
        case BENTO_JSON_NUMBER:
                free(v->u.number.text);
                break;
        case BENTO_JSON_STRING:
                free(v->u.string.s);
                break;
        case BENTO_JSON_ARRAY:
                for (size_t i = 0; i < v->u.array.n; i++)
                        bento_json_free(v->u.array.items[i]);
                free(v->u.array.items);
                break;
        case BENTO_JSON_OBJECT:
                for (size_t i = 0; i < v->u.object.n; i++) {
                        free(v->u.object.keys[i]);
                        bento_json_free(v->u.object.values[i]);
                }
                free(v->u.object.keys);
                free(v->u.object.values);
                break;
        default:
                break;
        }
        free(v);
        return NULL;
}

/* Copy the children of a container into dst, a node of the same type with
 * no children yet.  On failure dst holds what was copied so far and can be
 * freed as usual. */
static bool dup_array(struct bento_json *dst, const struct bento_json *src)
{
        dst->u.array.items = calloc(src->u.array.n ? src->u.array.n : 1, sizeof(void *));
        if (!dst->u.array.items)
                return false;
        for (size_t i = 0; i < src->u.array.n; i++) {
                dst->u.array.items[i] = bento_json_dup(src->u.array.items[i]);
                if (!dst->u.array.items[i])
                        return false;
                dst->u.array.n++;
        }
        return true;
}

static bool dup_object(struct bento_json *dst, const struct bento_json *src)
{
        size_t n = src->u.object.n ? src->u.object.n : 1;

        dst->u.object.keys = calloc(n, sizeof(char *));
        dst->u.object.values = calloc(n, sizeof(void *));
        if (!dst->u.object.keys || !dst->u.object.values)
                return false;
        for (size_t i = 0; i < src->u.object.n; i++) {
                char *key = strdup(src->u.object.keys[i]);
                struct bento_json *val = key ? bento_json_dup(src->u.object.values[i]) : NULL;

                if (!val) {
                        free(key);
                        return false;
                }
                dst->u.object.keys[i] = key;
                dst->u.object.values[i] = val;
                dst->u.object.n++;
        }
        return true;
}

struct bento_json *bento_json_dup(const struct bento_json *v)
{
        struct bento_json *c;
        bool ok = true;

        if (!v)
                return NULL;
        c = node_new(v->type);
        if (!c)
                return NULL;
        c->u = v->u;
        switch (v->type) {
        case BENTO_JSON_NUMBER:
                c->u.number.text = v->u.number.text ? strdup(v->u.number.text) : NULL;
                ok = !v->u.number.text || c->u.number.text;
                break;
        case BENTO_JSON_STRING:
                c->u.string.s = malloc(v->u.string.len + 1);
                ok = c->u.string.s != NULL;
                if (ok) {
                        memcpy(c->u.string.s, v->u.string.s, v->u.string.len);
                        c->u.string.s[v->u.string.len] = '\0';
                }
                break;
        case BENTO_JSON_ARRAY:
                memset(&c->u, 0, sizeof(c->u));
                ok = dup_array(c, v);
                break;
        case BENTO_JSON_OBJECT:
                memset(&c->u, 0, sizeof(c->u));
                ok = dup_object(c, v);
                break;
        default:
                break;
        }
        if (!ok)
                return bento_json_free(c);
        return c;
}

const char *bento_json_type_name(enum bento_json_type t)
{
        switch (t) {
        case BENTO_JSON_NULL:
                return "null";
        case BENTO_JSON_BOOL:
                return "a boolean";
        case BENTO_JSON_NUMBER:
                return "a number";
        case BENTO_JSON_STRING:
                return "a string";
        case BENTO_JSON_ARRAY:
                return "an array";
        case BENTO_JSON_OBJECT:
                return "an object";
        }
        return "an unknown type";
}

static yajl_gen_status emit_number(yajl_gen g, const struct bento_json *v)
{
        /* The text as written keeps big and exotic numbers exact. */
        if (v->u.number.text)
                return yajl_gen_number(g, v->u.number.text, strlen(v->u.number.text));
        if (v->u.number.is_int && v->u.number.fits_i64)
                return yajl_gen_integer(g, v->u.number.i);
        if (v->u.number.is_int && v->u.number.fits_u64) {
                char buf[32];
                snprintf(buf, sizeof(buf), "%" PRIu64, v->u.number.u);
                return yajl_gen_number(g, buf, strlen(buf));
        }
        return yajl_gen_double(g, v->u.number.d);
}

static yajl_gen_status emit(yajl_gen g, const struct bento_json *v)
{
        yajl_gen_status st = yajl_gen_status_ok;

        switch (v->type) {
        case BENTO_JSON_NULL:
                return yajl_gen_null(g);
        case BENTO_JSON_BOOL:
                return yajl_gen_bool(g, v->u.boolean);
        case BENTO_JSON_NUMBER:
                return emit_number(g, v);
        case BENTO_JSON_STRING:
                return yajl_gen_string(g, (const unsigned char *) v->u.string.s, v->u.string.len);
        case BENTO_JSON_ARRAY:
                st = yajl_gen_array_open(g);
                for (size_t i = 0; st == yajl_gen_status_ok && i < v->u.array.n; i++)
                        st = emit(g, v->u.array.items[i]);
                return st == yajl_gen_status_ok ? yajl_gen_array_close(g) : st;
        case BENTO_JSON_OBJECT:
                st = yajl_gen_map_open(g);
                for (size_t i = 0; st == yajl_gen_status_ok && i < v->u.object.n; i++) {
                        const char *k = v->u.object.keys[i];

                        st = yajl_gen_string(g, (const unsigned char *) k, strlen(k));
                        if (st == yajl_gen_status_ok)
                                st = emit(g, v->u.object.values[i]);
                }
                return st == yajl_gen_status_ok ? yajl_gen_map_close(g) : st;
        }
        return yajl_gen_in_error_state;
}

int bento_json_emit(void *yajl_gen_handle, const struct bento_json *v, struct bento_err *err)
{
        if (!v)
                return bento_err_setx(err, EINVAL, "cannot emit a missing JSON value");
        return bento_jsonw_status(emit(yajl_gen_handle, v), err);
}
