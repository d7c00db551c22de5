/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the memo of translate/manifest/path.c: inside a path_cache_begin()
 * scope the host's answers are replayed, and after LIST_AFTER_LOOKUPS (6)
 * names were asked of the host in one directory the directory is listed
 * once, so that later names cost no system call (a missing one is absent
 * from the listing, and path_type() takes the type from readdir's d_type).  A name created after
 * the listing is therefore still "missing" inside the scope (the scope replays the host as it was),
 * which is how these tests see the listing at work; outside the scope every answer is the host's
 * own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "tap.h"

static char dir[] = "/tmp/bento-test-path-memo-XXXXXX";

static char *at(const char *sub, const char *name)
{
        static char buf[4][512];
        static int k;

        k = (k + 1) % 4;
        snprintf(buf[k], sizeof(buf[k]), "%s/%s/%s", dir, sub, name);
        return buf[k];
}

static void touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

static int lstat_errno(const char *path)
{
        struct stat st;

        return path_lstat(path, &st) < 0 ? errno : 0;
}

static void make_sub(const char *sub)
{
        char p[512];

        snprintf(p, sizeof(p), "%s/%s", dir, sub);
        mkdir(p, 0755);
        touch(at(sub, "present"));
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
}

TEST(six_lookups_list_the_directory)
{
        make_sub("a");
        path_cache_begin();
        ASSERT_EQ(lstat_errno(at("a", "present")), 0);
        for (int i = 0; i < 5; i++) {
                char name[32];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("a", name)), ENOENT);
        }
        touch(at("a", "late"));
        /* answered from the listing made after the sixth lookup */
        ASSERT_EQ(lstat_errno(at("a", "late")), ENOENT);
        /* a listed name is still asked of the host, with its real answer */
        ASSERT_EQ(lstat_errno(at("a", "present")), 0);
        path_cache_end();
        ASSERT_EQ(lstat_errno(at("a", "late")), 0);
}

TEST(five_lookups_do_not)
{
        make_sub("b");
        path_cache_begin();
        for (int i = 0; i < 5; i++) {
                char name[32];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("b", name)), ENOENT);
        }
        touch(at("b", "late"));
        ASSERT_EQ(lstat_errno(at("b", "late")), 0);
        path_cache_end();
}

/* sub/f0 .. sub/f<n-1>, files */
static void fill(const char *sub, int n)
{
        for (int i = 0; i < n; i++) {
                char name[32];

                snprintf(name, sizeof(name), "f%d", i);
                touch(at(sub, name));
        }
}

/* n lookups of missing names in sub, each answered ENOENT */
static void ask_missing(const char *sub, int n)
{
        for (int i = 0; i < n; i++) {
                char name[32];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at(sub, name)), ENOENT);
        }
}

TEST(a_directory_too_large_is_not_listed)
{
        make_sub("c");
        fill("c", 4100);
        path_cache_begin();
        ask_missing("c", 8);
        touch(at("c", "late"));
        ASSERT_EQ(lstat_errno(at("c", "late")), 0);
        path_cache_end();
}

/* LIST_MAX_NAMES (4096) names, "present" among them: the largest listing
 * there is, whose slots hold the largest indexes, still finds every name
 * and still says a missing one is missing. */
TEST(the_largest_listing_finds_every_name)
{
        make_sub("full");
        fill("full", 4095);
        path_cache_begin();
        ask_missing("full", 6);
        touch(at("full", "late"));
        ASSERT_EQ(lstat_errno(at("full", "late")), ENOENT); /* listed: the host not asked */
        for (int i = 0; i < 4095; i++) {
                char name[32];
                mode_t type = 0;

                snprintf(name, sizeof(name), "f%d", i);
                ASSERT_OK(path_type(at("full", name), &type));
                ASSERT_EQ(type, S_IFREG);
        }
        path_cache_end();
        ASSERT_EQ(lstat_errno(at("full", "late")), 0);
}

