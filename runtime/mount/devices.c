/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device nodes, /dev symlinks and the /dev/console mount target (see
 * devices.h).  Everything is created relative to a parent directory fd
 * obtained through safe-path, never through a path string that the rootfs
 * could redirect with a symlink.
 */
#include "devices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "util.h"

struct dev_spec {
        const char *path; /* inside the container; also the host node to bind */
        mode_t type;      /* S_IFCHR, S_IFBLK or S_IFIFO */
        dev_t rdev;
        mode_t mode; /* permission bits */
        uid_t uid;
        gid_t gid;
        bool replace; /* a default: bind the host node over whatever is there */
};

static const struct {
        const char *path;
        unsigned int major, minor;
} default_devices[] = {
    {"/dev/null", 1, 3},   {"/dev/zero", 1, 5},    {"/dev/full", 1, 7},
    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
};

static const struct {
        const char *path;
        const char *target;
} dev_links[] = {
    {"/dev/fd", "/proc/self/fd"},       {"/dev/stdin", "/proc/self/fd/0"},
    {"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"},
    {"/dev/ptmx", "pts/ptmx"},
};

/* The directory the last node was made in, kept open for the next one:
 * nearly all of them go to /dev, which is then resolved once. */
struct dev_dir {
        char dir[PATH_MAX];
        struct rt_target t;
};

static void dev_dir_close(struct dev_dir *c)
{
        if (c->t.fd >= 0)
                close(c->t.fd);
        c->t.fd = -1;
}
#define cleanup_dev_dir __attribute__((cleanup(dev_dir_close)))

/* Resolve (creating directories) the parent of path, or take it from the
 * cache when it is the same directory; name gets the last component.  A
 * read-only rootfs without a /dev tmpfs gets a hint. */
static int open_parent(const struct rt_root *root, const char *path, const char *label,
                       struct dev_dir *cache, char *name, struct bento_err *err)
{
        char dir[PATH_MAX];
        int r = rt_path_split(path, dir, name);

        if (r < 0)
                return bento_err_set(err, -r, "%s: bad path", label);
        if (cache->t.fd >= 0 && strcmp(cache->dir, dir) == 0)
                return 0;
        dev_dir_close(cache);
        snprintf(cache->dir, sizeof(cache->dir), "%s", dir);
        r = rt_safe_resolve(root, dir, RT_SP_MKDIR, 0755, &cache->t);
        if (r == -EROFS)
                return bento_err_set(err, -r,
                                     "%s: cannot create %s (the root filesystem is read-only; "
                                     "mount a tmpfs on /dev)",
                                     label, dir);
        if (r < 0)
                return bento_err_set(err, -r, "%s: resolve %s", label, dir);
        return 0;
}

static bool same_node(const struct stat *st, const struct dev_spec *d)
{
        if ((st->st_mode & S_IFMT) != d->type)
                return false;
        return d->type == S_IFIFO || st->st_rdev == d->rdev;
}

