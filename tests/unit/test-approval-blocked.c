/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for approval_blocked_hosts_text() (translate/approval/blocked.c
 * over approval-stamp.c's edit): blocked hosts recorded as a minimal
 * textual edit that keeps comments and layout, merged with what is
 * recorded already, never by a canonical rewrite (flow style is left
 * alone), and outside the fingerprint, so an approval stays current.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "approval/stamp.h"
#include "approval/approval.h"
#include "cleanup.h"
#include "approval/fingerprint.h"
#include "tap.h"

static struct bento_err err;

static struct manifest *parse(const char *text)
{
        struct manifest *m = NULL;

        if (manifest_parse(text, strlen(text), "app.yaml", &m, NULL, &err) < 0)
                printf("# parse failed: %s\n", err.msg);
        return m;
}

/* Record entries into text; returns what approval_blocked_hosts_text
 * returned (and -1000 when text does not parse), the edit in *out. */
static int record(const char *text, char *const *entries, size_t n,
                  struct approval_blocked_edit *out)
{
        cleanup_manifest struct manifest *m = parse(text);

        if (!m)
                return -1000;
        return approval_blocked_hosts_text(m, text, strlen(text), entries, n, out, &err);
}

/* The manifest's blocked-hosts, joined with spaces. */
static char *hosts_of(const char *text)
{
        cleanup_manifest struct manifest *m = parse(text);
        char *s = NULL;
        size_t len = 0;
        FILE *f;

        if (!m || !(f = open_memstream(&s, &len)))
                return NULL;
        for (size_t i = 0; i < m->provenance.n_blocked_hosts; i++)
                fprintf(f, "%s%s", i ? " " : "", m->provenance.blocked_hosts[i]);
        fclose(f);
        return s;
}

static enum manifest_approval state_of(const char *text)
{
        cleanup_manifest struct manifest *m = parse(text);

        return approval_check(m, NULL, NULL);
}

/* text with a current approval stamp (the stamp's own textual edit). */
static char *stamped(const char *text)
{
        cleanup_manifest struct manifest *m = parse(text);
        struct approval_stamp s = {NULL, "2026-07-14T00:00:00Z"};
        struct approval_stamped out = {0};
        char fp[65];

        if (!m || manifest_fingerprint(m, fp, &err) < 0)
                return NULL;
        s.fingerprint = fp;
        if (approval_stamp_text(m, text, strlen(text), &s, &out, &err) < 0 || !out.textual) {
                free(out.text);
                return NULL;
        }
        return out.text;
}

static const char commented[] = "# the build step\n"
                                "entrypoint: ./build.sh   # the script\n"
                                "network:\n"
                                "  # the service the build talks to\n"
                                "  - {host: svc.bento.test, port: \"8443\"}\n"
                                "  - host: .bento.test   # anything below\n"
                                "    port: \"9000-9999\"\n"
                                "\n"
                                "# end of policy\n";

TEST(block_added_below_the_stamp_keeps_comments_and_the_approval)
{
        cleanup_free char *text = stamped(commented), *hosts = NULL;
        char *entries[] = {"svc.bento.test:8443"};
        struct approval_blocked_edit out = {0};
        char fp_before[65], fp_after[65];
        cleanup_manifest struct manifest *before = NULL, *after = NULL;

        ASSERT_TRUE(text);
        ASSERT_EQ(state_of(text), MANIFEST_APPROVAL_CURRENT);
        ASSERT_EQ(record(text, entries, 1, &out), 1);
        ASSERT_TRUE(out.text);
        ASSERT_EQ(out.len, strlen(out.text));
        ASSERT_EQ(out.n_added, 1);
        ASSERT_STREQ(out.added[0], "svc.bento.test:8443");
        ASSERT_TRUE(out.added[1] == NULL);
        /* everything before the new lines is byte for byte the original */
        ASSERT_TRUE(strncmp(out.text, text, strlen(text) - strlen("\n# end of policy\n")) == 0);
        ASSERT_CONTAINS(out.text, "  approves: ");
        ASSERT_CONTAINS(out.text, "\n  blocked-hosts:\n    - \"svc.bento.test:8443\"\n");
        ASSERT_CONTAINS(out.text, "  # the service the build talks to\n");
        ASSERT_CONTAINS(out.text, "  - host: .bento.test   # anything below\n");
        ASSERT_CONTAINS(out.text, "\n# end of policy\n");
        ASSERT_EQ(strlen(out.text), strlen(text) + strlen("  blocked-hosts:\n"
                                                          "    - \"svc.bento.test:8443\"\n"));
        /* outside the fingerprint: the approval stays current */
        before = parse(text);
        after = parse(out.text);
        ASSERT_TRUE(before && after);
        ASSERT_OK(manifest_fingerprint(before, fp_before, &err));
        ASSERT_OK(manifest_fingerprint(after, fp_after, &err));
        ASSERT_STREQ(fp_after, fp_before);
        ASSERT_STREQ(after->provenance.approves, before->provenance.approves);
        ASSERT_EQ(state_of(out.text), MANIFEST_APPROVAL_CURRENT);
        hosts = hosts_of(out.text);
        ASSERT_STREQ(hosts, "svc.bento.test:8443");
        approval_blocked_edit_done(&out);
}

TEST(no_provenance_block_gets_one_after_the_last_entry)
{
        char *entries[] = {"svc.bento.test:8443", "[::1]:9443", "svc.bento.test:8443"};
        struct approval_blocked_edit out = {0};
        cleanup_free char *hosts = NULL;

        ASSERT_EQ(record(commented, entries, 3, &out), 1);
        ASSERT_EQ(out.n_added, 2);
        ASSERT_CONTAINS(out.text, "    port: \"9000-9999\"\n"
                                  "provenance:\n"
                                  "  blocked-hosts:\n"
                                  "    - \"[::1]:9443\"\n"
                                  "    - \"svc.bento.test:8443\"\n"
                                  "\n# end of policy\n");
        ASSERT_TRUE(
            strncmp(out.text, commented, strlen(commented) - strlen("\n# end of policy\n")) == 0);
        ASSERT_EQ(state_of(out.text), MANIFEST_APPROVAL_UNAPPROVED);
        hosts = hosts_of(out.text);
        ASSERT_STREQ(hosts, "[::1]:9443 svc.bento.test:8443");
        approval_blocked_edit_done(&out);
}

TEST(recorded_list_is_merged_in_place)
{
        static const char text[] = "entrypoint: ./x\n"
                                   "provenance:\n"
                                   "  approves: \"00\"   # old\n"
                                   "  blocked-hosts:\n"
                                   "  - b.test:1     # first seen on Monday\n"
                                   "  # a comment between items\n"
                                   "  - 'd.test:1'\n"
                                   "# trailing\n";
        char *entries[] = {"e.test:1", "d.test:1", "a.test:1", "c.test:1", "a.test:1"};
        struct approval_blocked_edit out = {0};
        cleanup_free char *hosts = NULL;

        ASSERT_EQ(record(text, entries, 5, &out), 1);
        ASSERT_EQ(out.n_added, 3);
        ASSERT_STREQ(out.added[0], "a.test:1");
        ASSERT_STREQ(out.added[1], "c.test:1");
        ASSERT_STREQ(out.added[2], "e.test:1");
        ASSERT_STREQ(out.text, "entrypoint: ./x\n"
                               "provenance:\n"
                               "  approves: \"00\"   # old\n"
                               "  blocked-hosts:\n"
                               "  - \"a.test:1\"\n"
                               "  - b.test:1     # first seen on Monday\n"
                               "  # a comment between items\n"
                               "  - \"c.test:1\"\n"
                               "  - 'd.test:1'\n"
                               "  - \"e.test:1\"\n"
                               "# trailing\n");
        hosts = hosts_of(out.text);
        ASSERT_STREQ(hosts, "a.test:1 b.test:1 c.test:1 d.test:1 e.test:1");
        approval_blocked_edit_done(&out);
}

TEST(hand_ordered_list_keeps_its_order)
{
        static const char text[] = "entrypoint: ./x\n"
                                   "provenance:\n"
                                   "    blocked-hosts:\n"
                                   "        - \"z.test:1\"\n"
                                   "        - \"a.test:1\"\n";
        char *entries[] = {"m.test:1"};
        struct approval_blocked_edit out = {0};
        cleanup_free char *hosts = NULL;

        ASSERT_EQ(record(text, entries, 1, &out), 1);
        hosts = hosts_of(out.text);
        ASSERT_STREQ(hosts, "m.test:1 z.test:1 a.test:1");
        ASSERT_CONTAINS(out.text, "    blocked-hosts:\n        - \"m.test:1\"\n        - \"z");
        approval_blocked_edit_done(&out);
}

TEST(nothing_new_writes_nothing)
{
        static const char text[] = "entrypoint: ./x\n"
                                   "provenance:\n"
                                   "  blocked-hosts:\n"
                                   "    - \"a.test:1\"\n";
        char *entries[] = {"a.test:1", "a.test:1"};
        struct approval_blocked_edit out = {0};

        ASSERT_EQ(record(text, entries, 2, &out), 0);
        ASSERT_TRUE(out.text == NULL && out.added == NULL && out.n_added == 0);
        ASSERT_EQ(record(text, entries, 0, &out), 0);
        ASSERT_TRUE(out.text == NULL);
}

TEST(recording_twice_is_idempotent)
{
        char *entries[] = {"svc.bento.test:8443"};
        struct approval_blocked_edit once = {0}, twice = {0};

        ASSERT_EQ(record(commented, entries, 1, &once), 1);
        ASSERT_EQ(record(once.text, entries, 1, &twice), 0);
        approval_blocked_edit_done(&once);
}

TEST(flow_style_is_not_written)
{
        static const char *const texts[] = {
            "entrypoint: ./x  # kept\nprovenance: {approves: \"00\"}\n",
            "entrypoint: ./x\nprovenance:\n  blocked-hosts: [\"b.test:1\"]  # flow\n",
            "entrypoint: ./x\nprovenance:\n  blocked-hosts: []\n",
            "{entrypoint: ./x}\n",
        };
        static const char *const why[] = {"flow style", "flow list", "flow list", "flow style"};
        char *entries[] = {"a.test:1"};

        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                struct approval_blocked_edit out = {0};
                cleanup_manifest struct manifest *m = parse(texts[i]);
                size_t n_before = m ? m->provenance.n_blocked_hosts : 0;

                ASSERT_TRUE(m);
                err = (struct bento_err){0};
                ASSERT_EQ(approval_blocked_hosts_text(m, texts[i], strlen(texts[i]), entries, 1,
                                                      &out, &err),
                          -EOPNOTSUPP);
                ASSERT_TRUE(out.text == NULL && out.added == NULL);
                ASSERT_CONTAINS(err.msg, why[i]);
                /* the model is left as it was */
                ASSERT_EQ(m->provenance.n_blocked_hosts, n_before);
        }
}

