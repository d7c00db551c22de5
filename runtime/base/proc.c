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

/* PF_EXITING (include/linux/sched.h): set once the task is in do_exit(); it
 * never returns to user space.  A pid namespace's init that was killed
 * stays in this state, not a zombie yet, until every other process of its
 * namespace has been reaped, by whoever their parents are. */
#define RT_PF_EXITING 0x00000004u

/* state(3), flags(9) and starttime(22) of /proc/<pid>/stat. */
static int proc_stat_fields(pid_t pid, uint64_t *ret_start_time, char *ret_state,
                            unsigned int *ret_flags)
{
        char path[64];
        char buf[1024];
        cleanup_close int fd = -1;
        ssize_t n;
        char *p;
        unsigned long long start = 0;
        unsigned int flags = 0;
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
        /* fields after comm: state(3) ppid(4) pgrp session tty tpgid
         * flags(9) ... starttime(22) */
        if (sscanf(p + 2,
                   "%c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                   "%*d %*d %llu",
                   &state, &flags, &start) != 3)
                return -EIO;
        if (ret_start_time)
                *ret_start_time = start;
        if (ret_state)
                *ret_state = state;
        if (ret_flags)
                *ret_flags = flags;
        return 0;
}

int rt_proc_stat(pid_t pid, uint64_t *ret_start_time, char *ret_state)
{
        return proc_stat_fields(pid, ret_start_time, ret_state, NULL);
}

static bool dead(char state, unsigned int flags)
{
        return state == 'Z' || state == 'X' || (flags & RT_PF_EXITING);
}

bool rt_proc_exited(pid_t pid)
{
        unsigned int flags = 0;
        char state = 0;

        return proc_stat_fields(pid, NULL, &state, &flags) < 0 || dead(state, flags);
}

bool rt_proc_matches(pid_t pid, uint64_t start_time)
{
        unsigned int flags = 0;
        uint64_t st;
        char state;

        if (pid <= 0 || proc_stat_fields(pid, &st, &state, &flags) < 0)
                return false;
        return st == start_time && !dead(state, flags);
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

int rt_pidfd_wait_dead(int pidfd, pid_t pid, int timeout_ms)
{
        /* the pidfd only reports a zombie or a reaped process; a dying
         * pid namespace init is seen in /proc, polled every 10 ms */
        for (int waited = 0; waited < timeout_ms; waited += 10) {
                int slice = timeout_ms - waited < 10 ? timeout_ms - waited : 10;

                if (rt_pidfd_wait_exit(pidfd, slice) == 0)
                        return 0;
                /* a process of the host that took the number can only
                 * exist once ours was reaped, which the pidfd reports */
                if (rt_proc_exited(pid))
                        return 0;
        }
        return rt_pidfd_wait_exit(pidfd, 0);
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

bool rt_chld_default(struct sigaction *saved)
{
        struct sigaction dfl = {.sa_handler = SIG_DFL};

        if (sigaction(SIGCHLD, NULL, saved) < 0)
                return false;
        if (saved->sa_handler != SIG_IGN && !(saved->sa_flags & SA_NOCLDWAIT))
                return false;
        return sigaction(SIGCHLD, &dfl, NULL) == 0;
}

int rt_fd_above_stdio(int fd)
{
        int moved;

        if (fd < 0 || fd > 2)
                return fd;
        moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        return moved < 0 ? -errno : moved;
}
