/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run: create + start, then (unless --detach) stay as the container's
 * parent, forward signals to it, and exit with its status; the container is
 * deleted afterwards unless --keep.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "commands.h"
#include "container.h"
#include "create-opts.h"
#include "log.h"
#include "proc.h"

static void forwardable_signals(sigset_t *set)
{
        sigfillset(set);
        sigdelset(set, SIGKILL);
        sigdelset(set, SIGSTOP);
        /* faults are ours, not the container's */
        sigdelset(set, SIGSEGV);
        sigdelset(set, SIGBUS);
        sigdelset(set, SIGILL);
        sigdelset(set, SIGFPE);
        sigdelset(set, SIGABRT);
}

static int exit_code_of(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return 1;
}

/* Forward signals until the init exits; reap orphans we inherit as a
 * subreaper on the way.  Returns the init's exit code. */
static int wait_container(pid_t pid, int pidfd, int sigfd)
{
        struct pollfd fds[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = sigfd, .events = POLLIN}};
        int status = 0;

        for (;;) {
                if (poll(fds, 2, -1) < 0 && errno != EINTR)
                        return 1;
                if (fds[1].revents & POLLIN) {
                        struct signalfd_siginfo si;
                        if (read(sigfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGCHLD) {
                                struct bento_err ignored;
                                (void) rt_pidfd_signal(pidfd, (int) si.ssi_signo, &ignored);
                        }
                }
                /* reap everything that ended, orphans included; stop at the init */
                for (pid_t w; (w = waitpid(-1, &status, WNOHANG)) > 0;)
                        if (w == pid)
                                return exit_code_of(status);
                if ((fds[0].revents & POLLIN) && waitpid(pid, &status, 0) == pid)
                        return exit_code_of(status);
        }
}

static int run_foreground(struct rt_store *store, struct rt_create_opts *o, bool keep,
                          struct bento_err *err)
{
        cleanup_close int sigfd = -1;
        struct rt_created c = {.pid = 0, .pidfd = -1};
        sigset_t set, old;
        int code, r;

        forwardable_signals(&set);
        sigprocmask(SIG_BLOCK, &set, &old);
        sigfd = signalfd(-1, &set, SFD_CLOEXEC);
        if (sigfd < 0)
                return bento_err_set(err, errno, "signalfd");
        (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        r = rt_container_start(store, o->id, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_container_delete(store, o->id, true, &ignored);
                (void) waitpid(c.pid, NULL, 0);
                close(c.pidfd);
                return r;
        }
        code = wait_container(c.pid, c.pidfd, sigfd);
        close(c.pidfd);
        if (!keep) {
                struct bento_err derr = {0};
                if (rt_container_delete(store, o->id, true, &derr) < 0)
                        rt_log_warning("%s", derr.msg);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        return code;
}

static int run_detached(struct rt_store *store, struct rt_create_opts *o, struct bento_err *err)
{
        struct rt_created c = {.pid = 0, .pidfd = -1};
        int r;

        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        close(c.pidfd);
        r = rt_container_start(store, o->id, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_container_delete(store, o->id, true, &ignored);
        }
        return r < 0 ? r : 0;
}

int cmd_run(const struct rt_global *g, int argc, char **argv)
{
        struct rt_create_opts o = {.child_of_caller = false};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        unsigned extra = 0;
        int r;

        if (rt_create_opts_parse(&a, &o, &extra, &err) < 0)
                return rt_log_err(&err);
        if (a.argc - a.i != 1) {
                rt_log_error("run: expected a container id");
                rt_usage("run", true);
                return 1;
        }
        o.id = a.argv[a.i];
        o.systemd_cgroup = g->systemd_cgroup;
        if (rt_store_open(g->root, &store, &err) < 0)
                return rt_log_err(&err);
        if (extra & RT_RUN_DETACH) {
                o.child_of_caller = true;
                r = run_detached(&store, &o, &err);
        } else {
                r = run_foreground(&store, &o, extra & RT_RUN_KEEP, &err);
        }
        rt_store_close(&store);
        if (r < 0)
                return rt_log_err(&err);
        return r;
}