TEST(crlf_and_no_final_newline)
{
        static const char text[] = "# caf\xc3\xa9\r\n"
                                   "entrypoint: ./\xc3\xa9t\xc3\xa9.sh\r\n"
                                   "provenance:\r\n"
                                   "  approves: \"abc\"";
        char *entries[] = {"a.test:1"};
        struct approval_blocked_edit out = {0};

        ASSERT_EQ(record(text, entries, 1, &out), 1);
        ASSERT_STREQ(out.text, "# caf\xc3\xa9\r\n"
                               "entrypoint: ./\xc3\xa9t\xc3\xa9.sh\r\n"
                               "provenance:\r\n"
                               "  approves: \"abc\"\r\n"
                               "  blocked-hosts:\r\n"
                               "    - \"a.test:1\"\r\n");
        approval_blocked_edit_done(&out);
}

TEST(empty_key_and_empty_block_get_items)
{
        static const char key[] = "entrypoint: ./x\n"
                                  "provenance:\n"
                                  "  blocked-hosts:   # none yet\n"
                                  "exec: all\n";
        static const char block[] = "entrypoint: ./x\nprovenance:\nexec: none\n";
        char *entries[] = {"a.test:1"};
        struct approval_blocked_edit out = {0};

        ASSERT_EQ(record(key, entries, 1, &out), 1);
        ASSERT_STREQ(out.text, "entrypoint: ./x\n"
                               "provenance:\n"
                               "  blocked-hosts:   # none yet\n"
                               "    - \"a.test:1\"\n"
                               "exec: all\n");
        approval_blocked_edit_done(&out);
        ASSERT_EQ(record(block, entries, 1, &out), 1);
        ASSERT_STREQ(out.text, "entrypoint: ./x\n"
                               "provenance:\n"
                               "  blocked-hosts:\n"
                               "    - \"a.test:1\"\n"
                               "exec: none\n");
        approval_blocked_edit_done(&out);
}

