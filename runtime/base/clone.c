/* SPDX-License-Identifier: Apache-2.0 */
/* clone3() for the runtime, and children that share its memory (clone.h). */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clone.h"

pid_t rt_clone3_into(uint64_t flags, int cgroup_fd, int *ret_pidfd)
{
        struct clone_args ca;

        memset(&ca, 0, sizeof(ca));
        ca.flags = flags;
        if (cgroup_fd >= 0) {
                ca.flags |= CLONE_INTO_CGROUP;
                ca.cgroup = (uint64_t) cgroup_fd;
        }
        /* with CLONE_PARENT the kernel takes the exit signal from our own
         * parent relationship and rejects an explicit one */
        ca.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD;
        if (ret_pidfd) {
                ca.flags |= CLONE_PIDFD;
                ca.pidfd = (uint64_t) (uintptr_t) ret_pidfd;
        }
        return (pid_t) syscall(SYS_clone3, &ca, sizeof(ca));
}

pid_t rt_clone3(uint64_t flags, int *ret_pidfd)
{
        return rt_clone3_into(flags, -1, ret_pidfd);
}

/* Enough for the path buffers and the libc calls of a child that opens
 * and sends descriptors; a guard page below it stops an overflow. */
#define VFORK_STACK_SIZE ((size_t) 256 * 1024)
#define VFORK_GUARD_SIZE ((size_t) 4096)

int rt_vfork_call(int (*fn)(void *), void *arg)
{
        char *stack = mmap(NULL, VFORK_STACK_SIZE + VFORK_GUARD_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        int status = 0, r;
        pid_t pid;

        if (stack == MAP_FAILED)
                return -errno;
        if (mprotect(stack, VFORK_GUARD_SIZE, PROT_NONE) < 0) {
                r = -errno;
                munmap(stack, VFORK_STACK_SIZE + VFORK_GUARD_SIZE);
                return r;
        }
        /* The stack grows down from its top, the guard page at its bottom.
         * No exit signal: a caller that ignores SIGCHLD (inherited SIG_IGN)
         * would have the kernel reap the child at once and lose its status;
         * a child that sends none is waited for with __WALL. */
        pid = clone(fn, stack + VFORK_GUARD_SIZE + VFORK_STACK_SIZE, CLONE_VM | CLONE_VFORK, arg);
        r = pid < 0 ? -errno : 0;
        while (pid > 0 && waitpid(pid, &status, __WALL) < 0)
                if (errno != EINTR) {
                        r = -errno;
                        break;
                }
        munmap(stack, VFORK_STACK_SIZE + VFORK_GUARD_SIZE);
        if (r < 0)
                return r;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}
