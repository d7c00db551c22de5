/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Verifying mount sources and destinations against the identities a bento
 * bundle recorded (verify.h).
 */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "util.h"

int rt_mount_identities(const struct oci_config *cfg, struct bento_mount_identity **ret,
                        struct bento_err *err)
{
        const char *text = oci_config_annotation(cfg, BENTO_MOUNT_IDENTITY_ANNOTATION);

        *ret = NULL;
        if (!text)
                return 0;
        return bento_mount_identity_parse(text, cfg->n_mounts, ret, err);
}

static bool is_recorded(const struct stat *st, const struct bento_mount_identity *id)
{
        return (uint64_t) st->st_dev == id->dev && (uint64_t) st->st_ino == id->ino;
}

/* The statx behind it also notes t's mount for rt_target_reopen. */
static bool same_object(struct rt_target *t, const struct bento_mount_identity *id, struct stat *st)
{
        return rt_target_stat(t, st) == 0 && is_recorded(st, id);
}

static int changed(const char *what, const char *path, const struct bento_mount_identity *id,
                   const struct stat *st, struct bento_err *err)
{
        return bento_err_setx(err, EXDEV,
                              "%s %s is not what bento checked: it was device %llu inode %llu "
                              "when the bundle was made and is device %llu inode %llu now "
                              "(replaced, renamed or relinked since); refusing to mount it. "
                              "Check what changed, then translate the manifest again",
                              what, path, (unsigned long long) id->dev,
                              (unsigned long long) id->ino, (unsigned long long) st->st_dev,
                              (unsigned long long) st->st_ino);
}

int rt_verify_source(const struct stat *st, const struct bento_mount_identity *id,
                     const char *source, struct bento_err *err)
{
        if (!id || id->kind != BENTO_MOUNT_ID_SAME || is_recorded(st, id))
                return 0;
        return changed("bind source", source, id, st, err);
}

/* The last component, created inside the verified parent: a directory or
 * an empty file as flags say.  One that exists already is used as it is,
 * unless it is a symlink (a mount on it would follow it). */
static int create_child(const struct rt_target *parent, const char *name, unsigned int flags,
                        struct rt_target *t, struct bento_err *err)
{
        bool file = flags & RT_SP_MKFILE;
        struct stat st;
        int r;

        if (file) {
                int fd = openat(parent->fd, name,
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
                                    O_CLOEXEC,
                                0644);

                /* made here, exclusively: a new empty file, no link, and
                 * its fd is the mount point as it is */
                if (fd >= 0) {
                        r = rt_target_child_fd(parent, name, fd, t);
                        return r < 0
                                   ? bento_err_set(err, -r, "mount point %s/%s", parent->path, name)
                                   : 0;
                }
                r = -errno;
        } else {
                r = mkdirat(parent->fd, name, 0755) < 0 ? -errno : 0;
        }
        if (r < 0 && r != -EEXIST)
                return bento_err_set(err, -r, "create mount point %s/%s", parent->path, name);
        /* a directory is opened as one (O_DIRECTORY refuses a link or a
         * file), a file is looked at */
        r = rt_target_child(parent, name, file ? 0 : O_DIRECTORY, t);
        if (r < 0 && r != -ENOTDIR)
                return bento_err_set(err, -r, "open mount point %s/%s", parent->path, name);
        if (r < 0 || (file && (rt_target_stat(t, &st) < 0 || S_ISLNK(st.st_mode))))
                return bento_err_setx(err, ELOOP,
                                      "mount point %s is a symlink or not a directory; refusing "
                                      "to mount over it",
                                      t->path);
        return 0;
}

/* Does the directory reached for a recorded mount lie on the host object's
 * file system, beneath a bind of a host path?  Otherwise it is the
 * runtime's own: the rootfs skeleton, or a fresh tmpfs such as /tmp, where
 * the mount point is made as for any bundle.  The walk to it followed no
 * symlink, and a rename cannot move a directory across file systems, so a
 * directory the sandbox swapped in stays on the host's device and is
 * checked. */
