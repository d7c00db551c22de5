/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Character screen (docs/manifest.md, "SYNTAX RULES") and the message sanitiser.  The
 * invisible-character table is written out by hand for Unicode 15.0 rather
 * than taken from the C library, whose idea of "printable" depends on the
 * locale the user happens to run under: the verdict on a manifest must be
 * the same on every host.
 */
#include "screen.h"

#include <stdio.h>
#include <string.h>

#include "utf8.h"

struct cp_range {
        uint32_t lo, hi;
};

/* General category Cf together with Other_Default_Ignorable_Code_Point,
 * Unicode 15.0, merged into sorted ranges.  Variation selectors (U+FE00..
 * U+FE0F, U+E0100..U+E01EF) are deliberately absent: they are category Mn,
 * and emoji presentation selectors appear in ordinary text. */
static const struct cp_range invisible[] = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x0600, 0x0605},   {0x061C, 0x061C},
    {0x06DD, 0x06DD},   {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},
    {0x115F, 0x1160},   {0x17B4, 0x17B5},   {0x180E, 0x180E},   {0x200B, 0x200F},
    {0x202A, 0x202E},   {0x2060, 0x206F},   {0x3164, 0x3164},   {0xFEFF, 0xFEFF},
    {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE00FF},
    {0xE01F0, 0xE0FFF},
};

static bool in_table(uint32_t cp)
{
        size_t lo = 0, hi = sizeof(invisible) / sizeof(invisible[0]);

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (cp < invisible[mid].lo)
                        hi = mid;
                else if (cp > invisible[mid].hi)
                        lo = mid + 1;
                else
                        return true;
        }
        return false;
}

enum screen_class screen_classify(uint32_t cp)
{
        if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
                return SCREEN_BIDI;
        if (cp == 0x2028 || cp == 0x2029)
                return SCREEN_LINE_SEPARATOR;
        if (in_table(cp))
                return SCREEN_INVISIBLE;
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
                return SCREEN_CONTROL;
        return SCREEN_OK;
}

bool screen_check(const char *s, size_t len, struct screen_hit *ret)
{
        uint32_t cp;
        size_t i;

        for (i = 0; i < len;) {
                size_t n = bento_utf8_decode(s + i, len - i, &cp);

                if (n == 0) {
                        *ret = (struct screen_hit){SCREEN_INVALID_UTF8, 0, i};
                        return false;
                }
                i += n;
        }
        for (i = 0; i < len;) {
                size_t at = i;

                i += bento_utf8_decode(s + i, len - i, &cp);
                if (screen_classify(cp) != SCREEN_OK) {
                        *ret = (struct screen_hit){screen_classify(cp), cp, at};
                        return false;
                }
        }
        *ret = (struct screen_hit){SCREEN_OK, 0, 0};
        return true;
}

const char *screen_class_name(enum screen_class c)
{
        static const char *const names[_SCREEN_CLASS_MAX] = {
            [SCREEN_OK] = "nothing unusual",
            [SCREEN_INVALID_UTF8] = "invalid UTF-8",
            [SCREEN_BIDI] = "a bidirectional formatting character",
            [SCREEN_LINE_SEPARATOR] = "a line separator",
            [SCREEN_INVISIBLE] = "a zero-width or invisible character",
            [SCREEN_CONTROL] = "a control character",
        };

        return c >= 0 && c < _SCREEN_CLASS_MAX ? names[c] : "an unknown character class";
}

/* What the sanitiser drops: everything that can move, hide or forge text
 * around it.  Other invisible characters are harmless once the value is
 * refused, and dropping them would make the message harder to match. */
static bool drop_in_message(uint32_t cp)
{
        enum screen_class c = screen_classify(cp);

        return c == SCREEN_CONTROL || c == SCREEN_BIDI || c == SCREEN_LINE_SEPARATOR;
}

char *screen_sanitize(const char *s, size_t len, size_t max_bytes, char *buf, size_t size)
{
        size_t o = 0, i = 0;

        if (size > 4 && max_bytes > size - 4)
                max_bytes = size - 4;
        while (i < len && o < max_bytes) {
                size_t at = i, n;
                uint32_t cp;

                n = bento_utf8_decode(s + i, len - i, &cp);
                if (n == 0) {
                        if (o + 3 > max_bytes)
                                break;
                        memcpy(buf + o, "\xEF\xBF\xBD", 3);
                        o += 3;
                        i = at + 1;
                        continue;
                }
                i += n;
                if (drop_in_message(cp))
                        continue;
                if (o + (i - at) > max_bytes) {
                        i = at;
                        break;
                }
                memcpy(buf + o, s + at, i - at);
                o += i - at;
        }
        if (i < len) {
                memcpy(buf + o, "...", 3);
                o += 3;
        }
        buf[o] = '\0';
        return buf;
}
