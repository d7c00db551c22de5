/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/approval/approval.c and translate/approval/stamp.c: the
 * three approval states and their words, the stamp note, and the textual
 * stamp (comments and layout kept, quoting style kept, missing keys and
 * blocks inserted, idempotent, canonical fallback for flow style, edits
 * after the stamp make it stale).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static const struct approval_stamp stamp_at = {NULL, "2026-07-14T00:00:00Z"};

/* Stamp text; returns the new text (heap) and whether it was textual. */
static char *stamp(const char *text, bool *textual)
{
        cleanup_manifest struct manifest *m = parse(text);
        char fp[65];
        struct approval_stamp s = stamp_at;
        struct approval_stamped out = {0};

        if (!m || manifest_fingerprint(m, fp, &err) < 0)
                return NULL;
        s.fingerprint = fp;
        if (approval_stamp_text(m, text, strlen(text), &s, &out, &err) < 0)
                return NULL;
        *textual = out.textual;
        return out.text;
}

static enum manifest_approval state_of(const char *text)
{
        cleanup_manifest struct manifest *m = parse(text);

        return approval_check(m, NULL, NULL);
}

TEST(unstamped_is_unapproved)
{
        struct approval_status st;
        cleanup_manifest struct manifest *m = parse("entrypoint: ./app.py\ninterpreter: python3\n");

        ASSERT_TRUE(m);
        ASSERT_EQ(approval_check(m, NULL, &st), MANIFEST_APPROVAL_UNAPPROVED);
        ASSERT_TRUE(!st.stamped);
        ASSERT_STREQ(st.fingerprint,
                     "3f666b7fd806dfa8a575c58b20ecaae09cf3b4a92757f9e20ac6ec87e19eaefc");
}

TEST(stamped_with_fingerprint_is_current_and_other_is_stale)
{
        ASSERT_EQ(state_of("entrypoint: ./app.py\ninterpreter: python3\nprovenance:\n  approves: "
                           "3f666b7fd806dfa8a575c58b20ecaae09cf3b4a92757f9e20ac6ec87e19eaefc\n"),
                  MANIFEST_APPROVAL_CURRENT);
        ASSERT_EQ(state_of("entrypoint: ./app.py\ninterpreter: python3\nread: [./more]\n"
                           "provenance:\n  approves: "
                           "3f666b7fd806dfa8a575c58b20ecaae09cf3b4a92757f9e20ac6ec87e19eaefc\n"),
                  MANIFEST_APPROVAL_STALE);
        ASSERT_EQ(approval_check(NULL, NULL, NULL), MANIFEST_APPROVAL_UNAPPROVED);
}

TEST(refusals_name_the_remedies)
{
        cleanup_free char *u = approval_refusal(MANIFEST_APPROVAL_UNAPPROVED, "app.yaml");
        cleanup_free char *s = approval_refusal(MANIFEST_APPROVAL_STALE, "app.yaml");

        ASSERT_TRUE(approval_refusal(MANIFEST_APPROVAL_CURRENT, "app.yaml") == NULL);
        ASSERT_CONTAINS(u, "refusing to run: the manifest is not approved; ");
        ASSERT_CONTAINS(u, "bento approve app.yaml");
        ASSERT_CONTAINS(u, "--allow-unapproved");
        ASSERT_CONTAINS(s, "refusing to run: the manifest's permissions changed since it was "
                           "approved; ");
        ASSERT_CONTAINS(s, "bento approve app.yaml");
        ASSERT_CONTAINS(s, "--allow-unapproved");
        ASSERT_CONTAINS(approval_describe(MANIFEST_APPROVAL_STALE), "STALE");
        ASSERT_CONTAINS(approval_describe(MANIFEST_APPROVAL_UNAPPROVED), "not approved");
        ASSERT_CONTAINS(approval_describe(MANIFEST_APPROVAL_CURRENT), "current");
        ASSERT_CONTAINS(approval_strict_failure(MANIFEST_APPROVAL_STALE), "approval is stale");
        ASSERT_STREQ(approval_strict_failure(MANIFEST_APPROVAL_UNAPPROVED),
                     "manifest is not approved");
        ASSERT_TRUE(approval_strict_failure(MANIFEST_APPROVAL_CURRENT) == NULL);
}

