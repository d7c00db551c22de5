/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/beneath.c in a private temporary directory, with
 * openat2 and with the component walk: a "grant" directory the sandbox
 * could change and a "victim" directory outside it.  A symlink anywhere on
 * the way stops every operation, creation never takes an existing name
 * for its own, and removal removes only the object it was given, while
 * empty, and never the victim's files the symlink leads to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "tap.h"

static char dir[] = "/tmp/bento-beneath-XXXXXX";
static const unsigned modes[] = {0, BENTO_BENEATH_WALK};

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

static void touch(const char *name)
{
        int fd = open(at(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

/* A fresh grant/ and victim/ (with an empty file, an empty directory). */
static int fresh(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s/grant %s/victim", dir, dir);
        if (system(cmd) != 0 || mkdir(at("grant"), 0755) < 0 || mkdir(at("victim"), 0755) < 0 ||
            mkdir(at("victim/hooks"), 0755) < 0)
                return -1;
        touch("victim/config.toml");
        return open(at("grant"), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
}

TEST(open_refuses_symlinks_and_climbing)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                int fd;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(mkdir(at("grant/a"), 0755));
                ASSERT_OK(mkdir(at("grant/a/b"), 0755));
                ASSERT_OK(symlink(at("victim"), at("grant/link")));
                ASSERT_OK(symlink("a", at("grant/rel")));
                fd = bento_beneath_open(g, "a/b", modes[m]);
                ASSERT_TRUE(fd >= 0);
                close(fd);
                fd = bento_beneath_open(g, "", modes[m]);
                ASSERT_TRUE(fd >= 0);
                close(fd);
                fd = bento_beneath_open(g, "link", modes[m]);
                ASSERT_TRUE(fd == -ELOOP || fd == -ENOTDIR);
                fd = bento_beneath_open(g, "rel/b", modes[m]); /* even one staying inside */
                ASSERT_TRUE(fd == -ELOOP || fd == -ENOTDIR);
                ASSERT_EQ(bento_beneath_open(g, "a/../../victim", modes[m]), -EINVAL);
                ASSERT_EQ(bento_beneath_open(g, at("victim"), modes[m]), -EINVAL);
                ASSERT_EQ(bento_beneath_open(g, "missing", modes[m]), -ENOENT);
        }
}

TEST(open_abs_refuses_a_symlink_anywhere)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                int fd;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(symlink(at("victim"), at("grant/link")));
                fd = bento_beneath_open_abs(at("grant"), modes[m]);
                ASSERT_TRUE(fd >= 0);
                close(fd);
                fd = bento_beneath_open_abs(at("grant/link"), modes[m]);
                ASSERT_TRUE(fd == -ELOOP || fd == -ENOTDIR);
                ASSERT_EQ(bento_beneath_open_abs("grant", modes[m]), -EINVAL);
        }
}

TEST(make_is_exclusive_and_records_the_object)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                struct bento_ident id = {0};
                struct stat st;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(bento_beneath_make(g, ".cargo", true, 0755, modes[m], &id));
                ASSERT_OK(lstat(at("grant/.cargo"), &st));
                ASSERT_TRUE(S_ISDIR(st.st_mode) && st.st_ino == id.ino && st.st_dev == id.dev);
                ASSERT_OK(bento_beneath_make(g, ".cargo/config.toml", false, 0644, modes[m], &id));
                ASSERT_OK(lstat(at("grant/.cargo/config.toml"), &st));
                ASSERT_TRUE(S_ISREG(st.st_mode) && st.st_size == 0 && st.st_ino == id.ino);
                /* whatever is there already, it is not ours */
                ASSERT_EQ(bento_beneath_make(g, ".cargo", true, 0755, modes[m], NULL), -EEXIST);
                ASSERT_EQ(bento_beneath_make(g, ".cargo/config.toml", false, 0644, modes[m], NULL),
                          -EEXIST);
                ASSERT_OK(symlink(at("victim/new"), at("grant/dangling")));
                ASSERT_EQ(bento_beneath_make(g, "dangling", false, 0644, modes[m], NULL), -EEXIST);
                ASSERT_EQ(bento_beneath_make(g, "dangling", true, 0755, modes[m], NULL), -EEXIST);
                ASSERT_TRUE(!exists("victim/new"));
                ASSERT_EQ(bento_beneath_make(g, "..", true, 0755, modes[m], NULL), -EINVAL);
                ASSERT_EQ(bento_beneath_make(g, "", true, 0755, modes[m], NULL), -EINVAL);
        }
}

/* A name right in dirfd is made in dirfd itself (no second open of it):
 * a trailing slash is dropped, "." refused, and a dirfd that is a
 * symlink (O_PATH|O_NOFOLLOW) or a file makes nothing anywhere. */
TEST(make_right_in_dirfd_makes_nothing_through_a_link_fd)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                cleanup_close int link = -1, file = -1;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(bento_beneath_make(g, ".idea/", true, 0755, modes[m], NULL));
                ASSERT_TRUE(exists("grant/.idea"));
                ASSERT_EQ(bento_beneath_make(g, ".", true, 0755, modes[m], NULL), -EINVAL);
                ASSERT_OK(symlink(at("victim"), at("grant/link")));
                link = open(at("grant/link"), O_PATH | O_NOFOLLOW | O_CLOEXEC);
                ASSERT_TRUE(link >= 0);
                ASSERT_EQ(bento_beneath_make(link, "planted", true, 0755, modes[m], NULL),
                          -ENOTDIR);
                ASSERT_EQ(bento_beneath_make(link, "planted", false, 0644, modes[m], NULL),
                          -ENOTDIR);
                ASSERT_TRUE(!exists("victim/planted"));
                touch("grant/file");
                file = open(at("grant/file"), O_PATH | O_CLOEXEC);
                ASSERT_TRUE(file >= 0);
                ASSERT_EQ(bento_beneath_make(file, "x", true, 0755, modes[m], NULL), -ENOTDIR);
        }
}

