/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-file reads under a size cap, atomic replace-by-rename writes, and
 * the flushed variant for files that must survive a crash (fileio.h).
 * Everything here retries EINTR and cleans up after itself: a failed write
 * leaves no temporary file behind.
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"

#define READ_CHUNK 4096

/* "'name' is N bytes; the limit is M" (more: N is where the read stopped). */
static int too_big(struct bento_err *err, const char *name, unsigned long long size, bool more,
                   size_t max)
{
        char what[BENTO_ERR_MSG_MAX];

        snprintf(what, sizeof(what), "'%s'", name);
        return bento_err_too_big(err, what, size, more, max);
}

/* Read to EOF into a buffer of at most max bytes (plus terminator).  hint
 * is the expected size (0 when unknown) and only sizes the first buffer. */
static int read_all(int fd, const char *name, size_t max, size_t hint, char **ret, size_t *ret_len,
                    struct bento_err *err)
{
        /* One byte more than allowed tells "exactly max" from "too big". */
        size_t limit = max < SIZE_MAX - 2 ? max + 1 : SIZE_MAX - 2;
        cleanup_free char *buf = NULL;
        size_t len = 0, cap = 0;

        for (;;) {
                ssize_t n;

                if (len == cap) {
                        size_t want = cap ? cap * 2 : (hint ? hint + 1 : READ_CHUNK);
                        char *p;

                        if (len >= limit)
                                return too_big(err, name, max, true, max);
                        if (want > limit || want < cap)
                                want = limit;
                        p = realloc(buf, want + 1);
                        if (!p)
                                return bento_err_set(err, ENOMEM, "reading '%s'", name);
                        buf = p;
                        cap = want;
                }
                n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return bento_err_set(err, errno, "cannot read '%s'", name);
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        if (len > max)
                return too_big(err, name, max, true, max);
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int bento_read_fd(int fd, const char *name, size_t max, char **ret, size_t *ret_len,
                  struct bento_err *err)
{
        return read_all(fd, name, max, 0, ret, ret_len, err);
}

static int open_failure(int dirfd, const char *name, struct bento_err *err)
{
        int saved = errno;
        struct stat st;

        /* ELOOP also means "too many links on the way": say which it was. */
        if (saved == ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
                return bento_err_setx(err, ELOOP, "refusing to read '%s': it is a symbolic link",
                                      name);
        return bento_err_set(err, saved, "cannot open '%s'", name);
}

int bento_read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len,
                       struct bento_err *err)
{
        /* O_NONBLOCK: opening a FIFO must not hang before fstat() rejects it. */
        cleanup_close int fd =
            openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (fd < 0)
                return open_failure(dirfd, name, err);
        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "cannot stat '%s'", name);
        if (!S_ISREG(st.st_mode))
                return bento_err_setx(err, EINVAL, "'%s' is not a regular file", name);
        if (st.st_size > 0 && (uintmax_t) st.st_size > max)
                return too_big(err, name, (unsigned long long) st.st_size, false, max);
        return read_all(fd, name, max, (size_t) st.st_size, ret, ret_len, err);
}

int bento_read_file(const char *path, size_t max, char **ret, size_t *ret_len,
                    struct bento_err *err)
{
        return bento_read_file_at(AT_FDCWD, path, max, ret, ret_len, err);
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, data, len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                data += n;
                len -= (size_t) n;
        }
        return 0;
}

static unsigned long long random_suffix(void)
{
        static unsigned counter;
        unsigned long long v = 0;
        struct timespec ts;

        if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t) sizeof(v))
                return v & 0xffffffffffffULL;
        /* No entropy yet (early boot): uniqueness is all that is needed. */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((unsigned long long) getpid() << 32) ^ (unsigned long long) ts.tv_nsec ^ ++counter;
        return v & 0xffffffffffffULL;
}

#define TEMP_HEX 12 /* random_suffix() is 48 bits, "%012llx" */

bool bento_is_temp_name(const char *name, const char *target)
{
        size_t t = strlen(target);

        if (name[0] != '.' || strncmp(name + 1, target, t) != 0 || name[1 + t] != '.')
                return false;
        name += t + 2;
        if (strlen(name) != TEMP_HEX)
                return false;
        for (; *name; name++)
                if (!((*name >= '0' && *name <= '9') || (*name >= 'a' && *name <= 'f')))
                        return false;
        return true;
}

/* Create ".<name>.<random>" exclusively; the name goes to tmp (a name
 * bento_is_temp_name recognises). */
static int create_temp(int dirfd, const char *name, char *tmp, size_t size)
{
        for (int attempt = 0; attempt < 16; attempt++) {
                int fd;

                snprintf(tmp, size, ".%.200s.%0*llx", name, TEMP_HEX, random_suffix());
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
                if (fd >= 0 || errno != EEXIST)
                        return fd < 0 ? -errno : fd;
        }
        return -EEXIST;
}

