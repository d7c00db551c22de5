/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/policy/mount-points.c: the poststop hook's arguments
 * (what is accepted, and that anything else is refused whole), and making
 * and removing points beneath a grant in a private temporary directory:
 * bento removes what it made and nothing the sandbox swapped in, the hook
 * acts on no grant whose root changed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "policy/mount-points.h"
#include "policy/policy.h"
#include "tap.h"

static char dir[] = "/tmp/bento-mount-points-XXXXXX";
static char grant[64], grant_id[48];

static const char *at(const char *name)
{
        static char buf[4][256];
        static int which;

        which = (which + 1) % 4;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
        return buf[which];
}

static bool exists(const char *name)
{
        struct stat st;

        return lstat(at(name), &st) == 0;
}

static int entries(const char *name)
{
        cleanup_dir DIR *d = opendir(at(name));
        struct dirent *e;
        int n = 0;

        while (d && (e = readdir(d)))
                n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
        return n;
}

/* A fresh grant/ and victim/ (an empty config.toml and hooks/). */
static int fresh(void)
{
        char cmd[160];
        struct stat st;
        int fd;

        snprintf(cmd, sizeof(cmd), "rm -rf %s/grant %s/victim", dir, dir);
        if (system(cmd) != 0 || mkdir(at("grant"), 0755) < 0 || mkdir(at("victim"), 0755) < 0 ||
            mkdir(at("victim/hooks"), 0755) < 0 || stat(at("grant"), &st) < 0)
                return -1;
        fd = open(at("victim/config.toml"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                return -1;
        close(fd);
        mount_points_format_id(&(struct bento_ident){st.st_dev, st.st_ino}, grant_id);
        return 0;
}

/* A lock set in the test's own private directory. */
static struct point_locks locks(void)
{
        struct point_locks l = {0};
        struct bento_err err = {0};
        cleanup_close int fd = open(at("locks"), O_PATH | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0 || point_locks_open_at(&l, fd, &err) < 0) {
                printf("Bail out! cannot open the lock directory: %s\n", err.msg);
                exit(1);
        }
        return l;
}

static int parse(struct mount_points *mp, const char *const *argv, size_t n)
{
        struct bento_err err = {0};

        return mount_points_parse(argv, n, mp, &err);
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(grant, sizeof(grant), "%s/grant", dir);
        ASSERT_OK(mkdir(at("locks"), 0700));
}

TEST(parse_takes_groups_per_grant)
{
        struct mount_points mp = {0};
        const char *argv[] = {"--beneath",   "/w/a",      "1:2",  "/w/a/.cargo/config.toml",
                              "/w/a/.cargo", "--beneath", "/w/b", "3:4",
                              "/w/b/.idea"};

        ASSERT_OK(parse(&mp, argv, 9));
        ASSERT_EQ(mp.n, 3);
        ASSERT_STREQ(mp.v[1].grant, "/w/a");
        ASSERT_STREQ(mp.v[2].grant, "/w/b");
        ASSERT_EQ(mp.v[2].grant_id.dev, 3);
        ASSERT_EQ(mp.v[2].grant_id.ino, 4);
        ASSERT_EQ(mp.v[0].state, MOUNT_POINT_UNKNOWN);
        mount_points_done(&mp);
}

/* The arguments are read by the parser every verb uses: --beneath=GRANT
 * is the same group as --beneath GRANT. */
TEST(parse_takes_the_joined_spelling)
{
        struct mount_points mp = {0};
        const char *argv[] = {"--beneath=/w/a", "1:2", "/w/a/.idea"};

        ASSERT_OK(parse(&mp, argv, 3));
        ASSERT_EQ(mp.n, 1);
        ASSERT_STREQ(mp.v[0].grant, "/w/a");
        ASSERT_EQ(mp.v[0].grant_id.ino, 2);
        mount_points_done(&mp);
}

TEST(parse_refuses_anything_else)
{
        static const char *const bad[][4] = {
            {"/w/a/.cargo"},                                /* the old form: no grant */
            {"--beneath", "/w/a", "1:2", "/w/b/.idea"},     /* not beneath the grant */
            {"--beneath", "/w/a", "1:2", "/w/a"},           /* the grant itself */
            {"--beneath", "/w/a", "1:2", "/w/a/../../etc"}, /* not clean */
            {"--beneath", "/w/a", "1:2", "w/a/.idea"},      /* relative */
            {"--beneath", "w/a", "1:2", "w/a/.idea"},       /* relative grant */
            {"--beneath", "/w/a", "1-2", "/w/a/.idea"},     /* no DEV:INO */
            {"--beneath", "/w/a", "1:2x", "/w/a/.idea"},    /* trailing junk */
            {"/w/a/.idea", "--beneath", "/w/a", "1:2"},     /* a path before its group */
            {"--beneath", "/w/a"},                          /* cut short */
            {"--help"},                                     /* data, not a request */
            {"--beneath", "/w/a", "1:2", "--x"},            /* an option it lacks */
            {"--beneath", "/w/a", "--beneath", "1:2"},      /* DEV:INO missing */
        };
        static const size_t n[] = {1, 4, 4, 4, 4, 4, 4, 4, 4, 2, 1, 4, 4};

        for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
                struct mount_points mp = {0};

                if (parse(&mp, bad[i], n[i]) != -EINVAL)
                        TAP_FAIL("case %zu was accepted", i);
                ASSERT_EQ(mp.n, 0);
        }
}

/* What bento run does: make, then remove the very objects.  Point i is
 * rel[i] in the grant in[i] names (NULL: all in grant/). */
static void listed_in(struct mount_points *mp, const char *const *in, const char *const *rel,
                      const bool *is_dir, size_t n)
{
        mp->v = calloc(n, sizeof(*mp->v));
        mp->n = n;
        for (size_t i = 0; i < n; i++) {
                const char *g = in ? at(in[i]) : grant;
                char path[256];
                struct stat st;

                stat(g, &st);
                snprintf(path, sizeof(path), "%s/%s", g, rel[i]);
                mp->v[i] = (struct mount_point){.path = strdup(path),
                                                .grant = strdup(g),
                                                .dir = is_dir[i],
                                                .grant_id = {st.st_dev, st.st_ino}};
        }
}

static void listed(struct mount_points *mp, const char *const *rel, const bool *is_dir, size_t n)
{
        listed_in(mp, NULL, rel, is_dir, n);
}

static const char *const points[] = {".cargo/config.toml", ".cargo/hooks", ".cargo"};
static const bool dirs[] = {false, true, true};

TEST(made_points_are_removed_and_nothing_else)
{
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        listed(&mp, points, dirs, 3);
        ASSERT_OK(mount_points_make(&mp, &l, &err));
        ASSERT_TRUE(exists("grant/.cargo/config.toml") && exists("grant/.cargo/hooks"));
        ASSERT_EQ(mp.v[0].state, MOUNT_POINT_MADE);
        point_locks_release(&l);
        ASSERT_TRUE(!exists("grant/.cargo"));
        ASSERT_EQ(entries("locks"), 0); /* nothing left to record, no lock file */
        mount_points_done(&mp);
}

TEST(an_existing_name_is_not_made_and_not_removed)
{
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        ASSERT_OK(mkdir(at("grant/.cargo"), 0755));
        listed(&mp, points, dirs, 3);
        ASSERT_OK(mount_points_make(&mp, &l, &err));
        ASSERT_EQ(mp.v[2].state, MOUNT_POINT_LISTED);
        ASSERT_EQ(mp.v[0].state, MOUNT_POINT_MADE);
        point_locks_release(&l);
        ASSERT_TRUE(exists("grant/.cargo") && !exists("grant/.cargo/config.toml"));
        mount_points_done(&mp);
}

TEST(make_fails_through_a_symlink)
{
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        ASSERT_OK(symlink(at("victim"), at("grant/.cargo")));
        listed(&mp, points, dirs, 3);
        ASSERT_TRUE(mount_points_make(&mp, &l, &err) < 0);
        ASSERT_CONTAINS(err.msg, "without following a symlink");
        ASSERT_EQ(entries("victim"), 2); /* nothing made there */
        point_locks_release(&l);
        ASSERT_TRUE(exists("victim/config.toml") && exists("victim/hooks"));
        mount_points_done(&mp);
}

TEST(a_swapped_in_symlink_saves_the_victim)
{
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        listed(&mp, points, dirs, 3);
        ASSERT_OK(mount_points_make(&mp, &l, &err));
        ASSERT_OK(rename(at("grant/.cargo"), at("grant/moved")));
        ASSERT_OK(symlink(at("victim"), at("grant/.cargo")));
        point_locks_release(&l);
        ASSERT_TRUE(exists("victim/config.toml") && exists("victim/hooks"));
        ASSERT_TRUE(exists("grant/moved/config.toml"));
        mount_points_done(&mp);
}

/* A grant's root is opened once for all of its points: one replaced
 * after the listing is refused before any point is made, in it or in the
 * directory it was. */
TEST(a_grant_replaced_since_the_listing_gets_no_point)
{
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        listed(&mp, points, dirs, 3);
        ASSERT_OK(rename(at("grant"), at("grant-was")));
        ASSERT_OK(mkdir(at("grant"), 0755));
        ASSERT_TRUE(mount_points_make(&mp, &l, &err) < 0);
        ASSERT_EQ(err.code, ESTALE);
        ASSERT_CONTAINS(err.msg, "cannot create the shield mount point");
        ASSERT_EQ(entries("grant"), 0);
        ASSERT_EQ(entries("grant-was"), 0);
        for (size_t i = 0; i < mp.n; i++)
                ASSERT_EQ(mp.v[i].state, MOUNT_POINT_LISTED);
        point_locks_release(&l);
        mount_points_done(&mp);
        ASSERT_OK(rmdir(at("grant-was")));
}

/* Points of two grants, sorted as mount_points_list() leaves them (by
 * grant, deepest first): each lands in its own grant, and all go. */
TEST(points_of_two_grants_land_in_their_own)
{
        static const char *const rel[] = {".cargo/config.toml", ".cargo", ".idea"};
        static const char *const in[] = {"grant", "grant", "grant2"};
        static const bool is_dir[] = {false, true, true};
        struct mount_points mp = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};

        ASSERT_OK(fresh());
        ASSERT_TRUE(mkdir(at("grant2"), 0755) == 0 || errno == EEXIST);
        listed_in(&mp, in, rel, is_dir, 3);
        ASSERT_OK(mount_points_make(&mp, &l, &err));
        ASSERT_TRUE(exists("grant/.cargo/config.toml") && exists("grant2/.idea"));
        ASSERT_TRUE(!exists("grant/.idea") && !exists("grant2/.cargo"));
        for (size_t i = 0; i < mp.n; i++)
                ASSERT_EQ(mp.v[i].state, MOUNT_POINT_MADE);
        point_locks_release(&l);
        ASSERT_EQ(entries("grant"), 0);
        ASSERT_EQ(entries("grant2"), 0);
        mount_points_done(&mp);
        ASSERT_OK(rmdir(at("grant2")));
}

