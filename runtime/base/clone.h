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

/* Run fn(arg) in a child that shares our memory (CLONE_VM) while we wait
 * for it (CLONE_VFORK), and reap it: a process of its own (its own
 * descriptor table, root, directory and namespaces) without fork's copy of
 * the page tables and the copy-on-write faults after it.  fn may write its
 * results into *arg, which we see once it has exited; it must not return
 * to a caller of ours (it runs on a stack of its own, freed after).  Our
 * own descriptors are the child's copies, so what it opens it need not
 * close.  Returns fn's exit status (0-255), or -errno when the child
 * could not be made or did not exit normally. */
int rt_vfork_call(int (*fn)(void *), void *arg);

#endif