/* errno of lstat(2) itself, 0 when it succeeds */
static int host_lstat_errno(const char *path)
{
        struct stat st;

        return lstat(path, &st) < 0 ? errno : 0;
}

/* A directory listed for lookups is kept open and lookups beneath it
 * start there: they answer as the walk from "/" does (a link loop, a path
 * too long for the host), and about the directory that was listed, not
 * one put in its place since. */
TEST(lookups_beneath_a_listed_directory_start_there)
{
        char p[512], moved[512], deep[4400] = "";

        make_sub("kept");
        ASSERT_OK(mkdir(at("kept", "sub"), 0755));
        touch(at("kept", "sub/f"));
        ASSERT_OK(symlink("lb", at("kept", "la")));
        ASSERT_OK(symlink("la", at("kept", "lb")));
        snprintf(deep, sizeof(deep), "%s", at("kept", "sub"));
        /* 4100 bytes: too long whole, not below the directory kept */
        while (strlen(deep) < 3900)
                strcat(deep, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        strcat(deep, "/");
        memset(deep + strlen(deep), 'b', 4100 - strlen(deep));
        path_cache_begin();
        ask_missing("kept", 6);
        ASSERT_EQ(lstat_errno(at("kept", "sub/f")), 0);
        ASSERT_EQ(lstat_errno(at("kept", "sub/none")), ENOENT);
        ASSERT_EQ(lstat_errno(at("kept", "la/x")), host_lstat_errno(at("kept", "la/x")));
        ASSERT_EQ(lstat_errno(at("kept", "la/x")), ELOOP);
        ASSERT_EQ(lstat_errno(deep), ENAMETOOLONG);
        /* the directory moves away and another takes its name */
        snprintf(p, sizeof(p), "%s/kept", dir);
        snprintf(moved, sizeof(moved), "%s/kept.moved", dir);
        ASSERT_OK(rename(p, moved));
        ASSERT_OK(mkdir(p, 0755));
        touch(at("kept.moved", "sub/g"));
        ASSERT_EQ(lstat_errno(at("kept", "sub/g")), 0);
        path_cache_end();
        ASSERT_EQ(lstat_errno(at("kept", "sub/g")), ENOENT);
}

/* One reached through a symbolic link is not kept: a walk from it would
 * not count that link.  Lookups beneath it stay the host's own. */
TEST(a_directory_reached_through_a_link_is_not_kept)
{
        char real[512], link[512], moved[512];

        make_sub("linked");
        ASSERT_OK(mkdir(at("linked", "sub"), 0755));
        snprintf(real, sizeof(real), "%s/linked", dir);
        snprintf(link, sizeof(link), "%s/linked-link", dir);
        snprintf(moved, sizeof(moved), "%s/linked.moved", dir);
        ASSERT_OK(symlink("linked", link));
        path_cache_begin();
        ask_missing("linked-link", 6);
        touch(at("linked-link", "late"));
        ASSERT_EQ(lstat_errno(at("linked-link", "late")), ENOENT); /* listed */
        ASSERT_OK(rename(real, moved));
        ASSERT_OK(mkdir(real, 0755));
        touch(at("linked.moved", "sub/g"));
        ASSERT_EQ(lstat_errno(at("linked-link", "sub/g")), ENOENT);
        path_cache_end();
}

TEST(resolution_through_a_listed_directory)
{
        cleanup_free char *r = NULL;
        char link[512];

        make_sub("d");
        snprintf(link, sizeof(link), "%s/d/link", dir);
        ASSERT_OK(symlink("present", link));
        path_cache_begin();
        for (int i = 0; i < 6; i++) {
                char name[32];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("d", name)), ENOENT);
        }
        /* a missing tail still resolves (to where it would be) ... */
        ASSERT_OK(path_resolve(at("d", "missing9/x"), &r));
        ASSERT_STREQ(r, at("d", "missing9/x"));
        free(r);
        r = NULL;
        /* ... and a listed link is still followed */
        ASSERT_OK(path_resolve(at("d", "link"), &r));
        ASSERT_STREQ(r, at("d", "present"));
        path_cache_end();
}

