/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finding a cgroup hierarchy's mount without reading /proc/self/mountinfo
 * (see internal.h, cg_mount_at_usual_place).  mountinfo costs a walk
 * of the whole mount table, every line formatted by the kernel, and a host
 * running containers has hundreds or thousands of mounts; every verb that
 * touches a cgroup needs the layout.  Nearly every host mounts its
 * hierarchies at the usual places, so those are asked first, one mount at a
 * time: statx(2) gives the mount id of the directory (which must be a mount
 * root), statmount(2) (Linux 6.8; the options since 6.11) the same facts
 * mountinfo shows for it.  Anything that does not check out sends the
 * caller back to mountinfo.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mountinfo.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif
#ifndef SYS_statmount
#define SYS_statmount 457
#endif

#define CGROUP_MAGIC  0x27e0ebULL
#define CGROUP2_MAGIC 0x63677270ULL

/* The parts of the kernel's struct statmount (linux/mount.h) read here;
 * the fixed part is 512 bytes in every version, the strings follow. */
#define SM_SB_BASIC      0x1U
#define SM_MNT_ROOT      0x8U
#define SM_MNT_OPTS      0x80U
#define SM_FIXED_SIZE    512
#define SM_OFF_MNT_OPTS  4
#define SM_OFF_MASK      8
#define SM_OFF_SB_MAGIC  24
#define SM_OFF_MNT_ROOT  104
#define MNT_ID_REQ_SIZE0 24

/* (read by the kernel only) */
struct mnt_req {
        /* cppcheck-suppress unusedStructMember */
        uint32_t size;
        /* cppcheck-suppress unusedStructMember */
        uint32_t spare;
        uint64_t mnt_id;
        uint64_t param;
};

/* What one mount is: its filesystem's magic, its root within the
 * filesystem and its filesystem options ("memory", "xattr,name=systemd"). */
struct usual_mount {
        uint64_t magic;
        char root[1024];
        char opts[512];
};

static uint32_t get_u32(const unsigned char *buf, size_t off)
{
        uint32_t v;

        memcpy(&v, buf + off, sizeof(v));
        return v;
}

static uint64_t get_u64(const unsigned char *buf, size_t off)
{
        uint64_t v;

        memcpy(&v, buf + off, sizeof(v));
        return v;
}

/* A string member of the reply (an offset into the strings), copied. */
static int get_str(const unsigned char *buf, size_t len, size_t member, char *out, size_t size)
{
        size_t off = SM_FIXED_SIZE + get_u32(buf, member);
        const char *s = (const char *) buf + off;
        size_t n;

        if (off >= len)
                return -EINVAL;
        n = strnlen(s, len - off);
        if (n == len - off || n >= size)
                return -EINVAL;
        memcpy(out, s, n + 1);
        return 0;
}

/* 0 when path is the root of a mount and its facts are in *m (the options
 * only with want_opts: the kernel leaves out an empty string, as cgroup2's
 * usually is); a negative errno when it is not, or the kernel cannot say
 * (no statmount). */
static int stat_mount(const char *path, bool want_opts, struct usual_mount *m)
{
        unsigned char buf[4096];
        struct mnt_req req = {.size = MNT_ID_REQ_SIZE0};
        struct statx sx;
        uint32_t want = SM_SB_BASIC | SM_MNT_ROOT | (want_opts ? SM_MNT_OPTS : 0);
        long n;

        if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_MNT_ID_UNIQUE, &sx) < 0)
                return errno ? -errno : -EIO;
        if (!(sx.stx_mask & STATX_MNT_ID_UNIQUE) ||
            !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
            !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
                return -ENOENT;
        req.mnt_id = sx.stx_mnt_id;
        req.param = want;
        n = syscall(SYS_statmount, &req, buf, sizeof(buf), 0);
        if (n < 0)
                return errno ? -errno : -EIO;
        if ((get_u64(buf, SM_OFF_MASK) & want) != want || get_u32(buf, 0) > sizeof(buf))
                return -ENOTSUP;
        m->magic = get_u64(buf, SM_OFF_SB_MAGIC);
        m->opts[0] = '\0';
        if (get_str(buf, get_u32(buf, 0), SM_OFF_MNT_ROOT, m->root, sizeof(m->root)) < 0 ||
            (want_opts &&
             get_str(buf, get_u32(buf, 0), SM_OFF_MNT_OPTS, m->opts, sizeof(m->opts)) < 0))
                return -EINVAL;
        return 0;
}

int cg_mount_at_usual_place(struct cg_hier *h, bool with_v1)
{
        struct usual_mount m = {.magic = 0};
        const char *name = strncmp(h->key, "name=", 5) == 0 ? h->key + 5 : h->key;
        char path[256];
        int r;

        if (h->v2)
                snprintf(path, sizeof(path), "%s",
                         with_v1 ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup");
        else if (!name[0] || strchr(name, '/') ||
                 snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", name) >= (int) sizeof(path))
                return 0;
        r = stat_mount(path, !h->v2, &m);
        /* next to v1 hierarchies, a cgroup2 mount goes at .../unified or
         * nowhere (as crun and runc see it): nothing there means none */
        if (h->v2 && with_v1 && (r == -ENOENT || (r == 0 && m.magic != CGROUP2_MAGIC)))
                return 2;
        if (r < 0 || m.magic != (h->v2 ? CGROUP2_MAGIC : CGROUP_MAGIC))
                return 0;
        if (!h->v2 && !bento_mount_opts_all_in(h->key, m.opts))
                return 0;
        return cg_hier_set_mount(h, path, m.root);
}
