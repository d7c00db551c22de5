/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI hook runner (see hooks.h).  Each hook is a forked child that
 * execs the hook's path with its own argv and environment, in its own
 * process group, with the bundle as working directory (or / where the
 * bundle is not reachable, as inside the container after pivot_root).  The
 * parent feeds the state JSON through a pipe while it polls the child's
 * pidfd, so a hook that never reads its stdin cannot block the runtime, and
 * a hook past its timeout is killed together with everything it started.
 * Nothing here keeps global state: the container init calls it too
 * (createContainer, startContainer), from inside the container.
 */
#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "cleanup.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* crun's annotations naming files for hook output (appended to). */
#define ANNOTATION_STDOUT "run.oci.hooks.stdout"
#define ANNOTATION_STDERR "run.oci.hooks.stderr"

extern char **environ;

/* Everything the child needs, prepared before fork() so the child does not
 * allocate: the argv/envp vectors and its three stdio fds (all >= 3). */
struct hook_child {
        const char *path;
        char **argv;
        char **envp;
        const char *cwd;
        int in_fd;     /* read end of the stdin pipe */
        int out_fd;    /* stdout target */
        int err_fd;    /* stderr target */
        int report_fd; /* write end of the exec-failure pipe */
        pid_t parent;  /* the runner, for the parent-death check */
};

/* How one hook ended. */
struct hook_outcome {
        bool timed_out;
        bool exec_failed;
        int exec_errno;
        siginfo_t si;
};

static int open_output(const struct oci_config *cfg, const char *key, struct bento_err *err)
{
        const char *file = oci_config_annotation(cfg, key);
        int fd;

        if (file && file[0])
                fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
        else
                fd = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return bento_err_set(err, errno, "hook output: cannot open '%s'",
                                     file && file[0] ? file : "/dev/null");
        fd = rt_fd_above_stdio(fd);
        if (fd < 0)
                return bento_err_set(err, -fd, "hook output");
        return fd;
}

/* A NULL-terminated copy of (v, n) with `first` in front when given. */
static char **make_vector(const char *first, char *const *v, size_t n)
{
        size_t extra = first ? 1 : 0;
        char **out = calloc(n + extra + 1, sizeof(char *));

        if (!out)
                return NULL;
        if (first)
                out[0] = (char *) first;
        for (size_t i = 0; i < n; i++)
                out[i + extra] = v[i];
        return out;
}

__attribute__((noreturn)) static void child_exec(const struct hook_child *c)
{
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigset_t none;
        int e;

        /* A runtime killed while it waits for the hook (no timeout)
         * takes the hook with it instead of leaving it orphaned: the
         * kernel sends SIGKILL when the runner dies; a runner that died
         * before the prctl is caught by the getppid() check after it.
         * (The runner is single-threaded, so "the parent thread" is the
         * runner itself.  What the hook forks is its own business, as
         * for a hook that daemonizes on purpose.) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != c->parent)
                _exit(127);
        /* own process group: a timeout kills the hook and its children */
        (void) setpgid(0, 0);
        /* ignored dispositions and the blocked mask survive execve */
        for (int s = 1; s < NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP)
                        (void) sigaction(s, &dfl, NULL);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        if (chdir(c->cwd) < 0 && chdir("/") < 0)
                goto fail;
        if (dup2(c->in_fd, 0) < 0 || dup2(c->out_fd, 1) < 0 || dup2(c->err_fd, 2) < 0)
                goto fail;
        /* nothing of the runtime's (the state lock, the init's sync socket
         * and exec.fifo) may reach the hook; the report pipe closes on exec */
        if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
                unsigned int keep = (unsigned int) c->report_fd;

                if (keep > 3)
                        (void) syscall(SYS_close_range, 3U, keep - 1, 0U);
                (void) syscall(SYS_close_range, keep + 1, ~0U, 0U);
        }
        execve(c->path, c->argv, c->envp);
fail:
        e = errno;
        (void) !write(c->report_fd, &e, sizeof(e));
        _exit(127);
}

static int remaining_ms(const struct timespec *deadline)
{
        struct timespec now;
        long long ms;

        clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (long long) (deadline->tv_sec - now.tv_sec) * 1000 +
             (deadline->tv_nsec - now.tv_nsec + 999999) / 1000000;
        return ms <= 0 ? 0 : (ms > 3600000 ? 3600000 : (int) ms);
}

/* Write what is left of data without blocking; returns false once the pipe
 * is done with (all written, or the hook closed its end). */
