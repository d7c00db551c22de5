/* SPDX-License-Identifier: Apache-2.0 */
/* bundle/utf8.c: the one strict UTF-8 decoder, checked against a table of
 * sequences at every boundary the rules draw. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "utf8.h"

struct seq {
        const char *bytes;
        size_t len;  /* bytes to offer the decoder */
        size_t n;    /* expected length (all of len, or 0 = refused) */
        uint32_t cp; /* expected code point when n > 0 */
        const char *why;
};

#define S(b) b, sizeof(b) - 1

static const struct seq table[] = {
    /* one byte */
    {S("\x00"), 1, 0x0000, "NUL is a code point"},
    {S("A"), 1, 0x41, "ASCII"},
    {S("\x7f"), 1, 0x7f, "U+007F, last one-byte"},
    /* two bytes */
    {S("\xc2\x80"), 2, 0x80, "U+0080, first two-byte"},
    {S("\xdf\xbf"), 2, 0x7ff, "U+07FF, last two-byte"},
    {S("\xc1\xbf"), 0, 0, "overlong U+007F in two bytes"},
    {S("\xc0\x80"), 0, 0, "overlong NUL in two bytes"},
    /* three bytes */
    {S("\xe0\xa0\x80"), 3, 0x800, "U+0800, first three-byte"},
    {S("\xe0\x9f\xbf"), 0, 0, "overlong U+07FF in three bytes"},
    {S("\xe0\x80\x80"), 0, 0, "overlong NUL in three bytes"},
    {S("\xed\x9f\xbf"), 3, 0xd7ff, "U+D7FF, just below the surrogates"},
    {S("\xed\xa0\x80"), 0, 0, "U+D800, first surrogate"},
    {S("\xed\xb0\x80"), 0, 0, "U+DC00, low surrogate"},
    {S("\xed\xbf\xbf"), 0, 0, "U+DFFF, last surrogate"},
    {S("\xee\x80\x80"), 3, 0xe000, "U+E000, just above the surrogates"},
    {S("\xef\xbf\xbf"), 3, 0xffff, "U+FFFF, last three-byte"},
    /* four bytes */
    {S("\xf0\x90\x80\x80"), 4, 0x10000, "U+10000, first four-byte"},
    {S("\xf0\x8f\xbf\xbf"), 0, 0, "overlong U+FFFF in four bytes"},
    {S("\xf0\x80\x80\x80"), 0, 0, "overlong NUL in four bytes"},
    {S("\xf4\x8f\xbf\xbf"), 4, 0x10ffff, "U+10FFFF, the last code point"},
    {S("\xf4\x90\x80\x80"), 0, 0, "U+110000, past the end"},
    {S("\xf7\xbf\xbf\xbf"), 0, 0, "U+1FFFFF from lead F7"},
    /* bytes that never start a sequence */
    {S("\x80"), 0, 0, "a lone continuation byte"},
    {S("\xbf"), 0, 0, "the last continuation byte"},
    {S("\xf8\x88\x80\x80\x80"), 0, 0, "five-byte lead F8"},
    {S("\xfc\x84\x80\x80\x80\x80"), 0, 0, "six-byte lead FC"},
    {S("\xfe"), 0, 0, "FE"},
    {S("\xff"), 0, 0, "FF"},
    /* truncated or broken */
    {S("\xc2"), 0, 0, "two-byte lead alone"},
    {S("\xe0\xa0"), 0, 0, "three-byte cut after two"},
    {S("\xf0\x90\x80"), 0, 0, "four-byte cut after three"},
    {S("\xc2\x41"), 0, 0, "continuation replaced by ASCII"},
    {S("\xe2\x82\x00"), 0, 0, "NUL where a continuation belongs"},
    {S("\xf0\x90\xc2\x80"), 0, 0, "a new lead inside a sequence"},
};

TEST(decodes_the_table)
{
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                const struct seq *t = &table[i];
                uint32_t cp = 0xdeadbeef;
                size_t n = bento_utf8_decode(t->bytes, t->len, &cp);

                if (n != t->n)
                        TAP_FAIL("%s: length %zu, expected %zu", t->why, n, t->n);
                if (n > 0 && cp != t->cp)
                        TAP_FAIL("%s: U+%04X, expected U+%04X", t->why, (unsigned) cp,
                                 (unsigned) t->cp);
                if (n == 0 && cp != 0xdeadbeef)
                        TAP_FAIL("%s: refused but wrote a code point", t->why);
        }
}

/* The whole-string validator agrees with the decoder, alone and with valid
 * text on either side. */
TEST(validator_agrees_with_the_decoder)
{
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                const struct seq *t = &table[i];
                char buf[32];
                bool whole = t->n == t->len;

                ASSERT_EQ(bento_utf8_valid(t->bytes, t->len), whole);
                snprintf(buf, sizeof(buf), "a\xc3\xa9");
                memcpy(buf + 3, t->bytes, t->len);
                memcpy(buf + 3 + t->len, "\xe2\x82\xac", 3);
                if (bento_utf8_valid(buf, t->len + 6) != whole)
                        TAP_FAIL("%s: embedded verdict differs", t->why);
        }
}

/* The decoder takes one sequence and no more; what follows is the next
 * call's business. */
TEST(decodes_one_sequence_at_a_time)
{
        uint32_t cp = 0;

        ASSERT_EQ(bento_utf8_decode("\xc3\xa9z", 3, &cp), 2);
        ASSERT_EQ(cp, 0xe9);
        ASSERT_TRUE(bento_utf8_valid("\xc3\xa9z", 3));
        ASSERT_EQ(bento_utf8_decode("\xe2\x82\xac\x80", 4, &cp), 3);
        ASSERT_EQ(cp, 0x20ac);
        ASSERT_TRUE(!bento_utf8_valid("\xe2\x82\xac\x80", 4));
}

/* A length cuts a sequence even when the bytes go on in memory. */
TEST(length_is_the_limit)
{
        uint32_t cp;

        ASSERT_EQ(bento_utf8_decode("\xe2\x82\xac", 2, &cp), 0);
        ASSERT_EQ(bento_utf8_decode("\xe2\x82\xac", 3, &cp), 3);
        ASSERT_EQ(bento_utf8_decode("A", 0, &cp), 0);
        ASSERT_TRUE(bento_utf8_valid("", 0));
        ASSERT_TRUE(!bento_utf8_valid("ok\xe2\x82\xac", 4));
        ASSERT_TRUE(bento_utf8_valid("ok\xe2\x82\xac", 5));
}

TEST(continuation_bytes)
{
        ASSERT_TRUE(bento_utf8_continuation(0x80));
        ASSERT_TRUE(bento_utf8_continuation(0xbf));
        ASSERT_TRUE(!bento_utf8_continuation(0x7f));
        ASSERT_TRUE(!bento_utf8_continuation(0xc0));
        ASSERT_TRUE(!bento_utf8_continuation(0xff));
}

TAP_MAIN()
