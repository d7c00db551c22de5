/* SPDX-License-Identifier: Apache-2.0 */
/* The container's mount tree in a namespace it shares (see shared-root.h). */
#include "shared-root.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clone.h"
#include "base/proc.h"
#include "base/log.h"
#include "base/safe-path.h"
#include "base/sync.h"
#include "beneath.h"
#include "cleanup.h"
#include "json.h"
#include "jsonr.h"
#include "mountinfo.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U /* Linux 6.8 */
#endif

bool rt_shared_root_wanted(const struct rt_context *ctx)
{
        const struct oci_config *cfg = ctx->cfg;
        const struct oci_linux *lx = &cfg->linux_;

        if (ctx->new_ns[OCI_NS_MOUNT])
                return false;
        return cfg->n_mounts || lx->n_masked_paths || lx->n_readonly_paths || cfg->root.readonly ||
               lx->rootfs_propagation || lx->n_devices || (cfg->process && cfg->process->terminal);
}

/* The first config member that needs a mount, for messages. */
static const char *first_mounting_member(const struct oci_config *cfg)
{
        const struct oci_linux *lx = &cfg->linux_;

        if (cfg->n_mounts)
                return "mounts";
        if (lx->n_masked_paths)
                return "linux.maskedPaths";
        if (lx->n_readonly_paths)
                return "linux.readonlyPaths";
        if (cfg->root.readonly)
                return "root.readonly";
        if (lx->rootfs_propagation)
                return "linux.rootfsPropagation";
        if (lx->n_devices)
                return "linux.devices";
        return "process.terminal";
}

int rt_shared_root_check(const struct rt_context *ctx, struct bento_err *err)
{
        if (!rt_shared_root_wanted(ctx))
                return 0;
        if (ctx->rootless || ctx->new_ns[OCI_NS_USER])
                return bento_err_setx(
                    err, EPERM,
                    "%s needs a mount, and the container has no mount namespace of its own "
                    "while %s: it may not mount in a namespace the host's user namespace owns. "
                    "Add {\"type\": \"mount\"} to linux.namespaces",
                    first_mounting_member(ctx->cfg),
                    ctx->rootless ? "the runtime runs without root"
                                  : "it gets a user namespace of its own");
        return 0;
}

/* The mount ids of what fd is on: the reusable one (mountinfo's) and, where
 * the kernel has it, the unique one. */
static int fd_mount_ids(int fd, uint64_t *id, uint64_t *unique, bool *is_root)
{
        struct statx sx;

        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) < 0)
                return -errno;
        if (!(sx.stx_mask & STATX_MNT_ID))
                return -ENOSYS;
        *id = sx.stx_mnt_id;
        *is_root = (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
        *unique = 0;
        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID_UNIQUE, &sx) == 0 &&
            (sx.stx_mask & STATX_MNT_ID_UNIQUE))
                *unique = sx.stx_mnt_id;
        return 0;
}

/* ---- create: the init's side ---- */

static int clone_private_tree(int at, struct bento_err *err)
{
        struct mount_attr priv = {.propagation = MS_PRIVATE};
        int tree =
            open_tree(at, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);

        if (tree < 0)
                return bento_err_set(err, errno, "clone root.path into a mount tree");
        if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &priv, sizeof(priv)) < 0) {
                int e = errno;

                close(tree);
                return bento_err_set(err, e, "make the root's mount tree private");
        }
        return tree;
}

