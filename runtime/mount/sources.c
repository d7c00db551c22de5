/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bind-mount sources opened with the runtime's credentials, and idmapped
 * mounts (see sources.h).
 */
#include "sources.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "namespace/namespaces.h"
#include "base/clone.h"
#include "base/sync.h"

bool rt_mount_is_bind(const struct oci_mount *m, const struct rt_mount_opts *o)
{
        return o->bind || (m->type && strcmp(m->type, "bind") == 0);
}

/* 1 when m is a bind mount (*recursive: rbind), 0 when not; options that
 * do not parse were refused by rt_mounts_validate already. */
static int bind_kind(const struct oci_mount *m, bool *recursive)
{
        cleanup_rt_mount_opts struct rt_mount_opts o = {0};
        struct bento_err ignored = {0};

        if (rt_mount_opts_parse(m->options, m->n_options, &o, &ignored) < 0)
                return -EINVAL;
        *recursive = o.recursive;
        return rt_mount_is_bind(m, &o) ? 1 : 0;
}

static size_t count_binds(const struct oci_config *cfg)
{
        size_t n = 0;
        bool rec;

        for (size_t i = 0; i < cfg->n_mounts; i++)
                n += bind_kind(&cfg->mounts[i], &rec) == 1;
        return n;
}

/* How many bind sources the runtime opens for the init: only a runtime
 * with root on the host has more rights than the init; 0 otherwise. */
static size_t runtime_opens(const struct rt_context *ctx)
{
        return ctx->new_ns[OCI_NS_MOUNT] && !ctx->rootless ? count_binds(ctx->cfg) : 0;
}

static const char *fs_name(int fd)
{
        static const struct {
                long magic;
                const char *name;
        } names[] = {
            {EXT4_SUPER_MAGIC, "ext4"}, {XFS_SUPER_MAGIC, "xfs"},
            {TMPFS_MAGIC, "tmpfs"},     {BTRFS_SUPER_MAGIC, "btrfs"},
            {RAMFS_MAGIC, "ramfs"},     {PROC_SUPER_MAGIC, "proc"},
            {SYSFS_MAGIC, "sysfs"},     {OVERLAYFS_SUPER_MAGIC, "overlay"},
            {FUSE_SUPER_MAGIC, "fuse"}, {NFS_SUPER_MAGIC, "nfs"},
            {V9FS_MAGIC, "9p"},
        };
        struct statfs sf;

        if (fstatfs(fd, &sf) < 0)
                return "unknown";
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (sf.f_type == names[i].magic)
                        return names[i].name;
        return "another type";
}

/* The detached clone of src with the mount's id maps applied.  The clone is
 * made in the init's mount namespace, so the mount flags the kernel locked
 * there for the user namespace stay locked on it. */
static int idmapped_clone(const struct oci_mount *m, size_t i, int src, bool recursive,
                          struct bento_err *err)
{
        unsigned int rec = recursive ? AT_RECURSIVE : 0;
        struct mount_attr attr = {.attr_set = MOUNT_ATTR_IDMAP};
        cleanup_close int tree = -1;
        cleanup_close int userns = -1;
        char field[32];

        snprintf(field, sizeof(field), "mounts[%zu]", i);
        tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | rec);
        if (tree < 0)
                return bento_err_set(err, errno, "%s.uidMappings: clone the bind source %s", field,
                                     m->source);
        userns = rt_ns_idmap_userns(m->uid_mappings, m->n_uid_mappings, m->gid_mappings,
                                    m->n_gid_mappings, field, err);
        if (userns < 0)
                return userns;
        attr.userns_fd = (uint64_t) userns;
        if (mount_setattr(tree, "", AT_EMPTY_PATH | rec, &attr, sizeof(attr)) == 0)
                return TAKE_FD(tree);
        if (errno == EINVAL)
                return bento_err_set(err, EINVAL,
                                     "%s.uidMappings: the file system of %s (%s) does not support "
                                     "idmapped mounts (mount_setattr MOUNT_ATTR_IDMAP)",
                                     field, m->source, fs_name(src));
        return bento_err_set(err, errno, "%s.uidMappings: idmap the bind source %s", field,
                             m->source);
}

