/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resolution inside a root (runtime/base/safe-path.c) and the rule that
 * says which mounts can change what /proc/self/fd names
 * (runtime/mount/util.c).  Each path is resolved twice, by openat2 and by
 * the walk (RT_SP_WALK), and both must name the same object with the same
 * canonical path: a path of plain names takes its path from the names,
 * one with a symlink or dot component from the kernel, and a hostile link
 * (absolute, climbing above the root, looping) never leads out of the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safe-path.h"
#include "mount/util.h"
#include "tap.h"

static char top[PATH_MAX]; /* the test's temporary directory */

/* <top>/root: a/b/file, a/b/dir/, link-rel -> a/b, link-abs -> /a/b,
 * link-up -> ../../../a, loop -> loop, dangling -> missing; and outside the
 * root <top>/secret, which no resolution may reach. */
static void make_tree(void)
{
        char p[PATH_MAX + 64];
        int fd;

        snprintf(top, sizeof(top), "%s/rt-safe-path-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(top))
                abort();
        snprintf(p, sizeof(p), "%s/root", top);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/root/a", top);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/root/a/b", top);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/root/a/b/dir", top);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/root/a/b/file", top);
        fd = open(p, O_CREAT | O_WRONLY, 0644);
        close(fd);
        snprintf(p, sizeof(p), "%s/root/link-rel", top);
        (void) !symlink("a/b", p);
        snprintf(p, sizeof(p), "%s/root/link-abs", top);
        (void) !symlink("/a/b", p);
        snprintf(p, sizeof(p), "%s/root/link-up", top);
        (void) !symlink("../../../a", p);
        snprintf(p, sizeof(p), "%s/root/loop", top);
        (void) !symlink("loop", p);
        snprintf(p, sizeof(p), "%s/root/dangling", top);
        (void) !symlink("missing", p);
        snprintf(p, sizeof(p), "%s/secret", top);
        mkdir(p, 0700);
}

static int open_root(struct rt_root *root)
{
        char p[PATH_MAX + 8];

        snprintf(p, sizeof(p), "%s/root", top);
        return rt_root_open(root, p);
}

static void inode_of(int fd, struct stat *st)
{
        memset(st, 0, sizeof(*st));
        (void) fstat(fd, st);
}

/* Resolve path both ways; expect r, and on success the canonical path want
 * and the same object from both. */
static int both(const char *path, unsigned int flags, int want_r, const char *want)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target a = {.fd = -1}, w = {.fd = -1};
        struct stat sa, sw;
        int ra, rw;

        if (open_root(&root) < 0)
                return -1;
        ra = rt_safe_resolve(&root, path, flags, 0644, &a);
        rw = rt_safe_resolve(&root, path, flags | RT_SP_WALK, 0644, &w);
        if (ra != want_r || rw != want_r) {
                printf("#   %s: openat2 %d, walk %d, want %d\n", path, ra, rw, want_r);
                return -1;
        }
        if (want_r < 0)
                return a.fd == -1 && w.fd == -1 ? 0 : -1;
        inode_of(a.fd, &sa);
        inode_of(w.fd, &sw);
        if (strcmp(a.path, want) != 0 || strcmp(w.path, want) != 0 || sa.st_ino != sw.st_ino ||
            sa.st_dev != sw.st_dev) {
                printf("#   %s: openat2 \"%s\", walk \"%s\", want \"%s\"\n", path, a.path, w.path,
                       want);
                return -1;
        }
        return 0;
}

TEST(plain_names_give_their_own_canonical_path)
{
        make_tree();
        ASSERT_OK(both("/a/b/file", 0, 0, "/a/b/file"));
        ASSERT_OK(both("a//b///dir/", 0, 0, "/a/b/dir"));
        ASSERT_OK(both("/", 0, 0, "/"));
        ASSERT_OK(both("///", 0, 0, "/"));
        ASSERT_OK(both("/a/b/dir", RT_SP_NOSYMLINKS, 0, "/a/b/dir"));
}

