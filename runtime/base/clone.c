/* SPDX-License-Identifier: Apache-2.0 */
/* clone3() for the runtime (clone.h). */
#include <linux/sched.h>
#include <signal.h>
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