TEST(types_come_from_the_listing)
{
        char p[512];
        mode_t t = 0;

        make_sub("e");
        snprintf(p, sizeof(p), "%s/e/sub", dir);
        ASSERT_OK(mkdir(p, 0755));
        snprintf(p, sizeof(p), "%s/e/link", dir);
        ASSERT_OK(symlink("present", p));
        path_cache_begin();
        for (int i = 0; i < 6; i++) {
                char name[32];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("e", name)), ENOENT);
        }
        /* listed now: change the host under the scope's feet, and the
         * answers are still those of the listing */
        ASSERT_OK(rmdir(at("e", "sub")));
        touch(at("e", "sub"));
        ASSERT_OK(unlink(at("e", "link")));
        ASSERT_OK(path_type(at("e", "sub"), &t));
        ASSERT_EQ(t, S_IFDIR);
        ASSERT_OK(path_type(at("e", "link"), &t));
        ASSERT_EQ(t, S_IFLNK);
        ASSERT_OK(path_type(at("e", "present"), &t));
        ASSERT_EQ(t, S_IFREG);
        ASSERT_TRUE(path_type(at("e", "late"), &t) < 0 && errno == ENOENT);
        path_cache_end();
        /* outside the scope: the host's own answers */
        ASSERT_OK(path_type(at("e", "sub"), &t));
        ASSERT_EQ(t, S_IFREG);
        ASSERT_TRUE(path_type(at("e", "link"), &t) < 0 && errno == ENOENT);
}

/* What a path_list() walk saw: the names joined by spaces, in order. */
struct seen {
        char names[4096];
        int calls;
        int stop_after; /* 0: never */
};

static int see(const char *name, mode_t type, void *userdata)
{
        struct seen *s = userdata;
        size_t n = strlen(s->names);

        snprintf(s->names + n, sizeof(s->names) - n, "%s%s:%c", n ? " " : "", name,
                 type == S_IFDIR   ? 'd'
                 : type == S_IFREG ? 'f'
                 : type == S_IFLNK ? 'l'
                                   : '?');
        return ++s->calls == s->stop_after ? 7 : 0;
}

/* Sorted, so that the host's readdir order does not matter to the test. */
static void sort_words(char *s)
{
        char *w[64];
        int n = 0;
        char out[4096] = "";

        for (char *tok = strtok(s, " "); tok && n < 64; tok = strtok(NULL, " "))
                w[n++] = tok;
        for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++)
                        if (strcmp(w[j], w[i]) < 0) {
                                char *t = w[i];

                                w[i] = w[j];
                                w[j] = t;
                        }
        for (int i = 0; i < n; i++)
                snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "", w[i]);
        strcpy(s, out);
}

TEST(path_list_names_every_entry_but_dot_and_dotdot)
{
        char p[512];
        struct seen a = {0}, b = {0};

        make_sub("f");
        snprintf(p, sizeof(p), "%s/f/sub", dir);
        ASSERT_OK(mkdir(p, 0755));
        snprintf(p, sizeof(p), "%s/f/link", dir);
        ASSERT_OK(symlink("present", p));
        snprintf(p, sizeof(p), "%s/f", dir);
        /* outside a scope: readdir itself */
        ASSERT_OK(path_list(p, see, &a));
        sort_words(a.names);
        ASSERT_STREQ(a.names, "link:l present:f sub:d");
        /* inside one: the same names, and the listing is kept */
        path_cache_begin();
        ASSERT_OK(path_list(p, see, &b));
        sort_words(b.names);
        ASSERT_STREQ(b.names, a.names);
        touch(at("f", "late"));
        memset(&b, 0, sizeof(b));
        ASSERT_OK(path_list(p, see, &b));
        sort_words(b.names);
        ASSERT_STREQ(b.names, a.names);
        /* A walk's listing was not asked whether it is complete, so it does
         * not say "missing": the first lookup that would need that lists
         * the directory again, asking, and later lookups answer from that. */
        ASSERT_EQ(lstat_errno(at("f", "late")), 0);
        touch(at("f", "later"));
        ASSERT_EQ(lstat_errno(at("f", "later")), ENOENT);
        /* and a later walk replays that listing */
        memset(&b, 0, sizeof(b));
        ASSERT_OK(path_list(p, see, &b));
        sort_words(b.names);
        ASSERT_STREQ(b.names, "late:f link:l present:f sub:d");
        path_cache_end();
        memset(&b, 0, sizeof(b));
        ASSERT_OK(path_list(p, see, &b));
        sort_words(b.names);
        ASSERT_STREQ(b.names, "late:f later:f link:l present:f sub:d");
}

