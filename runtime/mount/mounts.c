/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's filesystem view (see mounts.h): root propagation and the
 * rootfs self-bind, every config mount resolved inside the rootfs, devices,
 * pivot_root, then masked and read-only paths.  The special cases follow
 * crun's behaviour: sysfs, proc
 * and mqueue fall back to binds of the host's when a user namespace cannot
 * mount them, devpts drops gid= when the namespace has no group 5.
 */
#include "mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "devices.h"
#include "beneath.h"
#include "process/lsm.h"
#include "copyup.h"
#include "options.h"
#include "sources.h"
#include "util.h"
#include "verify.h"
#include "cgroupfs.h"
#include "shared-root.h"
#include "base/safe-path.h"

enum dev_state {
        DEV_UNCONFIGURED, /* no mount at /dev: the rootfs's own directory */
        DEV_TMPFS,        /* a fresh tmpfs */
        DEV_OTHER,        /* something bound from elsewhere: do not populate */
};

/* ---- validation ---- */

/* True when every component is "." or "..": the path names the root. */
static bool names_root(const char *p)
{
        while (*p) {
                size_t n;

                while (*p == '/')
                        p++;
                n = strcspn(p, "/");
                if (n > 2 || (n > 0 && strncmp(p, "..", n) != 0))
                        return false;
                p += n;
        }
        return true;
}

static int validate_mount(const struct oci_mount *m, size_t i, struct bento_err *err)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};

        if (!m->destination || m->destination[0] == '\0')
                return bento_err_setx(err, EINVAL, "mounts[%zu].destination: must not be empty", i);
        if (names_root(m->destination))
                return bento_err_setx(err, EINVAL,
                                      "mounts[%zu].destination: cannot mount over the container's "
                                      "root (use root.path)",
                                      i);
        if (rt_mount_opts_parse(m->options, m->n_options, &o, err) < 0) {
                char msg[BENTO_ERR_MSG_MAX];

                memcpy(msg, err->msg, sizeof(msg));
                return bento_err_setx(err, err->code, "mounts[%zu].%s", i, msg);
        }
        if (rt_mount_is_bind(m, &o) && (!m->source || m->source[0] == '\0'))
                return bento_err_setx(err, EINVAL, "mounts[%zu].source: required for a bind mount",
                                      i);
        if (!rt_mount_is_bind(m, &o) && (!m->type || m->type[0] == '\0'))
                return bento_err_setx(err, EINVAL,
                                      "mounts[%zu].type: required unless the options contain bind "
                                      "or rbind",
                                      i);
        if (o.copyup && (rt_mount_is_bind(m, &o) || strcmp(m->type, "tmpfs") != 0))
                return bento_err_setx(err, EINVAL,
                                      "mounts[%zu].options: tmpcopyup needs a tmpfs mount", i);
        if ((m->n_uid_mappings || m->n_gid_mappings) && !rt_mount_is_bind(m, &o))
                return bento_err_setx(err, EINVAL,
                                      "mounts[%zu].uidMappings: only a bind mount can be idmapped "
                                      "(add the bind or rbind option)",
                                      i);
        if ((m->n_uid_mappings == 0) != (m->n_gid_mappings == 0))
                return bento_err_setx(err, EINVAL,
                                      "mounts[%zu]: an idmapped mount needs both uidMappings and "
                                      "gidMappings",
                                      i);
        return 0;
}

static int validate_paths(char *const *paths, size_t n, const char *what, struct bento_err *err)
{
        for (size_t i = 0; i < n; i++)
                if (!paths[i] || paths[i][0] != '/')
                        return bento_err_setx(err, EINVAL,
                                              "linux.%s[%zu]: must be an absolute path", what, i);
        return 0;
}

