/* SPDX-License-Identifier: Apache-2.0 */
/* mount(2) on resolved targets (see util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "options.h"
#include "remount-attr.h"

#define MS_ATIME_MASK (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

/* Whether /proc/self/fd was a procfs when last asked, and through which
 * root (rt_root.id; 0: not asked since the last mount that could change
 * it).  Only a mount on "/", /proc or a process directory in /proc can
 * change what that path names, so the answer holds for every mount made
 * through the same root until one of those: one statfs per root rather
 * than one per mount.  A new root (the one opened after pivot_root sees the
 * container's /proc, or none) asks again. */
static struct {
        unsigned long root_id;
        bool procfs;
} proc_fds;

static bool proc_fds_usable(const struct rt_root *root)
{
        struct statfs sf;

        if (root->id == 0 || proc_fds.root_id != root->id) {
                proc_fds.procfs =
                    statfs("/proc/self/fd", &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
                proc_fds.root_id = root->id;
        }
        return proc_fds.procfs;
}

/* The /proc entry a path starting at name (after "/proc/") leads into is
 * this process's own, or might be: self, thread-self, a process id. */
static bool names_a_process(const char *name)
{
        size_t n = strcspn(name, "/");

        if ((n == 4 && strncmp(name, "self", 4) == 0) ||
            (n == 11 && strncmp(name, "thread-self", 11) == 0))
                return true;
        return n > 0 && strspn(name, "0123456789") >= n;
}

bool rt_mount_may_cover_proc_fds(const char *abs)
{
        if (rt_path_within("/proc", abs)) /* "/" or /proc itself */
                return true;
        return rt_path_within(abs, "/proc") && names_a_process(abs + strlen("/proc/"));
}

static int absolute_path(const struct rt_root *root, const struct rt_target *t, char *buf)
{
        const char *prefix = root->len == 1 ? "" : root->path;
        int n = snprintf(buf, PATH_MAX, "%s%s", prefix, t->path);

        return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* After something was mounted on t. */
static void proc_fds_mounted_on(const struct rt_root *root, const struct rt_target *t)
{
        char abs[PATH_MAX];

        if (absolute_path(root, t, abs) < 0 || rt_mount_may_cover_proc_fds(abs))
                proc_fds.root_id = 0;
}

int rt_target_mount_path(const struct rt_root *root, const struct rt_target *t, char *buf)
{
        if (proc_fds_usable(root)) {
                rt_fd_path(t->fd, buf, PATH_MAX);
                return 0;
        }
        return absolute_path(root, t, buf);
}

int rt_mount_on(const struct rt_root *root, const struct rt_target *t, const char *src,
                const char *type, unsigned long flags, const char *data)
{
        char buf[PATH_MAX];
        int r = rt_target_mount_path(root, t, buf);

        if (r < 0)
                return r;
        if (mount(src, buf, type, flags, data) < 0)
                return -errno;
        proc_fds_mounted_on(root, t);
        return 0;
}

int rt_bind_fd_on(const struct rt_root *root, const struct rt_target *t, int src_fd, bool recursive)
{
        char src[32];

        return rt_mount_on(root, t, rt_fd_path(src_fd, src, sizeof(src)), NULL,
                           MS_BIND | (recursive ? MS_REC : 0), NULL);
}

int rt_attach_tree_on(const struct rt_root *root, const struct rt_target *t, int tree_fd)
{
        if (move_mount(tree_fd, "", t->fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) <
            0)
                return -errno;
        proc_fds_mounted_on(root, t);
        return 0;
}

static void note_mount(struct rt_target *t, const struct statx *sx)
{
        t->mnt_noted = true;
        t->mnt_known =
            (sx->stx_mask & STATX_MNT_ID) && (sx->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT);
        t->mnt_id = sx->stx_mnt_id;
        t->mnt_root = (sx->stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

int rt_target_stat(struct rt_target *t, struct stat *st)
{
        unsigned int mask = STATX_MNT_ID | (st ? STATX_TYPE | STATX_INO : 0);
        struct statx sx;

        if (statx(t->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, mask, &sx) < 0)
                return -errno;
        note_mount(t, &sx);
        if (st) {
                *st = (struct stat){0};
                st->st_mode = sx.stx_mode;
                st->st_ino = sx.stx_ino;
                st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
        }
        return 0;
}

int rt_fd_mount_id(int fd, uint64_t *id)
{
        struct rt_target t = {.fd = fd}; /* borrowed: not closed here */
        int r = rt_target_stat(&t, NULL);

        *id = t.mnt_id;
        return r;
}

int rt_target_reopen(const struct rt_root *root, struct rt_target *t)
{
        struct rt_target fresh;
        int r;

        /* the mount t->fd is on: noted when t was looked at before the
         * mount (what an open fd names does not move), else asked now */
        r = t->mnt_noted ? 0 : rt_target_stat(t, NULL);
        if (r < 0)
                return r;
        r = rt_safe_resolve(root, t->path, RT_SP_NOSYMLINKS, 0, &fresh);
        if (r < 0)
                return r;
        r = rt_target_stat(&fresh, NULL);
        if (r == 0 && t->mnt_known && fresh.mnt_known &&
            (!fresh.mnt_root || fresh.mnt_id == t->mnt_id))
                r = -EXDEV;
        if (r < 0) {
                rt_target_close(&fresh);
                return r;
        }
        rt_target_close(t);
        t->fd = fresh.fd;
        t->mnt_noted = true;
        t->mnt_known = fresh.mnt_known;
        t->mnt_root = fresh.mnt_root;
        t->mnt_id = fresh.mnt_id;
        return 0;
}

static int remount(const char *path, unsigned long flags)
{
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
                return -errno;
        return 0;
}

int rt_remount_bind(const struct rt_root *root, const struct rt_target *t, unsigned long flags,
                    bool keep_locked)
{
        char path[PATH_MAX];
        struct statvfs sv;
        unsigned long locked, first, second;
        int r = rt_remount_by_setattr(t->fd, flags & RT_MS_PER_MOUNT, keep_locked);

        /* one call where the kernel has mount_setattr; the mount(2) way
         * below only where it cannot say it, or refused a locked flag */
        if (r == 0 || !(r == -ENOSYS || r == -EINVAL || r == -EPERM))
                return r;
        r = rt_target_mount_path(root, t, path);
        if (r < 0)
                return r;
        if (fstatvfs(t->fd, &sv) < 0)
                return -errno;
        locked = rt_statvfs_to_ms(sv.f_flag);
        flags &= RT_MS_PER_MOUNT;
        /* the requested atime mode wins over the current one unless the
         * kernel refuses to change it */
        first = flags;
        if (keep_locked)
                first |= locked & ~((flags & MS_ATIME_MASK) ? MS_ATIME_MASK : 0UL);
        r = remount(path, first);
        if (r != -EPERM)
                return r;
        second = (flags & ~MS_ATIME_MASK) | locked;
        if (second == first)
                return r;
        return remount(path, second);
}

int rt_set_propagation(const struct rt_root *root, const struct rt_target *t,
                       const unsigned long *props, size_t n)
{
        char path[PATH_MAX];
        int r;

        if (n == 0)
                return 0;
        r = rt_target_mount_path(root, t, path);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (mount(NULL, path, NULL, props[i], NULL) < 0)
                        return -errno;
        return 0;
}

int rt_setattr_recursive(const struct rt_target *t, uint64_t set, uint64_t clr)
{
        struct mount_attr attr = {.attr_set = set, .attr_clr = clr};

        if (set == 0 && clr == 0)
                return 0;
        if (mount_setattr(t->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
                return -errno;
        return 0;
}
