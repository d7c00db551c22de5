/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: starting the target (observe.h).  The child sets
 * PR_SET_NO_NEW_PRIVS and installs the filter: the notification one when
 * it can, handing the listener to the parent over a socket pair, the
 * SECCOMP_RET_TRACE one otherwise.  Then it waits on a pipe until the
 * parent has seized it, so not one instruction of the target runs
 * untraced; if the parent dies first the pipe reads EOF and the child
 * exits instead of running unobserved.  Then it execs the target (a PATH
 * search, each try of which the observer sees and reports).  None of the
 * calls the child makes between the filter and the exec is one the filter
 * sends to the observer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "filter.h"
#include "observe.h"

#define TRACE_OPTIONS                                                                              \
        (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | \
         PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)

/* One byte on sock, with fd attached when it is not -1. */
static int send_mode(int sock, int fd)
{
        char mode = fd >= 0 ? 'n' : 't';
        struct iovec io = {.iov_base = &mode, .iov_len = 1};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } c;
        struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1};

        if (fd >= 0) {
                memset(&c, 0, sizeof(c));
                m.msg_control = c.buf;
                m.msg_controllen = sizeof(c.buf);
                c.h.cmsg_level = SOL_SOCKET;
                c.h.cmsg_type = SCM_RIGHTS;
                c.h.cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
        }
        return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* The child's byte: -1 when it sent none (it failed and exits), else the
 * listener it passed or -1 in *fd. */
static int recv_mode(int sock, int *fd)
{
        char mode = 0; /* recvmsg fills it */
        struct iovec io = {.iov_base = &mode, .iov_len = 1};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } c;
        struct msghdr m = {
            .msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof(c.buf)};
        struct cmsghdr *h;
        ssize_t n;

        *fd = -1;
        do
                n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                return -1;
        h = CMSG_FIRSTHDR(&m);
        if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
            h->cmsg_len == CMSG_LEN(sizeof(int)))
                memcpy(fd, CMSG_DATA(h), sizeof(int));
        if (mode == 'n' && *fd < 0)
                return -1;
        return 0;
}

/* The target's environment with the preload library: LD_PRELOAD gets shim
 * last (a library of the program's own that stands in for the same
 * functions comes first, and calls on to the shim's), and OBS_RING_ENV the
 * ring's number.  NULL when out of memory. */
static char **shim_environ(const char *shim, int ring_fd)
{
        extern char **environ;
        const char *old = getenv("LD_PRELOAD");
        size_t n = 0, k = 0;
        char **env;

        while (environ[n])
                n++;
        env = calloc(n + 3, sizeof(*env));
        if (!env)
                return NULL;
        if (asprintf(&env[k++], "LD_PRELOAD=%s%s%s", old ? old : "", old && *old ? ":" : "", shim) <
                0 ||
            asprintf(&env[k++], OBS_RING_ENV "=%d", ring_fd) < 0) {
                free(env[0]); /* NULL or the first one */
                free(env);
                return NULL;
        }
        for (size_t i = 0; i < n; i++)
                if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
                    strncmp(environ[i], OBS_RING_ENV "=", sizeof(OBS_RING_ENV)) != 0)
                        env[k++] = environ[i];
        return env;
}

static __attribute__((noreturn)) void child(char **command, int report_fd, bool ptrace_only,
                                            int sock, int go_fd, int ring_fd, char **env)
{
        char go;
        int r = 0, listener = -1;
        bool gadget = ring_fd >= 0;

        close(report_fd);
        /* the ring is the one descriptor of the observer's the target keeps */
        if (gadget && fcntl(ring_fd, F_SETFD, 0) < 0)
                _exit(OBS_EXIT_FAILED);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                fprintf(stderr, "bento-observe: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
                _exit(OBS_EXIT_FAILED);
        }
        if (!ptrace_only)
                listener = obs_filter_install_notify(gadget);
        if (listener < 0)
                r = obs_filter_install_trace(gadget);
        if (r < 0) {
                fprintf(stderr, "bento-observe: installing the seccomp filter: %s\n", strerror(-r));
                _exit(OBS_EXIT_FAILED);
        }
        /* the listener, if any, lives on in the parent only */
        if (send_mode(sock, listener) < 0)
                _exit(OBS_EXIT_FAILED);
        if (listener >= 0)
                close(listener);
        close(sock);
        /* EOF: the tracer died before it seized us */
        if (read(go_fd, &go, 1) != 1)
                _exit(OBS_EXIT_FAILED);
        close(go_fd);
        execvpe(command[0], command, env);
        fprintf(stderr, "bento-observe: %s: %s\n", command[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

pid_t obs_spawn(const struct observe_opts *o, int ring_fd, int *listener)
{
        extern char **environ;
        int go[2], sv[2];
        pid_t pid;
        cleanup_close int go_w = -1, sock = -1, fd = -1;
        char **env = ring_fd >= 0 ? shim_environ(o->shim, ring_fd) : environ;

        *listener = -1;
        if (!env)
                return -ENOMEM;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        sock = sv[0];
        if (pipe2(go, O_CLOEXEC) < 0) {
                int e = errno;
                close(sv[1]);
                return -e;
        }
        go_w = go[1];
        pid = fork();
        if (pid < 0) {
                int e = errno;
                close(go[0]);
                close(sv[1]);
                return -e;
        }
        if (pid == 0) {
                close(go_w);
                close(sock);
                child(o->command, o->report_fd, o->ptrace_only, sv[1], go[0], ring_fd, env);
        }
        close(go[0]);
        close(sv[1]);
        if (env != environ) {
                free(env[0]);
                free(env[1]);
                free(env);
        }
        /* nothing received: the child could not install the filter and exits
         * (closing go_w makes a child that did exit unexeced) */
        if (recv_mode(sock, &fd) < 0)
                return -EPROTO;
        if (ptrace(PTRACE_SEIZE, pid, NULL, (void *) (long) TRACE_OPTIONS) < 0)
                return -errno;
        if (write(go_w, "g", 1) != 1)
                return -EIO;
        *listener = fd;
        fd = -1;
        return pid;
}