int rt_mounts_validate(const struct oci_config *cfg, struct bento_err *err)
{
        const struct oci_linux *lx = &cfg->linux_;
        unsigned long prop;
        int r;

        for (size_t i = 0; i < cfg->n_mounts; i++) {
                r = validate_mount(&cfg->mounts[i], i, err);
                if (r < 0)
                        return r;
        }
        if (lx->rootfs_propagation && rt_propagation_parse(lx->rootfs_propagation, &prop) < 0)
                return bento_err_setx(err, EINVAL,
                                      "linux.rootfsPropagation: \"%s\" is not one of shared, "
                                      "slave, private, unbindable (or their r-forms)",
                                      lx->rootfs_propagation);
        r = validate_paths(lx->masked_paths, lx->n_masked_paths, "maskedPaths", err);
        if (r == 0)
                r = validate_paths(lx->readonly_paths, lx->n_readonly_paths, "readonlyPaths", err);
        if (r == 0)
                r = rt_devices_validate(cfg, err);
        if (r == 0) {
                /* A malformed record fails create, before anything exists. */
                cleanup_free struct bento_mount_identity *ids = NULL;

                r = rt_mount_identities(cfg, &ids, err);
        }
        return r;
}

int rt_mounts_check_ns(const struct rt_context *ctx, struct bento_err *err)
{
        if (!ctx->new_ns[OCI_NS_MOUNT])
                return rt_shared_root_check(ctx, err);
        for (size_t i = 0; ctx->rootless && i < ctx->cfg->n_mounts; i++)
                if (ctx->cfg->mounts[i].n_uid_mappings)
                        return bento_err_setx(err, EPERM,
                                              "mounts[%zu].uidMappings: an idmapped mount needs "
                                              "root on the host (mount_setattr MOUNT_ATTR_IDMAP on "
                                              "a host file system)",
                                              i);
        return 0;
}

/* ---- the root ---- */

static unsigned long wanted_propagation(const struct oci_config *cfg)
{
        unsigned long prop = 0;

        if (cfg->linux_.rootfs_propagation)
                (void) rt_propagation_parse(cfg->linux_.rootfs_propagation, &prop);
        return prop;
}

/* pivot_root and MS_MOVE refuse shared mounts around the new root: make "/"
 * and the mount holding the rootfs private (not their submounts, so binds
 * of shared sources still join their peer groups). */
static int unshare_rootfs_parent(const char *rootfs, struct bento_err *err)
{
        char path[PATH_MAX];

        if (mount(NULL, "/", NULL, MS_PRIVATE, NULL) < 0)
                return bento_err_set(err, errno, "make / private");
        if (!realpath(rootfs, path))
                return bento_err_set(err, errno, "resolve rootfs %s", rootfs);
        for (;;) {
                struct statx sx;
                char *slash;

                if (statx(AT_FDCWD, path, 0, 0, &sx) < 0)
                        return bento_err_set(err, errno, "statx %s", path);
                if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
                        break;
                slash = strrchr(path, '/');
                if (!slash || slash == path)
                        return 0; /* the mount is "/" itself */
                *slash = '\0';
        }
        if (mount(NULL, path, NULL, MS_PRIVATE, NULL) < 0)
                return bento_err_set(err, errno, "make %s private", path);
        return 0;
}

/* The config mounts are made beneath the root, never on it: its mount stays
 * the same while they are made, and is looked up once for all of them
 * (rt_resolve_verified_dest()). */
static void note_mount_id(struct rt_root *root)
{
        if (rt_fd_mount_id(root->fd, &root->mnt_id) < 0)
                root->mnt_id = 0;
}

/* In a shared mount namespace the root tree is attached already
 * (rt_shared_root_attach): open it, and check that it is still what
 * root.path shows. */
static int open_shared_root(const struct rt_context *ctx, struct rt_root *root,
                            struct bento_err *err)
{
        cleanup_close int at = bento_beneath_open_abs(ctx->rootfs, 0);
        char self[32];
        int r;

