/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/approval/journal.c: where entries live ($XDG_STATE_HOME
 * only when absolute), the five verdicts (absent, untrusted,
 * unauthenticated, foreign, matches), the modes of what is written,
 * corrupt entries, the identity fields (a second record under a name that
 * differs, records without them still read when signed), links and open directories in the
 * journal's path, whether a path reaches the journal, and the line diff.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "approval/journal-key.h"
#include "approval/journal.h"
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
        /* The journal key under the scratch home, never the real one. */
        static char keyhome[128];
        snprintf(keyhome, sizeof(keyhome), "%s/keyhome", dir);
        if (mkdir(keyhome, 0700) < 0)
                exit(1);
        journal_key_use_home(keyhome);
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

/* A record as approve writes it now: with what was approved by identity. */
static int record_named(const char *real, const char *named, bool link, const char *fp)
{
        struct journal_entry e = {(char *) fp, "entrypoint: \"./x\"\n", (char *) real,
                                  "2026-07-14T00:00:00Z", true};

        e.has_identity = true;
        e.named_path = (char *) named;
        e.named_symlink = link;
        e.dev = 64769;
        e.ino = UINT64_MAX - 1; /* beyond 2^53: JSON numbers must not lose it */
        return journal_record(&e, &err);
}

/* Write a record by hand, as an older bento (or a forger) would. */
static int put_entry(const char *key, const char *json)
{
        cleanup_free char *path = NULL;
        int fd, r;

        if (journal_entry_path(key, &path, &err) < 0)
                return -1;
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return -1;
        r = write(fd, json, strlen(json)) == (ssize_t) strlen(json) ? 0 : -1;
        close(fd);
        return r;
}

TEST(identity_round_trips_and_a_differing_name_gets_its_own_record)
{
        cleanup_journal_entry struct journal_entry *e = NULL, *byname = NULL, *plain = NULL;

        setup();
        ASSERT_OK(record_named("/tmp/five-real.yaml", "/tmp/five-link.yaml", true, "aa"));
        ASSERT_EQ(journal_find("/tmp/five-real.yaml", &e), 1);
        ASSERT_TRUE(e->has_identity && e->named_symlink);
        ASSERT_STREQ(e->named_path, "/tmp/five-link.yaml");
        ASSERT_EQ(e->dev, 64769);
        ASSERT_TRUE(e->ino == UINT64_MAX - 1);
        ASSERT_EQ(journal_find("/tmp/five-link.yaml", &byname), 1);
        ASSERT_STREQ(byname->manifest_path, "/tmp/five-real.yaml");
        ASSERT_STREQ(byname->named_path, "/tmp/five-link.yaml");
        /* The name's record is not a record of a file at that name. */
        ASSERT_EQ(journal_lookup("/tmp/five-link.yaml", "aa", NULL), JOURNAL_ABSENT);
        ASSERT_EQ(journal_lookup("/tmp/five-real.yaml", "aa", NULL), JOURNAL_MATCHES);
        /* A plain name gets one record only. */
        ASSERT_OK(record_named("/tmp/six.yaml", "/tmp/six.yaml", false, "bb"));
        ASSERT_EQ(journal_find("/tmp/six.yaml", &plain), 1);
        ASSERT_TRUE(plain->has_identity && !plain->named_symlink);
}

TEST(old_records_without_identity_or_mac_are_not_authenticated)
{
        cleanup_journal_entry struct journal_entry *e = NULL, *f = NULL;

        setup();
        ASSERT_OK(record("/tmp/seven.yaml", "aa", true)); /* makes the directories */
        /* As a bento before signed records wrote it: read, never believed. */
        ASSERT_OK(put_entry("/tmp/seven.yaml",
                            "{\"fingerprint\": \"cc\", \"policy\": \"entrypoint: x\\n\", "
                            "\"manifest_path\": \"/tmp/seven.yaml\", \"stamped_at\": "
                            "\"2025-01-01T00:00:00Z\", \"reviewed\": true}\n"));
        ASSERT_EQ(journal_lookup("/tmp/seven.yaml", "cc", &e), JOURNAL_UNAUTHENTICATED);
        ASSERT_TRUE(!e);
        ASSERT_EQ(journal_find("/tmp/seven.yaml", &e), 0);
        /* A signed record without the identity fields still counts. */
        ASSERT_OK(record("/tmp/seven.yaml", "cc", true));
        ASSERT_EQ(journal_lookup("/tmp/seven.yaml", "cc", &f), JOURNAL_MATCHES);
        ASSERT_TRUE(f && !f->has_identity && !f->named_path);
}

TEST(partial_identity_is_corrupt)
{
        cleanup_journal_entry struct journal_entry *e = NULL;

        setup();
        ASSERT_OK(record("/tmp/eight.yaml", "aa", true));
        ASSERT_OK(put_entry("/tmp/eight.yaml",
                            "{\"fingerprint\": \"aa\", \"policy\": \"\", \"manifest_path\": "
                            "\"/tmp/eight.yaml\", \"stamped_at\": \"x\", \"reviewed\": true, "
                            "\"named_path\": \"/tmp/eight.yaml\"}\n"));
        ASSERT_EQ(journal_find("/tmp/eight.yaml", &e), 0);
        ASSERT_EQ(journal_lookup("/tmp/eight.yaml", "aa", NULL), JOURNAL_ABSENT);
}