static bool feed(int fd, const char *data, size_t len, size_t *off, bool *saw_epipe)
{
        while (*off < len) {
                ssize_t n = write(fd, data + *off, len - *off);

                if (n > 0) {
                        *off += (size_t) n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return true;
                /* EPIPE: the hook does not read its stdin, which is fine */
                *saw_epipe = n < 0 && errno == EPIPE;
                return false;
        }
        return false;
}

/* Feed stdin and wait for the hook to exit, up to the deadline (NULL: no
 * limit).  Returns 1 when it exited, 0 on timeout, -errno on poll errors. */
static int feed_and_wait(int pidfd, int *in_fd, const char *data, const struct timespec *deadline,
                         bool *saw_epipe)
{
        size_t len = strlen(data), off = 0;

        if (*in_fd >= 0 && !feed(*in_fd, data, len, &off, saw_epipe))
                close(TAKE_FD(*in_fd));
        for (;;) {
                struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN},
                                      {.fd = *in_fd, .events = POLLOUT}};
                int wait_ms = deadline ? remaining_ms(deadline) : -1;
                int n;

                if (wait_ms == 0)
                        return 0;
                n = poll(p, *in_fd >= 0 ? 2 : 1, wait_ms);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (p[0].revents)
                        return 1;
                if (*in_fd >= 0 && p[1].revents && !feed(*in_fd, data, len, &off, saw_epipe))
                        close(TAKE_FD(*in_fd));
        }
}

/* Run the child to its end.  SIGPIPE is blocked while we write to a pipe
 * the hook may have closed, and a SIGPIPE we caused is consumed. */
static int supervise(pid_t pid, int pidfd, int in_fd, const char *data, int timeout,
                     struct hook_outcome *out)
{
        cleanup_close int in = in_fd;
        struct timespec deadline;
        sigset_t pipe_set, old;
        bool saw_epipe = false;
        int r;

        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += timeout;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        sigprocmask(SIG_BLOCK, &pipe_set, &old);
        r = feed_and_wait(pidfd, &in, data, timeout > 0 ? &deadline : NULL, &saw_epipe);
        if (saw_epipe && !sigismember(&old, SIGPIPE)) {
                const struct timespec zero = {0, 0};
                (void) sigtimedwait(&pipe_set, NULL, &zero);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (r <= 0) {
                /* timed out (or cannot wait): the hook and its whole group go;
                 * the unreaped leader keeps the group id from being reused */
                (void) kill(-pid, SIGKILL);
                (void) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
                out->timed_out = r == 0;
        }
        memset(&out->si, 0, sizeof(out->si));
        while (waitid(P_PID, (id_t) pid, &out->si, WEXITED) < 0)
                if (errno != EINTR)
                        return -errno;
        return r < 0 ? r : 0;
}

/* Fork the hook; the parent keeps the stdin write end, the exec-failure
 * pipe's read end and the pidfd. */
static int start_hook(struct hook_child *c, pid_t *ret_pid, int *ret_pidfd, int *ret_in,
                      int *ret_report)
{
        cleanup_close int in_r = -1, in_w = -1, rep_r = -1, rep_w = -1;
        int p[2], pidfd;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        in_r = rt_fd_above_stdio(p[0]);
        in_w = rt_fd_above_stdio(p[1]);
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        rep_r = rt_fd_above_stdio(p[0]);
        rep_w = rt_fd_above_stdio(p[1]);
        if (in_r < 0 || in_w < 0 || rep_r < 0 || rep_w < 0)
                return -EMFILE;
        c->in_fd = in_r;
        c->report_fd = rep_w;
        c->parent = getpid();
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child_exec(c);
        (void) setpgid(pid, pid);
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) {
                int e = errno;
                (void) kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                return -e;
        }
        (void) fcntl(in_w, F_SETFL, O_NONBLOCK);
        *ret_pid = pid;
        *ret_pidfd = pidfd;
        *ret_in = TAKE_FD(in_w);
        *ret_report = TAKE_FD(rep_r);
        return 0;
}

/* "hooks.poststop[1] (/usr/bin/x)" */
static void hook_label(enum oci_hook_kind kind, size_t i, const struct oci_hook *h, char *buf,
                       size_t size)
{
        snprintf(buf, size, "hooks.%s[%zu] (%s)", oci_hook_kind_to_string(kind), i, h->path);
}