        if (at < 0)
                return bento_err_set(err, -at, "root.path: open %s", ctx->rootfs);
        r = rt_root_open(root, rt_fd_path(at, self, sizeof(self)));
        if (r < 0)
                return bento_err_set(err, -r, "open the rootfs %s", ctx->rootfs);
        note_mount_id(root);
        return 0;
}

static int prepare_root(const struct rt_context *ctx, struct rt_root *root, struct bento_err *err)
{
        unsigned long prop = wanted_propagation(ctx->cfg);
        unsigned long initial = MS_REC | MS_PRIVATE;
        int r;

        if (prop & MS_SLAVE)
                initial = MS_REC | MS_SLAVE;
        else if (prop & MS_SHARED)
                initial = MS_REC | MS_SHARED;
        if (mount(NULL, "/", NULL, initial, NULL) < 0)
                return bento_err_set(err, errno, "set the propagation of /");
        if (prop & MS_SHARED) {
                r = unshare_rootfs_parent(ctx->rootfs, err);
                if (r < 0)
                        return r;
        }
        if (mount(ctx->rootfs, ctx->rootfs, NULL, MS_BIND | MS_REC, NULL) < 0)
                return bento_err_set(err, errno, "bind-mount the rootfs %s onto itself",
                                     ctx->rootfs);
        r = rt_root_open(root, ctx->rootfs);
        if (r < 0)
                return bento_err_set(err, -r, "open the rootfs %s", ctx->rootfs);
        note_mount_id(root);
        return 0;
}

/* ---- one config mount ---- */

static int finish_mount(const struct rt_root *root, struct rt_target *t,
                        const struct rt_mount_opts *o, struct bento_err *err)
{
        int r = rt_set_propagation(root, t, o->propagation, o->n_propagation);

        if (r < 0)
                return bento_err_set(err, -r, "set propagation");
        r = rt_setattr_recursive(t, o->attr_set, o->attr_clr);
        if (r < 0)
                return bento_err_set(err, -r, "set recursive mount attributes");
        return 0;
}

/* One bind mount: the entry, its options, its identity record, and the
 * source the runtime opened for us (sources.h) or -1 to open it here.
 * Either way the descriptor verified is the one mounted. */
struct bind_req {
        size_t i;
        const struct rt_mount_opts *o;
        const struct bento_mount_identity *id;
        int src;
        struct rt_dest_dir *kept;
};

static int mount_bind(const struct rt_context *ctx, const struct rt_root *root,
                      const struct bind_req *q, struct rt_target *t, struct bento_err *err)
{
        const struct oci_mount *m = &ctx->cfg->mounts[q->i];
        const struct rt_mount_opts *o = q->o;
        const struct bento_mount_identity *id = q->id;
        cleanup_close int own = q->src < 0 ? rt_bind_source_open(ctx, q->i, err) : -1;
        int src = q->src < 0 ? own : q->src;
        struct stat st;
        int r;

        if (src < 0)
                return src;
        if (fstat(src, &st) < 0)
                return bento_err_set(err, errno, "stat bind source %s", m->source);
        r = rt_verify_source(&st, id, m->source, err);
        if (r >= 0)
                r = rt_resolve_verified_dest(root, m->destination,
                                             S_ISDIR(st.st_mode) ? RT_SP_MKDIR : RT_SP_MKFILE, id,
                                             q->kept, t, err);
        if (r < 0)
                return r;
        /* an idmapped source is a detached clone that only needs attaching */
        if (m->n_uid_mappings)
                r = rt_attach_tree_on(root, t, src);
        else
                r = rt_bind_fd_on(root, t, src, o->recursive);
        if (r == 0)
                r = rt_target_reopen(root, t);
        if (r < 0)
                return bento_err_set(err, -r, "bind-mount %s", m->source);
        if (rt_mount_opts_need_bind_remount(o)) {
                r = rt_remount_bind(root, t, o->flags, ctx->in_userns);
                if (r < 0)
                        return bento_err_set(err, -r, "remount the bind mount with its flags");
        }
        return finish_mount(root, t, o, err);
}