TEST(stamp_note_only_for_current_unrecorded)
{
        struct approval_status st = {
            .state = MANIFEST_APPROVAL_CURRENT, .journal = JOURNAL_ABSENT, .stamped = true};
        cleanup_free char *absent = approval_notes(&st, NULL);
        cleanup_free char *untrusted = NULL, *matches = NULL, *stale = NULL;

        ASSERT_CONTAINS(absent, "[bento] this host holds no record of approving these");
        st.journal = JOURNAL_UNTRUSTED;
        untrusted = approval_notes(&st, NULL);
        ASSERT_CONTAINS(untrusted, "not private");
        st.journal = JOURNAL_MATCHES;
        matches = approval_notes(&st, NULL);
        ASSERT_STREQ(matches, "");
        st.state = MANIFEST_APPROVAL_STALE;
        st.journal = JOURNAL_ABSENT;
        stale = approval_notes(&st, NULL);
        ASSERT_STREQ(stale, "");
        /* wrapped at 78 columns */
        for (const char *l = absent; l && *l;) {
                size_t n = strcspn(l, "\n");

                ASSERT_TRUE(n <= 78);
                l += n + (l[n] == '\n');
        }
}

TEST(notes_carry_trust_warnings_only_when_stamped)
{
        struct trust_flaw flaw = {TRUST_FILE_SHARED_WRITE, false, "app.yaml is world-writable",
                                  "`chmod go-w app.yaml`"};
        struct trust_report rep = {NULL, &flaw, 1};
        struct approval_status st = {
            .state = MANIFEST_APPROVAL_CURRENT, .journal = JOURNAL_MATCHES, .stamped = true};
        cleanup_free char *with = approval_notes(&st, &rep), *without = NULL;

        ASSERT_CONTAINS(with, "[bento] app.yaml is world-writable - its approval stamp attests "
                              "only what\n[bento] whoever can write it leaves there.\n");
        ASSERT_CONTAINS(with, "[bento] `chmod go-w app.yaml`");
        st = (struct approval_status){.state = MANIFEST_APPROVAL_UNAPPROVED};
        without = approval_notes(&st, &rep);
        ASSERT_STREQ(without, "");
}

static const char commented[] = "# the build step, reviewed by ops\n"
                                "entrypoint: ./build.sh   # the script\n"
                                "interpreter: sh\n"
                                "read:\n"
                                "  - ./src     # sources\n"
                                "write: [./out]\n"
                                "\n"
                                "# end of policy\n";

TEST(stamp_inserts_a_block_and_keeps_comments)
{
        bool textual = false;
        cleanup_free char *out = stamp(commented, &textual);
        cleanup_manifest struct manifest *m = NULL;

        ASSERT_TRUE(out);
        ASSERT_TRUE(textual);
        /* every original byte is still there, in order, before the block */
        ASSERT_TRUE(strncmp(out, commented, strlen("# the build step")) == 0);
        ASSERT_CONTAINS(out, "entrypoint: ./build.sh   # the script\n");
        ASSERT_CONTAINS(out, "  - ./src     # sources\n");
        ASSERT_CONTAINS(out, "write: [./out]\nprovenance:\n  generated-by: bento approve\n"
                             "  generated-at: 2026-07-14T00:00:00Z\n  approves: ");
        ASSERT_CONTAINS(out, "# end of policy\n");
        m = parse(out);
        ASSERT_TRUE(m);
        ASSERT_EQ(approval_check(m, NULL, NULL), MANIFEST_APPROVAL_CURRENT);
}

TEST(stamp_is_idempotent)
{
        bool t1 = false, t2 = false;
        cleanup_free char *once = stamp(commented, &t1);
        cleanup_free char *twice = once ? stamp(once, &t2) : NULL;

        ASSERT_TRUE(once && twice && t1 && t2);
        ASSERT_STREQ(twice, once);
}

TEST(stamp_replaces_values_in_their_quoting_style)
{
        static const char text[] = "entrypoint: ./x\n"
                                   "provenance:   # written by profile\n"
                                   "  generated-by: 'bento profile'   # who\n"
                                   "  generated-at: \"2020-01-01T00:00:00Z\"\n"
                                   "  approves: 00\n"
                                   "  blocked-hosts: [\"10.0.0.1:80\"]\n"
                                   "# trailing\n";
        bool textual = false;
        cleanup_free char *out = stamp(text, &textual);
        cleanup_manifest struct manifest *m = NULL;

        ASSERT_TRUE(out && textual);
        ASSERT_CONTAINS(out, "provenance:   # written by profile\n");
        ASSERT_CONTAINS(out, "  generated-by: 'bento approve'   # who\n");
        ASSERT_CONTAINS(out, "  generated-at: \"2026-07-14T00:00:00Z\"\n");
        ASSERT_CONTAINS(out, "  blocked-hosts: [\"10.0.0.1:80\"]\n# trailing\n");
        m = parse(out);
        ASSERT_TRUE(m);
        ASSERT_EQ(m->provenance.n_blocked_hosts, 1);
        ASSERT_EQ(approval_check(m, NULL, NULL), MANIFEST_APPROVAL_CURRENT);
}