static int outcome_error(const char *label, const struct oci_hook *h, const struct hook_outcome *o,
                         struct bento_err *err)
{
        if (o->timed_out)
                return bento_err_setx(err, ETIMEDOUT, "%s: timed out after %d s", label,
                                      h->timeout);
        if (o->exec_failed)
                return bento_err_set(err, o->exec_errno, "%s: cannot execute", label);
        if (o->si.si_code == CLD_EXITED && o->si.si_status == 0)
                return 0;
        if (o->si.si_code == CLD_EXITED)
                return bento_err_setx(err, EIO, "%s: exited with status %d", label,
                                      o->si.si_status);
        return bento_err_setx(err, EIO, "%s: killed by signal %d (SIG%s)", label, o->si.si_status,
                              sigabbrev_np(o->si.si_status) ? sigabbrev_np(o->si.si_status) : "?");
}

static int run_one(const struct oci_hook *h, const char *label, const char *cwd,
                   const char *state_json, int out_fd, int err_fd, struct bento_err *err)
{
        cleanup_free char **argv = make_vector(h->n_args ? NULL : h->path, h->args, h->n_args);
        cleanup_free char **envp = h->has_env ? make_vector(NULL, h->env, h->n_env) : NULL;
        struct hook_child c = {.path = h->path,
                               .argv = argv,
                               .envp = h->has_env ? envp : environ,
                               .cwd = cwd,
                               .out_fd = out_fd,
                               .err_fd = err_fd};
        struct hook_outcome o = {0};
        cleanup_close int pidfd = -1, report = -1;
        pid_t pid = 0;
        int in_w = -1, r;

        if (!argv || (h->has_env && !envp))
                return bento_err_set(err, ENOMEM, "%s", label);
        r = start_hook(&c, &pid, &pidfd, &in_w, &report);
        if (r < 0)
                return bento_err_set(err, -r, "%s: cannot start", label);
        r = supervise(pid, pidfd, in_w, state_json, h->has_timeout ? h->timeout : 0, &o);
        if (r < 0)
                return bento_err_set(err, -r, "%s: cannot wait for the hook", label);
        (void) fcntl(report, F_SETFL, O_NONBLOCK);
        o.exec_failed =
            read(report, &o.exec_errno, sizeof(o.exec_errno)) == (ssize_t) sizeof(o.exec_errno);
        return outcome_error(label, h, &o, err);
}

/* Append one line to the warning buffer, truncating when it is full. */
static void add_warning(char *warn, size_t warn_size, const char *msg)
{
        size_t used;

        if (!warn || warn_size == 0)
                return;
        used = strnlen(warn, warn_size);
        if (used + 1 < warn_size)
                snprintf(warn + used, warn_size - used, "%s\n", msg);
}

static int run_all(const struct oci_config *cfg, enum oci_hook_kind kind, const char *bundle,
                   const char *state_json, char *warn, size_t warn_size, struct bento_err *err)
{
        cleanup_close int out_fd = -1, err_fd = -1;
        char label[BENTO_ERR_MSG_MAX / 2];

        out_fd = open_output(cfg, ANNOTATION_STDOUT, err);
        if (out_fd < 0)
                return out_fd;
        err_fd = open_output(cfg, ANNOTATION_STDERR, err);
        if (err_fd < 0)
                return err_fd;
        for (size_t i = 0; i < cfg->n_hooks[kind]; i++) {
                const struct oci_hook *h = &cfg->hooks[kind][i];
                struct bento_err herr = {0};
                int r;

                hook_label(kind, i, h, label, sizeof(label));
                r = run_one(h, label, bundle ? bundle : "/", state_json ? state_json : "{}", out_fd,
                            err_fd, &herr);
                if (r >= 0)
                        continue;
                if (!warn) {
                        *err = herr;
                        return r;
                }
                add_warning(warn, warn_size, herr.msg);
        }
        return 0;
}

int rt_hooks_run(const struct oci_config *cfg, enum oci_hook_kind kind, const char *bundle,
                 const char *state_json, char *warn, size_t warn_size, struct bento_err *err)
{
        struct sigaction saved;
        bool restore;
        int r;

        if (cfg->n_hooks[kind] == 0)
                return 0;
        restore = rt_chld_default(&saved);
        r = run_all(cfg, kind, bundle, state_json, warn, warn_size, err);
        if (restore)
                (void) sigaction(SIGCHLD, &saved, NULL);
        return r;
}

int rt_hooks_state(const struct oci_config *cfg, const char *id, const char *bundle,
                   enum bento_status status, pid_t pid, char **ret, struct bento_err *err)
{
        struct bento_oci_state st = {
            .id = id, .status = status, .pid = pid, .bundle = bundle, .cfg = cfg};
        size_t len = 0;

        return bento_oci_state_write(&st, false, ret, &len, err);
}
