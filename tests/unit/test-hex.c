/* SPDX-License-Identifier: Apache-2.0 */
/* bundle/hex.c and bento_utf8_lossy(): the exec record's bytes survive the
 * round trip through hex exactly, anything that is not hex is refused, and
 * the lossy copy for JSON replaces each invalid byte, nothing else. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "tap.h"
#include "utf8.h"

TEST(hex_round_trip_keeps_every_byte)
{
        char in[256], *hex, *out = NULL;
        size_t len = 0;

        for (int i = 0; i < 256; i++)
                in[i] = (char) i;
        hex = bento_hex_encode(in, sizeof(in));
        ASSERT_TRUE(hex != NULL);
        ASSERT_EQ(strlen(hex), (size_t) 512);
        ASSERT_TRUE(strncmp(hex, "000102", 6) == 0);
        ASSERT_EQ(bento_hex_decode(hex, &out, &len), 0);
        ASSERT_EQ(len, sizeof(in));
        ASSERT_TRUE(memcmp(in, out, len) == 0);
        ASSERT_EQ(out[len], '\0');
        free(hex);
        free(out);
}

TEST(hex_decode_takes_either_case_and_the_empty_string)
{
        char *out = NULL;
        size_t len = 9;

        ASSERT_EQ(bento_hex_decode("FFfe0A", &out, &len), 0);
        ASSERT_EQ(len, (size_t) 3);
        ASSERT_TRUE(memcmp(out, "\xff\xfe\n", 3) == 0);
        free(out);
        ASSERT_EQ(bento_hex_decode("", &out, &len), 0);
        ASSERT_EQ(len, (size_t) 0);
        free(out);
}

TEST(hex_decode_refuses_what_is_not_hex)
{
        static const char *const bad[] = {"a", "abc", "zz", "0g", " 00", "00 ", "0x00", "-1"};
        char *out = NULL;
        size_t len = 0;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                ASSERT_EQ(bento_hex_decode(bad[i], &out, &len), -EINVAL);
                ASSERT_TRUE(out == NULL);
        }
}

TEST(lossy_replaces_each_invalid_byte_and_keeps_the_rest)
{
        char *s = bento_utf8_lossy("a\xff\xfe"
                                   "b\xc3\xa9\ncut\xe2\x82",
                                   12);

        ASSERT_TRUE(s != NULL);
        ASSERT_STREQ(s, "a\xef\xbf\xbd\xef\xbf\xbd"
                        "b\xc3\xa9\ncut\xef\xbf\xbd\xef\xbf\xbd");
        ASSERT_TRUE(bento_utf8_valid(s, strlen(s)));
        free(s);
        s = bento_utf8_lossy("", 0);
        ASSERT_STREQ(s, "");
        free(s);
}

TAP_MAIN()
