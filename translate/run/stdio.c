/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The three standard descriptors a run hands to the target (docs/cli/bento-run.md, "WHAT RUN DOES,
 * IN ORDER", docs/cli/bento-run.md, "WHAT RUN DOES, IN ORDER").  They are the one channel into the
 * sandbox that no manifest field describes, so what they may be is fixed here: a terminal, a pipe,
 * a unix socket, an ordinary file, or one of the harmless character devices. A network socket would
 * carry traffic past the egress fence, a directory or an nsfs handle would be a way out of the
 * mount or namespace view, a block device raw disk access, and a writable kernel pseudo-file a
 * lever on the host: each of those refuses the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "run.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef EFIVARFS_MAGIC
#define EFIVARFS_MAGIC 0xde5e81e4
#endif

static int refuse_fd(int fd, const char *what, struct bento_err *err)
{
        return bento_err_setx(err, EPERM,
                              "standard descriptor %d is %s; bento does not hand that to a "
                              "sandbox. Redirect it (to a file, a pipe or /dev/null) and run "
                              "again",
                              fd, what);
}

static int screen_socket(int fd, struct bento_err *err)
{
        int domain = 0;
        socklen_t len = sizeof(domain);

        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
                return refuse_fd(fd, "a socket of unknown kind", err);
        if (domain == AF_UNIX)
                return 0;
        if (domain == AF_INET || domain == AF_INET6)
                return refuse_fd(fd,
                                 "a network socket (it would carry traffic past the "
                                 "egress fence)",
                                 err);
        return refuse_fd(fd, "a socket of a kind other than AF_UNIX", err);
}

static int screen_chardev(int fd, const struct stat *st, struct bento_err *err)
{
        static const unsigned harmless[] = {3, 5, 7, 8, 9}; /* null zero full random urandom */
        struct termios t;

        if (major(st->st_rdev) == 1)
                for (size_t i = 0; i < sizeof(harmless) / sizeof(harmless[0]); i++)
                        if (minor(st->st_rdev) == harmless[i])
                                return 0;
        if (tcgetattr(fd, &t) == 0)
                return 0; /* a terminal */
        return refuse_fd(fd, "a character device other than a terminal or /dev/null", err);
}

static bool pseudo_fs(long type)
{
        static const long types[] = {PROC_SUPER_MAGIC, SYSFS_MAGIC,        DEBUGFS_MAGIC,
                                     TRACEFS_MAGIC,    CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
                                     EFIVARFS_MAGIC,   SECURITYFS_MAGIC};

        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
                if (type == types[i])
                        return true;
        return false;
}

static int screen_file(int fd, const struct stat *st, struct bento_err *err)
{
        struct statfs sfs;
        int flags;

        if (fstatfs(fd, &sfs) < 0)
                return refuse_fd(fd, "a file whose file system cannot be identified", err);
        if (sfs.f_type == NSFS_MAGIC)
                return refuse_fd(fd, "a namespace handle", err);
        if (!pseudo_fs(sfs.f_type))
                return 0;
        flags = fcntl(fd, F_GETFL);
        if ((st->st_mode & S_IROTH) && flags >= 0 && (flags & O_ACCMODE) == O_RDONLY)
                return 0;
        return refuse_fd(fd, "a kernel pseudo-file opened for writing, or not world-readable", err);
}

int run_screen_stdio(int ret_fds[3], struct bento_err *err)
{
        for (int fd = 0; fd < 3; fd++) {
                struct stat st;
                int r = 0;

                ret_fds[fd] = fd;
                if (fstat(fd, &st) < 0) {
                        if (errno != EBADF)
                                return bento_err_set(err, errno, "standard descriptor %d", fd);
                        ret_fds[fd] = -1; /* closed: the target gets /dev/null */
                        continue;
                }
                if (S_ISSOCK(st.st_mode))
                        r = screen_socket(fd, err);
                else if (S_ISDIR(st.st_mode))
                        r = refuse_fd(fd, "a directory", err);
                else if (S_ISBLK(st.st_mode))
                        r = refuse_fd(fd, "a block device", err);
                else if (S_ISCHR(st.st_mode))
                        r = screen_chardev(fd, &st, err);
                else if (S_ISREG(st.st_mode))
                        r = screen_file(fd, &st, err);
                else if (!S_ISFIFO(st.st_mode))
                        r = refuse_fd(fd, "a descriptor of an unknown kind", err);
                if (r < 0)
                        return r;
        }
        return 0;
}
