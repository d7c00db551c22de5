/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Strict UTF-8 decoding (utf8.h).  The lead byte says how many
 * continuation bytes follow; the smallest code point each length may carry
 * rules out overlong forms, and the range checks rule out surrogates and
 * values past U+10FFFF (which also covers the lead bytes F5..F7).
 */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

size_t bento_utf8_decode(const char *s, size_t len, uint32_t *ret_cp)
{
        static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
        const unsigned char *p = (const unsigned char *) s;
        uint32_t cp;
        size_t n;

        if (len == 0)
                return 0;
        if (p[0] < 0x80) {
                *ret_cp = p[0];
                return 1;
        }
        if ((p[0] & 0xe0) == 0xc0)
                n = 2, cp = p[0] & 0x1f;
        else if ((p[0] & 0xf0) == 0xe0)
                n = 3, cp = p[0] & 0x0f;
        else if ((p[0] & 0xf8) == 0xf0)
                n = 4, cp = p[0] & 0x07;
        else
                return 0; /* a continuation byte, or F8..FF */
        if (len < n)
                return 0;
        for (size_t k = 1; k < n; k++) {
                if (!bento_utf8_continuation(p[k]))
                        return 0;
                cp = (cp << 6) | (p[k] & 0x3f);
        }
        if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret_cp = cp;
        return n;
}

bool bento_utf8_valid(const char *s, size_t len)
{
        uint32_t cp;

        for (size_t i = 0; i < len;) {
                size_t n = bento_utf8_decode(s + i, len - i, &cp);

                if (n == 0)
                        return false;
                i += n;
        }
        return true;
}

char *bento_utf8_lossy(const char *s, size_t len)
{
        /* at worst every byte grows to the three of U+FFFD */
        char *out = len < SIZE_MAX / 3 ? malloc(len * 3 + 1) : NULL;
        size_t o = 0;
        uint32_t cp;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len;) {
                size_t n = bento_utf8_decode(s + i, len - i, &cp);

                if (n == 0) {
                        memcpy(out + o, "\xEF\xBF\xBD", 3);
                        o += 3;
                        i++;
                        continue;
                }
                memcpy(out + o, s + i, n);
                o += n;
                i += n;
        }
        out[o] = '\0';
        return out;
}