static int make_node(const struct rt_target *parent, const char *name, const struct dev_spec *d)
{
        mode_t old = umask(0);
        int r = mknodat(parent->fd, name, d->type | d->mode, d->rdev);

        umask(old);
        if (r < 0)
                return -errno;
        if ((d->uid != 0 || d->gid != 0) &&
            fchownat(parent->fd, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        return 0;
}

/* The empty file a host node is bind-mounted onto: an existing non-directory
 * (found: what the caller's fstatat() found there, NULL for nothing) is used
 * as it is (a symlink is replaced), otherwise an empty file, mounted on
 * through the descriptor that created it.  Whatever appeared since is met
 * by O_EXCL and opened without following a link. */
static int open_mount_target(const struct rt_target *parent, const char *name,
                             const struct stat *found, struct rt_target *t)
{
        int fd;

        if (found) {
                if (S_ISDIR(found->st_mode))
                        return -EISDIR;
                if (S_ISLNK(found->st_mode) && unlinkat(parent->fd, name, 0) < 0)
                        return -errno;
        }
        fd = openat(parent->fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
                return rt_target_child_fd(parent, name, fd, t);
        if (errno != EEXIST)
                return -errno;
        return rt_target_child(parent, name, 0, t);
}

static int bind_host_node(const struct rt_root *root, const struct rt_target *parent,
                          const char *name, const struct stat *found, const struct dev_spec *d,
                          const char *label, struct bento_err *err)
{
        cleanup_rt_target struct rt_target t = {.fd = -1};
        cleanup_close int host = open(d->path, O_PATH | O_CLOEXEC);
        struct stat st;
        int r;

        if (host < 0 || fstat(host, &st) < 0)
                return bento_err_set(err, errno, "%s: open host node %s", label, d->path);
        if (!same_node(&st, d))
                return bento_err_setx(err, ENODEV,
                                      "%s: the host's %s is not the requested device (a user "
                                      "namespace can only bind-mount host devices)",
                                      label, d->path);
        r = open_mount_target(parent, name, found, &t);
        if (r < 0)
                return bento_err_set(err, -r, "%s: create mount point", label);
        r = rt_bind_fd_on(root, &t, host, false);
        if (r < 0)
                return bento_err_set(err, -r, "%s: bind-mount host node", label);
        return 0;
}

static int create_device(const struct rt_context *ctx, const struct rt_root *root,
                         struct dev_dir *cache, const struct dev_spec *d, const char *label,
                         struct bento_err *err)
{
        const struct rt_target *parent = &cache->t;
        char name[NAME_MAX + 1];
        struct stat st;
        int r;

        r = open_parent(root, d->path, label, cache, name, err);
        if (r < 0)
                return r;
        if (fstatat(parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (same_node(&st, d))
                        return 0;
                if (!d->replace)
                        return bento_err_setx(err, EEXIST,
                                              "%s: a different file already exists at %s", label,
                                              d->path);
                return bind_host_node(root, parent, name, &st, d, label, err);
        }
        if (errno != ENOENT)
                return bento_err_set(err, errno, "%s: stat", label);
        if (!ctx->in_userns || d->type == S_IFIFO) {
                r = make_node(parent, name, d);
                if (r == 0)
                        return 0;
                if (r != -EPERM || d->type == S_IFIFO)
                        return bento_err_set(err, -r, "%s: mknod", label);
        }
        return bind_host_node(root, parent, name, NULL, d, label, err);
}

static int create_link(const struct rt_root *root, struct dev_dir *cache, const char *path,
                       const char *target, struct bento_err *err)
{
        const struct rt_target *parent = &cache->t;
        char name[NAME_MAX + 1];
        char cur[PATH_MAX];
        char label[64];
        struct stat st;
        ssize_t n;
        int r;

        snprintf(label, sizeof(label), "symlink %s", path);
        r = open_parent(root, path, label, cache, name, err);
        if (r < 0)
                return r;
        if (symlinkat(target, parent->fd, name) == 0)
                return 0;
        if (errno != EEXIST)
                return bento_err_set(err, errno, "%s", label);
        n = readlinkat(parent->fd, name, cur, sizeof(cur) - 1);
        if (n >= 0 && (size_t) n == strlen(target) && memcmp(cur, target, (size_t) n) == 0)
                return 0;
        if (fstatat(parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                return 0; /* the image knows better; leave its directory alone */
        if (unlinkat(parent->fd, name, 0) < 0 || symlinkat(target, parent->fd, name) < 0)
                return bento_err_set(err, errno, "%s: replace existing file", label);
        return 0;
}

static int create_console(const struct rt_root *root, struct dev_dir *cache, struct bento_err *err)
{
        const struct rt_target *parent = &cache->t;
        char name[NAME_MAX + 1];
        struct stat st;
        int fd, r;

        r = open_parent(root, "/dev/console", "/dev/console", cache, name, err);
        if (r < 0)
                return r;
        if (fstatat(parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISDIR(st.st_mode))
                        return bento_err_setx(err, EISDIR, "/dev/console: is a directory");
                return 0;
        }
        fd = openat(parent->fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
                return bento_err_set(err, errno, "/dev/console: create");
        if (fd >= 0)
                close(fd);
        return 0;
}

static void spec_from_oci(const struct oci_device *o, struct dev_spec *d)
{
        d->path = o->path;
        d->type = o->type == 'b' ? S_IFBLK : o->type == 'p' ? S_IFIFO : S_IFCHR;
        d->rdev =
            d->type == S_IFIFO ? 0 : makedev((unsigned int) o->major, (unsigned int) o->minor);
        d->mode = o->has_file_mode ? (mode_t) (o->file_mode & 07777) : 0666;
        d->uid = o->has_uid ? o->uid : 0;
        d->gid = o->has_gid ? o->gid : 0;
        d->replace = false;
}

static bool listed_in_config(const struct oci_config *cfg, const char *path)
{
        for (size_t i = 0; i < cfg->linux_.n_devices; i++)
                if (strcmp(cfg->linux_.devices[i].path, path) == 0)
                        return true;
        return false;
}

static int create_defaults(const struct rt_context *ctx, const struct rt_root *root,
                           struct dev_dir *cache, struct bento_err *err)
{
        for (size_t i = 0; i < sizeof(default_devices) / sizeof(default_devices[0]); i++) {
                struct dev_spec d = {
                    .path = default_devices[i].path,
                    .type = S_IFCHR,
                    .rdev = makedev(default_devices[i].major, default_devices[i].minor),
                    .mode = 0666,
                    .replace = true,
                };
                char label[64];
                int r;

                if (listed_in_config(ctx->cfg, d.path))
                        continue;
                snprintf(label, sizeof(label), "device %s", d.path);
                r = create_device(ctx, root, cache, &d, label, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A rootfs whose /dev is a symbolic link: the nodes would land wherever it
 * points (inside the root, since every path is resolved beneath it, but not
 * where the image says /dev is), and so would the mounts below /dev: an
 * image that does this is broken or trying something.  Refuse, as crun
 * does, before anything is made. */
int rt_devices_refuse_dev_symlink(const struct rt_root *root, struct bento_err *err)
{
        char target[PATH_MAX];
        ssize_t n = readlinkat(root->fd, "dev", target, sizeof(target) - 1);

        if (n < 0)
                return errno == EINVAL || errno == ENOENT ? 0 : bento_err_set(err, errno, "/dev");
        target[n] = '\0';
        return bento_err_setx(err, ELOOP,
                              "/dev: the root filesystem's /dev is a symbolic link (to \"%s\"); "
                              "refusing to make device nodes through it (make it a directory, or "
                              "mount a tmpfs on /dev)",
                              target);
}

int rt_devices_create(const struct rt_context *ctx, const struct rt_root *root, unsigned int flags,
                      struct bento_err *err)
{
        const struct oci_config *cfg = ctx->cfg;
        cleanup_dev_dir struct dev_dir cache = {.t = {.fd = -1}};
        int r;

        if (flags & RT_DEV_DEFAULTS) {
                r = create_defaults(ctx, root, &cache, err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < cfg->linux_.n_devices; i++) {
                struct dev_spec d;
                char label[PATH_MAX + 32];

                spec_from_oci(&cfg->linux_.devices[i], &d);
                snprintf(label, sizeof(label), "linux.devices[%zu] (%s)", i, d.path);
                r = create_device(ctx, root, &cache, &d, label, err);
                if (r < 0)
                        return r;
        }
        if (flags & RT_DEV_DEFAULTS) {
                for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++) {
                        r = create_link(root, &cache, dev_links[i].path, dev_links[i].target, err);
                        if (r < 0)
                                return r;
                }
        }
        if (cfg->process && cfg->process->terminal)
                return create_console(root, &cache, err);
        return 0;
}

int rt_devices_validate(const struct oci_config *cfg, struct bento_err *err)
{
        for (size_t i = 0; i < cfg->linux_.n_devices; i++) {
                const struct oci_device *d = &cfg->linux_.devices[i];
                char parent[PATH_MAX];
                char name[NAME_MAX + 1];

                if (!strchr("cbup", d->type) || d->type == '\0')
                        return bento_err_setx(err, EINVAL,
                                              "linux.devices[%zu].type: must be c, b, u or p", i);
                if (!d->path || d->path[0] != '/' || rt_path_split(d->path, parent, name) < 0)
                        return bento_err_setx(err, EINVAL,
                                              "linux.devices[%zu].path: must be an absolute path "
                                              "naming a file",
                                              i);
                if (d->type != 'p' && (d->major < 0 || d->minor < 0))
                        return bento_err_setx(err, EINVAL,
                                              "linux.devices[%zu].%s: required for type %c", i,
                                              d->major < 0 ? "major" : "minor", d->type);
                if (d->type != 'p' && (d->major > 0xfff || d->minor > 0xfffff))
                        return bento_err_setx(err, EINVAL,
                                              "linux.devices[%zu]: device number %lld:%lld out of "
                                              "range",
                                              i, (long long) d->major, (long long) d->minor);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(cfg->linux_.devices[j].path, d->path) == 0)
                                return bento_err_setx(err, EINVAL,
                                                      "linux.devices[%zu].path: %s is already "
                                                      "listed at linux.devices[%zu]",
                                                      i, d->path, j);
        }
        return 0;
}