/* A hold pass over targets of two grants, interleaved, one of them two
 * levels down: every directory on the way is held once (the grant roots,
 * and grant/x), whichever target comes first; with must_exist, every
 * mount point must be there, and one that went away is named. */
TEST(a_hold_pass_holds_each_directory_once_and_finds_what_went_away)
{
        char a[256], b[256], t[4][256];
        const char *keys[2] = {a, b};
        struct shield_mount sm[4] = {0};
        struct policy p = {0};
        struct point_locks l = locks();
        struct bento_err err = {0};
        static const char *const rel[4] = {"grant/.git", "grant2/.idea", "grant/x/y",
                                           "grant/.vscode"};

        ASSERT_OK(fresh());
        ASSERT_TRUE(mkdir(at("grant2"), 0755) == 0 || errno == EEXIST);
        ASSERT_OK(mkdir(at("grant/x"), 0755));
        snprintf(a, sizeof(a), "%s", at("grant"));
        snprintf(b, sizeof(b), "%s", at("grant2"));
        for (size_t i = 0; i < 4; i++) {
                snprintf(t[i], sizeof(t[i]), "%s", at(rel[i]));
                sm[i].path = t[i];
        }
        p.write_keys = keys;
        ASSERT_OK(path_index_init(&p.write_index, keys, 2));
        p.shield_mounts = sm;
        p.n_shield_mounts = 4;
        ASSERT_OK(mount_points_hold(&p, &l, false, &err));
        ASSERT_EQ(l.n, 3);
        ASSERT_OK(mkdir(t[0], 0755));
        ASSERT_OK(mkdir(t[1], 0755));
        ASSERT_OK(mkdir(t[2], 0755));
        ASSERT_OK(mkdir(t[3], 0755));
        ASSERT_OK(mount_points_hold(&p, &l, true, &err));
        ASSERT_EQ(l.n, 3);
        ASSERT_OK(rmdir(t[1]));
        ASSERT_EQ(mount_points_hold(&p, &l, true, &err), -ESTALE);
        ASSERT_CONTAINS(err.msg, t[1]);
        ASSERT_CONTAINS(err.msg, "went away");
        point_locks_release(&l);
        path_index_done(&p.write_index);
        for (size_t i = 0; i < 4; i++)
                rmdir(t[i]);
        ASSERT_OK(rmdir(at("grant/x")));
        ASSERT_OK(rmdir(at("grant2")));
}

