/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/fileio.c in a private temporary directory: capped
 * reads, refusal of symlinks and special files, atomic replacement with
 * the requested mode and no leftovers, the durable commit of a temporary
 * file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-fileio-XXXXXX";

static const char *at(const char *name)
{
        static char buf[2][128];
        static int which;

        which ^= 1;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
        return buf[which];
}

static int entries(void)
{
        cleanup_dir DIR *d = opendir(dir);
        struct dirent *e;
        int n = 0;

        while (d && (e = readdir(d)))
                n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
        return n;
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
}

TEST(write_then_read)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        struct stat st;

        ASSERT_OK(bento_write_file_atomic(at("a"), "hello", 5, 0640, &err));
        ASSERT_OK(bento_read_file(at("a"), 100, &data, &len, &err));
        ASSERT_EQ(len, 5);
        ASSERT_STREQ(data, "hello");
        ASSERT_TRUE(stat(at("a"), &st) == 0);
        ASSERT_EQ(st.st_mode & 07777, 0640);
        ASSERT_EQ(entries(), 1); /* no temporary file left */
}

TEST(replace_existing)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        struct stat st;

        ASSERT_OK(bento_write_file_atomic(at("a"), "second version", 14, 0600, &err));
        ASSERT_OK(bento_read_file(at("a"), 100, &data, &len, &err));
        ASSERT_STREQ(data, "second version");
        ASSERT_TRUE(stat(at("a"), &st) == 0);
        ASSERT_EQ(st.st_mode & 07777, 0600);
        ASSERT_OK(bento_write_file_atomic(at("empty"), NULL, 0, 0644, &err));
        free(data);
        data = NULL;
        ASSERT_OK(bento_read_file(at("empty"), 100, &data, &len, &err));
        ASSERT_EQ(len, 0);
        ASSERT_STREQ(data, "");
        unlink(at("empty"));
        ASSERT_EQ(entries(), 1);
}

/* A replacement takes the name only: another hard link keeps the old
 * content, and a directory in the way is refused and left as it was (the
 * names are swapped where the file system can, fileio.c put_in_place()). */
TEST(replace_takes_the_name_only)
{
        cleanup_free char *data = NULL, *other = NULL;
        size_t len = 0;
        struct stat st;
        int n = entries();

        ASSERT_OK(bento_write_file_atomic(at("h"), "old", 3, 0600, &err));
        ASSERT_TRUE(link(at("h"), at("h2")) == 0);
        ASSERT_OK(bento_write_file_atomic(at("h"), "new", 3, 0600, &err));
        ASSERT_OK(bento_read_file(at("h"), 100, &data, &len, &err));
        ASSERT_STREQ(data, "new");
        ASSERT_OK(bento_read_file(at("h2"), 100, &other, &len, &err));
        ASSERT_STREQ(other, "old");
        ASSERT_EQ(entries(), n + 2);
        ASSERT_TRUE(mkdir(at("d"), 0700) == 0);
        ASSERT_OK(bento_write_file_atomic(at("d/inside"), "x", 1, 0600, &err));
        ASSERT_EQ(bento_write_file_atomic(at("d"), "file", 4, 0600, &err), -EISDIR);
        ASSERT_TRUE(lstat(at("d/inside"), &st) == 0 && S_ISREG(st.st_mode));
        ASSERT_TRUE(lstat(at("d"), &st) == 0 && S_ISDIR(st.st_mode));
        ASSERT_EQ(entries(), n + 3); /* no temporary file left */
        unlink(at("d/inside"));
        rmdir(at("d"));
        unlink(at("h"));
        unlink(at("h2"));
}

