/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/mount-identity.c: the org.bento.mount-identity
 * annotation round-trips, and every malformed word of it (it comes from a
 * config.json, hostile input) is refused with the word named, never read
 * as something else.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "mount-identity.h"
#include "tap.h"

TEST(records_round_trip)
{
        const struct bento_mount_identity in[] = {
            {BENTO_MOUNT_ID_NONE, 0, 0},
            {BENTO_MOUNT_ID_SAME, 2049, 131073},
            {BENTO_MOUNT_ID_DEST, 0, 18446744073709551615u},
            {BENTO_MOUNT_ID_PARENT, 65024, 7},
        };
        cleanup_free char *text = NULL;
        cleanup_free struct bento_mount_identity *out = NULL;
        struct bento_err err = {0};

        ASSERT_EQ(bento_mount_identity_format(in, 4, &text), 0);
        ASSERT_STREQ(text, "1:b:2049:131073 2:d:0:18446744073709551615 3:p:65024:7");
        ASSERT_EQ(bento_mount_identity_parse(text, 4, &out, &err), 0);
        for (size_t i = 0; i < 4; i++) {
                ASSERT_EQ(out[i].kind, in[i].kind);
                ASSERT_TRUE(out[i].dev == in[i].dev && out[i].ino == in[i].ino);
        }
}

TEST(nothing_recorded_is_an_empty_text)
{
        const struct bento_mount_identity in[] = {{BENTO_MOUNT_ID_NONE, 1, 1}};
        cleanup_free char *text = NULL;
        cleanup_free struct bento_mount_identity *out = NULL;
        struct bento_err err = {0};

        ASSERT_EQ(bento_mount_identity_format(in, 1, &text), 0);
        ASSERT_STREQ(text, "");
        ASSERT_EQ(bento_mount_identity_parse(text, 1, &out, &err), 0);
        ASSERT_EQ(out[0].kind, BENTO_MOUNT_ID_NONE);
}

TEST(malformed_words_are_refused)
{
        static const char *const bad[] = {
            "3:b:1:1",                    /* index out of range (3 mounts) */
            "0:x:1:1",                    /* unknown kind */
            "0:b:1",                      /* too short */
            "0:b:1:1:1",                  /* too long */
            "-1:b:1:1",                   /* a sign */
            "01:b:1:1",                   /* a leading zero */
            "0:b:18446744073709551616:1", /* overflow */
            "0:b:1:1x",                   /* trailing garbage */
            "0:b:1:1 0:d:2:2",            /* a mount named twice */
            "0:bb:1:1",                   /* a kind of two letters */
            "0::1:1",                     /* no kind */
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cleanup_free struct bento_mount_identity *out = NULL;
                struct bento_err err = {0};

                ASSERT_TRUE(bento_mount_identity_parse(bad[i], 3, &out, &err) < 0);
                ASSERT_CONTAINS(err.msg, "org.bento.mount-identity");
                ASSERT_TRUE(out == NULL);
        }
}

TAP_MAIN()