TEST(symlinks_are_followed_inside_the_root)
{
        ASSERT_OK(both("/link-rel/file", 0, 0, "/a/b/file"));
        ASSERT_OK(both("/link-abs/dir", 0, 0, "/a/b/dir"));
        ASSERT_OK(both("/link-abs", 0, 0, "/a/b"));
        /* climbing above the root stops at it */
        ASSERT_OK(both("/link-up/b/file", 0, 0, "/a/b/file"));
        ASSERT_OK(both("/../../secret", 0, -ENOENT, NULL));
}

TEST(dot_components_are_resolved_by_the_kernel)
{
        ASSERT_OK(both("/a/./b/../b/dir", 0, 0, "/a/b/dir"));
        ASSERT_OK(both("/a/b/..", 0, 0, "/a"));
        ASSERT_OK(both("/..", 0, 0, "/"));
        ASSERT_OK(both("/a/b/dir/..", RT_SP_NOSYMLINKS, 0, "/a/b"));
}

TEST(a_symlink_is_refused_where_none_is_allowed)
{
        ASSERT_OK(both("/link-rel/file", RT_SP_NOSYMLINKS, -ELOOP, NULL));
        ASSERT_OK(both("/a/../link-abs", RT_SP_NOSYMLINKS, -ELOOP, NULL));
        ASSERT_OK(both("/loop", 0, -ELOOP, NULL));
        ASSERT_OK(both("/dangling", 0, -ENOENT, NULL));
}

TEST(the_last_link_itself_with_nofollow)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1};
        struct stat st;

        ASSERT_OK(both("/link-abs", RT_SP_NOFOLLOW, 0, "/link-abs"));
        ASSERT_OK(both("/dangling", RT_SP_NOFOLLOW, 0, "/dangling"));
        ASSERT_OK(open_root(&root));
        ASSERT_OK(rt_safe_resolve(&root, "/link-abs", RT_SP_NOFOLLOW, 0, &t));
        inode_of(t.fd, &st);
        ASSERT_TRUE(S_ISLNK(st.st_mode));
}

TEST(missing_components_are_created_only_when_asked)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1};
        struct stat st;

        ASSERT_OK(both("/new/dir", 0, -ENOENT, NULL));
        ASSERT_OK(open_root(&root));
        ASSERT_OK(rt_safe_resolve(&root, "/new//dir/", RT_SP_MKDIR, 0, &t));
        ASSERT_STREQ(t.path, "/new/dir");
        inode_of(t.fd, &st);
        ASSERT_TRUE(S_ISDIR(st.st_mode));
        rt_target_close(&t);
        /* through a link: created where the link leads, inside the root */
        ASSERT_OK(rt_safe_resolve(&root, "/link-abs/made/file", RT_SP_MKFILE, 0600, &t));
        ASSERT_STREQ(t.path, "/a/b/made/file");
        inode_of(t.fd, &st);
        ASSERT_TRUE(S_ISREG(st.st_mode));
        ASSERT_OK(both("/a/b/made/file", 0, 0, "/a/b/made/file"));
}

/* The walk opens a directory it expects with O_DIRECTORY; a file or a link
 * where it expected one is still looked at and answered for. */
TEST(the_walk_meets_files_and_links_where_directories_are_wanted)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1};
        struct stat st;

        ASSERT_OK(both("/a/b/file/x", 0, -ENOTDIR, NULL));
        ASSERT_OK(both("/a/b/file/x", RT_SP_MKDIR, -ENOTDIR, NULL));
        ASSERT_OK(open_root(&root));
        /* an existing file as the last component is used as it is */
        ASSERT_OK(rt_safe_resolve(&root, "/a/b/file", RT_SP_MKDIR | RT_SP_WALK, 0, &t));
        ASSERT_STREQ(t.path, "/a/b/file");
        inode_of(t.fd, &st);
        ASSERT_TRUE(S_ISREG(st.st_mode));
        rt_target_close(&t);
        /* a link as the last component is followed, or refused */
        ASSERT_OK(rt_safe_resolve(&root, "/link-rel", RT_SP_MKDIR | RT_SP_WALK, 0, &t));
        ASSERT_STREQ(t.path, "/a/b");
        rt_target_close(&t);
        ASSERT_EQ(
            rt_safe_resolve(&root, "/link-rel", RT_SP_MKDIR | RT_SP_NOSYMLINKS | RT_SP_WALK, 0, &t),
            -ELOOP);
        ASSERT_EQ(t.fd, -1);
}

