/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "cgroup" mount type on v1, hybrid and v2 hosts (see cgroupfs.h).
 * /proc/self/cgroup says which hierarchies the init belongs to and where;
 * /proc/self/mountinfo says where the host mounted each hierarchy.
 */
#include "cgroupfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "mountinfo.h"
#include "util.h"

#define HOST_CGROUP_DIR "/sys/fs/cgroup"

struct hierarchy {
        bool v2;
        char controllers[256]; /* "cpu,cpuacct", "name=systemd"; "" for v2 */
        char path[PATH_MAX];   /* the init's cgroup, from /proc/self/cgroup */
        char mountpoint[PATH_MAX];
        char mount_root[PATH_MAX];
        char host_path[PATH_MAX];
};

/* Does this mountinfo entry mount h's hierarchy right below /sys/fs/cgroup?
 * Fills h->mountpoint and h->mount_root when it does. */
static bool mountinfo_match(const struct bento_mountinfo *mi, struct hierarchy *h)
{
        const char *slash;

        if (strcmp(mi->fstype, h->v2 ? "cgroup2" : "cgroup") != 0)
                return false;
        if (!h->v2 && !bento_mount_opts_all_in(h->controllers, mi->superopts))
                return false;
        slash = strrchr(mi->mnt, '/');
        if (!slash || (size_t) (slash - mi->mnt) != strlen(HOST_CGROUP_DIR) ||
            strncmp(mi->mnt, HOST_CGROUP_DIR, strlen(HOST_CGROUP_DIR)) != 0 || slash[1] == '\0')
                return false;
        snprintf(h->mountpoint, sizeof(h->mountpoint), "%s", mi->mnt);
        snprintf(h->mount_root, sizeof(h->mount_root), "%s", mi->root);
        return true;
}

/* The last line that mounts h's hierarchy and that no later line covers:
 * mounts stack, a later one at the same point or above it hides the
 * earlier (a pure v1 view made by mounting a tmpfs over /sys/fs/cgroup
 * still lists the cgroup2 mount below it, and hierarchies mounted again
 * come after the ones they hide).  Lines that do not parse are passed
 * over.  1 found, 0 not, or -errno. */
static int find_mount(struct hierarchy *h)
{
        cleanup_free char *data = NULL;
        struct bento_err err = {0};
        struct bento_mountinfo mi;
        bool found = false;
        char *pos;
        int r = bento_mountinfo_read("/proc/self/mountinfo", &data, &err);

        if (r < 0)
                return r;
        pos = data;
        while ((r = bento_mountinfo_next(&pos, &mi)) != 0) {
                if (r < 0)
                        continue;
                if (found && rt_path_within(h->mountpoint, mi.mnt))
                        found = false;
                if (mountinfo_match(&mi, h))
                        found = true;
        }
        return found;
}

/* host_path = mountpoint + the init's path below the mount's root. */
static int host_path(struct hierarchy *h)
{
        const char *rel = h->path;
        size_t rlen = strlen(h->mount_root);

        if (strcmp(h->mount_root, "/") != 0) {
                if (strncmp(h->path, h->mount_root, rlen) != 0 ||
                    (h->path[rlen] != '\0' && h->path[rlen] != '/'))
                        return -ENOENT;
                rel = h->path + rlen;
        }
        if ((size_t) snprintf(h->host_path, sizeof(h->host_path), "%s%s", h->mountpoint, rel) >=
            sizeof(h->host_path))
                return -ENAMETOOLONG;
        return 0;
}

/* "cpu" -> "cpu,cpuacct" for each controller of a co-mounted hierarchy. */
static int comount_links(int dir_fd, const char *name)
{
        char tok[NAME_MAX + 1];

        if (!strchr(name, ','))
                return 0;
        for (const char *p = name; *p;) {
                size_t n = strcspn(p, ",");
                if (n > 0 && n <= NAME_MAX && strncmp(p, "name=", 5) != 0) {
                        memcpy(tok, p, n);
                        tok[n] = '\0';
                        if (symlinkat(name, dir_fd, tok) < 0 && errno != EEXIST)
                                return -errno;
                }
                p += n;
                if (*p == ',')
                        p++;
        }
        return 0;
}