/* path_list_soon() lists at once: the first lookup there is answered from
 * the listing, and path_list_direct() replays it rather than reading the
 * directory again; outside a scope it does nothing. */
TEST(a_directory_listed_soon)
{
        char p[512];
        struct seen a = {0}, b = {0};

        make_sub("m");
        snprintf(p, sizeof(p), "%s/m", dir);
        path_list_soon(p); /* no scope: nothing kept */
        path_cache_begin();
        path_list_soon(p);
        touch(at("m", "late"));
        ASSERT_EQ(lstat_errno(at("m", "late")), ENOENT);
        ASSERT_EQ(lstat_errno(at("m", "present")), 0);
        ASSERT_OK(path_list_direct(p, see, &a));
        ASSERT_STREQ(a.names, "present:f");
        path_cache_end();
        ASSERT_OK(path_list_direct(p, see, &b));
        sort_words(b.names);
        ASSERT_STREQ(b.names, "late:f present:f");
}

TEST(path_list_stops_when_asked_and_fails_on_a_missing_directory)
{
        char p[512];
        struct seen s = {.stop_after = 2};

        make_sub("g");
        touch(at("g", "second"));
        touch(at("g", "third"));
        snprintf(p, sizeof(p), "%s/g", dir);
        ASSERT_EQ(path_list(p, see, &s), 7);
        ASSERT_EQ(s.calls, 2);
        path_cache_begin();
        memset(&s, 0, sizeof(s));
        s.stop_after = 2;
        ASSERT_EQ(path_list(p, see, &s), 7);
        ASSERT_EQ(s.calls, 2);
        snprintf(p, sizeof(p), "%s/no-such-dir", dir);
        ASSERT_TRUE(path_list(p, see, &s) < 0 && errno == ENOENT);
        path_cache_end();
        ASSERT_TRUE(path_list(p, see, &s) < 0 && errno == ENOENT);
        snprintf(p, sizeof(p), "%s/g/second", dir);
        ASSERT_TRUE(path_list(p, see, &s) < 0 && errno == ENOTDIR);
}

/* /proc's listing is not kept (its lookups find more than it lists), but
 * path_list() still walks it, from readdir. */
TEST(path_list_walks_an_unlistable_directory_too)
{
        struct seen s = {0};
        char self[32];

        snprintf(self, sizeof(self), " %d:d", (int) getpid());
        path_cache_begin();
        ASSERT_OK(path_list("/proc", see, &s));
        path_cache_end();
        ASSERT_TRUE(strstr(s.names, self) != NULL);
}

/* Looking a name up while a walk goes through its directory: the walk's
 * listing is replaced by one that may answer lookups, and the walk goes on
 * through the one it started with. */
struct lookup_in_walk {
        const char *dir;
        int looked_up;
        int calls;
};

static int look_up_in_walk(const char *name, mode_t type, void *userdata)
{
        struct lookup_in_walk *w = userdata;
        char p[512];

        (void) type;
        (void) name;
        snprintf(p, sizeof(p), "%s/no-such-name-%d", w->dir, w->calls++);
        w->looked_up += lstat_errno(p) == ENOENT;
        return 0;
}

