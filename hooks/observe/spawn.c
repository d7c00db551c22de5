/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: starting the target (observe.h).  The child waits on a
 * pipe until the parent has seized it, so not one system call of the
 * target runs untraced; if the parent dies first the pipe reads EOF and
 * the child exits instead of running unobserved.  Then the child sets
 * PR_SET_NO_NEW_PRIVS, installs the filter and execs the target (a PATH
 * search, each try of which the tracer sees and reports).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "cleanup.h"
#include "filter.h"
#include "observe.h"

#define TRACE_OPTIONS                                                                              \
        (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | \
         PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)

static __attribute__((noreturn)) void child(char **command, int report_fd, int go_fd)
{
        char go;
        int r;

        close(report_fd);
        /* EOF: the tracer died before it seized us */
        if (read(go_fd, &go, 1) != 1)
                _exit(OBS_EXIT_FAILED);
        close(go_fd);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                fprintf(stderr, "bento-observe: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
                _exit(OBS_EXIT_FAILED);
        }
        r = obs_filter_install();
        if (r < 0) {
                fprintf(stderr, "bento-observe: installing the seccomp filter: %s\n", strerror(-r));
                _exit(OBS_EXIT_FAILED);
        }
        execvp(command[0], command);
        fprintf(stderr, "bento-observe: %s: %s\n", command[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

pid_t obs_spawn(char **command, int report_fd)
{
        int go[2];
        pid_t pid;
        cleanup_close int go_w = -1;

        if (pipe2(go, O_CLOEXEC) < 0)
                return -errno;
        go_w = go[1];
        pid = fork();
        if (pid < 0) {
                int e = errno;
                close(go[0]);
                return -e;
        }
        if (pid == 0) {
                close(go_w);
                child(command, report_fd, go[0]);
        }
        close(go[0]);
        if (ptrace(PTRACE_SEIZE, pid, NULL, (void *) (long) TRACE_OPTIONS) < 0) {
                int e = errno;
                /* closing go_w makes the child exit untraced-but-unexeced */
                return -e;
        }
        if (write(go_w, "g", 1) != 1)
                return -EIO;
        return pid;
}