TEST(stamp_inserts_missing_keys_in_canonical_order)
{
        static const char text[] = "entrypoint: ./x\n"
                                   "provenance:\n"
                                   "    blocked-hosts:\n"
                                   "      - \"[2001:db8::1]:443\"\n"
                                   "exec: all\n";
        bool textual = false;
        cleanup_free char *out = stamp(text, &textual);

        ASSERT_TRUE(out && textual);
        ASSERT_CONTAINS(out, "provenance:\n    generated-by: bento approve\n"
                             "    generated-at: 2026-07-14T00:00:00Z\n    approves: ");
        ASSERT_CONTAINS(out, "\n    blocked-hosts:\n      - \"[2001:db8::1]:443\"\nexec: all\n");
}

TEST(stamp_handles_utf8_crlf_and_no_final_newline)
{
        static const char text[] = "# caf\xc3\xa9 \xe2\x98\x95 r\xc3\xa9sum\xc3\xa9\r\n"
                                   "entrypoint: ./\xc3\xa9t\xc3\xa9.sh\r\n"
                                   "provenance:\r\n"
                                   "  approves: \"abc\"";
        bool textual = false;
        cleanup_free char *out = stamp(text, &textual);
        cleanup_manifest struct manifest *m = NULL;

        ASSERT_TRUE(out && textual);
        ASSERT_CONTAINS(out, "# caf\xc3\xa9 \xe2\x98\x95 r\xc3\xa9sum\xc3\xa9\r\n");
        ASSERT_CONTAINS(out, "  generated-by: bento approve\r\n");
        m = parse(out);
        ASSERT_TRUE(m);
        ASSERT_EQ(approval_check(m, NULL, NULL), MANIFEST_APPROVAL_CURRENT);
}

TEST(stamp_below_an_empty_provenance_key)
{
        bool textual = false;
        cleanup_free char *out = stamp("entrypoint: ./x\nprovenance:\nexec: none\n", &textual);

        ASSERT_TRUE(out && textual);
        ASSERT_CONTAINS(out, "provenance:\n  generated-by: bento approve\n");
        ASSERT_CONTAINS(out, "exec: none\n");
}

TEST(flow_style_falls_back_to_canonical)
{
        bool textual = true;
        cleanup_free char *out =
            stamp("entrypoint: ./x  # gone\nprovenance: {approves: \"00\"}\n", &textual);
        cleanup_free char *top = NULL;
        bool t2 = true;

        ASSERT_TRUE(out);
        ASSERT_TRUE(!textual);
        ASSERT_TRUE(strstr(out, "# gone") == NULL);
        ASSERT_CONTAINS(out, "entrypoint: \"./x\"\n");
        ASSERT_CONTAINS(out, "approves: \"");
        top = stamp("{entrypoint: ./x}\n", &t2);
        ASSERT_TRUE(top && !t2);
}

TEST(edit_after_stamp_is_stale_and_restamp_is_current)
{
        bool textual = false;
        cleanup_free char *out = stamp(commented, &textual), *edited = NULL, *again = NULL;
        const char *w;

        ASSERT_TRUE(out);
        w = strstr(out, "write: [./out]");
        ASSERT_TRUE(w);
        ASSERT_TRUE(asprintf(&edited, "%.*swrite: [./out, ./more]%s", (int) (w - out), out,
                             w + strlen("write: [./out]")) > 0);
        ASSERT_EQ(state_of(edited), MANIFEST_APPROVAL_STALE);
        again = stamp(edited, &textual);
        ASSERT_TRUE(again && textual);
        ASSERT_EQ(state_of(again), MANIFEST_APPROVAL_CURRENT);
        ASSERT_CONTAINS(again, "write: [./out, ./more]\n");
        ASSERT_CONTAINS(again, "# end of policy\n");
}

TEST(comments_and_reformatting_keep_the_stamp_current)
{
        bool textual = false;
        cleanup_free char *out = stamp("entrypoint: ./x\nenv: [B, A]\n", &textual);
        cleanup_free char *reordered = NULL;
        const char *p = out ? strstr(out, "provenance:") : NULL;

        ASSERT_TRUE(p);
        ASSERT_TRUE(
            asprintf(&reordered, "# a comment\nenv:\n  - A\n  - B\nentrypoint: './x'\n%s", p) > 0);
        ASSERT_EQ(state_of(reordered), MANIFEST_APPROVAL_CURRENT);
}

TEST(now_is_rfc3339_utc)
{
        char buf[32];

        approval_now_rfc3339(buf);
        ASSERT_EQ(strlen(buf), 20);
        ASSERT_EQ(buf[10], 'T');
        ASSERT_EQ(buf[19], 'Z');
}

TAP_MAIN()