TEST(a_lookup_during_a_walk_leaves_the_walk_whole)
{
        char p[512];
        struct lookup_in_walk w = {p, 0, 0};

        make_sub("k");
        for (int i = 0; i < 20; i++) {
                char name[32];

                snprintf(name, sizeof(name), "f%d", i);
                touch(at("k", name));
        }
        snprintf(p, sizeof(p), "%s/k", dir);
        path_cache_begin();
        ASSERT_OK(path_list(p, look_up_in_walk, &w));
        path_cache_end();
        ASSERT_EQ(w.calls, 21);
        ASSERT_EQ(w.looked_up, 21);
}

static void *idle_thread(void *arg)
{
        pid_t *tid = arg;

        __atomic_store_n(tid, gettid(), __ATOMIC_SEQ_CST);
        pause();
        return NULL;
}

/* /proc lists processes but finds thread ids too: a directory whose
 * listing is not complete must never answer "missing" from it (a shield
 * would take a store for absent).  Six lookups would list an ext4 or
 * tmpfs directory; /proc is looked up name by name. */
TEST(an_incomplete_listing_is_not_trusted)
{
        pthread_t t;
        pid_t tid = 0;
        char p[64];

        ASSERT_EQ(pthread_create(&t, NULL, idle_thread, &tid), 0);
        while (!__atomic_load_n(&tid, __ATOMIC_SEQ_CST))
                usleep(1000);
        path_cache_begin();
        for (int i = 0; i < 8; i++) {
                snprintf(p, sizeof(p), "/proc/no-such-name-%d", i);
                ASSERT_EQ(lstat_errno(p), ENOENT);
        }
        snprintf(p, sizeof(p), "/proc/%d", (int) tid);
        ASSERT_EQ(lstat_errno(p), 0);
        path_cache_end();
        /* nor a walk's listing, which /proc's is too */
        path_cache_begin();
        ASSERT_OK(path_list("/proc", see, &(struct seen){0}));
        ASSERT_EQ(lstat_errno(p), 0);
        path_cache_end();
        pthread_cancel(t);
        pthread_join(t, NULL);
}

/* A scope's path_resolve() builds each answer from its directory's (memo_resolve()): it must
 * agree with the walk from the root outside a scope for every path, whichever is asked first.
 * The tree has relative and absolute links, links to "..", dangling links, a loop, chains of
 * links longer than RESOLVE_LINKS_MAX alone or only together, a file in the middle of a path,
 * and a directory missing. */
static const char *const resolve_names[] = {"d",     "f",    "rel", "abs",  "up", "dang", "loop",
                                            "chain", "half", "hop", "miss", "..", "x"};

/* root/name, made as a directory (target NULL) or as a symlink to target. */
static void make_in(const char *root, const char *name, const char *target)
{
        char p[256];

        snprintf(p, sizeof(p), "%s/%s", root, name);
        ASSERT_OK(target ? symlink(target, p) : mkdir(p, 0755));
}

static void resolve_tree(const char *root)
{
        char p[256], t[256], name[32];

        make_in(root, "d", NULL);
        make_in(root, "d/d", NULL);
        snprintf(p, sizeof(p), "%s/f", root);
        touch(p);
        snprintf(p, sizeof(p), "%s/d/f", root);
        touch(p);
        make_in(root, "rel", "d");
        snprintf(t, sizeof(t), "%s/d/d", root);
        make_in(root, "d/abs", t);
        make_in(root, "d/up", "../rel/..");
        make_in(root, "dang", "miss/../../x");
        make_in(root, "d/loop", "loop");
        for (int i = 0; i < 45; i++) {
                snprintf(name, sizeof(name), "chain%d", i);
                snprintf(t, sizeof(t), "chain%d", i + 1);
                make_in(root, name, t);
        }
        make_in(root, "chain", "chain0");
        make_in(root, "chain45", "d");
        /* 27 links to d, where hop takes 17 more: too many only after half */
        make_in(root, "half", "chain20");
        make_in(root, "d/hop", "../chain30");
}