/* Replace dir/name (a directory) by a link to a copy of it. */
static int swap_for_link(const char *parent, const char *name)
{
        char from[256], to[256];

        snprintf(from, sizeof(from), "%s/%s", parent, name);
        snprintf(to, sizeof(to), "%s/%s.moved", parent, name);
        return rename(from, to) == 0 && symlink(to, from) == 0 ? 0 : -1;
}

static int unswap(const char *parent, const char *name)
{
        char from[256], to[256];

        snprintf(from, sizeof(from), "%s/%s", parent, name);
        snprintf(to, sizeof(to), "%s/%s.moved", parent, name);
        return unlink(from) == 0 && rename(to, from) == 0 ? 0 : -1;
}

TEST(a_link_inside_the_journal_is_not_believed_nor_written_through)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        char bento[128];

        setup();
        ASSERT_OK(record("/tmp/nine.yaml", "aa", true));
        snprintf(bento, sizeof(bento), "%s/bento", state);
        ASSERT_OK(swap_for_link(bento, "approvals"));
        ASSERT_EQ(journal_find("/tmp/nine.yaml", &e), -EPERM);
        ASSERT_EQ(journal_lookup("/tmp/nine.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
        ASSERT_EQ(record("/tmp/nine.yaml", "aa", true), -ELOOP);
        ASSERT_CONTAINS(err.msg, "not a directory bento made");
        ASSERT_OK(unswap(bento, "approvals"));
        ASSERT_OK(swap_for_link(state, "bento"));
        ASSERT_EQ(journal_lookup("/tmp/nine.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
        ASSERT_OK(unswap(state, "bento"));
        ASSERT_EQ(journal_lookup("/tmp/nine.yaml", "aa", NULL), JOURNAL_MATCHES);
}

TEST(a_journal_below_a_directory_others_can_write_is_untrusted)
{
        char open_dir[128], inner[160];

        setup();
        /* The state home two levels below a world-writable, non-sticky
         * directory: anyone could rename the journal away and put one of
         * their own in its place. */
        snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
        snprintf(inner, sizeof(inner), "%s/state", open_dir);
        ASSERT_OK(mkdir(open_dir, 0700));
        setenv("XDG_STATE_HOME", inner, 1);
        ASSERT_OK(record("/tmp/ten.yaml", "aa", true));
        ASSERT_EQ(journal_lookup("/tmp/ten.yaml", "aa", NULL), JOURNAL_MATCHES);
        ASSERT_OK(chmod(open_dir, 0777));
        ASSERT_EQ(journal_lookup("/tmp/ten.yaml", "aa", NULL), JOURNAL_UNTRUSTED);
        ASSERT_OK(chmod(open_dir, 01777)); /* sticky: as /tmp, not a flaw */
        ASSERT_EQ(journal_lookup("/tmp/ten.yaml", "aa", NULL), JOURNAL_MATCHES);
        ASSERT_OK(chmod(open_dir, 0700));
        setenv("XDG_STATE_HOME", state, 1);
}

TEST(paths_that_reach_the_journal)
{
        char grant[128], link[128], target[128], inside[160], beside[160];
        const char *paths[3];
        cleanup_free char *where = NULL, *where2 = NULL;
        size_t at = 99;

        setup();
        ASSERT_OK(record("/tmp/eleven.yaml", "aa", true));
        /* The state home itself, its parent, the journal directory. */
        paths[0] = "/nowhere";
        paths[1] = dir;
        ASSERT_EQ(journal_within(paths, 2, &at, &where), 1);
        ASSERT_EQ(at, 1);
        ASSERT_CONTAINS(where, "/state/bento/approvals");
        /* Inside the journal but holding neither directory; beside it. */
        snprintf(inside, sizeof(inside), "%s/bento/approvals/sub", state);
        snprintf(beside, sizeof(beside), "%s/other", state);
        paths[0] = inside;
        paths[1] = beside;
        ASSERT_EQ(journal_within(paths, 2, &at, &where2), 0);
        /* A state home reached through a link into a grant. */
        snprintf(grant, sizeof(grant), "%s/grant", dir);
        snprintf(target, sizeof(target), "%s/grant/state", dir);
        snprintf(link, sizeof(link), "%s/link-state", dir);
        ASSERT_OK(mkdir(grant, 0700));
        ASSERT_OK(symlink(target, link));
        setenv("XDG_STATE_HOME", link, 1);
        paths[0] = grant;
        ASSERT_EQ(journal_within(paths, 1, &at, &where2), 1);
        ASSERT_EQ(at, 0);
        setenv("XDG_STATE_HOME", state, 1);
        paths[2] = NULL;
        ASSERT_EQ(journal_within(paths, 0, &at, &where2), 0);
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