static bool on_host(const struct rt_root *root, const struct rt_target *dir, const struct stat *st,
                    const struct bento_mount_identity *id)
{
        uint64_t root_id = root->mnt_id;

        if ((uint64_t) st->st_dev != id->dev)
                return false;
        if (root_id == 0 && rt_fd_mount_id(root->fd, &root_id) < 0)
                return true;
        return !(dir->mnt_noted && root_id == dir->mnt_id);
}

void rt_dest_dir_mounted(struct rt_dest_dir *d, const char *path)
{
        if (d && d->dir.fd >= 0 && rt_path_within(d->dir.path, path))
                rt_dest_dir_done(d);
}

void rt_dest_dir_done(struct rt_dest_dir *d)
{
        rt_target_close(&d->dir);
        d->stat_ok = false;
}

/* The directory dir of a recorded mount point into d: the one d holds when
 * it was resolved from this very path, else looked up (no symlink on the
 * way) and looked at anew. */
static int dest_dir(const struct rt_root *root, const char *dir, struct rt_dest_dir *d)
{
        int r;

        if (d->dir.fd >= 0 && strcmp(d->dir.path, dir) == 0)
                return 0;
        rt_dest_dir_done(d);
        r = rt_safe_resolve(root, dir, RT_SP_MKDIR | RT_SP_NOSYMLINKS, 0, &d->dir);
        /* one statx answers both: where the directory is, and what */
        if (r == 0)
                d->stat_ok = rt_target_stat(&d->dir, &d->st) == 0;
        return r;
}

/* The mount point in a directory on the host object's file system, where
 * the record has its say. */
static int resolve_recorded(const char *dest, const char *name, unsigned int flags,
                            const struct bento_mount_identity *id, struct rt_dest_dir *d,
                            struct rt_target *t, struct bento_err *err)
{
        struct stat st = d->st;
        int r;

        if (id->kind == BENTO_MOUNT_ID_PARENT) {
                if (!is_recorded(&st, id))
                        return changed("the directory of mount point", dest, id, &st, err);
                return create_child(&d->dir, name, flags, t, err);
        }
        /* Recorded as existing, on the host: found, never created. */
        r = rt_target_child(&d->dir, name, 0, t);
        if (r < 0)
                return bento_err_set(
                    err, -r, "mount point %s, which existed when the bundle was made", dest);
        if (!same_object(t, id, &st))
                return changed("mount point", dest, id, &st, err);
        return 0;
}

int rt_resolve_verified_dest(const struct rt_root *root, const char *dest, unsigned int flags,
                             const struct bento_mount_identity *id, struct rt_dest_dir *kept,
                             struct rt_target *t, struct bento_err *err)
{
        cleanup_rt_dest_dir struct rt_dest_dir own = {.dir = {.fd = -1}};
        struct rt_dest_dir *d = kept ? kept : &own;
        char dir[PATH_MAX], name[NAME_MAX + 1];
        int r;

        if (!id || id->kind == BENTO_MOUNT_ID_NONE) {
                r = rt_safe_resolve(root, dest, flags, 0644, t);
                return r < 0 ? bento_err_set(err, -r, "create mount point") : 0;
        }
        /* bento records real paths: a symlink on the way is a change. */
        r = rt_path_split(dest, dir, name);
        if (r == 0)
                r = dest_dir(root, dir, d);
        if (r == -ELOOP)
                return bento_err_setx(err, ELOOP,
                                      "the way to mount point %s now passes through a symlink, "
                                      "which it did not when the bundle was made; refusing to "
                                      "mount there. Check what changed, then translate the "
                                      "manifest again",
                                      dest);
        if (r < 0)
                return bento_err_set(err, -r, "the directory of mount point %s", dest);
        if (!d->stat_ok || !on_host(root, &d->dir, &d->st, id))
                return create_child(&d->dir, name, flags, t, err);
        return resolve_recorded(dest, name, flags, id, d, t, err);
}
