/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/blocked.c: what a run records in
 * provenance.blocked-hosts on a real file.  Only guard-blocked
 * destinations that a rule allows, in plain host:port form, are recorded
 * (the egress report is hostile input); nothing new means no write; and a
 * file that changed or was swapped for a symlink during the run, that is
 * shared-writable, someone else's, or in flow style is left as it is, with
 * a note saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "run/blocked.h"
#include "tap.h"

static char dir[] = "/tmp/bento-run-blocked-XXXXXX";
static char path[64], victim[64], link_tmp[64];

static const char manifest[] = "# kept\n"
                               "entrypoint: ./s.sh\n"
                               "network:\n"
                               "  - {host: svc.bento.test, port: \"8443\"}  # exact\n"
                               "  - {host: \"::1\", port: \"9443\"}\n"
                               "  - {host: .wild.test, port: \"*\"}\n"
                               "# end\n";

static int put(const char *p, const char *text, mode_t mode)
{
        cleanup_close int fd = -1;
        size_t len = strlen(text);

        /* a new file each time: a test may have given the old one away */
        if (unlink(p) < 0 && errno != ENOENT)
                return -1;
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, text, len) != (ssize_t) len)
                return -1;
        return fchmod(fd, mode);
}

static char *get(const char *p)
{
        struct bento_err err = {0};
        char *s = NULL;
        size_t len = 0;

        return bento_read_file(p, 1 << 20, &s, &len, &err) < 0 ? NULL : s;
}

static int load(struct trust_loaded *l)
{
        struct manifest_problems problems = {0};
        struct bento_err err = {0};
        int r = trust_load_manifest(path, NULL, l, &problems, &err);

        if (r < 0)
                printf("# load failed: %s\n", err.msg);
        manifest_problems_done(&problems);
        return r;
}

#define D(h, p)                                                                                    \
        {                                                                                          \
                (char *) (h), (char *) (p)                                                         \
        }

/* What the hook reported: three destinations to record, the rest not. */
static struct run_dest dests[] = {
    D("::1", "9443"),
    D("a.wild.test", "80"),
    D("svc.bento.test", "8443"),
    D("other.test", "8443"),          /* no rule */
    D("svc.bento.test", "8444"),      /* no rule */
    D("svc.bento.test\"x", "8443"),   /* not a host */
    D("*", "8443"),                   /* a pattern */
    D(".wild.test", "80"),            /* a pattern */
    D("svc.bento.test", "8000-9000"), /* a range */
    D("svc.bento.test", "08443"),     /* not canonical */
    D("svc.bento.test", ""),
    D("", "8443"),
};

static const struct run_egress egress = {.blocked = dests,
                                         .n_blocked = sizeof(dests) / sizeof(dests[0])};

/* Load path, change the world with how, record; returns the note. */
static char *record_after(void (*how)(void), int want)
{
        struct trust_loaded l = {0};
        struct run_blocked b = {0};
        char *note;
        int r;

        if (load(&l) < 0)
                return NULL;
        if (how)
                how();
        r = run_blocked_record(&l, &egress, &b);
        trust_loaded_done(&l);
        if (r != want)
                printf("# run_blocked_record returned %d, not %d\n", r, want);
        note = r == want ? TAKE_PTR(b.note) : strdup("(wrong return)");
        run_blocked_done(&b);
        return note;
}

TEST(records_what_a_rule_allows_and_nothing_else)
{
        struct trust_loaded l = {0};
        struct run_blocked b = {0};
        cleanup_free char *text = NULL;
        struct stat st;

        ASSERT_OK(put(path, manifest, 0640));
        ASSERT_OK(load(&l));
        ASSERT_EQ(run_blocked_record(&l, &egress, &b), 1);
        trust_loaded_done(&l);
        ASSERT_EQ(b.n_recorded, 3);
        ASSERT_STREQ(b.recorded[0], "[::1]:9443");
        ASSERT_STREQ(b.recorded[1], "a.wild.test:80");
        ASSERT_STREQ(b.recorded[2], "svc.bento.test:8443");
        ASSERT_CONTAINS(b.note, "recorded \"[::1]:9443\", \"a.wild.test:80\", "
                                "\"svc.bento.test:8443\" in provenance.blocked-hosts of ");
        ASSERT_CONTAINS(b.note, "so the approval is unchanged");
        run_blocked_done(&b);
        text = get(path);
        ASSERT_TRUE(text);
        /* the block goes after the last entry, before the closing comment */
        ASSERT_TRUE(strncmp(text, manifest, strlen(manifest) - strlen("# end\n")) == 0);
        ASSERT_STREQ(text + strlen(manifest) - strlen("# end\n"), "provenance:\n"
                                                                  "  blocked-hosts:\n"
                                                                  "    - \"[::1]:9443\"\n"
                                                                  "    - \"a.wild.test:80\"\n"
                                                                  "    - \"svc.bento.test:8443\"\n"
                                                                  "# end\n");
        ASSERT_OK(stat(path, &st));
        ASSERT_EQ(st.st_mode & 07777, 0640);
}