/* Recursive bind of a host filesystem where a user namespace cannot mount
 * a new instance (sysfs without a network namespace, proc, mqueue). */
static int bind_host_fs(const struct rt_context *ctx, const struct rt_root *root,
                        struct rt_target *t, const char *host_path, unsigned long flags,
                        struct bento_err *err)
{
        cleanup_close int host = open(host_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r;

        if (host < 0)
                return bento_err_set(err, errno, "open %s", host_path);
        r = rt_bind_fd_on(root, t, host, true);
        if (r == 0)
                r = rt_target_reopen(root, t);
        if (r == 0 && (flags & RT_MS_PER_MOUNT))
                r = rt_remount_bind(root, t, flags, ctx->in_userns);
        if (r == 0 && (flags & MS_RDONLY))
                r = rt_setattr_recursive(t, MOUNT_ATTR_RDONLY, 0);
        if (r < 0)
                return bento_err_set(err, -r, "bind-mount the host's %s", host_path);
        return 0;
}

/* devpts data without any gid= option. */
static void drop_gid_option(const char *data, char *out, size_t size)
{
        size_t len = 0;

        out[0] = '\0';
        for (const char *p = data; p && *p;) {
                size_t n = strcspn(p, ",");
                if (n > 0 && strncmp(p, "gid=", 4) != 0 && len + n + 2 <= size) {
                        if (len > 0)
                                out[len++] = ',';
                        memcpy(out + len, p, n);
                        len += n;
                        out[len] = '\0';
                }
                p += n;
                if (*p == ',')
                        p++;
        }
}

static const char *host_fallback(const struct rt_context *ctx, const char *type, int mount_error)
{
        if (!ctx->in_userns)
                return NULL;
        if (strcmp(type, "sysfs") == 0 && (!ctx->new_ns[OCI_NS_NETWORK] || mount_error == -EPERM))
                return "/sys";
        if (strcmp(type, "mqueue") == 0 && (!ctx->new_ns[OCI_NS_IPC] || mount_error == -EPERM))
                return "/dev/mqueue";
        if (strcmp(type, "proc") == 0 && mount_error == -EPERM)
                return "/proc";
        return NULL;
}

static int bind_host_instead(const struct rt_context *ctx, const struct rt_root *root,
                             struct rt_target *t, const char *host, unsigned long flags,
                             struct bento_err *err)
{
        /* the host's sysfs is never handed out writable */
        if (strcmp(host, "/sys") == 0)
                flags |= MS_RDONLY;
        return bind_host_fs(ctx, root, t, host, flags, err);
}

/* Mount a new filesystem instance onto t; on success t names the new mount. */
static int mount_new_fs(const struct rt_context *ctx, const struct rt_root *root,
                        const struct oci_mount *m, const struct rt_mount_opts *o,
                        struct rt_target *t, struct bento_err *err)
{
        unsigned long flags = o->flags & ~(MS_BIND | MS_REC);
        const char *src = m->source ? m->source : m->type;
        const char *host = host_fallback(ctx, m->type, 0);
        char labelled[4096];
        const char *fs_data = o->data;
        int r;

