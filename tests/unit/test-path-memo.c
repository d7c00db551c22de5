/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the memo of translate/path.c: inside a path_cache_begin()
 * scope the host's answers are replayed, and after LIST_AFTER_MISSES (4)
 * missing names in one directory the directory is listed once, so that
 * later missing names cost no system call.  A name created after the
 * listing is therefore still "missing" inside the scope (the scope replays
 * the host as it was), which is how these tests see the listing at work;
 * outside the scope every answer is the host's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"
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

TEST(four_misses_list_the_directory)
{
        make_sub("a");
        path_cache_begin();
        for (int i = 0; i < 4; i++) {
                char name[16];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("a", name)), ENOENT);
        }
        touch(at("a", "late"));
        /* answered from the listing made after the fourth miss */
        ASSERT_EQ(lstat_errno(at("a", "late")), ENOENT);
        /* a listed name is still asked of the host, with its real answer */
        ASSERT_EQ(lstat_errno(at("a", "present")), 0);
        path_cache_end();
        ASSERT_EQ(lstat_errno(at("a", "late")), 0);
}

TEST(three_misses_do_not)
{
        make_sub("b");
        path_cache_begin();
        for (int i = 0; i < 3; i++) {
                char name[16];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("b", name)), ENOENT);
        }
        touch(at("b", "late"));
        ASSERT_EQ(lstat_errno(at("b", "late")), 0);
        path_cache_end();
}

TEST(a_directory_too_large_is_not_listed)
{
        make_sub("c");
        for (int i = 0; i < 4100; i++) {
                char name[16];

                snprintf(name, sizeof(name), "f%d", i);
                touch(at("c", name));
        }
        path_cache_begin();
        for (int i = 0; i < 8; i++) {
                char name[16];

                snprintf(name, sizeof(name), "missing%d", i);
                ASSERT_EQ(lstat_errno(at("c", name)), ENOENT);
        }
        touch(at("c", "late"));
        ASSERT_EQ(lstat_errno(at("c", "late")), 0);
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
        for (int i = 0; i < 4; i++) {
                char name[16];

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

TEST(cleanup)
{
        char cmd[600];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        ASSERT_EQ(system(cmd), 0);
}

TAP_MAIN()
