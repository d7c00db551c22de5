/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small JSON document tree built on yajl's event parser, for documents
 * that are treated as hostile: bounded size and depth, embedded NUL bytes
 * (raw or escaped) rejected, duplicate keys rejected, every string carrying
 * its length.  Object members keep document order.
 */
#ifndef BENTO_JSON_H
#define BENTO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
/* every string in a tree is strict UTF-8 as utf8.h defines it */
#include "utf8.h"

#define BENTO_JSON_MAX_DEPTH 64

enum bento_json_type {
        BENTO_JSON_NULL,
        BENTO_JSON_BOOL,
        BENTO_JSON_NUMBER,
        BENTO_JSON_STRING,
        BENTO_JSON_ARRAY,
        BENTO_JSON_OBJECT,
};

struct bento_json {
        enum bento_json_type type;
        union {
                bool boolean;
                struct {
                        char *text;  /* the number as written, for exact re-emission */
                        bool is_int; /* no fraction or exponent */
                        bool is_neg;
                        uint64_t u; /* valid when is_int && !is_neg and it fits */
                        int64_t i;  /* valid when is_int and it fits */
                        bool fits_u64;
                        bool fits_i64;
                        double d;
                } number;
                struct {
                        char *s;
                        size_t len;
                } string;
                struct {
                        struct bento_json **items;
                        size_t n;
                } array;
                struct {
                        char **keys;
                        struct bento_json **values;
                        size_t n;
                } object;
        } u;
};

/* Parse a whole document (max_bytes caps len; data need not be
 * NUL-terminated).  Errors say what is wrong and where: the JSON path for
 * duplicate keys, NUL characters, malformed UTF-8 and nesting deeper than
 * BENTO_JSON_MAX_DEPTH, the byte offset for syntax errors.  Trailing data
 * after the value and comments are rejected.  Returns 0 or -errno (EFBIG
 * above max_bytes, EINVAL for bad documents, ENOMEM). */
int bento_json_parse(const char *data, size_t len, size_t max_bytes, struct bento_json **ret,
                     struct bento_err *err);

/* Member of an object by key; NULL when absent or when obj is not an object.
 * A linear scan: objects are small, and parsed ones have unique keys. */
struct bento_json *bento_json_get(const struct bento_json *obj, const char *key);

/* Deep copy; NULL on allocation failure. */
struct bento_json *bento_json_dup(const struct bento_json *v);

/* Free a tree; accepts NULL, returns NULL. */
struct bento_json *bento_json_free(struct bento_json *v);

/* Human name of a type for messages: "a string", "an object", ... */
const char *bento_json_type_name(enum bento_json_type t);

/* Serialise a tree with yajl_gen (beautify, UTF-8 validated) into an open
 * generator; the generator type is hidden to keep yajl out of this header. */
int bento_json_emit(void *yajl_gen_handle, const struct bento_json *v, struct bento_err *err);

/*
 * Building trees in code (raw subtrees such as linux.resources or
 * linux.seccomp).  Constructors return NULL when out of memory.  The two
 * insertion calls consume v in every case: on failure it is freed, and a
 * NULL v (a constructor that failed) gives -ENOMEM, so calls can be nested:
 *
 *      r = bento_json_object_set(res, "limit", bento_json_new_int(512));
 *
 * Numbers made here carry their text, so they are emitted exactly.
 * bento_json_new_string returns NULL also when s is not valid UTF-8.
 */
struct bento_json *bento_json_new_null(void);
struct bento_json *bento_json_new_bool(bool b);
struct bento_json *bento_json_new_int(int64_t i);
struct bento_json *bento_json_new_uint(uint64_t u);
struct bento_json *bento_json_new_string(const char *s);
struct bento_json *bento_json_new_array(void);
struct bento_json *bento_json_new_object(void);

/* Append v to an array.  Returns 0, -EINVAL (arr is not an array), -ENOMEM. */
int bento_json_array_append(struct bento_json *arr, struct bento_json *v);

/* Set obj[key] = v, replacing (and freeing) an existing value, so a built
 * object never holds a key twice.  Returns 0, -EINVAL, -ENOMEM. */
int bento_json_object_set(struct bento_json *obj, const char *key, struct bento_json *v);

static inline void cleanup_bento_json_fn(struct bento_json **p)
{
        bento_json_free(*p);
}
#define cleanup_bento_json __attribute__((cleanup(cleanup_bento_json_fn)))

#endif