int rt_shared_root_attach(const struct rt_context *ctx, int sock, struct bento_err *err)
{
        cleanup_close int at = -1;
        cleanup_close int tree = -1;
        uint64_t id = 0, unique = 0;
        struct rt_sync_msg m;
        char msg[128];
        struct stat st;
        bool is_root = false;
        int r;

        if (!rt_shared_root_wanted(ctx))
                return 0;
        /* root.path in this namespace, no symlink on the way (the namespace
         * joined by path is not the one create resolved it in) */
        at = bento_beneath_open_abs(ctx->rootfs, 0);
        if (at < 0)
                return bento_err_set(err, -at, "root.path: open %s", ctx->rootfs);
        if (fstat(at, &st) < 0)
                return bento_err_set(err, errno, "root.path: stat %s", ctx->rootfs);
        tree = clone_private_tree(at, err);
        if (tree < 0)
                return tree;
        r = fd_mount_ids(tree, &id, &unique, &is_root);
        if (r < 0)
                return bento_err_set(err, -r, "the mount id of the root's tree");
        snprintf(msg, sizeof(msg), "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, id, unique,
                 (uint64_t) st.st_dev, (uint64_t) st.st_ino);
        if (rt_sync_send(sock, RT_SYNC_SHARED_ROOT, 0, msg, -1) < 0)
                return bento_err_setx(err, EPIPE, "the runtime went away during setup");
        /* recorded: from here on `delete` finds it */
        r = rt_sync_expect(sock, RT_SYNC_SHARED_ROOT_KEPT, &m, NULL, err);
        if (r < 0)
                return r;
        if (move_mount(tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                return bento_err_set(err, errno, "attach the root's mount tree on %s", ctx->rootfs);
        return 0;
}

/* ---- create: the runtime's side ---- */

static int parse_identity(const char *msg, struct rt_shared_root *s)
{
        char tail;

        if (sscanf(msg, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 "%c", &s->mnt_id,
                   &s->mnt_id_unique, &s->root_dev, &s->root_ino, &tail) != 4 ||
            s->mnt_id == 0)
                return -EPROTO;
        return 0;
}

static int fill_namespace(const struct rt_context *ctx, pid_t pid, struct rt_shared_root *s,
                          struct bento_err *err)
{
        const struct oci_namespace *ns = oci_config_namespace(ctx->cfg, OCI_NS_MOUNT);

        s->ns_inode = rt_proc_ns_inode(pid, "mnt");
        s->rootfs = strdup(ctx->rootfs);
        s->ns_path = ns && ns->path ? strdup(ns->path) : NULL;
        if (!s->rootfs || (ns && ns->path && !s->ns_path))
                return bento_err_set(err, ENOMEM, "shared root");
        if (s->ns_inode == 0)
                return bento_err_setx(err, ESRCH, "the container process exited during setup");
        return 0;
}

int rt_shared_root_serve(const struct rt_context *ctx, pid_t pid, int sock, struct bento_err *err)
{
        struct rt_shared_root *s = ctx->shared_root;
        cleanup_bento_json struct bento_json *desc = NULL;
        struct rt_sync_msg m;
        int r;

        if (!rt_shared_root_wanted(ctx))
                return 0;
        if (!s)
                return bento_err_setx(err, EINVAL, "internal: no shared-root record");
        r = rt_sync_expect(sock, RT_SYNC_SHARED_ROOT, &m, NULL, err);
        if (r < 0)
                return r;
        if (parse_identity(m.msg, s) < 0)
                return bento_err_setx(err, EPROTO, "malformed mount-tree message from the init");
        r = fill_namespace(ctx, pid, s, err);
        if (r < 0)
                return r;
        desc = rt_shared_root_describe(s);
        if (!desc)
                return bento_err_set(err, ENOMEM, "shared root");
        if (ctx->intent) {
                r = ctx->intent->shared_root(ctx->intent, desc, err);
                if (r < 0)
                        return r;
        }
        if (rt_sync_send(sock, RT_SYNC_SHARED_ROOT_KEPT, 0, NULL, -1) < 0)
                return bento_err_setx(err, EPIPE, "the container process exited during setup");
        return 0;
}

struct bento_json *rt_shared_root_describe(const struct rt_shared_root *s)
{
        struct bento_json *o = bento_json_new_object();
        int r = o ? 0 : -ENOMEM;

        if (r >= 0)
                r = bento_json_object_set(o, "mountId", bento_json_new_uint(s->mnt_id));
        if (r >= 0 && s->mnt_id_unique)
                r = bento_json_object_set(o, "mountIdUnique",
                                          bento_json_new_uint(s->mnt_id_unique));
        if (r >= 0)
                r = bento_json_object_set(o, "mountNamespace", bento_json_new_uint(s->ns_inode));
        if (r >= 0 && s->ns_path)
                r = bento_json_object_set(o, "mountNamespacePath",
                                          bento_json_new_string(s->ns_path));
        if (r >= 0)
                r = bento_json_object_set(o, "rootDev", bento_json_new_uint(s->root_dev));
        if (r >= 0)
                r = bento_json_object_set(o, "rootIno", bento_json_new_uint(s->root_ino));
        if (r >= 0)
                r = bento_json_object_set(o, "rootfs", bento_json_new_string(s->rootfs));
        if (r < 0)
                return bento_json_free(o);
        return o;
}

/* ---- removal ---- */

void rt_shared_root_done(struct rt_shared_root *s)
{
        free(s->rootfs);
        free(s->ns_path);
        *s = (struct rt_shared_root){0};
}

/* The record is hostile input: every member is checked. */
static int parse_recorded(const struct bento_json *obj, struct rt_shared_root *s,
                          struct bento_err *err)
{
        struct bento_jsonr jr;
        int r;

        bento_jsonr_init(&jr, err);
        (void) bento_jsonr_push_key(&jr, "applied");
        (void) bento_jsonr_push_key(&jr, "sharedRoot");
        if (obj->type != BENTO_JSON_OBJECT)
                return bento_jsonr_fail_type(&jr, "an object", obj);
        r = bento_jsonr_uint(&jr, obj, "mountId", true, UINT64_MAX, &s->mnt_id);
        if (r >= 0)
                r = bento_jsonr_uint(&jr, obj, "mountIdUnique", false, UINT64_MAX,
                                     &s->mnt_id_unique);
        if (r >= 0)
                r = bento_jsonr_uint(&jr, obj, "mountNamespace", true, UINT64_MAX, &s->ns_inode);
        if (r >= 0)
                r = bento_jsonr_uint(&jr, obj, "rootDev", true, UINT64_MAX, &s->root_dev);
        if (r >= 0)
                r = bento_jsonr_uint(&jr, obj, "rootIno", true, UINT64_MAX, &s->root_ino);
        if (r >= 0)
                r = bento_jsonr_abs_path(&jr, obj, "rootfs", true, &s->rootfs);
        if (r >= 0)
                r = bento_jsonr_abs_path(&jr, obj, "mountNamespacePath", false, &s->ns_path);
        return r;
}

/* Is a mount with mountinfo id `id` still mounted on `path` here? */
static bool mount_listed(uint64_t id, const char *path)
{
        cleanup_free char *data = NULL;
        struct bento_mountinfo mi;
        struct bento_err ignored;
        char *pos;

        if (bento_mountinfo_read("/proc/self/mountinfo", &data, &ignored) < 0)
                return true; /* cannot tell: assume it is */
        pos = data;
        while (bento_mountinfo_next(&pos, &mi) > 0)
                if (mi.id == id && strcmp(mi.mnt, path) == 0)
                        return true;
        return false;
}

/* In the tree's namespace: unmount it if it is what root.path shows. */
static int detach_here(const struct rt_shared_root *s, struct bento_err *err)
{
        cleanup_close int at = bento_beneath_open_abs(s->rootfs, 0);
        uint64_t id = 0, unique = 0;
        bool is_root = false, same_dir;
        struct stat st;
        int r;

        if (at == -ENOENT)
                return 0; /* root.path is gone, and the tree with it */
        if (at < 0)
                return bento_err_set(err, -at, "open %s", s->rootfs);
        r = fd_mount_ids(at, &id, &unique, &is_root);
        if (r < 0)
                return bento_err_set(err, -r, "the mount id at %s", s->rootfs);
        if (fstat(at, &st) < 0)
                return bento_err_set(err, errno, "stat %s", s->rootfs);
        /* the tree's root is a bind of root.path's own directory */
        same_dir = (uint64_t) st.st_dev == s->root_dev && (uint64_t) st.st_ino == s->root_ino;
        if (is_root && same_dir && id == s->mnt_id &&
            (!s->mnt_id_unique || unique == s->mnt_id_unique)) {
                char self[32];

                if (umount2(rt_fd_path(at, self, sizeof(self)), MNT_DETACH) < 0)
                        return bento_err_set(err, errno, "unmount the container's root tree at %s",
                                             s->rootfs);
                return 0;
        }
        /* Not on top.  Not listed on root.path any more: unmounted.  Still
         * listed there: something covers it (or a stranger's mount took the
         * id there); either way it is not touched, and delete says why. */
        if (!mount_listed(s->mnt_id, s->rootfs))
                return 0;
        return bento_err_setx(err, EBUSY,
                              "the container's root tree (mount %" PRIu64
                              ") is not what %s shows (mount %" PRIu64
                              "); unmount what covers it and delete again",
                              s->mnt_id, s->rootfs, id);
}

/* Enter the recorded namespace (joined by path) if it is still the same
 * one.  1: entered, 0: it is gone (and the tree with it), <0: error. */
static int enter_namespace(const struct rt_shared_root *s, struct bento_err *err)
{
        /* followed as create followed it (/proc/<pid>/ns/mnt is a magic
         * link); what it leads to is checked by inode */
        cleanup_close int fd = open(s->ns_path, O_RDONLY | O_CLOEXEC);
        struct stat st;

        if (fd < 0)
                return errno == ENOENT || errno == ESRCH
                           ? 0
                           : bento_err_set(err, errno, "open %s", s->ns_path);
        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "stat %s", s->ns_path);
        if ((uint64_t) st.st_ino != s->ns_inode)
                return 0; /* another namespace now: ours is gone */
        if (setns(fd, CLONE_NEWNS) < 0)
                return bento_err_set(err, errno, "enter the mount namespace %s", s->ns_path);
        return 1;
}

static _Noreturn void detach_child(const struct rt_shared_root *s, int sock)
{
        struct bento_err err = {0};
        int r = s->ns_path ? enter_namespace(s, &err) : 1;

        if (r > 0)
                r = detach_here(s, &err);
        if (r < 0) {
                rt_sync_send_err(sock, &err);
                _exit(1);
        }
        _exit(0);
}

static uint64_t own_mount_ns(void)
{
        struct stat st;

        return stat("/proc/self/ns/mnt", &st) == 0 ? (uint64_t) st.st_ino : 0;
}

int rt_shared_root_remove(const struct rt_shared_root *s, struct bento_err *err)
{
        cleanup_close int mine = -1;
        struct rt_sync_msg m;
        int pair[2], status = 0;
        pid_t child;

        if (!s || s->mnt_id == 0)
                return 0;
        if (!s->ns_path && own_mount_ns() != s->ns_inode) {
                rt_log_warning("the container's root tree (mount %" PRIu64
                               ") is in mount namespace %" PRIu64
                               ", not this one: it stays until that namespace is gone",
                               s->mnt_id, s->ns_inode);
                return 0;
        }
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                return bento_err_set(err, errno, "socketpair");
        mine = pair[0];
        /* a child: setns into a mount namespace is for good */
        child = rt_clone3(0, NULL);
        if (child < 0) {
                close(pair[1]);
                return bento_err_set(err, errno, "cannot fork to unmount the root tree");
        }
        if (child == 0) {
                close(mine);
                detach_child(s, pair[1]);
        }
        close(pair[1]);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        if (rt_sync_recv(mine, &m, NULL) == 0 && m.type == RT_SYNC_ERROR)
                return bento_err_setx(err, m.code > 0 ? m.code : EIO, "%s", m.msg);
        return bento_err_setx(err, EIO, "the unmount helper for %s failed", s->rootfs);
}

int rt_shared_root_remove_recorded(const struct bento_record *rec, struct bento_err *err)
{
        const struct bento_json *obj = rec ? bento_json_get(rec->extra, "sharedRoot") : NULL;
        struct rt_shared_root s = {0};
        int r;

        if (!obj)
                return 0;
        r = parse_recorded(obj, &s, err);
        if (r >= 0)
                r = rt_shared_root_remove(&s, err);
        rt_shared_root_done(&s);
        return r;
}
