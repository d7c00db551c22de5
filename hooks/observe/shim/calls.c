/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe-shim.so: the functions it stands in for (shim.h).  Each
 * does what the C library's does on x86_64, the one system call, either
 * from the gadget when shim_take() recorded the path, or from here when
 * it did not, so that the observer is notified as without the library.
 * Only the calls a program makes by the thousand are here: the stat
 * family without AT_EMPTY_PATH (fstat passes the filter anyway), access,
 * and the opens without a write flag, under every name a program may
 * link them by (the 64-bit aliases and the fortified __open*_2 forms).
 * Unlike the C library's, these opens are not cancellation points.
 */
#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <stdarg.h>

#include "../systab.h"
#include "shim.h"

/* No libc header here: their declarations of these very functions (with
 * struct stat64 and the fortify attributes) would clash with the aliases.
 * The stat buffer is the kernel's struct stat, which on x86_64 is the C
 * library's too, passed through untouched. */
struct stat;
typedef unsigned int mode_t;
int *__errno_location(void);
int stat(const char *path, struct stat *st);
int stat64(const char *path, struct stat *st);
int lstat(const char *path, struct stat *st);
int lstat64(const char *path, struct stat *st);
int fstatat(int dirfd, const char *path, struct stat *st, int flags);
int fstatat64(int dirfd, const char *path, struct stat *st, int flags);
int access(const char *path, int mode);
int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

static long result(long r)
{
        if (bento_raw_failed(r)) {
                *__errno_location() = (int) -r;
                return -1;
        }
        return r;
}

static int stat_at(int dirfd, const char *path, struct stat *st, int flags)
{
        char copy[SHIM_PATH_MAX];

        if (!(flags & AT_EMPTY_PATH) && shim_take(path, OBS_RING_PROBE, copy))
                return (int) result(
                    shim_gadget(__NR_newfstatat, dirfd, (long) copy, (long) st, flags));
        return (int) result(
            bento_raw_syscall(__NR_newfstatat, dirfd, (long) path, (long) st, flags, 0, 0));
}

static int open_at(int dirfd, const char *path, int flags, mode_t mode)
{
        char copy[SHIM_PATH_MAX];

        if (!(flags & OBS_OPEN_WRITE_FLAGS) && shim_take(path, OBS_RING_READ, copy))
                return (int) result(shim_gadget(__NR_openat, dirfd, (long) copy, flags, 0));
        return (int) result(bento_raw_syscall(__NR_openat, dirfd, (long) path, flags, mode, 0, 0));
}

/* The mode argument is there only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, last)                                                                      \
        ({                                                                                         \
                mode_t m_ = 0;                                                                     \
                if ((flags) &O_CREAT || ((flags) &O_TMPFILE) == O_TMPFILE) {                       \
                        va_list ap_;                                                               \
                        va_start(ap_, last);                                                       \
                        m_ = va_arg(ap_, mode_t);                                                  \
                        va_end(ap_);                                                               \
                }                                                                                  \
                m_;                                                                                \
        })

SHIM_EXPORT int stat(const char *path, struct stat *st)
{
        return stat_at(AT_FDCWD, path, st, 0);
}

SHIM_EXPORT int stat64(const char *path, struct stat *st) __attribute__((alias("stat")));

SHIM_EXPORT int lstat(const char *path, struct stat *st)
{
        return stat_at(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

SHIM_EXPORT int lstat64(const char *path, struct stat *st) __attribute__((alias("lstat")));

SHIM_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
        return stat_at(dirfd, path, st, flags);
}

SHIM_EXPORT int fstatat64(int dirfd, const char *path, struct stat *st, int flags)
    __attribute__((alias("fstatat")));

SHIM_EXPORT int access(const char *path, int mode)
{
        char copy[SHIM_PATH_MAX];

        if (shim_take(path, OBS_RING_PROBE, copy))
                return (int) result(shim_gadget(__NR_faccessat, AT_FDCWD, (long) copy, mode, 0));
        return (int) result(bento_raw_syscall(__NR_access, (long) path, mode, 0, 0, 0, 0));
}

SHIM_EXPORT int open(const char *path, int flags, ...)
{
        return open_at(AT_FDCWD, path, flags, MODE_ARG(flags, flags));
}

SHIM_EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

SHIM_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
        return open_at(dirfd, path, flags, MODE_ARG(flags, flags));
}

SHIM_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
    __attribute__((alias("openat")));

/* The fortified forms are called without a mode: never with O_CREAT. */
SHIM_EXPORT int __open_2(const char *path, int flags)
{
        return open_at(AT_FDCWD, path, flags, 0);
}

SHIM_EXPORT int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

SHIM_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
        return open_at(dirfd, path, flags, 0);
}

SHIM_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
    __attribute__((alias("__openat_2")));