        if (host)
                return bind_host_instead(ctx, root, t, host, flags, err);
        if (o->copyup)
                flags &= ~MS_RDONLY; /* made read-only after the copy */
        /* linux.mountLabel survives `create` only when SELinux is on */
        r = rt_lsm_mount_data(m->type, o->data, ctx->cfg->linux_.mount_label, labelled,
                              sizeof(labelled), &fs_data);
        if (r < 0)
                return bento_err_setx(err, -r, "linux.mountLabel: mount options too long");
        r = rt_mount_on(root, t, src, m->type, flags, fs_data);
        if (r == -EINVAL && ctx->in_userns && strcmp(m->type, "devpts") == 0 && o->data &&
            strstr(o->data, "gid=")) {
                char data[1024];

                drop_gid_option(o->data, data, sizeof(data));
                r = rt_mount_on(root, t, src, m->type, flags, data);
        }
        if (r < 0 && (host = host_fallback(ctx, m->type, r)))
                return bind_host_instead(ctx, root, t, host, flags, err);
        if (r < 0)
                return bento_err_set(err, -r, "mount %s", m->type);
        r = rt_target_reopen(root, t);
        if (r < 0)
                return bento_err_set(err, -r, "find the new %s mount", m->type);
        return 0;
}

static int mount_tmpfs_copyup(const struct rt_context *ctx, const struct rt_root *root,
                              const struct oci_mount *m, const struct rt_mount_opts *o,
                              struct rt_target *t, struct bento_err *err)
{
        /* the fd still names the directory the tmpfs is about to cover */
        cleanup_close int below = openat(t->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r;

        if (below < 0)
                return bento_err_set(err, errno, "tmpcopyup: open the directory below");
        r = mount_new_fs(ctx, root, m, o, t, err);
        if (r < 0)
                return r;
        r = rt_copy_tree(below, t->fd);
        if (r == 0 && (o->flags & MS_RDONLY))
                r = rt_remount_bind(root, t, o->flags, ctx->in_userns);
        if (r < 0)
                return bento_err_set(err, -r, "tmpcopyup");
        return 0;
}

/* What the config mounts leave for the next one and for /dev. */
struct mounts_state {
        enum dev_state dev;
        /* the directory of the last recorded mount point (verify.h),
         * forgotten once a mount covers it */
        struct rt_dest_dir kept;
};

static void mounts_state_done(struct mounts_state *ms)
{
        rt_dest_dir_done(&ms->kept);
}

static int mount_entry(const struct rt_context *ctx, const struct rt_root *root, size_t i,
                       const struct bento_mount_identity *id, int src, struct mounts_state *ms,
                       struct bento_err *err)
{
        enum dev_state *dev = &ms->dev;
        struct rt_dest_dir *kept = &ms->kept;
        const struct oci_mount *m = &ctx->cfg->mounts[i];
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};
        cleanup_rt_target struct rt_target t = {.fd = -1};
        int r;

        r = rt_mount_opts_parse(m->options, m->n_options, &o, err);
        if (r < 0)
                return r;
        if (rt_mount_is_bind(m, &o)) {
                struct bind_req q = {.i = i, .o = &o, .id = id, .src = src, .kept = kept};

                r = mount_bind(ctx, root, &q, &t, err);
                rt_dest_dir_mounted(kept, t.path);
                if (r == 0 && strcmp(t.path, "/dev") == 0)
                        *dev = DEV_OTHER;
                return r;
        }
        r = rt_resolve_verified_dest(root, m->destination, RT_SP_MKDIR, id, kept, &t, err);
        if (r < 0)
                return r;
        if (strcmp(m->type, "cgroup") == 0)
                r = rt_mount_cgroup(ctx, root, &t, &o, err);
        else if (o.copyup)
                r = mount_tmpfs_copyup(ctx, root, m, &o, &t, err);
        else
                r = mount_new_fs(ctx, root, m, &o, &t, err);
        rt_dest_dir_mounted(kept, t.path);
        if (r < 0)
                return r;
        if (strcmp(t.path, "/dev") == 0)
                *dev = strcmp(m->type, "tmpfs") == 0 ? DEV_TMPFS : DEV_OTHER;
        return finish_mount(root, &t, &o, err);
}

int rt_mounts_prepare(const struct rt_context *ctx, struct rt_bind_sources *srcs,
                      struct bento_err *err)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_free struct bento_mount_identity *ids = NULL;
        __attribute__((cleanup(mounts_state_done))) struct mounts_state ms = {
            .dev = DEV_UNCONFIGURED, .kept = {.dir = {.fd = -1}}};
        int r;

