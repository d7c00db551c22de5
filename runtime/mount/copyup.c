/* SPDX-License-Identifier: Apache-2.0 */
/* Recursive copy for `tmpcopyup` (see copyup.h). */
#include "copyup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

#define MAX_DEPTH 64

static int copy_dir(int src, int dst, int depth);

/* Owners that the (user) namespace cannot represent stay with whoever runs
 * the copy rather than failing it. */
static int keep_owner(int r)
{
        return r < 0 && errno != EINVAL ? -errno : 0;
}

static int set_owner_mode(int fd, const struct stat *st)
{
        int r = keep_owner(fchown(fd, st->st_uid, st->st_gid));

        if (r == 0 && fchmod(fd, st->st_mode & 07777) < 0)
                r = -errno;
        return r;
}

static int copy_regular(int src, int dst, const char *name, const struct stat *st)
{
        cleanup_close int in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        cleanup_close int out = -1;
        off_t left = st->st_size;

        if (in < 0)
                return -errno;
        out = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0)
                return -errno;
        while (left > 0) {
                ssize_t n = sendfile(out, in, NULL, left > (1 << 30) ? (1 << 30) : (size_t) left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break; /* the file shrank under us */
                left -= n;
        }
        return set_owner_mode(out, st);
}

static int copy_subdir(int src, int dst, const char *name, const struct stat *st, int depth)
{
        cleanup_close int s = -1;
        cleanup_close int d = -1;
        int r;

        if (depth >= MAX_DEPTH)
                return -ELOOP;
        if (mkdirat(dst, name, 0700) < 0)
                return -errno;
        s = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (s < 0)
                return -errno;
        d = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d < 0)
                return -errno;
        r = set_owner_mode(d, st);
        return r < 0 ? r : copy_dir(s, d, depth + 1);
}

static int copy_symlink(int src, int dst, const char *name, const struct stat *st)
{
        char target[PATH_MAX];
        ssize_t n = readlinkat(src, name, target, sizeof(target) - 1);

        if (n < 0)
                return -errno;
        target[n] = '\0';
        if (symlinkat(target, dst, name) < 0)
                return -errno;
        return keep_owner(fchownat(dst, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW));
}

static int copy_entry(int src, int dst, const char *name, int depth)
{
        struct stat st;

        if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        switch (st.st_mode & S_IFMT) {
        case S_IFDIR:
                return copy_subdir(src, dst, name, &st, depth);
        case S_IFREG:
                return copy_regular(src, dst, name, &st);
        case S_IFLNK:
                return copy_symlink(src, dst, name, &st);
        case S_IFCHR:
        case S_IFBLK:
        case S_IFIFO:
                if (mknodat(dst, name, st.st_mode, st.st_rdev) < 0)
                        return errno == EPERM ? 0 : -errno;
                return keep_owner(fchownat(dst, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW));
        default:
                return 0; /* sockets mean nothing without their listener */
        }
}

static int copy_dir(int src, int dst, int depth)
{
        int fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_dir DIR *d = NULL;
        struct dirent *e;

        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while ((errno = 0, e = readdir(d))) {
                int r;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                r = copy_entry(src, dst, e->d_name, depth);
                if (r < 0)
                        return r;
        }
        return errno ? -errno : 0;
}

int rt_copy_tree(int src_dir, int dst_dir)
{
        cleanup_close int s = openat(src_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_close int d = -1;
        struct stat st;
        int r;

        if (s < 0 || fstat(s, &st) < 0)
                return -errno;
        d = openat(dst_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0)
                return -errno;
        r = set_owner_mode(d, &st);
        return r < 0 ? r : copy_dir(s, d, 0);
}