int rt_bind_source_open(const struct rt_context *ctx, size_t i, struct bento_err *err)
{
        const struct oci_mount *m = &ctx->cfg->mounts[i];
        cleanup_close int fd = -1;
        char buf[PATH_MAX];
        const char *p = m->source;
        bool recursive = false;

        if (m->source[0] != '/') {
                if ((size_t) snprintf(buf, sizeof(buf), "%s/%s", ctx->bundle, m->source) >=
                    sizeof(buf))
                        return bento_err_set(err, ENAMETOOLONG, "bind source %s", m->source);
                p = buf;
        }
        /* a bind mount follows symlinks in its source, as mount(8) does */
        fd = open(p, O_PATH | O_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "open bind source %s", p);
        if (m->n_uid_mappings == 0)
                return TAKE_FD(fd);
        (void) bind_kind(m, &recursive);
        return idmapped_clone(m, i, fd, recursive, err);
}

/* What the opener (below) was given, and what it says back: it shares our
 * memory, so it writes its failure here. */
struct opener {
        const struct rt_context *ctx;
        pid_t pid;
        int pidfd;
        int sock;       /* the init's end of the handshake */
        bool init_gone; /* a send failed: the init exited, its reason is on sock */
        struct bento_err err;
};

/* The descriptors go to the init; ours are closed either way. */
static int send_batch(struct opener *o, int *fds, size_t *n)
{
        int r = rt_sync_send_fds(o->sock, RT_SYNC_BIND_FDS, (int32_t) *n, fds, *n);

        for (size_t k = 0; k < *n; k++)
                close(fds[k]);
        *n = 0;
        o->init_gone = r < 0;
        return r;
}

/* The opener: a child sharing the runtime's memory (rt_vfork_call), in the
 * init's mount namespace, at the init's root, with the runtime's
 * credentials.  It sends the sources to the init itself, in config order,
 * as the init's mounts take them: no copy of the runtime's page tables,
 * and no second hop through the runtime.  Exits 0, or 1 with o->err set
 * (or o->init_gone). */
static int open_and_send(void *arg)
{
        struct opener *o = arg;
        const struct oci_config *cfg = o->ctx->cfg;
        int fds[RT_SYNC_MAX_FDS];
        char path[64];
        size_t n = 0;
        int root;

        snprintf(path, sizeof(path), "/proc/%d/root", (int) o->pid);
        root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0 || setns(o->pidfd, CLONE_NEWNS) < 0 || fchdir(root) < 0 || chroot(".") < 0) {
                bento_err_set(&o->err, errno,
                              "enter the container's mount namespace to open the "
                              "bind sources");
                return 1;
        }
        for (size_t i = 0; i < cfg->n_mounts; i++) {
                bool rec;

                if (bind_kind(&cfg->mounts[i], &rec) != 1)
                        continue;
                fds[n] = rt_bind_source_open(o->ctx, i, &o->err);
                if (fds[n] < 0) {
                        bento_err_prefix(&o->err, "mounts[%zu] (%s)", i,
                                         cfg->mounts[i].destination);
                        return 1;
                }
                if (++n == RT_SYNC_MAX_FDS && send_batch(o, fds, &n) < 0)
                        return 1;
        }
        if (n > 0 && send_batch(o, fds, &n) < 0)
                return 1;
        return 0;
}

/* The init takes the sources while it mounts, so a send fails when a mount
 * failed and the init exited: its reason is waiting on the socket. */