        /* (create validated the config before the clone: see mounts.h) */
        r = rt_mount_identities(ctx->cfg, &ids, err);
        /* in a shared or joined namespace, mounts are made beneath the
         * root tree attached there; with none wanted, nothing is mounted */
        if (r < 0 || (!ctx->new_ns[OCI_NS_MOUNT] && !rt_shared_root_wanted(ctx)))
                return r;
        if (ctx->new_ns[OCI_NS_MOUNT])
                r = prepare_root(ctx, &root, err);
        else
                r = open_shared_root(ctx, &root, err);
        if (r >= 0)
                r = rt_devices_refuse_dev_symlink(&root, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ctx->cfg->n_mounts; i++) {
                int src = -1;

                r = rt_bind_sources_get(srcs, i, &src, err);
                if (r >= 0)
                        r = mount_entry(ctx, &root, i, ids ? &ids[i] : NULL, src, &ms, err);
                if (r < 0)
                        return bento_err_prefix(err, "mounts[%zu] (%s)", i,
                                                ctx->cfg->mounts[i].destination);
        }
        return rt_devices_create(ctx, &root, ms.dev == DEV_OTHER ? 0 : RT_DEV_DEFAULTS, err);
}

/* ---- pivot ---- */

static int pivot_into_cwd(struct bento_err *err)
{
        cleanup_close int old_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

        if (old_root < 0)
                return bento_err_set(err, errno, "open the old root");
        if (syscall(SYS_pivot_root, ".", ".") < 0)
                return bento_err_set(err, errno, "pivot_root");
        /* The old root now sits on top of the new one, and "." (the cwd)
         * still names the new root below it: step into the old root by fd,
         * make it a slave so that detaching it does not reach the host's
         * namespace, and detach it. */
        if (fchdir(old_root) < 0)
                return bento_err_set(err, errno, "enter the old root");
        if (mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
                return bento_err_set(err, errno, "make the old root a slave");
        if (umount2(".", MNT_DETACH) < 0)
                return bento_err_set(err, errno, "detach the old root");
        return 0;
}

/* Without a mount namespace of its own the container is chrooted: no
 * pivot_root, which would move the root of every other process in the
 * namespace too.  In a joined namespace root.path is looked up there,
 * refusing symlinks as create did in ours; what is found there is the root
 * tree of shared-root.h when anything was mounted. */
static int chroot_only(const struct rt_context *ctx, struct bento_err *err)
{
        cleanup_close int fd = bento_beneath_open_abs(ctx->rootfs, 0);

        if (fd < 0)
                return bento_err_set(
                    err, -fd, "root.path: open %s in the container's mount namespace", ctx->rootfs);
        if (fchdir(fd) < 0 || chroot(".") < 0 || chdir("/") < 0)
                return bento_err_set(err, errno, "root.path: chroot into %s", ctx->rootfs);
        return 0;
}

int rt_mounts_pivot(const struct rt_context *ctx, struct bento_err *err)
{
        if (!ctx->new_ns[OCI_NS_MOUNT])
                return chroot_only(ctx, err);
        if (chdir(ctx->rootfs) < 0)
                return bento_err_set(err, errno, "chdir to the rootfs %s", ctx->rootfs);
        if (ctx->no_pivot) {
                if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
                        return bento_err_set(err, errno, "move the rootfs onto /");
                if (chroot(".") < 0)
                        return bento_err_set(err, errno, "chroot");
        } else {
                int r = pivot_into_cwd(err);

                if (r < 0)
                        return r;
        }
        if (chdir("/") < 0)
                return bento_err_set(err, errno, "chdir /");
        return 0;
}

/* ---- finish ---- */

static int mask_path(const struct rt_root *root, const char *path, struct bento_err *err)
{
        cleanup_rt_target struct rt_target t = {.fd = -1};
        struct stat st;
        int r = rt_safe_resolve(root, path, 0, 0, &t);

        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return bento_err_set(err, -r, "resolve");
        /* the statx also notes the mount below, for rt_target_reopen */
        r = rt_target_stat(&t, &st);
        if (r < 0)
                return bento_err_set(err, -r, "stat");
        if (S_ISDIR(st.st_mode)) {
                r = rt_mount_on(root, &t, "tmpfs", "tmpfs",
                                MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755");
                if (r < 0)
                        return bento_err_set(err, -r, "mount an empty tmpfs");
                return 0;
        }
        r = rt_mount_on(root, &t, "/dev/null", NULL, MS_BIND, NULL);
        if (r == 0)
                r = rt_target_reopen(root, &t);
        if (r == 0)
                r = rt_remount_bind(root, &t, MS_RDONLY, true);
        if (r < 0)
                return bento_err_set(err, -r, "bind-mount /dev/null");
        return 0;
}

static int readonly_path(const struct rt_root *root, const char *path, struct bento_err *err)
{
        cleanup_rt_target struct rt_target t = {.fd = -1};
        char self[PATH_MAX];
        int r = rt_safe_resolve(root, path, 0, 0, &t);

        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return bento_err_set(err, -r, "resolve");
        r = rt_target_mount_path(root, &t, self);
        if (r == 0)
                r = rt_mount_on(root, &t, self, NULL, MS_BIND | MS_REC, NULL);
        if (r == 0)
                r = rt_target_reopen(root, &t);
        if (r < 0)
                return bento_err_set(err, -r, "make read-only");
        /* the mount and its submounts at once where the kernel can; only
         * the mount itself where it cannot */
        r = rt_setattr_recursive(&t, MOUNT_ATTR_RDONLY, 0);
        if (r == -ENOSYS)
                r = rt_remount_bind(root, &t, MS_RDONLY, true);
        if (r < 0)
                return bento_err_set(err, -r, "make read-only");
        return 0;
}

static int finish_root(const struct rt_context *ctx, const struct rt_root *root,
                       struct bento_err *err)
{
        unsigned long prop = wanted_propagation(ctx->cfg);

        if (ctx->cfg->root.readonly) {
                cleanup_rt_target struct rt_target t = {.fd = -1};
                int r = rt_safe_resolve(root, "/", 0, 0, &t);

                if (r == 0)
                        r = rt_remount_bind(root, &t, MS_RDONLY, true);
                if (r < 0)
                        return bento_err_set(err, -r, "root.readonly: remount / read-only");
        }
        if (prop && mount(NULL, "/", NULL, prop, NULL) < 0)
                return bento_err_set(err, errno, "linux.rootfsPropagation: %s",
                                     ctx->cfg->linux_.rootfs_propagation);
        return 0;
}

int rt_mounts_finish(const struct rt_context *ctx, struct bento_err *err)
{
        const struct oci_linux *lx = &ctx->cfg->linux_;
        cleanup_rt_root struct rt_root root = {.fd = -1};
        int r;

        if (!ctx->new_ns[OCI_NS_MOUNT] && !rt_shared_root_wanted(ctx))
                return 0; /* no mount wanted, and no tree to make it in */
        r = rt_root_open(&root, "/");
        if (r < 0)
                return bento_err_set(err, -r, "open /");
        for (size_t i = 0; i < lx->n_masked_paths; i++) {
                r = mask_path(&root, lx->masked_paths[i], err);
                if (r < 0)
                        return bento_err_prefix(err, "linux.maskedPaths[%zu] (%s)", i,
                                                lx->masked_paths[i]);
        }
        for (size_t i = 0; i < lx->n_readonly_paths; i++) {
                r = readonly_path(&root, lx->readonly_paths[i], err);
                if (r < 0)
                        return bento_err_prefix(err, "linux.readonlyPaths[%zu] (%s)", i,
                                                lx->readonly_paths[i]);
        }
        return finish_root(ctx, &root, err);
}
