/* SPDX-License-Identifier: Apache-2.0 */
/*
 * In-root path resolution (see safe-path.h).  Two implementations give the
 * same answer: openat2() with RESOLVE_IN_ROOT, whose result path is the
 * path's own names when no symlink was on the way and is otherwise read
 * back from /proc/self/fd, and a walk that opens one component at a time
 * with O_NOFOLLOW, interprets symlinks itself (absolute targets restart at
 * the root) and handles ".." by re-walking its own canonical path from the
 * root, so it can never climb above it.  Only the walk creates things.
 */
#include "safe-path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

#define MAX_SYMLINKS 40

struct walk {
        const struct rt_root *root;
        int cur; /* O_PATH directory we are in: root->fd itself, borrowed, at the root */
        char canon[PATH_MAX]; /* its path inside the root, "" for the root */
        size_t canon_len;
        char pending[PATH_MAX]; /* what is left to resolve, from pending_pos */
        size_t pending_pos;
        char scratch[PATH_MAX];
        unsigned int links;
};

const char *rt_fd_path(int fd, char *buf, size_t size)
{
        snprintf(buf, size, "/proc/self/fd/%d", fd);
        return buf;
}

int rt_root_open(struct rt_root *root, const char *path)
{
        static unsigned long last_id;
        char proc[32];
        ssize_t n;

        root->id = ++last_id;
        root->mnt_id = 0;
        root->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root->fd < 0)
                return -errno;
        if (strcmp(path, "/") == 0) {
                /* our own root: "/" is what /proc would say */
                memcpy(root->path, "/", 2);
                root->len = 1;
                return 0;
        }
        n = readlink(rt_fd_path(root->fd, proc, sizeof(proc)), root->path, sizeof(root->path));
        if (n <= 0 || (size_t) n >= sizeof(root->path) || root->path[0] != '/') {
                /* no usable /proc: fall back to the C library */
                if (!realpath(path, root->path)) {
                        int r = -errno;
                        rt_root_close(root);
                        return r;
                }
                n = (ssize_t) strlen(root->path);
        }
        root->path[n] = '\0';
        root->len = (size_t) n;
        return 0;
}

void rt_root_close(struct rt_root *root)
{
        if (root->fd >= 0)
                close(root->fd);
        root->fd = -1;
}

void rt_target_close(struct rt_target *t)
{
        if (t->fd >= 0)
                close(t->fd);
        t->fd = -1;
        t->mnt_noted = false;
}

/* ret->path = parent->path + "/" + name, and no fd yet. */
static int name_child(const struct rt_target *parent, const char *name, struct rt_target *ret)
{
        const char *base = strcmp(parent->path, "/") == 0 ? "" : parent->path;
        int n = snprintf(ret->path, sizeof(ret->path), "%s/%s", base, name);

        ret->fd = -1;
        ret->mnt_noted = false;
        return n < 0 || (size_t) n >= sizeof(ret->path) ? -ENAMETOOLONG : 0;
}

int rt_target_child(const struct rt_target *parent, const char *name, int oflags,
                    struct rt_target *ret)
{
        int r = name_child(parent, name, ret);

        if (r < 0)
                return r;
        ret->fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | oflags);
        if (ret->fd < 0)
                return -errno;
        return 0;
}

int rt_target_child_fd(const struct rt_target *parent, const char *name, int fd,
                       struct rt_target *ret)
{
        int r = name_child(parent, name, ret);

        if (r < 0) {
                close(fd);
                return r;
        }
        ret->fd = fd;
        return 0;
}