TEST(entries_that_are_not_plain_are_refused)
{
        static const char *const bad[] = {"a\"b:1", "a\\b:1", "a\nb:1",
                                          "",       "a b:1",  "caf\xc3\xa9.test:1"};
        struct approval_blocked_edit out = {0};

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char *entries[] = {(char *) bad[i]};

                ASSERT_EQ(record(commented, entries, 1, &out), -EINVAL);
                ASSERT_TRUE(out.text == NULL);
        }
}

TEST(stamp_after_recording_keeps_the_hosts)
{
        char *entries[] = {"svc.bento.test:8443"};
        struct approval_blocked_edit out = {0};
        cleanup_free char *restamped = NULL, *hosts = NULL;

        ASSERT_EQ(record(commented, entries, 1, &out), 1);
        restamped = stamped(out.text);
        ASSERT_TRUE(restamped);
        ASSERT_CONTAINS(restamped, "provenance:\n  generated-by: bento approve\n");
        ASSERT_CONTAINS(restamped, "  blocked-hosts:\n    - \"svc.bento.test:8443\"\n");
        ASSERT_EQ(state_of(restamped), MANIFEST_APPROVAL_CURRENT);
        hosts = hosts_of(restamped);
        ASSERT_STREQ(hosts, "svc.bento.test:8443");
        approval_blocked_edit_done(&out);
}

TAP_MAIN()
