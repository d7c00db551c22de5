/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/policy/point-locks.c: the record of the shield mount
 * points a run made is read back as hostile, so exactly what
 * point_registry_format() writes is accepted and anything else is refused
 * whole; and two lock sets on one directory (two runs): the first to end
 * leaves its points to the second, which removes them, only while they
 * are still the objects recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "policy/point-locks.h"
#include "tap.h"

static char dir[] = "/tmp/bento-point-locks-XXXXXX";

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

static int parse(const char *text, struct point_registry *r)
{
        struct bento_err err = {0};

        return point_registry_parse(text, strlen(text), r, &err);
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        ASSERT_OK(mkdir(at("locks"), 0700));
        ASSERT_OK(mkdir(at("ws"), 0755));
}

TEST(a_record_reads_back_as_written)
{
        struct point_registry r = {.dir = strdup("/w/a b")}, back = {0};
        cleanup_free char *text = NULL;

        ASSERT_OK(point_registry_add(&r, ".vscode", &(struct bento_ident){1, 2}));
        ASSERT_OK(
            point_registry_add(&r, "config.toml", &(struct bento_ident){0, 18446744073709551615u}));
        ASSERT_OK(point_registry_add(&r, ".vscode", &(struct bento_ident){1, 2})); /* once */
        ASSERT_EQ(r.n, 2);
        text = point_registry_format(&r);
        ASSERT_TRUE(text != NULL);
        ASSERT_STREQ(text, "bento-mount-points 1\ndir /w/a b\npoint 1:2 .vscode\n"
                           "point 0:18446744073709551615 config.toml\n");
        ASSERT_OK(parse(text, &back));
        ASSERT_STREQ(back.dir, "/w/a b");
        ASSERT_EQ(back.n, 2);
        ASSERT_STREQ(back.v[1].name, "config.toml");
        ASSERT_TRUE(back.v[1].id.ino == (ino_t) 18446744073709551615u);
        point_registry_done(&back);
        ASSERT_OK(parse("bento-mount-points 1\ndir /\n", &back)); /* no point yet */
        ASSERT_EQ(back.n, 0);
        point_registry_done(&back);
        point_registry_done(&r);
}

TEST(anything_else_is_refused_whole)
{
        static const char *const bad[] = {
            "",
            "bento-mount-points 2\ndir /w\n",                                 /* another version */
            "bento-mount-points 1\n",                                         /* no dir */
            "bento-mount-points 1\ndir /w",                                   /* no final newline */
            "bento-mount-points 1\ndir w\n",                                  /* relative */
            "bento-mount-points 1\ndir /w/../etc\n",                          /* not clean */
            "bento-mount-points 1\ndir /w/\n",                                /* not clean */
            "bento-mount-points 1\ndir /w\ndir /v\n",                         /* two dirs */
            "bento-mount-points 1\npoint 1:2 x\ndir /w\n",                    /* point first */
            "bento-mount-points 1\ndir /w\npoint 1:2 a/b\n",                  /* not one name */
            "bento-mount-points 1\ndir /w\npoint 1:2 ..\n",                   /* climbs */
            "bento-mount-points 1\ndir /w\npoint 1:2 .\n",                    /* itself */
            "bento-mount-points 1\ndir /w\npoint 1:2 \n",                     /* no name */
            "bento-mount-points 1\ndir /w\npoint 1:2\n",                      /* no name */
            "bento-mount-points 1\ndir /w\npoint -1:2 x\n",                   /* signed */
            "bento-mount-points 1\ndir /w\npoint +1:2 x\n",                   /* signed */
            "bento-mount-points 1\ndir /w\npoint 01:2 x\n",                   /* leading zero */
            "bento-mount-points 1\ndir /w\npoint  1:2 x\n",                   /* two spaces */
            "bento-mount-points 1\ndir /w\npoint 1:2x x\n",                   /* junk in the id */
            "bento-mount-points 1\ndir /w\npoint 1: x\n",                     /* half an id */
            "bento-mount-points 1\ndir /w\npoint 1:18446744073709551616 x\n", /* overflow */
            "bento-mount-points 1\ndir /w\npoint 1:99999999999999999999 x\n", /* overflow */
            "bento-mount-points 1\ndir /w\nremove 1:2 x\n",                   /* unknown line */
            "bento-mount-points 1\ndir /w\n\n",                               /* empty line */
            "bento-mount-points 1\r\ndir /w\n",                               /* CR */
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct point_registry r = {0};

                if (parse(bad[i], &r) != -EINVAL)
                        TAP_FAIL("case %zu was accepted", i);
                ASSERT_TRUE(r.dir == NULL && r.n == 0);
        }
        {
                /* A NUL inside: the length says more than strlen. */
                static const char nul[] = "bento-mount-points 1\ndir /w\npoint 1:2 a\0b\n";
                struct point_registry r = {0};
                struct bento_err err = {0};

                ASSERT_EQ(point_registry_parse(nul, sizeof(nul) - 1, &r, &err), -EINVAL);
        }
}