int rt_path_split(const char *path, char *parent, char *name)
{
        size_t len = strlen(path);
        const char *slash;
        size_t plen;

        while (len > 1 && path[len - 1] == '/')
                len--;
        if (len >= PATH_MAX)
                return -ENAMETOOLONG;
        slash = memrchr(path, '/', len);
        plen = slash ? (size_t) (slash - path) : 0;
        if (slash) {
                size_t nlen = len - plen - 1;
                if (nlen > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(name, slash + 1, nlen);
                name[nlen] = '\0';
        } else {
                if (len > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(name, path, len);
                name[len] = '\0';
        }
        if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return -EINVAL;
        if (plen == 0) {
                memcpy(parent, "/", 2);
        } else {
                memcpy(parent, path, plen);
                parent[plen] = '\0';
        }
        return 0;
}

/* ---- the manual walk ---- */

/* Leave the directory we are in: closed unless it is the root's own fd. */
static void walk_leave(struct walk *w)
{
        if (w->cur >= 0 && w->cur != w->root->fd)
                close(w->cur);
        w->cur = -1;
}

/* Back at the root: its fd is used as it is (an O_PATH directory fd, as
 * rt_root_open made it), not opened again. */
static int walk_open_root(struct walk *w)
{
        walk_leave(w);
        w->cur = w->root->fd;
        w->canon_len = 0;
        w->canon[0] = '\0';
        return 0;
}

/* ".." : drop the last canonical component and re-open the parent from the
 * root, refusing symlinks on the way (the canonical path has none). */
static int walk_up(struct walk *w)
{
        char *end;
        char keep[PATH_MAX];
        size_t keep_len;
        int r;

        if (w->canon_len == 0)
                return 0; /* ".." of the root is the root */
        end = memrchr(w->canon, '/', w->canon_len);
        keep_len = end ? (size_t) (end - w->canon) : 0;
        memcpy(keep, w->canon, keep_len);
        keep[keep_len] = '\0';
        r = walk_open_root(w);
        if (r < 0)
                return r;
        for (char *save = NULL, *c = strtok_r(keep, "/", &save); c;
             c = strtok_r(NULL, "/", &save)) {
                int fd = openat(w->cur, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                walk_leave(w);
                w->cur = fd;
                w->canon[w->canon_len++] = '/';
                memcpy(w->canon + w->canon_len, c, strlen(c) + 1);
                w->canon_len += strlen(c);
        }
        return 0;
}

/* Take the next component out of pending into name; false when none is left. */
static bool walk_next(struct walk *w, char *name, bool *last, int *r)
{
        const char *p = w->pending + w->pending_pos;
        size_t len;

        while (*p == '/')
                p++;
        if (*p == '\0')
                return false;
        len = strcspn(p, "/");
        if (len > NAME_MAX) {
                *r = -ENAMETOOLONG;
                return false;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        p += len;
        while (*p == '/')
                p++;
        *last = *p == '\0';
        w->pending_pos = (size_t) (p - w->pending);
        return true;
}

/* Replace the consumed part of pending with the symlink's target. */
static int walk_splice_link(struct walk *w, int link_fd)
{
        const char *rest = w->pending + w->pending_pos;
        ssize_t n;
        size_t rest_len = strlen(rest);

        if (++w->links > MAX_SYMLINKS)
                return -ELOOP;
        n = readlinkat(link_fd, "", w->scratch, sizeof(w->scratch));
        if (n < 0)
                return -errno;
        if (n == 0)
                return -ENOENT;
        if ((size_t) n + 1 + rest_len + 1 > sizeof(w->scratch))
                return -ENAMETOOLONG;
        w->scratch[n++] = '/';
        memcpy(w->scratch + n, rest, rest_len + 1);
        memcpy(w->pending, w->scratch, (size_t) n + rest_len + 1);
        w->pending_pos = 0;
        if (w->pending[0] == '/')
                return walk_open_root(w);
        return 0;
}

static int walk_create(struct walk *w, const char *name, bool last, unsigned int flags, mode_t mode)
{
        if (last && (flags & RT_SP_MKFILE)) {
                int fd = openat(w->cur, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
                                mode);
                if (fd < 0)
                        return errno == EEXIST ? 0 : -errno;
                close(fd);
                return 0;
        }
        if (mkdirat(w->cur, name, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

static int walk_enter(struct walk *w, const char *name, int fd)
{
        size_t nlen = strlen(name);

        if (w->canon_len + 1 + nlen >= sizeof(w->canon)) {
                close(fd);
                return -ENAMETOOLONG;
        }
        walk_leave(w);
        w->cur = fd;
        w->canon[w->canon_len++] = '/';
        memcpy(w->canon + w->canon_len, name, nlen + 1);
        w->canon_len += nlen;
        return 0;
}

/* Open name in directory dir without following a link there.  Where a
 * directory is wanted, O_DIRECTORY tells in the same call that it is one,
 * and so no link (*is_dir); anything else (ENOTDIR: a link or a file) is
 * opened again as it is, for the caller to look at. */
static int open_entry(int dir, const char *name, bool want_dir, bool *is_dir)
{
        int fd;

        *is_dir = false;
        if (want_dir) {
                fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0) {
                        *is_dir = true;
                        return fd;
                }
                if (errno != ENOTDIR)
                        return -errno;
        }
        fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static int walk_component(struct walk *w, const char *name, bool last, unsigned int flags,
                          mode_t mode)
{
        bool want_dir = !last || (flags & (RT_SP_MKDIR | RT_SP_MKFILE)) == RT_SP_MKDIR;
        bool is_dir;
        struct stat st;
        int fd, r;

        if (strcmp(name, ".") == 0)
                return 0;
        if (strcmp(name, "..") == 0)
                return walk_up(w);
        fd = open_entry(w->cur, name, want_dir, &is_dir);
        if (fd == -ENOENT && (flags & (RT_SP_MKDIR | RT_SP_MKFILE))) {
                r = walk_create(w, name, last, flags, mode);
                if (r < 0)
                        return r;
                fd = open_entry(w->cur, name, want_dir, &is_dir);
        }
        if (fd < 0)
                return fd;
        if (is_dir)
                return walk_enter(w, name, fd); /* takes fd */
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (S_ISLNK(st.st_mode) && !(last && (flags & RT_SP_NOFOLLOW)))
                r = (flags & RT_SP_NOSYMLINKS) ? -ELOOP : walk_splice_link(w, fd);
        else if (!last && !S_ISDIR(st.st_mode))
                r = -ENOTDIR;
        else
                return walk_enter(w, name, fd); /* takes fd */
        close(fd);
        return r;
}

static int walk_run(struct walk *w, unsigned int flags, mode_t mode, struct rt_target *ret)
{
        char name[NAME_MAX + 1];
        bool last = false;
        int r = walk_open_root(w);

        while (r == 0 && walk_next(w, name, &last, &r))
                r = walk_component(w, name, last, flags, mode);
        /* the answer is an fd of its own, also when it is the root */
        if (r == 0 && w->cur == w->root->fd) {
                w->cur = fcntl(w->root->fd, F_DUPFD_CLOEXEC, 0);
                if (w->cur < 0)
                        r = -errno;
        }
        if (r < 0) {
                walk_leave(w);
                return r;
        }
        ret->fd = w->cur;
        if (w->canon_len == 0)
                memcpy(ret->path, "/", 2);
        else
                memcpy(ret->path, w->canon, w->canon_len + 1);
        return 0;
}

static int resolve_walk(const struct rt_root *root, const char *path, unsigned int flags,
                        mode_t mode, struct rt_target *ret)
{
        size_t len = strlen(path);
        struct walk *w;
        int r;

        if (len >= sizeof(w->pending))
                return -ENAMETOOLONG;
        w = calloc(1, sizeof(*w)); /* three PATH_MAX buffers: keep them off the stack */
        if (!w)
                return -ENOMEM;
        w->root = root;
        w->cur = -1;
        memcpy(w->pending, path, len + 1);
        r = walk_run(w, flags, mode, ret);
        free(w);
        return r;
}

/* ---- openat2 ---- */

/* The canonical form of a path made only of names (no "." or ".."
 * component): slashes squeezed, none trailing, "/" for the root.  Resolved
 * without following any symlink, such a path leads to exactly the object
 * its names spell, so this is where the object is.  False when a dot
 * component makes only the kernel know where it led. */
static bool canonical_by_names(const char *path, char *out)
{
        size_t len = 0;

        for (const char *p = path; *p;) {
                size_t n;

                while (*p == '/')
                        p++;
                n = strcspn(p, "/");
                if (n == 0)
                        break;
                if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (len + 1 + n >= PATH_MAX)
                        return false;
                out[len++] = '/';
                memcpy(out + len, p, n);
                len += n;
                p += n;
        }
        if (len == 0)
                out[len++] = '/';
        out[len] = '\0';
        return true;
}

/* Read back where fd is and express it relative to the root. */
static int canonical_in_root(const struct rt_root *root, int fd, char *out)
{
        char proc[32];
        char *buf = out;
        ssize_t n = readlink(rt_fd_path(fd, proc, sizeof(proc)), buf, PATH_MAX);

        if (n <= 0 || n >= PATH_MAX || buf[0] != '/')
                return -ENOENT;
        buf[n] = '\0';
        if (root->len == 1)
                return 0;
        if ((size_t) n < root->len || memcmp(buf, root->path, root->len) != 0 ||
            (buf[root->len] != '\0' && buf[root->len] != '/'))
                return -EXDEV;
        if ((size_t) n == root->len)
                memcpy(out, "/", 2);
        else
                memmove(out, buf + root->len, (size_t) n - root->len + 1);
        return 0;
}

static int openat2_in_root(const struct rt_root *root, const char *path, unsigned int flags)
{
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | ((flags & RT_SP_NOFOLLOW) ? O_NOFOLLOW : 0),
            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
                       ((flags & RT_SP_NOSYMLINKS) ? RESOLVE_NO_SYMLINKS : 0),
        };
        int fd = -1;

        for (int tries = 0; tries < 8; tries++) {
                fd = (int) syscall(SYS_openat2, root->fd, path, &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        return fd < 0 ? -errno : fd;
}

/* A path of names is tried without symlinks first: nearly every mount
 * destination has none, and then its canonical path is known without
 * asking /proc (a readlink of /proc/self/fd/N costs several microseconds).
 * Only a symlink on the way (ELOOP) sends it, like a path with dot
 * components, through the resolution that follows links and reads back
 * where it ended. */
static int resolve_openat2(const struct rt_root *root, const char *path, unsigned int flags,
                           struct rt_target *ret)
{
        int fd;

        if (canonical_by_names(path, ret->path)) {
                fd = openat2_in_root(root, path, flags | RT_SP_NOSYMLINKS);
                if (fd >= 0) {
                        ret->fd = fd;
                        return 0;
                }
                /* any other failure is the one a link-following lookup
                 * would meet too: it walks the same names up to a link */
                if (fd != -ELOOP || (flags & RT_SP_NOSYMLINKS))
                        return fd;
        }
        fd = openat2_in_root(root, path, flags);
        if (fd < 0)
                return fd;
        if (canonical_in_root(root, fd, ret->path) < 0) {
                close(fd);
                return -EAGAIN; /* let the walk answer */
        }
        ret->fd = fd;
        return 0;
}

static bool openat2_unusable(int r)
{
        return r == -ENOSYS || r == -EPERM || r == -E2BIG || r == -EINVAL || r == -EAGAIN;
}

int rt_safe_resolve(const struct rt_root *root, const char *path, unsigned int flags, mode_t mode,
                    struct rt_target *ret)
{
        ret->fd = -1;
        ret->mnt_noted = false;
        if (!path || path[0] == '\0')
                return -EINVAL;
        if (!(flags & RT_SP_WALK)) {
                int r = resolve_openat2(root, path, flags, ret);

                if (r == 0)
                        return 0;
                if (!openat2_unusable(r) &&
                    !(r == -ENOENT && (flags & (RT_SP_MKDIR | RT_SP_MKFILE))))
                        return r;
        }
        return resolve_walk(root, path, flags, mode, ret);
}

bool rt_path_within(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        if (strcmp(dir, "/") == 0)
                return true;
        return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
