/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constructors for struct bento_json trees built in code (json.h).  They
 * keep the invariants the parser guarantees — numbers carry their text,
 * strings are valid UTF-8 without NUL, object keys are unique — so a built
 * tree emits and re-parses like a parsed one.
 */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct bento_json *node(enum bento_json_type type)
{
        struct bento_json *v = calloc(1, sizeof(*v));

        if (v)
                v->type = type;
        return v;
}

struct bento_json *bento_json_new_null(void)
{
        return node(BENTO_JSON_NULL);
}

struct bento_json *bento_json_new_bool(bool b)
{
        struct bento_json *v = node(BENTO_JSON_BOOL);

        if (v)
                v->u.boolean = b;
        return v;
}

static struct bento_json *number(const char *text)
{
        struct bento_json *v = node(BENTO_JSON_NUMBER);

        if (!v)
                return NULL;
        v->u.number.text = strdup(text);
        if (!v->u.number.text)
                return bento_json_free(v);
        v->u.number.is_int = true;
        return v;
}

struct bento_json *bento_json_new_int(int64_t i)
{
        char buf[24];
        struct bento_json *v;

        snprintf(buf, sizeof(buf), "%" PRId64, i);
        v = number(buf);
        if (!v)
                return NULL;
        v->u.number.is_neg = i < 0;
        v->u.number.i = i;
        v->u.number.fits_i64 = true;
        v->u.number.fits_u64 = i >= 0;
        v->u.number.u = i >= 0 ? (uint64_t) i : 0;
        v->u.number.d = (double) i;
        return v;
}

struct bento_json *bento_json_new_uint(uint64_t u)
{
        char buf[24];
        struct bento_json *v;

        snprintf(buf, sizeof(buf), "%" PRIu64, u);
        v = number(buf);
        if (!v)
                return NULL;
        v->u.number.u = u;
        v->u.number.fits_u64 = true;
        v->u.number.fits_i64 = u <= INT64_MAX;
        v->u.number.i = u <= INT64_MAX ? (int64_t) u : 0;
        v->u.number.d = (double) u;
        return v;
}

struct bento_json *bento_json_new_string(const char *s)
{
        struct bento_json *v;

        if (!s || !bento_utf8_valid(s, strlen(s)))
                return NULL;
        v = node(BENTO_JSON_STRING);
        if (!v)
                return NULL;
        v->u.string.s = strdup(s);
        if (!v->u.string.s)
                return bento_json_free(v);
        v->u.string.len = strlen(s);
        return v;
}

struct bento_json *bento_json_new_array(void)
{
        return node(BENTO_JSON_ARRAY);
}

struct bento_json *bento_json_new_object(void)
{
        return node(BENTO_JSON_OBJECT);
}

/* Growing by one each time keeps no hidden capacity, so it is correct
 * whoever allocated the arrays; built trees are small. */
int bento_json_array_append(struct bento_json *arr, struct bento_json *v)
{
        struct bento_json **items;

        if (!v)
                return -ENOMEM;
        if (!arr || arr->type != BENTO_JSON_ARRAY) {
                bento_json_free(v);
                return -EINVAL;
        }
        items = reallocarray(arr->u.array.items, arr->u.array.n + 1, sizeof(*items));
        if (!items) {
                bento_json_free(v);
                return -ENOMEM;
        }
        items[arr->u.array.n++] = v;
        arr->u.array.items = items;
        return 0;
}

int bento_json_object_set(struct bento_json *obj, const char *key, struct bento_json *v)
{
        char **keys, *k;
        struct bento_json **values;
        size_t n;

        if (!v)
                return -ENOMEM;
        if (!obj || obj->type != BENTO_JSON_OBJECT || !key || !bento_utf8_valid(key, strlen(key))) {
                bento_json_free(v);
                return -EINVAL;
        }
        n = obj->u.object.n;
        for (size_t i = 0; i < n; i++)
                if (strcmp(obj->u.object.keys[i], key) == 0) {
                        bento_json_free(obj->u.object.values[i]);
                        obj->u.object.values[i] = v;
                        return 0;
                }
        k = strdup(key);
        keys = k ? reallocarray(obj->u.object.keys, n + 1, sizeof(*keys)) : NULL;
        if (keys)
                obj->u.object.keys = keys;
        values = keys ? reallocarray(obj->u.object.values, n + 1, sizeof(*values)) : NULL;
        if (!values) {
                free(k);
                bento_json_free(v);
                return -ENOMEM;
        }
        obj->u.object.values = values;
        keys[n] = k;
        values[n] = v;
        obj->u.object.n = n + 1;
        return 0;
}