TEST(a_name_that_cannot_be_recorded_is_refused)
{
        struct point_registry r = {.dir = strdup("/w")};

        ASSERT_EQ(point_registry_add(&r, "a/b", &(struct bento_ident){1, 2}), -EINVAL);
        ASSERT_EQ(point_registry_add(&r, "a\nb", &(struct bento_ident){1, 2}), -EINVAL);
        ASSERT_EQ(point_registry_add(&r, "..", &(struct bento_ident){1, 2}), -EINVAL);
        ASSERT_EQ(r.n, 0);
        point_registry_done(&r);
}

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

/* Make name in ws (a directory) as run l does: held, made, recorded. */
static void make(struct point_locks *l, const char *name, struct bento_ident *id)
{
        cleanup_close int ws = open(at("ws"), O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct bento_err err = {0};

        ASSERT_OK(point_locks_hold(l, ws, at("ws"), &err));
        ASSERT_OK(bento_beneath_make(ws, name, true, 0755, 0, id));
        ASSERT_OK(point_locks_register(l, ws, name, id, &err));
}

TEST(the_last_run_out_removes_the_points)
{
        struct point_locks a = locks(), b = locks();
        cleanup_close int ws = open(at("ws"), O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct bento_err err = {0};
        struct bento_ident id;

        make(&a, ".vscode", &id);
        ASSERT_OK(point_locks_hold(&b, ws, at("ws"), &err)); /* B uses A's .vscode */
        point_locks_release(&a);
        ASSERT_TRUE(exists("ws/.vscode")); /* B still holds the directory */
        ASSERT_EQ(entries("locks"), 2);    /* the lock and A's record */
        point_locks_release(&b);
        ASSERT_TRUE(!exists("ws/.vscode"));
        ASSERT_EQ(entries("locks"), 0);
}

TEST(a_recorded_point_replaced_or_filled_stays)
{
        struct point_locks a = locks(), b = locks();
        cleanup_close int ws = open(at("ws"), O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct bento_err err = {0};
        struct bento_ident id;
        int fd;

        make(&a, ".idea", &id);
        make(&a, ".git", &id);
        ASSERT_OK(point_locks_hold(&b, ws, at("ws"), &err));
        point_locks_release(&a);
        /* while B runs: .idea is swapped for another directory, .git filled */
        ASSERT_OK(rename(at("ws/.idea"), at("ws/idea-moved")));
        ASSERT_OK(mkdir(at("ws/.idea"), 0755));
        fd = open(at("ws/.git/config"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ASSERT_TRUE(fd >= 0);
        close(fd);
        point_locks_release(&b);
        ASSERT_TRUE(exists("ws/.idea") && exists("ws/idea-moved"));
        ASSERT_TRUE(exists("ws/.git/config"));
        ASSERT_EQ(entries("locks"), 2); /* .git kept in B's record, and the lock */
        /* once it is empty again, the next run out removes it */
        ASSERT_OK(unlink(at("ws/.git/config")));
        {
                struct point_locks c = locks();

                ASSERT_OK(point_locks_hold(&c, ws, at("ws"), &err));
                point_locks_release(&c);
        }
        ASSERT_TRUE(!exists("ws/.git"));
        ASSERT_EQ(entries("locks"), 0);
        ASSERT_OK(rmdir(at("ws/.idea")));
        ASSERT_OK(rmdir(at("ws/idea-moved")));
}

TEST(a_forged_record_is_dropped_and_removes_nothing)
{
        struct point_locks a = locks();
        cleanup_close int ws = open(at("ws"), O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct bento_err err = {0};
        struct stat st;
        char name[128], text[512];

        ASSERT_OK(mkdir(at("ws/keep"), 0755));
        ASSERT_OK(fstat(ws, &st));
        ASSERT_OK(point_locks_hold(&a, ws, at("ws"), &err));
        /* a record that does not parse: it names a path, not a name */
        snprintf(name, sizeof(name), "%s/%ju-%ju.1-ab.points", at("locks"), (uintmax_t) st.st_dev,
                 (uintmax_t) st.st_ino);
        snprintf(text, sizeof(text), "bento-mount-points 1\ndir %s\npoint 1:2 ../keep\n", at("ws"));
        {
                FILE *f = fopen(name, "w");

                ASSERT_TRUE(f != NULL);
                fputs(text, f);
                fclose(f);
        }
        point_locks_release(&a);
        ASSERT_TRUE(exists("ws/keep"));
        ASSERT_EQ(entries("locks"), 0); /* dropped, with a note */
        ASSERT_OK(rmdir(at("ws/keep")));
}

TEST(teardown)
{
        char cmd[64];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ASSERT_OK(system(cmd));
}

TAP_MAIN()