TEST(overlong_names_are_refused)
{
        char path[PATH_MAX + 16];
        char name[NAME_MAX + 2];

        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        snprintf(path, sizeof(path), "/a/%s", name);
        ASSERT_OK(both(path, 0, -ENAMETOOLONG, NULL));
}

TEST(mounts_that_may_cover_proc_self_fd)
{
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc/self"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc/self/fd"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc/thread-self"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc/1"));
        ASSERT_TRUE(rt_mount_may_cover_proc_fds("/proc/4242/fd/7"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/proc/kcore"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/proc/sys/kernel"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/proc/12a"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/proc/selfish"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/procfs"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/tmp/proc/self"));
        ASSERT_TRUE(!rt_mount_may_cover_proc_fds("/dev/shm/bento-x/rootfs/proc"));
}

/* The walk stands on the root's own fd while it is at the root (not a
 * copy opened again); what it returns is always an fd of its own, so
 * closing the answer leaves the root usable, also when the answer is the
 * root itself. */
TEST(the_walk_answers_with_its_own_fd_even_at_the_root)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        const char *paths[] = {"/", "/a/..", "/a/b/../../..", "link-up/../..", "/a/b/dir"};
        struct stat st;

        ASSERT_OK(open_root(&root));
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
                struct rt_target t = {.fd = -1};

                ASSERT_OK(rt_safe_resolve(&root, paths[i], RT_SP_WALK, 0, &t));
                ASSERT_TRUE(t.fd >= 0 && t.fd != root.fd);
                rt_target_close(&t);
                ASSERT_OK(fstat(root.fd, &st));
                ASSERT_TRUE(S_ISDIR(st.st_mode));
        }
        ASSERT_OK(both("/a/..", 0, 0, "/"));
        ASSERT_OK(both("/", 0, 0, "/"));
        /* a failed walk leaves the root open too */
        ASSERT_EQ(both("/a/missing/x", 0, -ENOENT, NULL), 0);
        ASSERT_OK(fstat(root.fd, &st));
}

/* An entry created by the caller is named without being opened again; a
 * name too long for a path is refused and the fd given is closed. */
TEST(a_created_entry_is_adopted_as_it_is)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target dir = {.fd = -1}, t = {.fd = -1};
        char name[NAME_MAX + 1];
        struct stat a, b;
        int fd;

        ASSERT_OK(open_root(&root));
        ASSERT_OK(rt_safe_resolve(&root, "/a/b/dir", 0, 0, &dir));
        fd = openat(dir.fd, "made", O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        ASSERT_TRUE(fd >= 0);
        t.mnt_noted = true;
        ASSERT_OK(rt_target_child_fd(&dir, "made", fd, &t));
        ASSERT_EQ(t.fd, fd);
        ASSERT_STREQ(t.path, "/a/b/dir/made");
        ASSERT_TRUE(!t.mnt_noted);
        ASSERT_OK(fstat(t.fd, &a));
        ASSERT_OK(fstatat(dir.fd, "made", &b, AT_SYMLINK_NOFOLLOW));
        ASSERT_EQ(a.st_ino, b.st_ino);
        ASSERT_OK(unlinkat(dir.fd, "made", 0));
        rt_target_close(&t);
        /* a parent path near PATH_MAX: the child's path does not fit */
        memset(name, 'n', NAME_MAX);
        name[NAME_MAX] = '\0';
        for (size_t len = 0; len + 1 + NAME_MAX < PATH_MAX; len += 1 + NAME_MAX) {
                dir.path[len] = '/';
                memcpy(dir.path + len + 1, name, NAME_MAX + 1);
        }
        fd = dup(root.fd);
        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(rt_target_child_fd(&dir, name, fd, &t), -ENAMETOOLONG);
        ASSERT_EQ(t.fd, -1);
        ASSERT_EQ(fcntl(fd, F_GETFD), -1); /* taken and closed */
}

