/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Typed reading of a struct bento_json tree with JSON-path error messages.
 *
 * A reader carries the path of the value being looked at ("process.user",
 * "linux.namespaces[2]", "linux.sysctl[\"net.ipv4.ip_forward\"]") so that
 * every rejection names the bad value: "process.user.uid: expected an
 * unsigned 32-bit integer, got a string".  Keys that are not plain
 * identifiers are quoted in brackets so a dotted sysctl name cannot be
 * mistaken for nesting.  Paths longer than the buffer are cut with "...".
 *
 * Member lookups treat a JSON null exactly like an absent member, as Go's
 * encoding/json (and so most OCI tooling) does when decoding into optional
 * fields.
 *
 * Member readers return 1 when the member was present and converted, 0 when
 * it is absent (or null) and not required, and a negative errno with the
 * reader's err filled otherwise.  Out-parameters are written only when 1 is
 * returned.  Every reader leaves the path as it found it, on failure too,
 * so one reader can go on after a rejected value.
 */
#ifndef BENTO_JSONR_H
#define BENTO_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "json.h"

#define BENTO_JSONR_PATH_MAX 256

struct bento_jsonr {
        struct bento_err *err;
        size_t len;
        char path[BENTO_JSONR_PATH_MAX];
};

/* Evaluate a fallible call; return its negative result from the caller. */
#define JSONR_TRY(expr)                                                                            \
        do {                                                                                       \
                int try_r_ = (expr);                                                               \
                if (try_r_ < 0)                                                                    \
                        return try_r_;                                                             \
        } while (0)

/* Start at the document root (empty path). */
void bento_jsonr_init(struct bento_jsonr *r, struct bento_err *err);

/* Descend into a member or an array element.  Both return a mark for
 * bento_jsonr_pop(), which restores the path as it was before the push. */
size_t bento_jsonr_push_key(struct bento_jsonr *r, const char *key);
size_t bento_jsonr_push_index(struct bento_jsonr *r, size_t index);
void bento_jsonr_pop(struct bento_jsonr *r, size_t mark);

/* Fill err with EINVAL and "<path>: <message>" (just the message at the
 * root).  Returns -EINVAL. */
int bento_jsonr_fail(struct bento_jsonr *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "<path>: expected <want>, got <type of v>" (v may be NULL).  The integer
 * readers quote a number of the wrong kind instead ("got -1").  Returns
 * -EINVAL. */
int bento_jsonr_fail_type(struct bento_jsonr *r, const char *want, const struct bento_json *v);

/* Value readers: check v (at the current path) and convert it.  Strings and
 * string vectors are heap copies owned by the caller; vectors are also
 * NULL-terminated so they can go to execve() as they are. */
int bento_jsonr_string_value(struct bento_jsonr *r, const struct bento_json *v, char **ret);
int bento_jsonr_uint_value(struct bento_jsonr *r, const struct bento_json *v, uint64_t max,
                           uint64_t *ret);
int bento_jsonr_int_value(struct bento_jsonr *r, const struct bento_json *v, int64_t min,
                          int64_t max, int64_t *ret);
int bento_jsonr_strv_value(struct bento_jsonr *r, const struct bento_json *v, char ***ret,
                           size_t *ret_n);

/* The member of obj called key; NULL when absent or null. */
const struct bento_json *bento_jsonr_get(const struct bento_json *obj, const char *key);

/* Member readers (see the return convention above). */
int bento_jsonr_member(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                       enum bento_json_type type, bool required, const struct bento_json **ret);
int bento_jsonr_string(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                       bool required, char **ret);
int bento_jsonr_bool(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     bool *ret);
int bento_jsonr_uint(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     bool required, uint64_t max, uint64_t *ret);
int bento_jsonr_u32(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                    bool required, uint32_t *ret);
int bento_jsonr_int(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                    bool required, int64_t min, int64_t max, int64_t *ret);
int bento_jsonr_strv(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     char ***ret, size_t *ret_n);

/* obj[key] as a string that must start with '/'. */
int bento_jsonr_abs_path(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                         bool required, char **ret);

/* obj[key] as an optional object, handed out as a deep copy. */
int bento_jsonr_raw_object(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                           struct bento_json **ret);

/* Convert one array element (an object, at the reader's current path) into
 * elem, which is zeroed. */
typedef int (*bento_jsonr_item_fn)(struct bento_jsonr *r, const struct bento_json *item,
                                   void *elem);

/* obj[key] as an optional array of objects, each converted by fn into an
 * array of elem_size-sized elements.  An exception to the out-parameter
 * rule: *ret and *ret_n are set before the items are converted, so that the
 * owner's free function releases a partly converted array.  An empty array
 * leaves them untouched. */
int bento_jsonr_objects(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                        size_t elem_size, void **ret, size_t *ret_n, bento_jsonr_item_fn fn);

/* Free the first n entries of a string vector and the vector; accepts NULL. */
void bento_strv_free_n(char **v, size_t n);

/* Append a copy of s to the vector *v of *n entries, which stays (or
 * becomes) NULL-terminated.  0 or -ENOMEM (then *v and *n are unchanged
 * but for a grown allocation). */
int bento_strv_append(char ***v, size_t *n, const char *s);

#endif
