/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JSON writer over yajl_gen with a sticky error: every call after the
 * first failure does nothing, and bento_jsonw_finish() reports that first
 * failure.  Writers can therefore be straight-line code that checks once at
 * the end.  Strings are always UTF-8 validated.  Pretty output uses
 * two-space indentation, writes empty containers as [] and {} and ends with
 * a newline; compact output has no whitespace at all.
 *
 *      cleanup_jsonw struct bento_jsonw w = { 0 };
 *
 *      if (bento_jsonw_init(&w, true, err) < 0)
 *              return -err->code;
 *      bento_jsonw_open_object(&w);
 *      bento_jsonw_kstring(&w, "id", id);
 *      bento_jsonw_close_object(&w);
 *      return bento_jsonw_finish(&w, &buf, &len);
 */
#ifndef BENTO_JSONW_H
#define BENTO_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "json.h"

struct bento_jsonw {
        void *gen; /* yajl_gen, hidden to keep yajl out of this header */
        bool pretty;
        int r; /* 0, or the first failure (-errno) */
        struct bento_err *err;
        /* The document so far: yajl prints into it (bento_jsonw_finish()
         * hands it out, no copy), and a value string is quoted here. */
        char *buf;
        size_t len, cap;
        char *quoted;
        size_t cap_quoted;
        /* Pretty: the end of the last empty container yajl wrote as
         * "[\n\n  ]" (0: none), so the fold stops there. */
        size_t last_empty;
};

/* Returns 0, or -ENOMEM with err filled. */
int bento_jsonw_init(struct bento_jsonw *w, bool pretty, struct bento_err *err);

/* Free the generator; safe on a zeroed or already finished writer. */
void bento_jsonw_done(struct bento_jsonw *w);
#define cleanup_jsonw __attribute__((cleanup(bento_jsonw_done)))

/* Record a failure (keeps an earlier one); returns w->r. */
int bento_jsonw_fail(struct bento_jsonw *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Convert a yajl_gen_status to 0 or -errno with err filled. */
int bento_jsonw_status(int yajl_gen_status, struct bento_err *err);

void bento_jsonw_open_object(struct bento_jsonw *w);
void bento_jsonw_close_object(struct bento_jsonw *w);
void bento_jsonw_open_array(struct bento_jsonw *w);
void bento_jsonw_close_array(struct bento_jsonw *w);
void bento_jsonw_key(struct bento_jsonw *w, const char *key);
void bento_jsonw_string(struct bento_jsonw *w, const char *s); /* NULL is a failure */
void bento_jsonw_uint(struct bento_jsonw *w, uint64_t u);
void bento_jsonw_int(struct bento_jsonw *w, int64_t i);
void bento_jsonw_bool(struct bento_jsonw *w, bool b);
void bento_jsonw_tree(struct bento_jsonw *w, const struct bento_json *v);
void bento_jsonw_strv(struct bento_jsonw *w, char *const *v, size_t n);

/* Key plus value.  kstring fails on NULL (a required field was not set);
 * the _opt forms write nothing for NULL. */
void bento_jsonw_kstring(struct bento_jsonw *w, const char *key, const char *s);
void bento_jsonw_kstring_opt(struct bento_jsonw *w, const char *key, const char *s);
void bento_jsonw_kuint(struct bento_jsonw *w, const char *key, uint64_t u);
void bento_jsonw_kint(struct bento_jsonw *w, const char *key, int64_t i);
void bento_jsonw_kbool(struct bento_jsonw *w, const char *key, bool b);
void bento_jsonw_kstrv(struct bento_jsonw *w, const char *key, char *const *v, size_t n);
void bento_jsonw_ktree_opt(struct bento_jsonw *w, const char *key, const struct bento_json *v);

/* Hand out the document: *ret_buf is heap-allocated and NUL-terminated.
 * Returns 0 or the sticky failure; ret_* are written only on success. */
int bento_jsonw_finish(struct bento_jsonw *w, char **ret_buf, size_t *ret_len);

#endif
