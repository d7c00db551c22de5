/* SPDX-License-Identifier: Apache-2.0 */
/* Host process facts and pid-reuse-safe signalling (see proc.h). */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

int rt_proc_stat(pid_t pid, uint64_t *ret_start_time, char *ret_state)
{
        char path[64];
        char buf[1024];
        cleanup_close int fd = -1;
        ssize_t n;
        char *p;
        unsigned long long start = 0;
        char state;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -ESRCH;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return -ESRCH;
        buf[n] = '\0';
        /* comm may contain spaces and parentheses: parse after the last ')' */
        p = strrchr(buf, ')');
        if (!p || p[1] != ' ')
                return -EIO;
        /* fields after comm: state(3) ppid(4) ... starttime(22) */
        if (sscanf(p + 2,
                   "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                   "%*d %*d %llu",
                   &state, &start) != 2)
                return -EIO;
        if (ret_start_time)
                *ret_start_time = start;
        if (ret_state)
                *ret_state = state;
        return 0;
}

bool rt_proc_matches(pid_t pid, uint64_t start_time)
{
        uint64_t st;
        char state;

        if (pid <= 0 || rt_proc_stat(pid, &st, &state) < 0)
                return false;
        return st == start_time && state != 'Z' && state != 'X';
}

int rt_pidfd_open(pid_t pid)
{
        int fd;

        if (pid <= 0)
                return -ESRCH;
        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? -errno : fd;
}

int rt_pidfd_open_checked(pid_t pid, uint64_t start_time, struct bento_err *err)
{
        int fd = rt_pidfd_open(pid);

        if (fd == -ESRCH)
                return bento_err_setx(err, ESRCH, "container not running");
        if (fd < 0)
                return bento_err_set(err, -fd, "pidfd_open %d", (int) pid);
        /* checked after opening: from here on the fd pins this very process */
        if (!rt_proc_matches(pid, start_time)) {
                close(fd);
                return bento_err_setx(err, ESRCH, "container not running");
        }
        return fd;
}

int rt_pidfd_signal(int pidfd, int sig, struct bento_err *err)
{
        if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0) {
                if (errno == ESRCH)
                        return bento_err_setx(err, ESRCH, "container not running");
                return bento_err_set(err, errno, "cannot send signal %d", sig);
        }
        return 0;
}

int rt_pidfd_wait_exit(int pidfd, int timeout_ms)
{
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int r;

        do
                r = poll(&p, 1, timeout_ms);
        while (r < 0 && errno == EINTR);
        return r > 0 ? 0 : -ETIMEDOUT;
}

uint64_t rt_proc_ns_inode(pid_t pid, const char *name)
{
        char path[64];
        struct stat st;

        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int) pid, name);
        if (stat(path, &st) < 0)
                return 0;
        return (uint64_t) st.st_ino;
}
