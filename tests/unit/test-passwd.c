/* SPDX-License-Identifier: Apache-2.0 */
/*
 * passwd(5) text read by hand (bundle/passwd.c): the home and the name of a
 * uid's first line, comment lines and NIS "+"/"-" entries skipped, a uid
 * field that is not exactly the number never matched, an empty name not
 * taken for one.
 */
#include <stdlib.h>
#include <string.h>

#include "passwd.h"
#include "tap.h"

static char buf[4096];

/* A writable copy: the lookups cut the text into fields. */
static char *text(const char *s)
{
        strcpy(buf, s);
        return buf;
}

TEST(the_first_line_of_the_uid_wins)
{
        static const char pw[] = "root:x:0:0:root:/root:/bin/sh\n"
                                 "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
                                 "alias:x:1000:1000::/home/alias:/bin/sh\n";

        ASSERT_STREQ(bento_passwd_name(text(pw), 1000), "alice");
        ASSERT_STREQ(bento_passwd_home(text(pw), 1000), "/home/alice");
        ASSERT_STREQ(bento_passwd_name(text(pw), 0), "root");
        ASSERT_TRUE(bento_passwd_name(text(pw), 1001) == NULL);
        ASSERT_TRUE(bento_passwd_home(text(pw), 1001) == NULL);
}

TEST(comments_nis_entries_and_near_numbers_do_not_match)
{
        static const char pw[] = "#bob:x:7:7::/home/bob:/bin/sh\n"
                                 "+nis:x:7:7::/nis:/bin/sh\n"
                                 "minus:x:-7:7::/minus:/bin/sh\n"
                                 "plus:x:+7:7::/plus:/bin/sh\n"
                                 "hex:x:0x7:7::/hex:/bin/sh\n"
                                 "space:x: 7:7::/space:/bin/sh\n"
                                 "trail:x:7x:7::/trail:/bin/sh\n"
                                 "short:x:7\n"
                                 "carol:x:7:7::/home/carol:/bin/sh\n";

        ASSERT_STREQ(bento_passwd_name(text(pw), 7), "carol");
        ASSERT_STREQ(bento_passwd_home(text(pw), 7), "/home/carol");
}

TEST(an_empty_name_is_none)
{
        ASSERT_TRUE(bento_passwd_name(text(":x:5:5::/home/x:/bin/sh\n"), 5) == NULL);
        ASSERT_STREQ(bento_passwd_home(text(":x:5:5::/home/x:/bin/sh\n"), 5), "/home/x");
}

TEST(empty_text_and_a_file_without_newline)
{
        ASSERT_TRUE(bento_passwd_name(text(""), 0) == NULL);
        ASSERT_STREQ(bento_passwd_name(text("dave:x:9:9::/d:/bin/sh"), 9), "dave");
}

TAP_MAIN()
