/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clone3(), the one way the runtime makes processes: with a pidfd, and
 * straight into a cgroup v2 cgroup when asked (no window in which the child
 * runs outside it).
 */
#ifndef RT_CLONE_H
#define RT_CLONE_H

#include <stdint.h>
#include <sys/types.h>

/* clone3() with flags (CLONE_PIDFD added when ret_pidfd is given); the
 * exit signal is SIGCHLD, or none with CLONE_PARENT, which refuses one.
 * Returns the pid (0 in the child) or -1 with errno, as fork() does. */
pid_t rt_clone3(uint64_t flags, int *ret_pidfd);

/* rt_clone3, and with cgroup_fd >= 0 into that cgroup2 cgroup
 * (CLONE_INTO_CGROUP). */
pid_t rt_clone3_into(uint64_t flags, int cgroup_fd, int *ret_pidfd);

#endif
