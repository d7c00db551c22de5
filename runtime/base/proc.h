/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Facts about host processes, and signalling them without ever hitting a
 * recycled pid: a pid is only trusted together with the start time recorded
 * when the container was created (field 22 of /proc/<pid>/stat).
 */
#ifndef RT_PROC_H
#define RT_PROC_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* Start time (clock ticks since boot) and state letter of a live pid.
 * Returns 0, or -ESRCH when the process does not exist. */
int rt_proc_stat(pid_t pid, uint64_t *ret_start_time, char *ret_state);

/* True when pid exists, is neither a zombie nor on its way out (in the
 * kernel's exit path, PF_EXITING), and started at start_time. */
bool rt_proc_matches(pid_t pid, uint64_t start_time);

/* True when pid does not exist, is a zombie, or is in the kernel's exit
 * path: it will never run a user-space instruction again.  The last case
 * is a pid namespace's init that waits for outsiders to reap the zombies
 * left in its namespace (`exec --detach` processes of a caller that never
 * calls wait()); it is as dead as a zombie. */
bool rt_proc_exited(pid_t pid);

/* A pidfd for pid, unchecked: whatever is read about the pid afterwards is
 * about the pinned process as long as it is still alive after the reads
 * (a pid is not reused before its process is reaped), which a signal 0
 * through the fd tells.  Returns the fd or a negative errno. */
int rt_pidfd_open(pid_t pid);

/* A pidfd for pid, checked against start_time after it was opened, so the
 * fd cannot refer to a recycled pid.  Returns the fd, or -ESRCH (gone or
 * recycled), or another negative errno, always with err filled. */
int rt_pidfd_open_checked(pid_t pid, uint64_t start_time, struct bento_err *err);

/* Send sig through a pidfd. */
int rt_pidfd_signal(int pidfd, int sig, struct bento_err *err);

/* Wait up to timeout_ms for the process behind pidfd to exit.  Returns 0 when
 * it exited, -ETIMEDOUT otherwise. */
int rt_pidfd_wait_exit(int pidfd, int timeout_ms);

/* rt_pidfd_wait_exit, except that pid (the number pidfd was opened for)
 * also counts as gone once rt_proc_exited() says so. */
int rt_pidfd_wait_dead(int pidfd, pid_t pid, int timeout_ms);

/* Inode number of /proc/<pid>/ns/<name>, or 0 when unknown. */
uint64_t rt_proc_ns_inode(pid_t pid, const char *name);

/* A caller that ignores SIGCHLD (or set SA_NOCLDWAIT) would have the
 * kernel reap the runtime's children (hooks, helpers) before their status
 * is read: the default disposition while one is waited for.  True when it
 * was changed: put *saved back with sigaction() afterwards. */
bool rt_chld_default(struct sigaction *saved);

/* The runtime may run with fds 0-2 closed: fd moved above them (close-on-
 * exec; the old one closed) so that a child's dup2() onto 0-2 can never
 * clobber a source.  Returns the fd, or a negative errno. */
int rt_fd_above_stdio(int fd);

#endif