TEST(size_cap)
{
        char *data = NULL;
        size_t len = 0;

        ASSERT_EQ(bento_read_file(at("a"), 13, &data, &len, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "bytes; the limit is 13 bytes");
        ASSERT_OK(bento_read_file(at("a"), 14, &data, &len, &err));
        ASSERT_EQ(len, 14);
        free(data);
}

TEST(refuses_symlink_fifo_directory)
{
        char *data = NULL;
        size_t len = 0;

        ASSERT_TRUE(symlink(at("a"), at("link")) == 0);
        ASSERT_EQ(bento_read_file(at("link"), 100, &data, &len, &err), -ELOOP);
        ASSERT_CONTAINS(err.msg, "is a symbolic link");
        ASSERT_TRUE(mkfifo(at("fifo"), 0600) == 0);
        ASSERT_EQ(bento_read_file(at("fifo"), 100, &data, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "not a regular file");
        ASSERT_EQ(bento_read_file(dir, 100, &data, &len, &err), -EINVAL);
        ASSERT_EQ(bento_read_file(at("missing"), 100, &data, &len, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "cannot open");
        ASSERT_CONTAINS(err.msg, "missing");
        /* writing over a symlink replaces the link, never its target */
        ASSERT_OK(bento_write_file_atomic(at("link"), "new", 3, 0600, &err));
        ASSERT_OK(bento_read_file(at("a"), 100, &data, &len, &err));
        ASSERT_STREQ(data, "second version");
        free(data);
        unlink(at("link"));
        unlink(at("fifo"));
}

TEST(at_variants)
{
        cleanup_close int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *data = NULL;
        size_t len = 0;

        ASSERT_TRUE(dfd >= 0);
        ASSERT_OK(bento_write_file_atomic_at(dfd, "b", "bee", 3, 0600, &err));
        ASSERT_OK(bento_read_file_at(dfd, "b", 10, &data, &len, &err));
        ASSERT_STREQ(data, "bee");
        ASSERT_EQ(bento_write_file_atomic_at(dfd, "x/y", "", 0, 0600, &err), -EINVAL);
        ASSERT_EQ(bento_write_file_atomic_at(dfd, "..", "", 0, 0600, &err), -EINVAL);
        ASSERT_EQ(bento_write_file_atomic_at(dfd, "", "", 0, 0600, &err), -EINVAL);
        ASSERT_EQ(bento_write_file_atomic(at(""), "", 0, 0600, &err), -EINVAL);
        unlink(at("b"));
}

TEST(temp_names)
{
        ASSERT_TRUE(bento_is_temp_name(".state.json.0123456789ab", "state.json"));
        ASSERT_TRUE(bento_is_temp_name(".config.json.ffffffffffff", "config.json"));
        /* anything else is not ours */
        ASSERT_TRUE(!bento_is_temp_name(".state.json.0123456789ab", "config.json"));
        ASSERT_TRUE(!bento_is_temp_name(".state.json.0123456789a", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name(".state.json.0123456789abc", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name(".state.json.0123456789AB", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name(".state.json.01234567/9ab", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name("state.json.0123456789ab", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name(".state.jsonx0123456789ab", "state.json"));
        ASSERT_TRUE(!bento_is_temp_name("..", "state.json"));
}

TEST(write_failures_name_the_file)
{
        ASSERT_EQ(bento_write_file_atomic(at("nodir/file"), "x", 1, 0600, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "nodir/file");
}

TEST(commit_temp_file)
{
        char tmp[128];
        cleanup_free char *data = NULL;
        const char *step = NULL;
        size_t len = 0;
        struct stat st;
        int fd;

        snprintf(tmp, sizeof(tmp), "%s/.c-XXXXXX", dir);
        fd = mkostemp(tmp, O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        ASSERT_OK(bento_commit_temp_file(fd, tmp, at("c"), "durable", 7, 0640, &step));
        ASSERT_TRUE(step == NULL); /* written only on failure */
        ASSERT_OK(bento_read_file(at("c"), 100, &data, &len, &err));
        ASSERT_STREQ(data, "durable");
        ASSERT_TRUE(stat(at("c"), &st) == 0);
        ASSERT_EQ(st.st_mode & 07777, 0640);
        ASSERT_TRUE(access(tmp, F_OK) < 0);
        /* A rename that cannot happen removes the temporary file. */
        snprintf(tmp, sizeof(tmp), "%s/.c-XXXXXX", dir);
        fd = mkostemp(tmp, O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(bento_commit_temp_file(fd, tmp, at("nodir/c"), "x", 1, 0600, &step), -ENOENT);
        ASSERT_STREQ(step, "rename into place");
        ASSERT_TRUE(access(tmp, F_OK) < 0);
        unlink(at("c"));
        ASSERT_EQ(entries(), 1);
}

TEST(reads_proc_and_pipes)
{
        cleanup_free char *data = NULL;
        cleanup_free char *piped = NULL;
        size_t len = 0;
        int fds[2];

        /* /proc files report size 0; the read must not trust that */
        ASSERT_OK(bento_read_file("/proc/self/stat", 4096, &data, &len, &err));
        ASSERT_TRUE(len > 10);
        ASSERT_TRUE(pipe2(fds, O_CLOEXEC) == 0);
        ASSERT_TRUE(write(fds[1], "piped", 5) == 5);
        close(fds[1]);
        ASSERT_OK(bento_read_fd(fds[0], "pipe", 100, &piped, &len, &err));
        close(fds[0]);
        ASSERT_STREQ(piped, "piped");
}

/* A kernel interface file is written in place, in one piece: never
 * created, never truncated, and with O_NOFOLLOW a symlink is refused. */
TEST(write_value)
{
        cleanup_free char *data = NULL;
        const char *step = NULL;
        size_t len = 0;

        ASSERT_EQ(bento_write_value(at("v"), "1", 0, &step), -ENOENT);
        ASSERT_STREQ(step, "open");
        ASSERT_TRUE(access(at("v"), F_OK) < 0); /* not created */
        ASSERT_OK(bento_write_file_atomic(at("v"), "abcdef", 6, 0600, &err));
        ASSERT_OK(bento_write_value(at("v"), "xyz", 0, NULL));
        ASSERT_OK(bento_read_file(at("v"), 100, &data, &len, &err));
        ASSERT_STREQ(data, "xyzdef"); /* not truncated */
        ASSERT_TRUE(symlink(at("v"), at("vlink")) == 0);
        ASSERT_EQ(bento_write_value(at("vlink"), "1", O_NOFOLLOW, &step), -ELOOP);
        ASSERT_STREQ(step, "open");
        ASSERT_OK(bento_write_value(at("vlink"), "1", 0, NULL));
        /* a write the kernel refuses names the write step */
        ASSERT_EQ(bento_write_value("/proc/self/oom_score_adj", "not a number", 0, &step), -EINVAL);
        ASSERT_STREQ(step, "write");
        ASSERT_OK(unlink(at("vlink")));
        ASSERT_OK(unlink(at("v")));
}

TEST(teardown)
{
        unlink(at("a"));
        unlink(at("vlink"));
        unlink(at("v"));
        ASSERT_OK(rmdir(dir));
}

TAP_MAIN()
