/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory sizes and CPU percentages for the limits block
 * (docs/manifest.md, "LIMITS").  Both grammars are tiny, so they are hand-written: strtoull would
 * accept leading blanks, signs and hexadecimal, and strtod a locale's
 * decimal comma, none of which a reviewed manifest should contain.
 */
#include "limits-parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "screen.h"

#define SHOWN_MAX 64

__attribute__((format(printf, 3, 4))) static int why_set(char *why, size_t size, const char *fmt,
                                                         ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static bool all_digits(const char *s, size_t n)
{
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

static int size_shift(char suffix)
{
        switch (suffix) {
        case 'K':
                return 10;
        case 'M':
                return 20;
        case 'G':
                return 30;
        default:
                return -1;
        }
}

int limits_parse_size(const char *s, uint64_t *ret, char *why, size_t size)
{
        char b[SHOWN_MAX + 8];
        size_t n = strlen(s), digits;
        const char *num = s[0] == '-' ? s + 1 : s;
        uint64_t v = 0;
        int shift = 0, suffix_shift;

        screen_sanitize(s, n, SHOWN_MAX, b, sizeof(b));
        digits = strlen(num);
        /* One call: the analyzer does not see that two calls on the same
         * character agree, and would then shift by -1. */
        suffix_shift = digits > 0 ? size_shift(num[digits - 1]) : -1;
        if (suffix_shift >= 0)
                shift = suffix_shift, digits--;
        else if (digits > 0 && size_shift((char) (num[digits - 1] - 'a' + 'A')) >= 0 &&
                 all_digits(num, digits - 1))
                return why_set(why, size,
                               "size \"%s\" must spell its suffix uppercase (\"%.*s%c\")", b,
                               (int) (n - 1), s, num[digits - 1] - 'a' + 'A');
        if (!all_digits(num, digits))
                return why_set(why, size,
                               "invalid size \"%s\", want a plain byte count or a K/M/G suffix "
                               "(e.g. \"128M\")",
                               b);
        if (num != s)
                return why_set(why, size, "size \"%s\" cannot be negative", b);
        for (size_t i = 0; i < digits; i++) {
                if (v > (uint64_t) INT64_MAX / 10)
                        return why_set(why, size, "size \"%s\" is too large", b);
                v = v * 10 + (uint64_t) (num[i] - '0');
        }
        if (v > (uint64_t) INT64_MAX >> shift)
                return why_set(why, size, "size \"%s\" is too large", b);
        *ret = v << shift;
        return 0;
}

/* "0" or digits without a leading zero, then up to two decimals. */
static bool plain_percent(const char *s, size_t n, uint64_t *ret)
{
        const char *dot = memchr(s, '.', n);
        size_t whole = dot ? (size_t) (dot - s) : n, frac = dot ? n - whole - 1 : 0;
        uint64_t v = 0;

        if (!all_digits(s, whole) || (s[0] == '0' && whole > 1))
                return false;
        if (dot && (frac < 1 || frac > 2 || !all_digits(dot + 1, frac)))
                return false;
        if (whole > 12) {
                /* Far above the cap already; saturate instead of overflowing. */
                *ret = UINT64_MAX;
                return true;
        }
        for (size_t i = 0; i < whole; i++)
                v = v * 10 + (uint64_t) (s[i] - '0');
        v *= 100;
        if (frac >= 1)
                v += (uint64_t) (dot[1] - '0') * 10;
        if (frac == 2)
                v += (uint64_t) (dot[2] - '0');
        *ret = v;
        return true;
}

int limits_parse_percent(const char *s, uint64_t *ret, char *why, size_t size)
{
        char b[SHOWN_MAX + 8];
        size_t n = strlen(s);
        uint64_t v;

        screen_sanitize(s, n, SHOWN_MAX, b, sizeof(b));
        if (n == 0 || s[n - 1] != '%')
                return why_set(why, size, "\"%s\" must be a percentage (e.g. \"100%%\")", b);
        if (!plain_percent(s, n - 1, &v))
                return why_set(why, size,
                               "\"%s\" must be a plain decimal percentage such as \"50%%\" or "
                               "\"12.5%%\"",
                               b);
        if (v > LIMITS_CPU_MAX_HUNDREDTHS)
                return why_set(why, size, "\"%s\" is too large (at most \"21474836.47%%\")", b);
        if (v == 0)
                return why_set(why, size, "\"%s\" is zero; the smallest quota is \"0.01%%\"", b);
        *ret = v;
        return 0;
}
