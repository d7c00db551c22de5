/* SPDX-License-Identifier: Apache-2.0 */
/* bundle/idlist.c: the kernel's CPU/node list format. */
#include <errno.h>

#include "idlist.h"
#include "tap.h"

static unsigned long bits[BENTO_IDLIST_WORDS(256)];

static int parse(const char *s, unsigned long *bad)
{
        return bento_idlist_parse(s, bits, 256, bad);
}

TEST(parses_numbers_and_ranges)
{
        ASSERT_OK(parse("0-3,7,64-65,255", NULL));
        for (size_t i = 0; i < 256; i++)
                ASSERT_EQ(bento_idlist_test(bits, i),
                          i <= 3 || i == 7 || i == 64 || i == 65 || i == 255);
        ASSERT_OK(parse("5-5", NULL));
        ASSERT_TRUE(bento_idlist_test(bits, 5) && !bento_idlist_test(bits, 4));
        /* the empty list is the empty set, and clears what was there */
        ASSERT_OK(parse("", NULL));
        for (size_t i = 0; i < 256; i++)
                ASSERT_TRUE(!bento_idlist_test(bits, i));
}

TEST(rejects_what_is_not_a_list)
{
        static const char *const bad[] = {"a",   "1,",    ",1",  "1,,2",       "3-1",   " 1",
                                          "1 ",  "-1",    "+1",  "1-",         "1-2-3", "0x1",
                                          "1:2", "0-3:2", "1.5", "12345678901"};
        unsigned long at = 99;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                ASSERT_EQ(parse(bad[i], NULL), -EINVAL);
        ASSERT_EQ(parse("0,1,x", &at), -EINVAL);
        ASSERT_EQ(at, 4);
}

TEST(rejects_numbers_past_the_limit)
{
        unsigned long at = 0;

        ASSERT_EQ(parse("0,256", &at), -ERANGE);
        ASSERT_EQ(at, 256);
        ASSERT_EQ(parse("250-300", &at), -ERANGE);
        ASSERT_EQ(at, 300);
        ASSERT_OK(parse("255", NULL));
}

TAP_MAIN()
