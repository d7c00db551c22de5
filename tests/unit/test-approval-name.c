/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/approval/name.c and trust_open_nolinks(): a
 * plain name is the file; a name through a link is honoured only when the
 * journal recorded approving that name leading to the same file; a
 * plain-approved name swapped for a link to another approved manifest is
 * refused, and so is a link whose record predates identities, a link
 * approved towards another target, and a link while the journal is not
 * private.  A refused name is not even opened unless the caller follows.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approval/name.h"
#include "cleanup.h"
#include "approval/journal-key.h"
#include "approval/journal.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-approval-name-XXXXXX";

static const char *at(const char *name)
{
        static char buf[8][256];
        static int which;

        which = (which + 1) % 8;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
        return buf[which];
}

static int put(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -EIO;
}

static void setup(void)
{
        static bool done;
        char state[128];

        if (done)
                return;
        done = true;
        if (!mkdtemp(dir))
                exit(1);
        snprintf(state, sizeof(state), "%s/state", dir);
        setenv("XDG_STATE_HOME", state, 1);
        /* The journal key under the scratch home, never the real one. */
        static char keyhome[128];
        snprintf(keyhome, sizeof(keyhome), "%s/keyhome", dir);
        if (mkdir(keyhome, 0700) < 0)
                exit(1);
        journal_key_use_home(keyhome);
        if (mkdir(at("work"), 0700) < 0 || mkdir(at("real"), 0700) < 0 ||
            put(at("work/narrow.yaml"), "entrypoint: ./x\n") < 0 ||
            put(at("work/broad.yaml"), "entrypoint: ./x\nread: [/usr]\n") < 0 ||
            put(at("real/m.yaml"), "entrypoint: ./x\n") < 0 || symlink("real", at("alias")) < 0)
                exit(1);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

__attribute__((destructor)) static void teardown(void)
{
        if (dir[strlen(dir) - 1] != 'X')
                nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* What approve records for the name named leading to the file real. */
static int approved(const char *named, const char *real, bool link)
{
        struct journal_entry e = {"aa", "entrypoint: \"./x\"\n", (char *) real,
                                  "2026-07-14T00:00:00Z", true};

        e.has_identity = true;
        e.named_path = (char *) named;
        e.named_symlink = link;
        return journal_record(&e, &err);
}

/* Judge path; *loaded says whether the manifest was read. */
static enum approval_name_verdict judge(const char *path, bool follow, bool *loaded, char **problem)
{
        struct approval_name n = {0};
        struct trust_loaded l = {0};
        enum approval_name_verdict v;
        int r = approval_load(path, follow, &n, &l, NULL, &err);

        *loaded = r == 0 && l.m;
        if (r < 0)
                printf("# approval_load(%s): %s\n", path, err.msg);
        v = r < 0 ? (enum approval_name_verdict) - 1 : n.verdict;
        if (problem)
                *problem = approval_name_problem(&n, path);
        trust_loaded_done(&l);
        approval_name_done(&n);
        return v;
}

TEST(open_nolinks_refuses_a_link_anywhere_on_the_way)
{
        int fd;

        setup();
        fd = trust_open_nolinks(at("real/m.yaml"));
        ASSERT_TRUE(fd >= 0);
        close(fd);
        ASSERT_EQ(trust_open_nolinks(at("alias/m.yaml")), -ELOOP);
        ASSERT_OK(symlink(at("real/m.yaml"), at("work/last-link.yaml")));
        ASSERT_EQ(trust_open_nolinks(at("work/last-link.yaml")), -ELOOP);
        ASSERT_EQ(trust_open_nolinks(at("work/missing.yaml")), -ENOENT);
}

TEST(a_plain_name_is_the_file)
{
        bool loaded = false;

        setup();
        ASSERT_EQ(judge(at("work/narrow.yaml"), false, &loaded, NULL), APPROVAL_NAME_PLAIN);
        ASSERT_TRUE(loaded);
}

TEST(a_swapped_in_link_to_another_approved_manifest_is_refused)
{
        cleanup_free char *why = NULL;
        bool loaded = true;

        setup();
        ASSERT_OK(approved(at("work/narrow.yaml"), at("work/narrow.yaml"), false));
        ASSERT_OK(approved(at("work/broad.yaml"), at("work/broad.yaml"), false));
        ASSERT_OK(rename(at("work/narrow.yaml"), at("work/narrow.orig")));
        ASSERT_OK(symlink("broad.yaml", at("work/narrow.yaml")));
        ASSERT_EQ(judge(at("work/narrow.yaml"), false, &loaded, &why), APPROVAL_NAME_REDIRECTED);
        ASSERT_TRUE(!loaded); /* not even opened */
        ASSERT_CONTAINS(why, "narrow.yaml is now a symbolic link to ");
        ASSERT_CONTAINS(why, "/work/broad.yaml");
        ASSERT_CONTAINS(why, "approved when that name was the file itself");
        ASSERT_CONTAINS(why, "run `bento approve ");
        /* Followed on request (validate, approve, --allow-unapproved). */
        ASSERT_EQ(judge(at("work/narrow.yaml"), true, &loaded, NULL), APPROVAL_NAME_REDIRECTED);
        ASSERT_TRUE(loaded);
        /* The approved manifest itself still counts. */
        ASSERT_EQ(judge(at("work/broad.yaml"), false, &loaded, NULL), APPROVAL_NAME_PLAIN);
        ASSERT_TRUE(loaded);
        ASSERT_OK(unlink(at("work/narrow.yaml")));
        ASSERT_OK(rename(at("work/narrow.orig"), at("work/narrow.yaml")));
}

TEST(a_link_approved_as_a_link_is_honoured_until_it_leads_elsewhere)
{
        cleanup_free char *why = NULL;
        bool loaded = false;

        setup();
        ASSERT_OK(symlink("broad.yaml", at("work/approved-link.yaml")));
        ASSERT_EQ(judge(at("work/approved-link.yaml"), false, &loaded, NULL),
                  APPROVAL_NAME_UNRECORDED);
        ASSERT_OK(approved(at("work/approved-link.yaml"), at("work/broad.yaml"), true));
        ASSERT_EQ(judge(at("work/approved-link.yaml"), false, &loaded, NULL),
                  APPROVAL_NAME_APPROVED);
        ASSERT_TRUE(loaded);
        ASSERT_OK(unlink(at("work/approved-link.yaml")));
        ASSERT_OK(symlink("narrow.yaml", at("work/approved-link.yaml")));
        ASSERT_EQ(judge(at("work/approved-link.yaml"), false, &loaded, &why),
                  APPROVAL_NAME_REDIRECTED);
        ASSERT_TRUE(!loaded);
        ASSERT_CONTAINS(why, "it was approved as a link to ");
        ASSERT_CONTAINS(why, "/work/broad.yaml");
}

TEST(a_directory_link_on_the_way_counts_too)
{
        cleanup_free char *why = NULL;
        bool loaded = true;

        setup();
        ASSERT_OK(approved(at("real/m.yaml"), at("real/m.yaml"), false));
        ASSERT_EQ(judge(at("alias/m.yaml"), false, &loaded, &why), APPROVAL_NAME_UNRECORDED);
        ASSERT_TRUE(!loaded);
        ASSERT_CONTAINS(why, "through a symbolic link in a directory above it");
        ASSERT_CONTAINS(why, "this host approved that file only as ");
        ASSERT_OK(approved(at("alias/m.yaml"), at("real/m.yaml"), false));
        ASSERT_EQ(judge(at("alias/m.yaml"), false, &loaded, NULL), APPROVAL_NAME_APPROVED);
        ASSERT_EQ(judge(at("real/m.yaml"), false, &loaded, NULL), APPROVAL_NAME_PLAIN);
}

TEST(a_record_without_identity_does_not_vouch_for_a_link)
{
        struct journal_entry old = {"aa", "entrypoint: \"./x\"\n", NULL, "2025-01-01T00:00:00Z",
                                    true};
        cleanup_free char *why = NULL;
        bool loaded = true;

        setup();
        ASSERT_OK(put(at("work/old.yaml"), "entrypoint: ./x\n"));
        old.manifest_path = (char *) at("work/old.yaml");
        ASSERT_OK(journal_record(&old, &err)); /* as an older bento wrote it */
        ASSERT_EQ(judge(at("work/old.yaml"), false, &loaded, NULL), APPROVAL_NAME_PLAIN);
        ASSERT_OK(symlink("old.yaml", at("work/old-link.yaml")));
        ASSERT_EQ(judge(at("work/old-link.yaml"), false, &loaded, &why), APPROVAL_NAME_OLD_RECORD);
        ASSERT_TRUE(!loaded);
        ASSERT_CONTAINS(why, "recorded by an older bento");
        ASSERT_CONTAINS(why, "`bento approve ");
}

TEST(an_untrusted_journal_vouches_for_no_link)
{
        char approvals[160];
        bool loaded = true;

        setup();
        ASSERT_OK(symlink("broad.yaml", at("work/untrusted-link.yaml")));
        ASSERT_OK(approved(at("work/untrusted-link.yaml"), at("work/broad.yaml"), true));
        snprintf(approvals, sizeof(approvals), "%s/state/bento/approvals", dir);
        ASSERT_OK(chmod(approvals, 0777));
        ASSERT_EQ(judge(at("work/untrusted-link.yaml"), false, &loaded, NULL),
                  APPROVAL_NAME_UNTRUSTED);
        ASSERT_TRUE(!loaded);
        ASSERT_OK(chmod(approvals, 0700));
        ASSERT_EQ(judge(at("work/untrusted-link.yaml"), false, &loaded, NULL),
                  APPROVAL_NAME_APPROVED);
}

TEST(callouts_for_approve)
{
        struct approval_name n = {
            .verdict = APPROVAL_NAME_UNRECORDED, .leads_to = "/r/m.yaml", .is_link = true};
        cleanup_free char *first = approval_name_callout(&n, "m.yaml");
        cleanup_free char *moved = NULL, *none = NULL;

        ASSERT_CONTAINS(first, "m.yaml is now a symbolic link to /r/m.yaml: the approval covers");
        n.verdict = APPROVAL_NAME_REDIRECTED;
        n.approved = "/r/other.yaml";
        n.approved_as_link = true;
        moved = approval_name_callout(&n, "m.yaml");
        ASSERT_CONTAINS(moved, "it was approved as a link to /r/other.yaml");
        n.verdict = APPROVAL_NAME_APPROVED;
        none = approval_name_callout(&n, "m.yaml");
        ASSERT_TRUE(!none);
}

TAP_MAIN()