/* Put the temporary file tmp at name, as rename(2) would.  Over an
 * existing file, rename(2) on ext4 (auto_da_alloc) starts the writeback of
 * the new file inside the call, for a replacement made durable by nobody
 * (fileio.h): half a millisecond per file on the benchmark VM.  Swapping the
 * two names (RENAME_EXCHANGE, as atomic for a reader) and removing the old
 * file under tmp costs none of that.  Nothing at name yet, or a file system
 * without the swap: the plain rename.  A directory at name, which rename(2)
 * refuses, is swapped back and refused the same way. */
static int put_in_place(int dirfd, const char *tmp, const char *name)
{
        if (renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE) < 0)
                return renameat(dirfd, tmp, dirfd, name) < 0 ? -errno : 0;
        if (unlinkat(dirfd, tmp, 0) == 0)
                return 0;
        if (errno != EISDIR)
                return 0; /* in place; the old file stays under its temporary name */
        (void) renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE);
        return -EISDIR;
}

/* Fill and rename the temporary file (no fsync: see fileio.h); shown is the name used in
 * messages (the whole path for bento_write_file_atomic). */
static int replace(int dirfd, const char *name, const char *shown, const char *data, size_t len,
                   mode_t mode, struct bento_err *err)
{
        char tmp[256];
        cleanup_close int fd = create_temp(dirfd, name, tmp, sizeof(tmp));
        const char *step;
        int r;

        if (fd < 0)
                return bento_err_set(err, -fd, "cannot create a temporary file for '%s'", shown);
        step = "set the mode of";
        r = fchmod(fd, mode & 07777) < 0 ? -errno : 0;
        if (r == 0) {
                step = "write";
                r = write_all(fd, data, len);
        }
        if (r == 0) {
                step = "close";
                r = close(TAKE_FD(fd)) < 0 ? -errno : 0;
        }
        if (r == 0) {
                step = "rename into place";
                r = put_in_place(dirfd, tmp, name);
        }
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return bento_err_set(err, -r, "cannot %s '%s'", step, shown);
        }
        return 0;
}

int bento_write_file_atomic_at(int dirfd, const char *name, const char *data, size_t len,
                               mode_t mode, struct bento_err *err)
{
        if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
            strcmp(name, "..") == 0)
                return bento_err_setx(err, EINVAL, "'%s' is not a plain file name",
                                      name ? name : "(null)");
        return replace(dirfd, name, name, data, len, mode, err);
}

int bento_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode,
                            struct bento_err *err)
{
        const char *slash = strrchr(path, '/');
        cleanup_free char *dir = NULL;
        cleanup_close int dirfd = -1;
        const char *name = slash ? slash + 1 : path;

        if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return bento_err_setx(err, EINVAL, "'%s' does not name a file", path);
        if (!slash)
                return replace(AT_FDCWD, name, path, data, len, mode, err);
        dir = slash == path ? strdup("/") : strndup(path, (size_t) (slash - path));
        if (!dir)
                return bento_err_set(err, ENOMEM, "writing '%s'", path);
        dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return bento_err_set(err, errno, "cannot open the directory of '%s'", path);
        return replace(dirfd, name, path, data, len, mode, err);
}

/* A failure cannot undo the rename, so it is ignored (as fsync on some file
 * systems' directories always fails). */
static void sync_dir_of(const char *path)
{
        const char *slash = strrchr(path, '/');
        cleanup_free char *dir =
            slash ? strndup(path, slash == path ? 1 : (size_t) (slash - path)) : strdup(".");
        cleanup_close int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

        if (fd >= 0)
                (void) fsync(fd);
}

int bento_commit_temp_file(int fd, const char *tmp, const char *dst, const char *data, size_t len,
                           mode_t mode, const char **ret_step)
{
        cleanup_close int owned = fd;
        const char *step = "write";
        int r;

        r = write_all(owned, data, len);
        if (r == 0) {
                step = "set the mode of";
                r = fchmod(owned, mode) < 0 ? -errno : 0;
        }
        if (r == 0) {
                step = "flush";
                r = fsync(owned) < 0 ? -errno : 0;
        }
        if (r == 0) {
                step = "close";
                r = close(TAKE_FD(owned)) < 0 ? -errno : 0;
        }
        if (r == 0) {
                step = "rename into place";
                r = rename(tmp, dst) < 0 ? -errno : 0;
        }
        if (r < 0) {
                (void) unlink(tmp);
                *ret_step = step;
                return r;
        }
        sync_dir_of(dst);
        return 0;
}

int bento_write_value(const char *path, const char *value, int flags, const char **ret_step)
{
        cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
        size_t len = strlen(value);
        const char *unused;

        if (!ret_step)
                ret_step = &unused;
        *ret_step = "open";
        if (fd < 0)
                return -errno;
        *ret_step = "write";
        errno = 0;
        if (write(fd, value, len) != (ssize_t) len)
                return errno ? -errno : -EIO;
        return 0;
}