static int init_gone(int sock, struct bento_err *err)
{
        int fds[RT_SYNC_MAX_FDS];
        struct rt_sync_msg m;
        size_t n = 0;

        if (rt_sync_recv_fds(sock, &m, fds, RT_SYNC_MAX_FDS, &n) == 0) {
                for (size_t k = 0; k < n; k++)
                        close(fds[k]);
                if (m.type == RT_SYNC_ERROR)
                        return bento_err_setx(err, m.code > 0 ? m.code : EIO, "%s", m.msg);
        }
        return bento_err_setx(err, EPIPE, "the container process exited during setup");
}

int rt_bind_sources_serve(const struct rt_context *ctx, pid_t pid, int pidfd, int sock,
                          struct bento_err *err)
{
        struct opener o = {.ctx = ctx, .pid = pid, .pidfd = pidfd, .sock = sock};
        struct rt_sync_msg m;
        int r;

        if (runtime_opens(ctx) == 0)
                return 0;
        r = rt_sync_expect(sock, RT_SYNC_BIND_REQUEST, &m, NULL, err);
        if (r < 0)
                return r;
        r = rt_vfork_call(open_and_send, &o);
        if (r < 0)
                return bento_err_set(err, -r, "cannot start the bind-source helper");
        if (r == 0)
                return 0;
        if (o.init_gone)
                return init_gone(sock, err);
        if (!o.err.code)
                return bento_err_setx(err, EIO, "the bind-source helper failed");
        *err = o.err;
        return -err->code;
}

int rt_bind_sources_fetch(const struct rt_context *ctx, int sock, struct rt_bind_sources *s,
                          struct bento_err *err)
{
        size_t want = runtime_opens(ctx);

        if (want == 0)
                return 0;
        s->n = ctx->cfg->n_mounts;
        s->fds = malloc(s->n * sizeof(int));
        if (!s->fds)
                return bento_err_set(err, ENOMEM, "bind sources");
        for (size_t i = 0; i < s->n; i++)
                s->fds[i] = -1;
        s->cfg = ctx->cfg;
        s->want = want;
        if (rt_sync_send(sock, RT_SYNC_BIND_REQUEST, 0, NULL, -1) < 0)
                return bento_err_setx(err, EPIPE, "the runtime went away during setup");
        s->sock = sock;
        return 0;
}

/* One batch: each fd goes to the next bind mount in config order. */
static int receive_batch(struct rt_bind_sources *s, struct bento_err *err)
{
        int fds[RT_SYNC_MAX_FDS];
        struct rt_sync_msg m;
        size_t n = 0;
        bool rec;

        if (rt_sync_recv_fds(s->sock, &m, fds, RT_SYNC_MAX_FDS, &n) < 0)
                return bento_err_setx(err, EPIPE, "the runtime went away during setup");
        for (size_t k = 0; k < n; k++) {
                while (s->next < s->n && bind_kind(&s->cfg->mounts[s->next], &rec) != 1)
                        s->next++;
                if (m.type != RT_SYNC_BIND_FDS || s->next >= s->n || s->want == 0) {
                        close(fds[k]);
                        continue;
                }
                s->fds[s->next++] = fds[k];
                s->want--;
        }
        if (m.type != RT_SYNC_BIND_FDS || n == 0)
                return bento_err_setx(err, EPROTO, "unexpected setup message %u", m.type);
        return 0;
}

int rt_bind_sources_get(struct rt_bind_sources *s, size_t i, int *fd, struct bento_err *err)
{
        *fd = -1;
        if (!s->fds || i >= s->n)
                return 0;
        for (; s->used < i; s->used++)
                if (s->fds[s->used] >= 0) {
                        close(s->fds[s->used]);
                        s->fds[s->used] = -1;
                }
        while (s->next <= i && s->want > 0)
                if (receive_batch(s, err) < 0)
                        return -err->code;
        *fd = s->fds[i];
        return 0;
}

void rt_bind_sources_close(struct rt_bind_sources *s)
{
        for (size_t i = 0; s->fds && i < s->n; i++)
                if (s->fds[i] >= 0)
                        close(s->fds[i]);
        free(s->fds);
        s->fds = NULL;
        s->n = 0;
        s->sock = -1;
}