TEST(a_scope_resolves_as_the_walk_from_the_root_does)
{
        enum { N = sizeof(resolve_names) / sizeof(*resolve_names) };
        static char paths[N * N * N + N * N + N][256];
        static char *outside[N * N * N + N * N + N];
        char root[64];
        size_t n = 0;
        unsigned seed = 21;

        snprintf(root, sizeof(root), "%s/r", dir);
        ASSERT_OK(mkdir(root, 0755));
        resolve_tree(root);
        for (size_t a = 0; a < N; a++) {
                snprintf(paths[n++], sizeof(paths[0]), "%s/%s", root, resolve_names[a]);
                for (size_t b = 0; b < N; b++) {
                        snprintf(paths[n++], sizeof(paths[0]), "%s/%s/%s", root, resolve_names[a],
                                 resolve_names[b]);
                        for (size_t c = 0; c < N; c++)
                                snprintf(paths[n++], sizeof(paths[0]), "%s/%s/%s/%s", root,
                                         resolve_names[a], resolve_names[b], resolve_names[c]);
                }
        }
        for (size_t i = 0; i < n; i++)
                ASSERT_OK(path_resolve(paths[i], &outside[i]));
        /* deepest first, then in a shuffled order: a path's directory is
         * asked before it, after it, or never */
        for (int round = 0; round < 2; round++) {
                path_cache_begin();
                for (size_t k = 0; k < n; k++) {
                        size_t i = round == 0 ? n - 1 - k : (size_t) rand_r(&seed) % n;
                        cleanup_free char *inside = NULL;

                        ASSERT_OK(path_resolve(paths[i], &inside));
                        if (strcmp(inside, outside[i]) != 0)
                                TAP_FAIL("%s: %s in a scope, %s outside", paths[i], inside,
                                         outside[i]);
                }
                path_cache_end();
        }
        for (size_t i = 0; i < n; i++)
                free(outside[i]);
}

/* The memo keeps part of lstat(2)'s answer (not times or block counts):
 * what it keeps must be the host's, for each kind of name, the first time
 * and when replayed. */
TEST(the_memo_keeps_what_lstat_said)
{
        const char *names[] = {"file", "second", "sub", "link"};
        char p[512];
        int fd;

        make_sub("m");
        fd = open(at("m", "file"), O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, "12345", 5), 5);
        close(fd);
        ASSERT_OK(link(at("m", "file"), at("m", "second")));
        snprintf(p, sizeof(p), "%s/m/sub", dir);
        ASSERT_OK(mkdir(p, 0700));
        ASSERT_OK(symlink("file", at("m", "link")));
        path_cache_begin();
        for (int round = 0; round < 2; round++) {
                for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
                        struct stat want, got;

                        ASSERT_OK(lstat(at("m", names[i]), &want));
                        ASSERT_OK(path_lstat(at("m", names[i]), &got));
                        ASSERT_EQ(got.st_dev, want.st_dev);
                        ASSERT_EQ(got.st_ino, want.st_ino);
                        ASSERT_EQ(got.st_mode, want.st_mode);
                        ASSERT_EQ(got.st_nlink, want.st_nlink);
                        ASSERT_EQ(got.st_uid, want.st_uid);
                        ASSERT_EQ(got.st_gid, want.st_gid);
                        ASSERT_EQ(got.st_size, want.st_size);
                        ASSERT_EQ(got.st_rdev, want.st_rdev);
                }
        }
        {
                struct stat want, got;

                /* a device's number; and stat(2) follows the link */
                ASSERT_OK(lstat("/dev/null", &want));
                ASSERT_OK(path_lstat("/dev/null", &got));
                ASSERT_EQ(got.st_rdev, want.st_rdev);
                ASSERT_TRUE(S_ISCHR(got.st_mode));
                ASSERT_OK(path_stat(at("m", "link"), &got));
                ASSERT_OK(lstat(at("m", "file"), &want));
                ASSERT_EQ(got.st_ino, want.st_ino);
                ASSERT_EQ(got.st_nlink, 2);
        }
        path_cache_end();
}

