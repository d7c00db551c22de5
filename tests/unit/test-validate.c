/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of validate's helpers: quoting of untrusted strings (no
 * forged lines, no invisible reordering), word wrapping at 78 columns,
 * blocked-hosts entries and the file-shaped write grant rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "tap.h"
#include "report/text.h"
#include "report/validate.h"

TEST(quote_plain)
{
        cleanup_free char *q = text_quote("/home/u/a b");

        ASSERT_STREQ(q, "\"/home/u/a b\"");
}

TEST(quote_escapes)
{
        cleanup_free char *q = text_quote("a\"b\\c\nd\x1b"
                                          "e\x7f");

        ASSERT_STREQ(q, "\"a\\\"b\\\\c\\nd\\x1be\\x7f\"");
}

TEST(quote_bidi_and_bad_utf8)
{
        cleanup_free char *bidi = text_quote("x\xe2\x80\xaey");
        cleanup_free char *bad = text_quote("x\xff"
                                            "y");
        cleanup_free char *ok = text_quote("caf\xc3\xa9");

        ASSERT_STREQ(bidi, "\"x\\u202ey\"");
        ASSERT_STREQ(bad, "\"x\\xffy\"");
        ASSERT_STREQ(ok, "\"caf\xc3\xa9\"");
}

TEST(wrap_at_78)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        char *line, *save = NULL;

        ASSERT_TRUE(f);
        text_wrap(f, "  note: ", "        ",
                  "one two three four five six seven eight nine ten eleven twelve thirteen "
                  "fourteen fifteen sixteen seventeen");
        fclose(f);
        ASSERT_CONTAINS(out, "  note: one two");
        ASSERT_CONTAINS(out, "\n        ");
        for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ASSERT_TRUE(strlen(line) <= TEXT_WIDTH);
        free(out);
}

TEST(wrap_long_word_stays_whole)
{
        char word[120], *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        ASSERT_TRUE(f);
        memset(word, 'a', sizeof(word) - 1);
        word[sizeof(word) - 1] = '\0';
        text_wrap(f, "", "", word);
        fclose(f);
        ASSERT_EQ(strlen(out), sizeof(word));
        free(out);
}

TEST(split_host_port)
{
        char *h = NULL, *p = NULL;

        ASSERT_TRUE(validate_split_host_port("db.example.com:443", &h, &p));
        ASSERT_STREQ(h, "db.example.com");
        ASSERT_STREQ(p, "443");
        free(h);
        free(p);
        ASSERT_TRUE(validate_split_host_port("[2001:db8::1]:22", &h, &p));
        ASSERT_STREQ(h, "2001:db8::1");
        ASSERT_STREQ(p, "22");
        free(h);
        free(p);
        ASSERT_TRUE(!validate_split_host_port("garbage", &h, &p));
        ASSERT_TRUE(!validate_split_host_port("2001:db8::1:22", &h, &p));
        ASSERT_TRUE(!validate_split_host_port("host:", &h, &p));
        ASSERT_TRUE(!validate_split_host_port("host:8x", &h, &p));
}

TEST(fileish)
{
        struct policy_path w = {.written = "./out/log.txt", .real = "/p/out/log.txt"};

        ASSERT_TRUE(validate_fileish(&w));
        w.real = "/p/.cache";
        ASSERT_TRUE(!validate_fileish(&w));
        w.real = "/p/out";
        ASSERT_TRUE(!validate_fileish(&w));
        w.real = "/p/out/log.txt";
        w.exists = true;
        ASSERT_TRUE(!validate_fileish(&w));
}

TAP_MAIN()
