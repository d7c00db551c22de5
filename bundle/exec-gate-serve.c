/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The gate's life, one poll loop over at most four descriptors: the signal
 * fd (in a thread of bento run: its stop descriptor), then the listening socket (until one runtime
 * has connected), the runtime's connection (until its message is complete) and the seccomp listener
 * (until no task uses the filter any more, POLLHUP).  Waiting for a connection and for the message
 * is bounded by --timeout; serving is bounded by the container's life.
 *
 * In wrapper mode the gate also starts the command, forwards the signals
 * sent to the gate itself (not those the terminal sent to the whole
 * process group, which the command got already), and is a child subreaper
 * so that a detached container init is reaped by it rather than lingering
 * as a zombie that keeps the filter alive.
 */
#include "exec-gate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "exec-gate-listener.h"
#include "exec-gate-message.h"
#include "exec-gate-notify.h"
#include "exec-gate-record.h"

#define PROG "bento-exec-gate"

struct gate {
        const struct gate_opts *o;
        struct gate_listener listener;
        int conn;
        struct gate_message msg;
        struct gate_notify notify;
        struct gate_state state;
        struct gate_record record; /* fd -1 unless --record */
        bool served;               /* the container's filter lost its last user */
        int sig_fd;
        sigset_t old_mask;
        pid_t child; /* wrapper mode, until reaped */
        int child_status;
        int64_t deadline_ms; /* for the listener and the connection */
        bool failed;         /* could not serve: the container cannot exec */
        int exec_errno;      /* wrapper mode: why the command could not run */
        int stop_signal;     /* daemon mode: stopped by this signal */
        bool stopped;        /* in-process: asked to stop (stop_fd) */
        bool ready_said;     /* --ready-fd written and closed */
};

/* One line in one write(): stderr is shared with the runtime and the
 * target, and three stdio calls on an unbuffered stream are three writes
 * that another process's output can split. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
        char line[1024];
        va_list ap;
        int n = snprintf(line, sizeof(line), "%s: ", PROG);

        va_start(ap, fmt);
        if (n > 0 && (size_t) n < sizeof(line) - 1)
                n += vsnprintf(line + n, sizeof(line) - 1 - (size_t) n, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t) n > sizeof(line) - 2)
                n = (int) sizeof(line) - 2;
        line[n++] = '\n';
        (void) !write(STDERR_FILENO, line, (size_t) n);
}

#define NOTE(g, ...)                                                                               \
        do {                                                                                       \
                if ((g)->o->verbose)                                                               \
                        say(__VA_ARGS__);                                                          \
        } while (0)

static int64_t now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void arm_deadline(struct gate *g)
{
        g->deadline_ms = now_ms() + (int64_t) g->o->timeout_s * 1000;
}

static void fail(struct gate *g, const struct bento_err *err)
{
        say("%s", err->msg);
        g->failed = true;
}

/* ---- signals and the command -------------------------------------------- */

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};

/* Everything handled arrives on a signalfd; SIGPIPE is only blocked (a
 * write to a closed pipe fails with EPIPE instead).  The command gets the
 * original mask back before it runs. */
static int setup_signals(struct gate *g, struct bento_err *err)
{
        sigset_t set;

        sigemptyset(&set);
        for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
                sigaddset(&set, handled_signals[i]);
        sigaddset(&set, SIGPIPE);
        if (sigprocmask(SIG_BLOCK, &set, &g->old_mask) < 0)
                return bento_err_set(err, errno, "sigprocmask");
        sigdelset(&set, SIGPIPE);
        g->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (g->sig_fd < 0)
                return bento_err_set(err, errno, "signalfd");
        return 0;
}

/* Fork and exec the command; an exec failure comes back through a
 * close-on-exec pipe, so it is reported here and not by the child. */
static int spawn_command(struct gate *g, struct bento_err *err)
{
        cleanup_close int rd = -1;
        int p[2], e = 0;
        ssize_t n;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "pipe2");
        rd = p[0];
        pid = fork();
        if (pid < 0) {
                close(p[1]);
                return bento_err_set(err, errno, "fork");
        }
        if (pid == 0) {
                sigprocmask(SIG_SETMASK, &g->old_mask, NULL);
                execvp(g->o->command[0], g->o->command);
                e = errno;
                (void) !write(p[1], &e, sizeof(e));
                _exit(e == ENOENT ? GATE_EXIT_NOT_FOUND : GATE_EXIT_CANNOT_EXEC);
        }
        close(p[1]);
        g->child = pid;
        do
                n = read(rd, &e, sizeof(e));
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t) sizeof(e))
                return 0;
        (void) waitpid(pid, NULL, 0);
        g->child = 0;
        g->exec_errno = e;
        return bento_err_set(err, e, "cannot run '%s'", g->o->command[0]);
}

