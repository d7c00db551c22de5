/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One error convention for all of bento.  A fallible function takes a
 * `struct bento_err *err` as its last argument, returns >= 0 on success and
 * leaves err untouched, or fills err and returns -code (a negative errno).
 * The buffer is fixed so it can be filled after clone() without allocating
 * and sent verbatim over the runtime's sync socket.
 */
#ifndef BENTO_ERR_H
#define BENTO_ERR_H

#include <stdarg.h>

#define BENTO_ERR_MSG_MAX 512

struct bento_err {
        int code;                    /* positive errno, 0 when no error */
        char msg[BENTO_ERR_MSG_MAX]; /* NUL-terminated, control chars stripped */
};

/* Fill err with code (a positive errno; 0 is turned into EINVAL) and a
 * printf-style message.  When code came from the system, ": strerror" is
 * appended.  Returns -code so callers can `return bento_err_set(...)`. */
int bento_err_set(struct bento_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like bento_err_set but without appending strerror(code): for messages that
 * already say everything (validation errors). */
int bento_err_setx(struct bento_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepend "context: " to an existing message; returns -err->code. */
int bento_err_prefix(struct bento_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* EFBIG for what exceeds a size limit, with both numbers: "WHAT is
 * 5,012,345 bytes; the limit is 64 MiB" (or "is more than N bytes" when
 * more is set: a read stopped at the limit).  Every size cap reports
 * through this, so an operator always learns how far over it was. */
int bento_err_too_big(struct bento_err *err, const char *what, unsigned long long size, int more,
                      unsigned long long limit);

/* Reset to "no error". */
void bento_err_clear(struct bento_err *err);

#endif
