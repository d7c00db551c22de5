/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Staying with a process in the foreground, as `run` and `exec` do without
 * --detach: signals sent to bento-runtime are blocked, read from a
 * signalfd and forwarded to the process through its pidfd, and the
 * process's exit status becomes ours.  With a terminal whose master side
 * we hold (no --console-socket), our stdin is copied to the master and the
 * master to our stdout; when stdin is a terminal it is put in raw mode for
 * the duration, so keys such as ^C reach the container's line discipline
 * instead of ours, and window size changes (SIGWINCH) are passed on.
 */
#ifndef RT_FOREGROUND_H
#define RT_FOREGROUND_H

#include <signal.h>
#include <sys/types.h>

#include "err.h"

/* Block every signal worth forwarding (all but SIGKILL, SIGSTOP and the
 * faults, which are ours) and return a close-on-exec signalfd for them;
 * the previous mask goes to *old.  Processes started afterwards inherit
 * the blocked mask: they must reset it (the init and exec children do). */
int rt_fg_block_signals(sigset_t *old, struct bento_err *err);

/* Wait for pid (our child; pidfd refers to it), forwarding signals read
 * from sigfd, reaping any other child that ends (orphans of a subreaper),
 * and with master >= 0 proxying the terminal as described above.  Output
 * the process wrote before it ended is drained from the master before
 * returning, and stdin's terminal mode is restored.  Returns the exit code
 * as a shell reports it: the exit status, or 128 + the signal that killed
 * it (1 if waiting failed).  Does not close any of the fds. */
int rt_fg_wait(pid_t pid, int pidfd, int sigfd, int master);

/* The same, returning the raw wait status (WIFEXITED/WIFSIGNALED apply),
 * or -1 if waiting failed: for a caller that must tell an exit with 137
 * from a death by SIGKILL (`run --report`). */
int rt_fg_wait_status(pid_t pid, int pidfd, int sigfd, int master);

/* One more descriptor to wait on: when fd is readable, ready(data) is
 * called, before the process's exit is taken (`run` counts OOM kills
 * this way, cgroup/oom-watch.h). */
struct rt_fg_watch {
        int fd; /* -1: none */
        void (*ready)(void *data);
        void *data;
};

/* rt_fg_wait_status, also serving watch (may be NULL). */
int rt_fg_wait_status_watching(pid_t pid, int pidfd, int sigfd, int master,
                               const struct rt_fg_watch *watch);

/* A wait status (or -1) as rt_fg_wait() reports it: the exit status, 128 +
 * the signal, or 1. */
int rt_fg_exit_code(int status);

#endif