static void reap(struct gate *g)
{
        int status;
        pid_t pid;

        /* as a subreaper, orphans of the command end up here too */
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
                if (pid != g->child)
                        continue;
                g->child = 0;
                g->child_status =
                    WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
                NOTE(g, "the command exited with status %d", g->child_status);
        }
}

static void on_signals(struct gate *g)
{
        struct signalfd_siginfo si;

        while (read(g->sig_fd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
                int sig = (int) si.ssi_signo;

                if (sig == SIGCHLD) {
                        reap(g);
                } else if (g->o->command && g->child > 0) {
                        /* the terminal's signals reached the command already */
                        if (si.ssi_code != SI_KERNEL)
                                (void) kill(g->child, sig);
                } else if (sig != SIGUSR1 && sig != SIGUSR2) {
                        g->stop_signal = sig;
                }
        }
}

/* ---- the runtime's connection and message --------------------------------- */

static void on_listener(struct gate *g)
{
        struct bento_err err = {0};
        struct gate_peer peer;
        int fd = gate_listener_accept(&g->listener, &peer, &err);

        if (fd == -EAGAIN)
                return;
        if (fd == -EPERM) {
                say("%s", err.msg);
                return;
        }
        if (fd < 0) {
                fail(g, &err);
                gate_listener_close(&g->listener);
                return;
        }
        /* exactly one runtime: nobody else can connect from now on */
        gate_listener_close(&g->listener);
        g->conn = fd;
        arm_deadline(g);
        NOTE(g, "runtime connected (pid %d, uid %u)", (int) peer.pid, (unsigned) peer.uid);
}

static void drop_connection(struct gate *g)
{
        if (g->conn >= 0)
                close(g->conn);
        g->conn = -1;
        gate_message_free(&g->msg);
}

static void on_connection(struct gate *g)
{
        struct bento_err err = {0};
        int fd = -1, r = gate_message_read(&g->msg, g->conn, &err);

        if (r == 0)
                return;
        if (r > 0)
                r = gate_message_take(&g->msg, &g->state, &fd, &err);
        drop_connection(g);
        if (r >= 0)
                r = gate_notify_init(&g->notify, fd, g->state.pid, g->state.init, &err);
        if (r >= 0 && g->record.fd >= 0)
                g->notify.record = &g->record;
        if (r < 0) {
                gate_notify_close(&g->notify);
                bento_err_prefix(&err, "refusing the runtime's message");
                fail(g, &err);
                return;
        }
        NOTE(g, "container %s: init pid %d (ociVersion %s); serving its exec gate", g->state.id,
             (int) g->state.pid, g->state.oci_version);
}

/* ---- serving ---------------------------------------------------------------- */

static void on_notify(struct gate *g, short revents)
{
        struct bento_err err = {0};
        struct gate_decision d;
        int r = 0;

        if (revents & POLLIN)
                r = gate_notify_handle(&g->notify, &d, &err);
        if (r < 0) {
                fail(g, &err);
        } else if (r > 0 && d.gone) {
                NOTE(g, "pid %d: left before its %s was answered", (int) d.pid, d.call);
        } else if (r > 0) {
                NOTE(g, "pid %d: %s %s", (int) d.pid, d.call,
                     g->notify.record ? "recorded and let through"
                     : d.let_through  ? "let through (the start of the target)"
                                      : "denied (EPERM)");
        }
        if (r < 0) {
                gate_notify_close(&g->notify);
        } else if (!(revents & POLLIN) && (revents & (POLLHUP | POLLERR))) {
                NOTE(g, "container %s: the filter has no users left; %s, %lu call(s) denied",
                     g->state.id, g->notify.allowed ? "1 exec let through" : "no exec let through",
                     g->notify.denied);
                g->served = true;
                gate_notify_close(&g->notify);
        }
}

static void on_timeout(struct gate *g)
{
        struct bento_err err = {0};

        if (g->listener.fd >= 0) {
                bento_err_setx(&err, ETIMEDOUT,
                               "no runtime connected to '%s' within %u s; no longer listening "
                               "(a container started later cannot exec)",
                               g->listener.path, g->o->timeout_s);
                gate_listener_close(&g->listener);
                /* a wrapped command may not need the gate at all */
                if (g->o->command)
                        say("%s", err.msg);
                else
                        fail(g, &err);
        } else if (g->conn >= 0) {
                bento_err_setx(&err, ETIMEDOUT,
                               "the runtime sent no complete container process state within "
                               "%u s; the container cannot exec",
                               g->o->timeout_s);
                drop_connection(g);
                fail(g, &err);
        }
}

/* ---- the loop ------------------------------------------------------------------ */

static bool finished(struct gate *g)
{
        if (g->stop_signal || g->stopped)
                return true;
        if (g->o->command && g->child == 0 && g->listener.fd >= 0) {
                /* the command is gone: take a connection it made before it
                 * exited, else no runtime of its will connect any more */
                on_listener(g);
        }
        if (g->o->command && g->child == 0 && g->listener.fd >= 0) {
                NOTE(g, "the command exited before a runtime connected");
                gate_listener_close(&g->listener);
        }
        if (g->o->command && g->child > 0)
                return false;
        return g->listener.fd < 0 && g->conn < 0 && g->notify.fd < 0;
}

static int poll_once(struct gate *g)
{
        /* the first: the signals of the program, or the stop of a thread */
        struct pollfd p[4] = {{.fd = g->sig_fd >= 0 ? g->sig_fd : g->o->stop_fd, .events = POLLIN},
                              {.fd = g->listener.fd, .events = POLLIN},
                              {.fd = g->conn, .events = POLLIN},
                              {.fd = g->notify.fd, .events = POLLIN}};
        int timeout = -1, r;

        if (g->listener.fd >= 0 || g->conn >= 0) {
                int64_t left = g->deadline_ms - now_ms();

                timeout = left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int) left;
        }
        r = poll(p, 4, timeout);
        if (r < 0)
                return errno == EINTR ? 0 : -errno;
        if (p[0].revents && g->sig_fd >= 0)
                on_signals(g);
        else if (p[0].revents)
                g->stopped = true;
        if (p[1].revents && g->listener.fd >= 0)
                on_listener(g);
        if (p[2].revents && g->conn >= 0)
                on_connection(g);
        if (p[3].revents && g->notify.fd >= 0)
                on_notify(g, p[3].revents);
        /* checked even when events kept coming: a peer that trickles bytes
         * or a stream of turned-away connections cannot stretch the wait */
        if ((g->listener.fd >= 0 || g->conn >= 0) && now_ms() >= g->deadline_ms)
                on_timeout(g);
        return 0;
}

