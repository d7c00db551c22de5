/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The directory of recorded mount points kept open between mounts
 * (runtime/mount/verify.c, struct rt_dest_dir): the next mount point in the
 * same directory is made there without looking the directory up again; a
 * mount on the directory or above it forgets it, one below it does not; a
 * mount point elsewhere replaces it; a missing directory is made; and once
 * forgotten, what the path leads to now is what is used, a symlink there
 * refused with the message for a changed path.
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
#include "mount/verify.h"
#include "tap.h"

static char top[] = "/tmp/bento-rt-dest-dir-XXXXXX";
static struct rt_root root = {.fd = -1};
/* a record of the parent: the walk to it must follow no symlink */
static const struct bento_mount_identity parent_id = {.kind = BENTO_MOUNT_ID_PARENT};

static int dest(const char *path, struct rt_dest_dir *kept, struct bento_err *err)
{
        struct rt_target t = {.fd = -1};
        int r;

        bento_err_clear(err);
        r = rt_resolve_verified_dest(&root, path, RT_SP_MKDIR, &parent_id, kept, &t, err);
        rt_target_close(&t);
        return r;
}

static bool exists_at(const char *rel)
{
        char p[PATH_MAX];
        struct stat st;

        snprintf(p, sizeof(p), "%s/%s", top, rel);
        return lstat(p, &st) == 0;
}

static int at(const char *rel, char *out)
{
        return snprintf(out, PATH_MAX, "%s/%s", top, rel) < PATH_MAX ? 0 : -1;
}

TEST(the_next_mount_point_in_the_same_directory_uses_it)
{
        struct rt_dest_dir kept = {.dir = {.fd = -1}};
        struct bento_err err;
        int fd;

        ASSERT_OK(dest("/etc/one", &kept, &err));
        ASSERT_STREQ(kept.dir.path, "/etc");
        fd = kept.dir.fd;
        ASSERT_TRUE(fd >= 0 && kept.stat_ok && S_ISDIR(kept.st.st_mode));
        ASSERT_OK(dest("/etc/two", &kept, &err));
        ASSERT_EQ(kept.dir.fd, fd);
        ASSERT_TRUE(exists_at("etc/one") && exists_at("etc/two"));
        /* a mount below it leaves it; one elsewhere too */
        rt_dest_dir_mounted(&kept, "/etc/one");
        rt_dest_dir_mounted(&kept, "/et");
        rt_dest_dir_mounted(&kept, "/usr");
        ASSERT_EQ(kept.dir.fd, fd);
        /* another directory replaces it, made when missing */
        ASSERT_OK(dest("/usr/lib/x", &kept, &err));
        ASSERT_STREQ(kept.dir.path, "/usr/lib");
        ASSERT_TRUE(exists_at("usr/lib/x"));
        rt_dest_dir_done(&kept);
        ASSERT_EQ(kept.dir.fd, -1);
        rt_dest_dir_done(&kept); /* twice is fine */
}

TEST(a_mount_on_it_or_above_forgets_it)
{
        const char *covering[] = {"/home/u", "/home", "/"};

        for (size_t i = 0; i < sizeof(covering) / sizeof(covering[0]); i++) {
                struct rt_dest_dir kept = {.dir = {.fd = -1}};
                struct bento_err err;

                ASSERT_OK(dest("/home/u/.aws", &kept, &err));
                ASSERT_TRUE(kept.dir.fd >= 0);
                rt_dest_dir_mounted(&kept, covering[i]);
                ASSERT_EQ(kept.dir.fd, -1);
                ASSERT_TRUE(!kept.stat_ok);
        }
}

/* While kept, the directory is the one resolved, wherever it was renamed
 * to (the mount is found again by path afterwards, which fails then);
 * once forgotten, the path is followed again, and a symlink now on it is
 * refused as a change. */
TEST(renamed_then_replaced_by_a_symlink)
{
        struct rt_dest_dir kept = {.dir = {.fd = -1}};
        char from[PATH_MAX], to[PATH_MAX], elsewhere[PATH_MAX];
        struct bento_err err;

        ASSERT_OK(dest("/w/d/first", &kept, &err));
        ASSERT_OK(at("w/d", from));
        ASSERT_OK(at("w/moved", to));
        ASSERT_OK(rename(from, to));
        ASSERT_OK(dest("/w/d/second", &kept, &err));
        ASSERT_TRUE(exists_at("w/moved/second") && !exists_at("w/d"));
        /* a mount at the path: forgotten, and the path is what counts */
        rt_dest_dir_mounted(&kept, "/w/d");
        ASSERT_OK(at("elsewhere", elsewhere));
        ASSERT_OK(mkdir(elsewhere, 0755));
        ASSERT_OK(symlink(elsewhere, from));
        ASSERT_EQ(dest("/w/d/third", &kept, &err), -ELOOP);
        ASSERT_CONTAINS(err.msg, "now passes through a symlink");
        ASSERT_TRUE(!exists_at("elsewhere/third"));
        ASSERT_EQ(kept.dir.fd, -1);
        rt_dest_dir_done(&kept);
}

TEST(without_a_kept_directory_nothing_is_kept)
{
        struct bento_err err;

        ASSERT_OK(dest("/solo/x", NULL, &err));
        ASSERT_OK(dest("/solo/y", NULL, &err));
        ASSERT_TRUE(exists_at("solo/x") && exists_at("solo/y"));
}

static void remove_top(void)
{
        char cmd[128];

        rt_root_close(&root);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", top);
}

__attribute__((constructor)) static void make_top(void)
{
        if (!mkdtemp(top) || rt_root_open(&root, top) < 0) {
                printf("Bail out! %s\n", top);
                exit(1);
        }
        atexit(remove_top);
}

TAP_MAIN()
