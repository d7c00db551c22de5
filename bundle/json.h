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
                        char *text;   /* the number as written, for exact re-emission */
                        bool is_int;  /* no fraction or exponent */
                        bool is_neg;
                        uint64_t u;   /* valid when is_int && !is_neg and it fits */
                        int64_t i;    /* valid when is_int and it fits */
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

/* Parse a whole document (max_bytes caps len).  Errors say what is wrong and,
 * where yajl can tell, at which byte offset. */
int bento_json_parse(const char *data, size_t len, size_t max_bytes, struct bento_json **ret,
                     struct bento_err *err);

/* Member of an object by key; NULL when absent or when obj is not an object. */
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

static inline void cleanup_bento_json_fn(struct bento_json **p)
{
        bento_json_free(*p);
}
#define cleanup_bento_json __attribute__((cleanup(cleanup_bento_json_fn)))

#endif
