/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names beneath a directory, never through a symlink (see beneath.h).
 * openat2() does the lookup when the kernel has it; the walk below gives
 * the same answer one component at a time.  Creation and removal act on
 * the last component relative to a descriptor of its parent reached that
 * way, so a symlink swapped in above it cannot redirect them.
 */
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

/* rel is relative and climbs nowhere: no leading "/", no ".." component. */
static bool rel_ok(const char *rel)
{
        if (rel[0] == '/')
                return false;
        for (const char *p = rel; *p;) {
                size_t len = strcspn(p, "/");

                if (len == 2 && p[0] == '.' && p[1] == '.')
                        return false;
                p += len;
                p += strspn(p, "/");
        }
        return true;
}

static int open_openat2(int dirfd, const char *rel)
{
        struct open_how how = {
            .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd;

        /* EAGAIN: a rename raced the lookup; the kernel asks for a retry. */
        for (int tries = 0; tries < 8; tries++) {
                fd = syscall(SYS_openat2, dirfd, rel[0] ? rel : ".", &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        return fd < 0 ? -errno : (int) fd;
}

/* One component at a time: O_NOFOLLOW | O_DIRECTORY refuses a symlink
 * (ENOTDIR) as well as anything that is not a directory. */
static int open_walk(int dirfd, const char *rel)
{
        int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

        for (const char *p = rel; cur >= 0 && *p;) {
                char name[NAME_MAX + 1];
                size_t len = strcspn(p, "/");
                int next;

                if (len > NAME_MAX) {
                        close(cur);
                        return -ENAMETOOLONG;
                }
                memcpy(name, p, len);
                name[len] = '\0';
                p += len;
                p += strspn(p, "/");
                if (len == 0 || strcmp(name, ".") == 0)
                        continue;
                next = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        next = -errno;
                close(cur);
                if (next < 0)
                        return next;
                cur = next;
        }
        return cur < 0 ? -errno : cur;
}

int bento_beneath_open(int dirfd, const char *rel, unsigned flags)
{
        if (!rel_ok(rel))
                return -EINVAL;
        if (!(flags & BENTO_BENEATH_WALK)) {
                int fd = open_openat2(dirfd, rel);

                /* ENOSYS: no openat2; EPERM: a seccomp filter refusing it. */
                if (fd != -ENOSYS && fd != -EPERM)
                        return fd;
        }
        return open_walk(dirfd, rel);
}

int bento_beneath_open_abs(const char *path, unsigned flags)
{
        cleanup_close int root = -1;

        if (path[0] != '/')
                return -EINVAL;
        root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return -errno;
        return bento_beneath_open_abs_at(root, path, flags);
}

int bento_beneath_open_abs_at(int root, const char *path, unsigned flags)
{
        if (path[0] != '/')
                return -EINVAL;
        return bento_beneath_open(root, path + strspn(path, "/"), flags);
}

int bento_beneath_split(const char *rel, char parent[PATH_MAX], char name[NAME_MAX + 1])
{
        size_t len = strlen(rel);
        const char *slash, *last;

        while (len > 0 && rel[len - 1] == '/')
                len--;
        if (len >= PATH_MAX)
                return -ENAMETOOLONG;
        if (len == 0 || !rel_ok(rel))
                return -EINVAL;
        memcpy(parent, rel, len);
        parent[len] = '\0';
        slash = strrchr(parent, '/');
        last = slash ? slash + 1 : parent;
        if (strlen(last) > NAME_MAX)
                return -ENAMETOOLONG;
        memcpy(name, last, strlen(last) + 1);
        if (strcmp(name, ".") == 0)
                return -EINVAL;
        parent[slash ? (size_t) (slash - parent) : 0] = '\0';
        return 0;
}

int bento_beneath_open_parent(int dirfd, const char *rel, unsigned flags, char name[NAME_MAX + 1])
{
        char parent[PATH_MAX];
        int r = bento_beneath_split(rel, parent, name);

        return r < 0 ? r : bento_beneath_open(dirfd, parent, flags);
}

static int make_at(int pfd, const char *name, bool dir, mode_t mode, struct stat *st)
{
        cleanup_close int fd = -1;

        if (dir) {
                if (mkdirat(pfd, name, mode) < 0)
                        return -errno;
                if (fstatat(pfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
                /* Replaced between the two calls: not what was made. */
                return S_ISDIR(st->st_mode) ? 0 : -ESTALE;
        }
        fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 || fstat(fd, st) < 0)
                return -errno;
        return 0;
}

int bento_beneath_make(int dirfd, const char *rel, bool dir, mode_t mode, unsigned flags,
                       struct bento_ident *ret)
{
        char parent[PATH_MAX], name[NAME_MAX + 1];
        cleanup_close int pfd = -1;
        struct stat st;
        int r = bento_beneath_split(rel, parent, name);

        if (r < 0)
                return r;
        /* A name right in dirfd is made there: opening dirfd's "." again
         * would only give the same directory, for two system calls. */
        if (parent[0] && (pfd = bento_beneath_open(dirfd, parent, flags)) < 0)
                return pfd;
        r = make_at(parent[0] ? pfd : dirfd, name, dir, mode, &st);
        if (r < 0)
                return r;
        if (ret)
                *ret = (struct bento_ident){.dev = st.st_dev, .ino = st.st_ino};
        return 0;
}

int bento_beneath_remove(int dirfd, const char *rel, const struct bento_ident *id, unsigned flags)
{
        char name[NAME_MAX + 1];
        cleanup_close int pfd = bento_beneath_open_parent(dirfd, rel, flags, name);
        struct stat st;

        if (pfd < 0)
                return pfd;
        if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (id && (st.st_dev != id->dev || st.st_ino != id->ino))
                return -ESTALE;
        if (S_ISDIR(st.st_mode)) {
                /* The kernel checks emptiness as it removes. */
                if (unlinkat(pfd, name, AT_REMOVEDIR) == 0)
                        return 0;
                return errno == EEXIST ? -ENOTEMPTY : -errno;
        }
        if (!S_ISREG(st.st_mode))
                return -ESTALE;
        if (st.st_size != 0)
                return -ENOTEMPTY;
        return unlinkat(pfd, name, 0) < 0 ? -errno : 0;
}