static int signal_ready(struct gate *g, struct bento_err *err)
{
        ssize_t n;

        if (g->o->ready_fd < 0)
                return 0;
        do
                n = write(g->o->ready_fd, "R", 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                return bento_err_set(err, n < 0 ? errno : EIO, "--ready-fd %d", g->o->ready_fd);
        close(g->o->ready_fd);
        g->ready_said = true;
        return 0;
}

static int start(struct gate *g, struct bento_err *err)
{
        int r = g->o->stop_fd < 0 ? setup_signals(g, err) : 0;

        if (r >= 0 && g->o->command && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                r = bento_err_set(err, errno, "PR_SET_CHILD_SUBREAPER");
        if (r >= 0 && g->o->record_path)
                r = gate_record_open(&g->record, g->o->record_path, err);
        if (r >= 0)
                r = gate_listener_open(&g->listener, g->o->socket_path, err);
        if (r >= 0)
                r = signal_ready(g, err);
        if (r >= 0)
                NOTE(g, "listening on %s", g->o->socket_path);
        arm_deadline(g);
        if (r >= 0 && g->o->command)
                r = spawn_command(g, err);
        return r;
}

static int exit_status(const struct gate *g, int r)
{
        if (g->exec_errno)
                return g->exec_errno == ENOENT ? GATE_EXIT_NOT_FOUND : GATE_EXIT_CANNOT_EXEC;
        if (r < 0)
                return g->o->command ? GATE_EXIT_WRAPPER_FAILED : GATE_EXIT_FAILED;
        if (g->stop_signal)
                return 128 + g->stop_signal;
        if (g->stopped)
                return GATE_EXIT_FAILED;
        if (g->o->command)
                return g->failed && g->child_status == 0 ? GATE_EXIT_WRAPPER_FAILED
                                                         : g->child_status;
        return g->failed ? GATE_EXIT_FAILED : 0;
}

int gate_run(const struct gate_opts *o)
{
        struct gate g = {.o = o,
                         .listener = {.fd = -1},
                         .conn = -1,
                         .notify = {.fd = -1},
                         .record = {.fd = -1},
                         .sig_fd = -1};
        struct bento_err err = {0};
        int r = start(&g, &err);

        if (r < 0)
                say("%s", err.msg);
        while (r >= 0 && !finished(&g))
                r = poll_once(&g);
        if (r < 0 && !err.code) {
                bento_err_set(&err, -r, "poll");
                say("%s", err.msg);
        }
        gate_listener_close(&g.listener);
        drop_connection(&g);
        gate_notify_close(&g.notify);
        /* the end line says the record holds every exec of the container */
        gate_record_close(&g.record, g.served && !g.failed && r >= 0);
        if (g.sig_fd >= 0)
                close(g.sig_fd);
        /* A gate that never got ready closes --ready-fd too, so that whoever
         * waits on it sees end-of-file at once: in a thread nothing else
         * would close it. */
        if (o->ready_fd >= 0 && !g.ready_said)
                close(o->ready_fd);
        return exit_status(&g, r);
}