static int mount_fresh_hierarchy(const struct rt_root *root, const struct rt_target *sub,
                                 const struct hierarchy *h, unsigned long flags)
{
        char data[sizeof(h->controllers) + 8];

        if (h->v2)
                return rt_mount_on(root, sub, "cgroup2", "cgroup2", flags, NULL);
        /* a named hierarchy without controllers needs "none" */
        if (strncmp(h->controllers, "name=", 5) == 0 && !strchr(h->controllers, ','))
                snprintf(data, sizeof(data), "none,%s", h->controllers);
        else
                snprintf(data, sizeof(data), "%s", h->controllers);
        return rt_mount_on(root, sub, "cgroup", "cgroup", flags, data);
}

/* Bind the init's own cgroup of hierarchy h from the host onto sub. */
static int bind_host_hierarchy(const struct rt_context *ctx, const struct rt_root *root,
                               struct rt_target *sub, const struct hierarchy *h,
                               unsigned long flags, struct bento_err *err)
{
        cleanup_close int host = open(h->host_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r;

        if (host < 0)
                return bento_err_set(err, errno, "open %s", h->host_path);
        r = rt_bind_fd_on(root, sub, host, false);
        if (r == 0)
                r = rt_target_reopen(root, sub);
        if (r == 0 && (flags & RT_MS_PER_MOUNT))
                r = rt_remount_bind(root, sub, flags, ctx->in_userns);
        if (r < 0)
                return bento_err_set(err, -r, "bind-mount %s", h->host_path);
        return 0;
}

static int mount_hierarchy(const struct rt_context *ctx, const struct rt_root *root,
                           const struct rt_target *dst, const struct hierarchy *h,
                           unsigned long flags, struct bento_err *err)
{
        cleanup_rt_target struct rt_target sub = {.fd = -1};
        const char *name = strrchr(h->mountpoint, '/') + 1;
        int r;

        if (mkdirat(dst->fd, name, 0755) < 0 && errno != EEXIST)
                return bento_err_set(err, errno, "mkdir %s", name);
        r = rt_target_child(dst, name, O_DIRECTORY, &sub);
        if (r < 0)
                return bento_err_set(err, -r, "open %s", name);
        if (ctx->new_ns[OCI_NS_CGROUP]) {
                r = mount_fresh_hierarchy(root, &sub, h, flags & RT_MS_PER_MOUNT);
                if (r < 0)
                        return bento_err_set(err, -r, "mount cgroup hierarchy %s", name);
        } else {
                r = bind_host_hierarchy(ctx, root, &sub, h, flags, err);
                if (r < 0)
                        return r;
        }
        r = comount_links(dst->fd, name);
        if (r < 0)
                return bento_err_set(err, -r, "symlinks to %s", name);
        return 0;
}

/* Parse one /proc/self/cgroup line ("id:controllers:path") into h. */
static bool parse_cgroup_line(char *line, struct hierarchy *h)
{
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        size_t len;

        if (!c2)
                return false;
        len = strcspn(c2 + 1, "\n");
        c2[1 + len] = '\0';
        *c2 = '\0';
        *c1 = '\0';
        h->v2 = strcmp(line, "0") == 0 && c1[1] == '\0';
        if (!h->v2 && c1[1] == '\0')
                return false;
        if ((size_t) (c2 - c1) > sizeof(h->controllers) || len >= sizeof(h->path))
                return false;
        memcpy(h->controllers, c1 + 1, (size_t) (c2 - c1));
        memcpy(h->path, c2 + 1, len + 1);
        return true;
}

static int mount_hierarchies(const struct rt_context *ctx, const struct rt_root *root,
                             const struct rt_target *dst, unsigned long flags, struct hierarchy *h,
                             struct bento_err *err)
{
        cleanup_fclose FILE *f = fopen("/proc/self/cgroup", "re");
        cleanup_free char *line = NULL;
        size_t cap = 0;

        if (!f)
                return bento_err_set(err, errno, "open /proc/self/cgroup");
        while (getline(&line, &cap, f) > 0) {
                int r;

                if (!parse_cgroup_line(line, h))
                        continue;
                r = find_mount(h);
                if (r < 0)
                        return bento_err_set(err, -r, "read /proc/self/mountinfo");
                if (r == 0)
                        continue; /* not mounted below /sys/fs/cgroup on the host */
                if (!ctx->new_ns[OCI_NS_CGROUP] && host_path(h) < 0)
                        return bento_err_setx(err, ENOENT,
                                              "cgroup %s: %s is not below the host mount's root %s",
                                              h->mountpoint, h->path, h->mount_root);
                r = mount_hierarchy(ctx, root, dst, h, flags, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int mount_v1(const struct rt_context *ctx, const struct rt_root *root, struct rt_target *dst,
                    unsigned long flags, struct bento_err *err)
{
        struct hierarchy *h;
        int r;

        r = rt_mount_on(root, dst, "tmpfs", "tmpfs", flags & RT_MS_PER_MOUNT & ~MS_RDONLY,
                        "mode=755");
        if (r == 0)
                r = rt_target_reopen(root, dst);
        if (r < 0)
                return bento_err_set(err, -r, "mount tmpfs for cgroup v1");
        h = malloc(sizeof(*h)); /* four PATH_MAX buffers: keep them off the stack */
        if (!h)
                return bento_err_set(err, ENOMEM, "cgroup");
        r = mount_hierarchies(ctx, root, dst, flags, h, err);
        free(h);
        if (r < 0)
                return r;
        if (flags & MS_RDONLY) {
                r = rt_remount_bind(root, dst, flags, ctx->in_userns);
                if (r < 0)
                        return bento_err_set(err, -r, "remount cgroup tmpfs read-only");
        }
        return 0;
}

/* Without a cgroup namespace of its own the container sees the host's
 * hierarchy, as it would through a fresh cgroup2 mount. */
static int bind_host_v2(const struct rt_context *ctx, const struct rt_root *root,
                        struct rt_target *dst, unsigned long flags, struct bento_err *err)
{
        cleanup_close int host = open(HOST_CGROUP_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r;

        if (host < 0)
                return bento_err_set(err, errno, "open %s", HOST_CGROUP_DIR);
        r = rt_bind_fd_on(root, dst, host, true);
        if (r == 0)
                r = rt_target_reopen(root, dst);
        if (r == 0 && (flags & RT_MS_PER_MOUNT))
                r = rt_remount_bind(root, dst, flags, ctx->in_userns);
        if (r < 0)
                return bento_err_set(err, -r, "bind-mount %s", HOST_CGROUP_DIR);
        return 0;
}

static int mount_v2(const struct rt_context *ctx, const struct rt_root *root, struct rt_target *dst,
                    unsigned long flags, struct bento_err *err)
{
        if (ctx->new_ns[OCI_NS_CGROUP]) {
                int r = rt_mount_on(root, dst, "cgroup2", "cgroup2", flags & RT_MS_PER_MOUNT, NULL);
                if (r == 0)
                        r = rt_target_reopen(root, dst);
                if (r == 0)
                        return 0;
                if (r != -EPERM && r != -EBUSY)
                        return bento_err_set(err, -r, "mount cgroup2");
        }
        return bind_host_v2(ctx, root, dst, flags, err);
}

int rt_mount_cgroup(const struct rt_context *ctx, const struct rt_root *root, struct rt_target *dst,
                    const struct rt_mount_opts *opts, struct bento_err *err)
{
        struct statfs sf;

        if (statfs(HOST_CGROUP_DIR, &sf) < 0)
                return bento_err_set(err, errno, "statfs %s", HOST_CGROUP_DIR);
        if (sf.f_type == CGROUP2_SUPER_MAGIC)
                return mount_v2(ctx, root, dst, opts->flags, err);
        return mount_v1(ctx, root, dst, opts->flags, err);
}