/* What the hook does: the names, beneath a grant that must still be it. */
TEST(the_hook_removes_empty_names_beneath_the_same_grant_only)
{
        struct mount_points mp = {0};
        char a[256], b[256];

        ASSERT_OK(fresh());
        ASSERT_OK(mkdir(at("grant/.idea"), 0755));
        ASSERT_OK(symlink(at("victim"), at("grant/.git")));
        snprintf(a, sizeof(a), "%s/.idea", grant);
        snprintf(b, sizeof(b), "%s/.git/hooks", grant);
        {
                const char *argv[] = {"--beneath", grant, "1:1", a, b};

                ASSERT_OK(parse(&mp, argv, 5));
                struct point_locks l = locks();

                mount_points_hand_over(&mp, &l); /* another grant's identity: nothing */
                point_locks_release(&l);
                mount_points_done(&mp);
                ASSERT_TRUE(exists("grant/.idea"));
        }
        {
                const char *argv[] = {"--beneath", grant, grant_id, b, a};

                struct point_locks l = locks();

                ASSERT_OK(parse(&mp, argv, 5));
                mount_points_hand_over(&mp, &l);
                point_locks_release(&l);
                mount_points_done(&mp);
                ASSERT_TRUE(!exists("grant/.idea"));
                ASSERT_TRUE(exists("victim/hooks"));
        }
}

TEST(teardown)
{
        char cmd[64];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ASSERT_OK(system(cmd));
}

TAP_MAIN()