/* access(2) is asked once per mode in a scope, and replayed. */
TEST(access_is_replayed_inside_a_scope)
{
        make_sub("n");
        ASSERT_OK(chmod(at("n", "present"), 0644));
        path_cache_begin();
        ASSERT_TRUE(path_access(at("n", "present"), X_OK) < 0 && errno == EACCES);
        ASSERT_OK(path_access(at("n", "present"), F_OK));
        ASSERT_OK(chmod(at("n", "present"), 0755));
        ASSERT_TRUE(path_access(at("n", "present"), X_OK) < 0 && errno == EACCES);
        path_cache_end();
        ASSERT_OK(path_access(at("n", "present"), X_OK));
}

/* A link's text: read once inside a scope (a link replaced there is
 * still the first one's text, as every answer of a scope is the host as
 * it was), the host's own outside one and in the next scope; a file is no
 * link (EINVAL) and a missing name is missing (ENOENT), in and out; a
 * short buffer gets the first bytes, as readlink(2) gives them. */
TEST(readlink_is_replayed_inside_a_scope)
{
        char link[512], buf[64];
        ssize_t n;

        make_sub("rl");
        snprintf(link, sizeof(link), "%s/rl/link", dir);
        ASSERT_OK(symlink("first-target", link));
        path_cache_begin();
        n = path_readlink(link, buf, sizeof(buf));
        ASSERT_EQ(n, 12);
        ASSERT_TRUE(memcmp(buf, "first-target", 12) == 0);
        ASSERT_OK(unlink(link));
        ASSERT_OK(symlink("second", link));
        n = path_readlink(link, buf, sizeof(buf));
        ASSERT_EQ(n, 12);
        ASSERT_TRUE(memcmp(buf, "first-target", 12) == 0);
        ASSERT_EQ(path_readlink(link, buf, 5), 5);
        ASSERT_TRUE(memcmp(buf, "first", 5) == 0);
        ASSERT_TRUE(path_readlink(at("rl", "present"), buf, sizeof(buf)) < 0 && errno == EINVAL);
        ASSERT_TRUE(path_readlink(at("rl", "absent"), buf, sizeof(buf)) < 0 && errno == ENOENT);
        path_cache_end();
        n = path_readlink(link, buf, sizeof(buf));
        ASSERT_EQ(n, 6);
        ASSERT_TRUE(memcmp(buf, "second", 6) == 0);
        ASSERT_TRUE(path_readlink(at("rl", "present"), buf, sizeof(buf)) < 0 && errno == EINVAL);
        ASSERT_TRUE(path_readlink(at("rl", "absent"), buf, sizeof(buf)) < 0 && errno == ENOENT);
        path_cache_begin();
        n = path_readlink(link, buf, sizeof(buf));
        path_cache_end();
        ASSERT_EQ(n, 6);
        ASSERT_TRUE(memcmp(buf, "second", 6) == 0);
}

/* A directory replaced by a symlink between two scopes: the second scope
 * must see the link (and follow it), never the directory the first one
 * memoised; inside one scope a name resolved beneath a link lands where
 * the link points. */
