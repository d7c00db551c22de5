/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_dir_cleanup (translate/run/dir.c) removes a run directory whole:
 * nested directories, files, FIFOs, more entries than one getdents64 batch
 * holds, and symlinks, which are removed themselves and never followed (the
 * directory and the file they point to outside stay, with their contents).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"
#include "tap.h"

static char base[] = "/tmp/bento-run-dir-cleanup-XXXXXX";

static const char *at(const char *name)
{
        static char buf[4][512];
        static int which;

        which = (which + 1) % 4;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", base, name);
        return buf[which];
}

static bool exists(const char *name)
{
        struct stat st;

        return lstat(at(name), &st) == 0;
}

static int write_file(const char *name)
{
        int fd = open(at(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

        if (fd < 0 || write(fd, "x", 1) != 1)
                return -1;
        return close(fd);
}

/* The run directory "run" with a bit of everything, and "outside" with
 * what its symlinks point to.  0, or -1 (errno) when it could not be
 * made. */
static int make_tree(void)
{
        char name[128];

        if (!mkdtemp(base))
                return -1;
        if (mkdir(at("outside"), 0700) < 0 || write_file("outside/keep") < 0 ||
            mkdir(at("run"), 0700) < 0 || mkdir(at("run/rootfs"), 0700) < 0 ||
            mkdir(at("run/rootfs/etc"), 0700) < 0 || mkdir(at("run/rootfs/etc/ssl"), 0700) < 0 ||
            mkdir(at("run/rootfs/empty"), 0700) < 0 ||
            write_file("run/rootfs/etc/ld.so.cache") < 0 || write_file("run/report.json") < 0 ||
            mkfifo(at("run/fifo"), 0600) < 0 ||
            symlink(at("outside"), at("run/rootfs/to-dir")) < 0 ||
            symlink(at("outside/keep"), at("run/to-file")) < 0 ||
            symlink("dangling", at("run/dangling")) < 0 || mkdir(at("run/many"), 0700) < 0)
                return -1;
        /* a few getdents64 batches' worth of long names */
        for (int i = 0; i < 300; i++) {
                snprintf(name, sizeof(name),
                         "run/many/%04d-a-name-long-enough-to-fill-a-buffer-soon", i);
                if (i % 3 ? write_file(name) < 0 : mkdir(at(name), 0700) < 0)
                        return -1;
        }
        return 0;
}

TEST(a_run_directory_goes_whole_and_no_symlink_is_followed)
{
        struct run_dir d = {0};

        if (make_tree() < 0)
                TAP_FAIL("cannot make the test tree: %s", strerror(errno));
        d.path = strdup(at("run"));
        ASSERT_TRUE(d.path != NULL);
        run_dir_cleanup(&d);
        ASSERT_TRUE(!exists("run"));
        ASSERT_TRUE(d.path == NULL);
        ASSERT_TRUE(exists("outside"));
        ASSERT_TRUE(exists("outside/keep"));
        (void) unlink(at("outside/keep"));
        (void) rmdir(at("outside"));
        ASSERT_EQ(rmdir(base), 0);
}

TEST(a_run_directory_that_is_gone_already_is_no_error)
{
        struct run_dir d = {0};

        d.path = strdup("/tmp/bento-run-dir-cleanup-never-made");
        ASSERT_TRUE(d.path != NULL);
        run_dir_cleanup(&d);
        ASSERT_TRUE(d.path == NULL);
}

TAP_MAIN()
