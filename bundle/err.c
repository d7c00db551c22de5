/* SPDX-License-Identifier: Apache-2.0 */
/* The error type shared by every bento module (see err.h). */
#include "err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Messages may quote hostile input (paths, JSON keys): never let a control
 * character reach a terminal or a log line. */
static void strip_controls(char *s)
{
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        *s = '?';
}

/* dst = a + ": " + b, truncated to size (bounded by hand: snprintf's
 * truncation warnings cannot be silenced portably). */
static void join(char *dst, size_t size, const char *a, const char *b)
{
        size_t n = 0;

        for (const char *parts[] = {a, ": ", b}, **p = parts; p < parts + 3; p++)
                for (const char *c = *p; *c && n + 1 < size; c++)
                        dst[n++] = *c;
        dst[n] = '\0';
}

__attribute__((format(printf, 4, 0))) static int
vset(struct bento_err *err, int code, int with_strerror, const char *fmt, va_list ap)
{
        char tmp[BENTO_ERR_MSG_MAX];

        if (code <= 0)
                code = EINVAL;
        vsnprintf(tmp, sizeof(tmp), fmt, ap);
        if (with_strerror)
                join(err->msg, sizeof(err->msg), tmp, strerror(code));
        else
                memcpy(err->msg, tmp, sizeof(err->msg));
        strip_controls(err->msg);
        err->code = code;
        return -code;
}

int bento_err_set(struct bento_err *err, int code, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vset(err, code, 1, fmt, ap);
        va_end(ap);
        return r;
}

int bento_err_setx(struct bento_err *err, int code, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vset(err, code, 0, fmt, ap);
        va_end(ap);
        return r;
}

int bento_err_prefix(struct bento_err *err, const char *fmt, ...)
{
        char ctx[BENTO_ERR_MSG_MAX];
        char old[BENTO_ERR_MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(ctx, sizeof(ctx), fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof(old));
        join(err->msg, sizeof(err->msg), ctx, old);
        strip_controls(err->msg);
        if (err->code <= 0)
                err->code = EINVAL;
        return -err->code;
}

/* n with a comma every three digits (at most 26 characters and NUL). */
static void grouped(char *buf, size_t size, unsigned long long n)
{
        char digits[32];
        int len = snprintf(digits, sizeof(digits), "%llu", n);
        size_t o = 0;

        for (int i = 0; i < len && o + 1 < size; i++) {
                if (i > 0 && (len - i) % 3 == 0 && o + 2 < size)
                        buf[o++] = ',';
                buf[o++] = digits[i];
        }
        buf[o] = '\0';
}

/* A limit as it is written in the documentation: "64 MiB", "64 KiB", or
 * grouped bytes when it is not a whole number of either. */
static void limit_text(char *buf, size_t size, unsigned long long limit)
{
        char n[32];

        if (limit >= (1ull << 20) && limit % (1ull << 20) == 0) {
                snprintf(buf, size, "%llu MiB", limit >> 20);
        } else if (limit >= (1ull << 10) && limit % (1ull << 10) == 0) {
                snprintf(buf, size, "%llu KiB", limit >> 10);
        } else {
                grouped(n, sizeof(n), limit);
                snprintf(buf, size, "%s bytes", n);
        }
}

int bento_err_too_big(struct bento_err *err, const char *what, unsigned long long size, int more,
                      unsigned long long limit)
{
        char sz[32], lim[48];

        grouped(sz, sizeof(sz), size);
        limit_text(lim, sizeof(lim), limit);
        return bento_err_setx(err, EFBIG, "%s is %s%s bytes; the limit is %s", what,
                              more ? "more than " : "", sz, lim);
}

void bento_err_clear(struct bento_err *err)
{
        err->code = 0;
        err->msg[0] = '\0';
}