TEST(a_symlink_where_a_directory_was)
{
        cleanup_free char *before = NULL, *after = NULL, *again = NULL;
        char inner[512], elsewhere[512];
        mode_t t = 0;

        make_sub("o");
        snprintf(inner, sizeof(inner), "%s/o/inner", dir);
        snprintf(elsewhere, sizeof(elsewhere), "%s/o/elsewhere", dir);
        ASSERT_OK(mkdir(inner, 0755));
        ASSERT_OK(mkdir(elsewhere, 0755));
        path_cache_begin();
        ASSERT_OK(path_resolve(at("o", "inner/secret"), &before));
        ASSERT_STREQ(before, at("o", "inner/secret"));
        ASSERT_OK(path_type(inner, &t));
        ASSERT_EQ(t, S_IFDIR);
        path_cache_end();
        ASSERT_OK(rmdir(inner));
        ASSERT_OK(symlink("elsewhere", inner));
        path_cache_begin();
        ASSERT_OK(path_resolve(at("o", "inner/secret"), &after));
        ASSERT_STREQ(after, at("o", "elsewhere/secret"));
        ASSERT_OK(path_type(inner, &t));
        ASSERT_EQ(t, S_IFLNK);
        /* the answer beneath the link is replayed, not rebuilt as the key */
        ASSERT_OK(path_resolve(at("o", "inner/secret"), &again));
        ASSERT_STREQ(again, at("o", "elsewhere/secret"));
        path_cache_end();
}

/* path_resolve_changed(): NULL exactly when the answer is the path as
 * given, inside a scope and outside one; otherwise path_resolve()'s. */
TEST(resolve_changed_says_null_for_the_same_path)
{
        char link[512], unclean[512];

        make_sub("q");
        snprintf(link, sizeof(link), "%s/q/link", dir);
        ASSERT_OK(symlink("present", link));
        snprintf(unclean, sizeof(unclean), "%s/q/./present", dir);
        for (int scope = 0; scope < 2; scope++) {
                cleanup_free char *same = NULL, *moved = NULL, *cleaned = NULL, *missing = NULL;

                if (scope)
                        path_cache_begin();
                same = (char *) 1;
                ASSERT_OK(path_resolve_changed(at("q", "present"), &same));
                ASSERT_TRUE(same == NULL);
                ASSERT_OK(path_resolve_changed(at("q", "nothing/here"), &missing));
                ASSERT_TRUE(missing == NULL);
                ASSERT_OK(path_resolve_changed(link, &moved));
                ASSERT_TRUE(moved != NULL);
                ASSERT_STREQ(moved, at("q", "present"));
                ASSERT_OK(path_resolve_changed(unclean, &cleaned));
                ASSERT_TRUE(cleaned != NULL);
                ASSERT_STREQ(cleaned, at("q", "present"));
                if (scope)
                        path_cache_end();
        }
}

/* path_clean() hands back a path path_is_clean() vouches for as it is: the two must agree with
 * the full clean on every spelling of '/', '.' and a name up to seven bytes (exactly for an
 * absolute path).  A trailing slash takes the full clean (it is never clean) and changes
 * nothing else. */
TEST(path_is_clean_agrees_with_path_clean)
{
        static const char alphabet[] = "/.a";
        char s[9];

        for (size_t len = 1; len <= 7; len++) {
                size_t total = 1;

                for (size_t k = 0; k < len; k++)
                        total *= 3;
                for (size_t v = 0; v < total; v++) {
                        cleanup_free char *full = NULL, *fast = NULL;
                        size_t x = v;

                        for (size_t k = 0; k < len; k++, x /= 3)
                                s[k] = alphabet[x % 3];
                        s[len] = '/';
                        s[len + 1] = '\0';
                        full = path_clean(s);
                        s[len] = '\0';
                        fast = path_clean(s);
                        ASSERT_TRUE(full && fast);
                        /* a leading ".." of a relative path is left to the full clean */
                        if (strcmp(full, fast) != 0 ||
                            (path_is_clean(s, len) && strcmp(full, s) != 0) ||
                            (!path_is_clean(s, len) && strcmp(full, s) == 0 && s[0] == '/'))
                                TAP_FAIL("\"%s\": clean \"%s\", \"%s\" by the fast path, %s", s,
                                         full, fast, path_is_clean(s, len) ? "clean" : "not clean");
                }
        }
}

TEST(cleanup)
{
        char cmd[600];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        ASSERT_EQ(system(cmd), 0);
}

TAP_MAIN()
