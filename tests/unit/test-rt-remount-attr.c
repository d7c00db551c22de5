/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/mount/remount-attr.c: a bind remount said as one mount_setattr.
 * First what MS_* flags become (attributes set, cleared, the access-time
 * mode), then, in a private mount namespace when this process may make
 * one, that the kernel leaves a mount with the same flags either way: the
 * mount_setattr form against MS_REMOUNT | MS_BIND with the flags statvfs
 * reports added (what rt_remount_bind did before, keeping locked flags),
 * and against a plain MS_REMOUNT | MS_BIND (which clears what is not named).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "mount/options.h"
#include "mount/remount-attr.h"
#include "tap.h"

#define BOOL_ATTRS                                                                                 \
        (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |            \
         MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW)

TEST(kept_flags_are_only_added)
{
        struct mount_attr a = rt_remount_attr(MS_RDONLY | MS_NOSUID | MS_NODEV, true);

        ASSERT_EQ(a.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        ASSERT_EQ(a.attr_clr, 0); /* nothing the mount has is taken away */
        a = rt_remount_attr(0, true);
        ASSERT_EQ(a.attr_set, 0);
        ASSERT_EQ(a.attr_clr, 0);
}

TEST(kept_flags_with_an_access_time_mode_named)
{
        struct mount_attr a = rt_remount_attr(MS_RDONLY | MS_NOATIME, true);

        ASSERT_EQ(a.attr_set, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOATIME);
        ASSERT_EQ(a.attr_clr, MOUNT_ATTR__ATIME);
        a = rt_remount_attr(MS_RELATIME, true);
        ASSERT_EQ(a.attr_set, MOUNT_ATTR_RELATIME);
        ASSERT_EQ(a.attr_clr, MOUNT_ATTR__ATIME);
        /* strictatime wins over noatime, as in mount(2) */
        a = rt_remount_attr(MS_NOATIME | MS_STRICTATIME, true);
        ASSERT_EQ(a.attr_set, MOUNT_ATTR_STRICTATIME);
        ASSERT_EQ(a.attr_clr, MOUNT_ATTR__ATIME);
}

TEST(replaced_flags_clear_what_is_not_named)
{
        struct mount_attr a = rt_remount_attr(MS_NOEXEC, false);

        /* no access-time word: the mode and nodiratime are carried over */
        ASSERT_EQ(a.attr_set, MOUNT_ATTR_NOEXEC);
        ASSERT_EQ(a.attr_clr, BOOL_ATTRS & ~(MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODIRATIME));
        a = rt_remount_attr(MS_NOSYMFOLLOW | MS_NOATIME, false);
        ASSERT_EQ(a.attr_set, MOUNT_ATTR_NOSYMFOLLOW | MOUNT_ATTR_NOATIME);
        ASSERT_EQ(a.attr_clr, (BOOL_ATTRS & ~MOUNT_ATTR_NOSYMFOLLOW) | MOUNT_ATTR__ATIME);
        /* nodiratime alone counts as an access-time word: relatime */
        a = rt_remount_attr(MS_NODIRATIME, false);
        ASSERT_EQ(a.attr_set, MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_RELATIME);
        ASSERT_EQ(a.attr_clr, (BOOL_ATTRS & ~MOUNT_ATTR_NODIRATIME) | MOUNT_ATTR__ATIME);
        /* flags that are not per-mount say nothing */
        a = rt_remount_attr(MS_BIND | MS_REC | MS_REMOUNT, false);
        ASSERT_EQ(a.attr_set, 0);
        ASSERT_EQ(a.attr_clr, BOOL_ATTRS & ~MOUNT_ATTR_NODIRATIME);
}

/* ---- against the kernel ---- */

static char dir[PATH_MAX]; /* a tmpfs is mounted here for each case */
static bool have_ns;

TEST(a_private_mount_namespace)
{
        snprintf(dir, sizeof(dir), "%s/rt-remount-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        /* not root, or no mount namespaces here: only the cases above run */
        have_ns =
            unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
        if (!have_ns)
                printf("# no private mount namespace (%s): kernel cases not run\n",
                       strerror(errno));
}

/* A fresh tmpfs at dir with flags; the ST_* flags it has after fn. */
static unsigned long after(unsigned long initial, int (*fn)(unsigned long, bool),
                           unsigned long flags, bool keep)
{
        struct statvfs sv;
        int r;

        if (mount("tmpfs", dir, "tmpfs", initial, "size=64k") < 0)
                return ~0UL;
        r = fn(flags, keep);
        if (r < 0 || statvfs(dir, &sv) < 0)
                sv.f_flag = ~0UL;
        (void) umount2(dir, MNT_DETACH);
        return sv.f_flag;
}

static int by_setattr(unsigned long flags, bool keep)
{
        cleanup_close int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : rt_remount_by_setattr(fd, flags, keep);
}

/* rt_remount_bind's mount(2) way, first try */
static int by_mount(unsigned long flags, bool keep)
{
        struct statvfs sv;

        if (keep) {
                if (statvfs(dir, &sv) < 0)
                        return -errno;
                if (!(flags & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)))
                        flags |= rt_statvfs_to_ms(sv.f_flag);
                else
                        flags |= rt_statvfs_to_ms(sv.f_flag) &
                                 ~(unsigned long) (MS_NOATIME | MS_RELATIME | MS_STRICTATIME);
        }
        return mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0 ? -errno : 0;
}

#define SAME_EITHER_WAY(initial, flags, keep)                                                      \
        do {                                                                                       \
                unsigned long s_ = after(initial, by_setattr, flags, keep);                        \
                unsigned long m_ = after(initial, by_mount, flags, keep);                          \
                ASSERT_TRUE(s_ != ~0UL);                                                           \
                ASSERT_EQ(s_, m_);                                                                 \
        } while (0)

TEST(the_kernel_leaves_the_same_flags_either_way)
{
        if (!have_ns)
                return;
        /* keeping: a read-only remount keeps nosuid, nodev, noatime */
        SAME_EITHER_WAY(MS_NOSUID | MS_NODEV | MS_NOATIME, MS_RDONLY, true);
        SAME_EITHER_WAY(MS_NOSUID | MS_NOEXEC, MS_RDONLY | MS_NODEV, true);
        SAME_EITHER_WAY(MS_RDONLY | MS_NOSUID, MS_RELATIME, true);
        SAME_EITHER_WAY(MS_NOSUID | MS_NOATIME, MS_RDONLY | MS_RELATIME, true);
        SAME_EITHER_WAY(MS_NODIRATIME, MS_NOSUID | MS_NOSYMFOLLOW, true);
        SAME_EITHER_WAY(MS_STRICTATIME, MS_NOEXEC | MS_NOATIME, true);
        /* replacing: what is not named goes, the access time as mount(2) says */
        SAME_EITHER_WAY(MS_NOSUID | MS_NODEV | MS_NOATIME, MS_RDONLY, false);
        SAME_EITHER_WAY(MS_NOSUID | MS_NODIRATIME | MS_NOATIME, MS_RDONLY, false);
        SAME_EITHER_WAY(MS_STRICTATIME, MS_NOSUID, false);
        SAME_EITHER_WAY(MS_RDONLY | MS_NOEXEC, MS_NOSUID | MS_STRICTATIME, false);
        SAME_EITHER_WAY(MS_NOSUID, MS_NODIRATIME | MS_NOATIME, false);
        SAME_EITHER_WAY(MS_NOATIME, MS_NODIRATIME, false);
        SAME_EITHER_WAY(MS_NOSYMFOLLOW | MS_NOATIME, MS_RELATIME, false);
}

TEST(kept_means_kept)
{
        unsigned long f;

        if (!have_ns)
                return;
        f = after(MS_NOSUID | MS_NODEV | MS_NOEXEC, by_setattr, MS_RDONLY, true);
        ASSERT_EQ(f & (ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC),
                  ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC);
        f = after(MS_NOSUID | MS_NODEV | MS_NOEXEC, by_setattr, MS_RDONLY, false);
        ASSERT_EQ(f & (ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC), ST_RDONLY);
        /* a mount that is not there is refused, not remounted elsewhere */
        ASSERT_EQ(rt_remount_by_setattr(-1, MS_RDONLY, true), -EBADF);
        /* strictatime stays strictatime (no ST_ word: neither relatime nor
         * noatime) where the mount(2) way, seeing nodiratime, made it
         * relatime */
        f = after(MS_STRICTATIME | MS_NODIRATIME, by_setattr, MS_RDONLY, true);
        ASSERT_EQ(f & (ST_RDONLY | ST_NODIRATIME | ST_RELATIME | ST_NOATIME),
                  ST_RDONLY | ST_NODIRATIME);
        f = after(MS_STRICTATIME | MS_NODIRATIME, by_mount, MS_RDONLY, true);
        ASSERT_EQ(f & (ST_RELATIME | ST_NOATIME), ST_RELATIME);
}

TEST(cleanup)
{
        ASSERT_OK(rmdir(dir));
}

TAP_MAIN()