TEST(nothing_new_is_not_written)
{
        cleanup_free char *before = get(path), *after = NULL, *note = NULL;
        struct stat a, b;

        ASSERT_TRUE(before && strstr(before, "blocked-hosts"));
        ASSERT_OK(stat(path, &a));
        note = record_after(NULL, 0);
        ASSERT_TRUE(note == NULL);
        after = get(path);
        ASSERT_STREQ(after, before);
        ASSERT_OK(stat(path, &b));
        ASSERT_EQ(a.st_ino, b.st_ino);
}

static void append_comment(void)
{
        FILE *f = fopen(path, "ae");

        if (f) {
                fputs("# the script was here\n", f);
                fclose(f);
        }
}

static void swap_for_symlink(void)
{
        cleanup_free char *text = get(path);

        if (text && put(victim, text, 0644) == 0 && symlink(victim, link_tmp) == 0)
                (void) rename(link_tmp, path);
}

static void make_group_writable(void)
{
        (void) chmod(path, 0664);
}

static void give_away(void)
{
        if (chown(path, 65534, 65534) < 0)
                printf("# chown: %s\n", strerror(errno));
}

TEST(a_changed_file_is_left_alone)
{
        cleanup_free char *note = NULL, *text = NULL;

        ASSERT_OK(put(path, manifest, 0644));
        note = record_after(append_comment, 0);
        ASSERT_CONTAINS(note, "the egress guard refused \"[::1]:9443\", \"a.wild.test:80\", "
                              "\"svc.bento.test:8443\" although a rule allows them, but they were "
                              "not recorded in provenance.blocked-hosts of ");
        ASSERT_CONTAINS(note, ": it changed during the run; add them there by hand");
        text = get(path);
        ASSERT_TRUE(text && !strstr(text, "blocked-hosts") && strstr(text, "the script was here"));
}

TEST(a_file_swapped_for_a_symlink_is_left_alone)
{
        cleanup_free char *note = NULL, *text = NULL;
        struct stat st;

        ASSERT_OK(put(path, manifest, 0644));
        note = record_after(swap_for_symlink, 0);
        ASSERT_CONTAINS(note, ": it was moved or replaced during the run;");
        ASSERT_OK(lstat(path, &st));
        ASSERT_TRUE(S_ISLNK(st.st_mode));
        text = get(victim);
        ASSERT_STREQ(text, manifest);
        ASSERT_OK(unlink(path));
}

TEST(shared_writable_or_foreign_files_are_left_alone)
{
        cleanup_free char *note = NULL, *foreign = NULL, *text = NULL;
        struct stat st;

        ASSERT_OK(put(path, manifest, 0644));
        note = record_after(make_group_writable, 0);
        ASSERT_CONTAINS(note, ": it is group- or world-writable, and rewriting it would change its "
                              "mode;");
        ASSERT_OK(stat(path, &st));
        ASSERT_EQ(st.st_mode & 07777, 0664);
        if (geteuid() != 0)
                return; /* only root can give the file away */
        ASSERT_OK(chmod(path, 0644));
        foreign = record_after(give_away, 0);
        ASSERT_CONTAINS(foreign, ": it belongs to another user, and a run does not rewrite "
                                 "someone else's file;");
        text = get(path);
        ASSERT_STREQ(text, manifest);
}

TEST(flow_style_is_left_alone)
{
        cleanup_free char *note = NULL, *text = NULL, *flow = NULL;

        ASSERT_TRUE(asprintf(&flow, "%sprovenance: {approves: \"00\"}\n", manifest) > 0);
        ASSERT_OK(put(path, flow, 0644));
        note = record_after(NULL, 0);
        ASSERT_CONTAINS(note, ": its provenance block is written in flow style ({...}); add them");
        text = get(path);
        ASSERT_STREQ(text, flow);
}

static void remove_dir(void)
{
        (void) unlink(path);
        (void) unlink(victim);
        (void) unlink(link_tmp);
        (void) rmdir(dir);
}

__attribute__((constructor)) static void setup(void)
{
        if (!mkdtemp(dir)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                exit(1);
        }
        snprintf(path, sizeof(path), "%s/m.yaml", dir);
        snprintf(victim, sizeof(victim), "%s/victim.yaml", dir);
        snprintf(link_tmp, sizeof(link_tmp), "%s/swap", dir);
        atexit(remove_dir);
}

TAP_MAIN()