TEST(make_does_not_create_through_a_symlinked_parent)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                int r;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(symlink(at("victim"), at("grant/.git")));
                r = bento_beneath_make(g, ".git/config", false, 0644, modes[m], NULL);
                ASSERT_TRUE(r == -ELOOP || r == -ENOTDIR);
                r = bento_beneath_make(g, ".git/info", true, 0755, modes[m], NULL);
                ASSERT_TRUE(r == -ELOOP || r == -ENOTDIR);
                ASSERT_TRUE(!exists("victim/config") && !exists("victim/info"));
        }
}

TEST(remove_takes_only_what_was_made)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                struct bento_ident d, f;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(bento_beneath_make(g, ".cargo", true, 0755, modes[m], &d));
                ASSERT_OK(bento_beneath_make(g, ".cargo/config.toml", false, 0644, modes[m], &f));
                /* the directory first: not empty yet */
                ASSERT_EQ(bento_beneath_remove(g, ".cargo", &d, modes[m]), -ENOTEMPTY);
                ASSERT_OK(bento_beneath_remove(g, ".cargo/config.toml", &f, modes[m]));
                ASSERT_OK(bento_beneath_remove(g, ".cargo", &d, modes[m]));
                ASSERT_TRUE(!exists("grant/.cargo"));
                ASSERT_EQ(bento_beneath_remove(g, ".cargo", &d, modes[m]), -ENOENT);
        }
}

/* The attack: the sandbox renames the directory bento made and puts a
 * symlink to the victim in its place. */
TEST(remove_through_a_swapped_in_symlink_touches_nothing)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                struct bento_ident d, f, h;
                int r;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(bento_beneath_make(g, ".cargo", true, 0755, modes[m], &d));
                ASSERT_OK(bento_beneath_make(g, ".cargo/config.toml", false, 0644, modes[m], &f));
                ASSERT_OK(bento_beneath_make(g, ".cargo/hooks", true, 0755, modes[m], &h));
                ASSERT_OK(rename(at("grant/.cargo"), at("grant/moved")));
                ASSERT_OK(symlink(at("victim"), at("grant/.cargo")));
                r = bento_beneath_remove(g, ".cargo/config.toml", &f, modes[m]);
                ASSERT_TRUE(r == -ELOOP || r == -ENOTDIR);
                r = bento_beneath_remove(g, ".cargo/hooks", NULL, modes[m]);
                ASSERT_TRUE(r == -ELOOP || r == -ENOTDIR);
                ASSERT_EQ(bento_beneath_remove(g, ".cargo", &d, modes[m]), -ESTALE);
                ASSERT_EQ(bento_beneath_remove(g, ".cargo", NULL, modes[m]), -ESTALE);
                ASSERT_TRUE(exists("victim/config.toml") && exists("victim/hooks"));
                ASSERT_TRUE(exists("grant/.cargo") && exists("grant/moved/config.toml"));
        }
}

TEST(remove_leaves_a_replacement_and_what_is_not_empty)
{
        for (size_t m = 0; m < 2; m++) {
                cleanup_close int g = fresh();
                struct bento_ident d, f;

                ASSERT_TRUE(g >= 0);
                ASSERT_OK(bento_beneath_make(g, ".idea", true, 0755, modes[m], &d));
                ASSERT_OK(bento_beneath_make(g, "config", false, 0644, modes[m], &f));
                /* another empty directory, another empty file at the names */
                ASSERT_OK(rename(at("grant/.idea"), at("grant/old")));
                ASSERT_OK(mkdir(at("grant/.idea"), 0755));
                ASSERT_OK(rename(at("grant/config"), at("grant/old/config")));
                touch("grant/config");
                ASSERT_EQ(bento_beneath_remove(g, ".idea", &d, modes[m]), -ESTALE);
                ASSERT_EQ(bento_beneath_remove(g, "config", &f, modes[m]), -ESTALE);
                ASSERT_TRUE(exists("grant/.idea") && exists("grant/config"));
                /* without an identity (the hook): empty goes, content stays */
                ASSERT_OK(bento_beneath_remove(g, ".idea", NULL, modes[m]));
                ASSERT_EQ(bento_beneath_remove(g, "old", NULL, modes[m]), -ENOTEMPTY);
                {
                        int fd = openat(g, "old/config", O_WRONLY | O_CLOEXEC);

                        ASSERT_TRUE(fd >= 0 && write(fd, "x", 1) == 1);
                        close(fd);
                }
                ASSERT_EQ(bento_beneath_remove(g, "old/config", NULL, modes[m]), -ENOTEMPTY);
                ASSERT_OK(mkfifo(at("grant/fifo"), 0600));
                ASSERT_EQ(bento_beneath_remove(g, "fifo", NULL, modes[m]), -ESTALE);
                ASSERT_TRUE(exists("grant/old/config") && exists("grant/fifo"));
        }
}

TEST(teardown)
{
        char cmd[64];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ASSERT_OK(system(cmd));
}

TAP_MAIN()