/* rt_target_stat: one statx for what the verification needs and the
 * mount the fd is on, noted for rt_target_reopen; a new fd forgets it. */
TEST(a_target_notes_its_mount_when_looked_at)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1}, link = {.fd = -1};
        struct stat st, want;
        uint64_t id = 0;

        ASSERT_OK(open_root(&root));
        ASSERT_OK(rt_safe_resolve(&root, "/a/b/file", 0, 0, &t));
        ASSERT_TRUE(!t.mnt_noted);
        ASSERT_OK(rt_target_stat(&t, &st));
        inode_of(t.fd, &want);
        ASSERT_TRUE(t.mnt_noted);
        ASSERT_EQ(st.st_dev, want.st_dev);
        ASSERT_EQ(st.st_ino, want.st_ino);
        ASSERT_TRUE(S_ISREG(st.st_mode));
        ASSERT_OK(rt_fd_mount_id(t.fd, &id));
        ASSERT_EQ(t.mnt_id, id);
        /* a link looked at without following it is a link */
        ASSERT_OK(rt_safe_resolve(&root, "/link-rel", RT_SP_NOFOLLOW, 0, &link));
        ASSERT_OK(rt_target_stat(&link, &st));
        ASSERT_TRUE(S_ISLNK(st.st_mode));
        /* whatever names a new fd starts over */
        rt_target_close(&link);
        ASSERT_TRUE(!link.mnt_noted);
        ASSERT_OK(rt_target_child(&t, "x", 0, &link) == -ENOTDIR ? 0 : -1);
        ASSERT_TRUE(!link.mnt_noted);
        ASSERT_OK(rt_target_stat(&t, NULL));
        rt_target_close(&t);
        t.mnt_noted = true;
        ASSERT_EQ(rt_safe_resolve(&root, "/missing", 0, 0, &t), -ENOENT);
        ASSERT_TRUE(!t.mnt_noted);
        t.mnt_noted = true;
        ASSERT_OK(rt_safe_resolve(&root, "/a/b/dir", 0, 0, &t));
        ASSERT_TRUE(!t.mnt_noted);
}

/* With nothing mounted there, reopening finds no new mount and refuses,
 * whether the mount below was noted before or is asked now; a symlink
 * swapped in for the path after it was noted is refused too, and the
 * target keeps the fd it had. */
TEST(reopen_refuses_what_is_not_a_new_mount)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1};
        char from[PATH_MAX + 32], to[PATH_MAX + 32];
        struct stat before, now;
        int fd;

        ASSERT_OK(open_root(&root));
        ASSERT_OK(rt_safe_resolve(&root, "/a/b/dir", 0, 0, &t));
        ASSERT_EQ(rt_target_reopen(&root, &t), -EXDEV);
        ASSERT_TRUE(t.mnt_noted);
        ASSERT_OK(rt_target_stat(&t, &before));
        ASSERT_EQ(rt_target_reopen(&root, &t), -EXDEV);
        snprintf(from, sizeof(from), "%s/root/a/b/dir", top);
        snprintf(to, sizeof(to), "%s/root/a/b/dir-moved", top);
        ASSERT_OK(rename(from, to));
        ASSERT_OK(symlink("/a", from));
        ASSERT_EQ(rt_target_reopen(&root, &t), -ELOOP);
        fd = t.fd;
        inode_of(fd, &now);
        ASSERT_EQ(now.st_ino, before.st_ino);
        ASSERT_OK(unlink(from));
        ASSERT_OK(rename(to, from));
}

TEST(cleanup)
{
        char cmd[PATH_MAX + 16];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        ASSERT_EQ(system(cmd), 0);
}

TAP_MAIN()
