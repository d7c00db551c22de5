/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/journal.c: where entries live ($XDG_STATE_HOME
 * only when absolute), the four verdicts (absent, untrusted, foreign,
 * matches), the modes of what is written, corrupt entries, and the line
 * diff.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "journal.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-journal-XXXXXX";
static char state[64];

static void setup(void)
{
        static bool done;

        if (done)
                return;
        done = true;
        if (!mkdtemp(dir))
                exit(1);
        snprintf(state, sizeof(state), "%s/state", dir);
        setenv("XDG_STATE_HOME", state, 1);
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

static int record(const char *real, const char *fp, bool reviewed)
{
        struct journal_entry e = {(char *) fp, "entrypoint: \"./x\"\nexec: \"none\"\n",
                                  (char *) real, "2026-07-14T00:00:00Z", reviewed};

        return journal_record(&e, &err);
}

TEST(dir_follows_xdg_state_home_only_when_absolute)
{
        cleanup_free char *a = NULL, *b = NULL;
        char *saved = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;

        setenv("XDG_STATE_HOME", "/s", 1);
        ASSERT_OK(journal_dir(&a, &err));
        ASSERT_STREQ(a, "/s/bento/approvals");
        setenv("XDG_STATE_HOME", "relative/s", 1);
        setenv("HOME", "/home/u", 1);
        ASSERT_OK(journal_dir(&b, &err));
        ASSERT_STREQ(b, "/home/u/.local/state/bento/approvals");
        if (saved)
                setenv("XDG_STATE_HOME", saved, 1);
        free(saved);
}

TEST(entry_is_named_by_the_sha256_of_the_real_path)
{
        cleanup_free char *p = NULL;

        setup();
        ASSERT_OK(journal_entry_path("/tmp/app.yaml", &p, &err));
        ASSERT_CONTAINS(p, "/state/bento/approvals/");
        ASSERT_EQ(strlen(strrchr(p, '/') + 1), 64 + 5);
        ASSERT_CONTAINS(p, ".json");
}

TEST(absent_then_matches_then_foreign)
{
        cleanup_journal_entry struct journal_entry *e = NULL, *f = NULL;
        cleanup_free char *path = NULL, *approvals = NULL;
        struct stat st;

        setup();
        ASSERT_EQ(journal_lookup("/tmp/one.yaml", "aa", NULL), JOURNAL_ABSENT);
        ASSERT_OK(record("/tmp/one.yaml", "aa", false));
        ASSERT_EQ(journal_lookup("/tmp/one.yaml", "aa", &e), JOURNAL_MATCHES);
        ASSERT_TRUE(e);
        ASSERT_STREQ(e->fingerprint, "aa");
        ASSERT_STREQ(e->stamped_at, "2026-07-14T00:00:00Z");
        ASSERT_TRUE(!e->reviewed);
        ASSERT_EQ(journal_lookup("/tmp/one.yaml", "bb", &f), JOURNAL_FOREIGN);
        ASSERT_STREQ(f->fingerprint, "aa");
        ASSERT_EQ(journal_lookup("/tmp/other.yaml", "aa", NULL), JOURNAL_ABSENT);
        ASSERT_OK(journal_entry_path("/tmp/one.yaml", &path, &err));
        ASSERT_OK(stat(path, &st));
        ASSERT_EQ(st.st_mode & 07777, 0600);
        ASSERT_OK(journal_dir(&approvals, &err));
        ASSERT_OK(stat(approvals, &st));
        ASSERT_EQ(st.st_mode & 07777, 0700);
}

TEST(rerecord_replaces_the_entry)
{
        cleanup_journal_entry struct journal_entry *e = NULL;

        setup();
        ASSERT_OK(record("/tmp/two.yaml", "aa", false));
        ASSERT_OK(record("/tmp/two.yaml", "cc", true));
        ASSERT_EQ(journal_lookup("/tmp/two.yaml", "cc", &e), JOURNAL_MATCHES);
        ASSERT_TRUE(e && e->reviewed);
}

TEST(shared_writable_journal_is_untrusted)
{
        cleanup_free char *approvals = NULL, *path = NULL;

        setup();
        ASSERT_OK(record("/tmp/three.yaml", "aa", true));
        ASSERT_OK(journal_dir(&approvals, &err));
        ASSERT_OK(journal_entry_path("/tmp/three.yaml", &path, &err));
        ASSERT_OK(chmod(path, 0620));
        ASSERT_EQ(journal_lookup("/tmp/three.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
        ASSERT_OK(chmod(path, 0600));
        ASSERT_OK(chmod(approvals, 0707));
        ASSERT_EQ(journal_lookup("/tmp/three.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
        ASSERT_OK(chmod(approvals, 0700));
        ASSERT_EQ(journal_lookup("/tmp/three.yaml", "aa", NULL), JOURNAL_MATCHES);
        if (geteuid() == 0) {
                ASSERT_OK(chown(path, 12345, 0));
                ASSERT_EQ(journal_lookup("/tmp/three.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
                ASSERT_OK(chown(path, 0, 0));
        }
}

TEST(corrupt_empty_or_linked_entries_are_absent)
{
        cleanup_free char *path = NULL;
        int fd;

        setup();
        ASSERT_OK(record("/tmp/four.yaml", "aa", true));
        ASSERT_OK(journal_entry_path("/tmp/four.yaml", &path, &err));
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        close(fd);
        ASSERT_EQ(journal_lookup("/tmp/four.yaml", "aa", NULL), JOURNAL_ABSENT);
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, "{\"fingerprint\": 1}", 18), 18);
        close(fd);
        ASSERT_EQ(journal_lookup("/tmp/four.yaml", "aa", NULL), JOURNAL_ABSENT);
        ASSERT_OK(unlink(path));
        ASSERT_OK(symlink("/etc/hostname", path));
        ASSERT_EQ(journal_lookup("/tmp/four.yaml", "aa", NULL), JOURNAL_ABSENT);
}

TEST(diff_marks_added_removed_and_kept_lines)
{
        cleanup_free char *d = journal_diff("entrypoint: x\nread:\n  - a\nexec: none\n",
                                            "entrypoint: x\nread:\n  - a\n  - more\nexec: all\n");
        cleanup_free char *same = journal_diff("a\nb\n", "a\nb\n");
        cleanup_free char *empty = journal_diff("", "x\n");

        ASSERT_STREQ(d, "  entrypoint: x\n  read:\n    - a\n- exec: none\n+   - more\n"
                        "+ exec: all\n");
        ASSERT_STREQ(same, "  a\n  b\n");
        ASSERT_STREQ(empty, "+ x\n");
}

TEST(verdict_names)
{
        ASSERT_STREQ(journal_verdict_to_string(JOURNAL_ABSENT), "absent");
        ASSERT_STREQ(journal_verdict_to_string(JOURNAL_UNTRUSTED), "untrusted");
        ASSERT_STREQ(journal_verdict_to_string(JOURNAL_FOREIGN), "foreign");
        ASSERT_STREQ(journal_verdict_to_string(JOURNAL_MATCHES), "matches");
}

TAP_MAIN()
