/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The foreground loop of `run` and `exec` (see foreground.h): one poll()
 * over the process's pidfd, the signalfd, a caller's watch and, with a
 * terminal, the two directions of the proxy.  Each direction owns a small buffer and only
 * reads while it is empty, so a side that stops reading slows the other
 * down instead of losing bytes or blocking the loop (signals must keep
 * flowing).  Our stdin and stdout are shared with whoever started us and
 * stay blocking; only the pty master, which is ours alone, is non-blocking.
 */
#include "foreground.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* How long the final drain waits for output still on its way through the
 * pty when something else in the container keeps the terminal open. */
#define DRAIN_IDLE_MS 200

struct pump {
        int from;
        int to;
        bool open; /* `from` has not reached its end */
        size_t len;
        size_t off;
        char buf[4096];
};

struct proxy {
        int master; /* -1: nothing to proxy */
        bool raw;   /* stdin's terminal mode was changed and must be restored */
        struct termios saved;
        struct pump in;  /* stdin -> master */
        struct pump out; /* master -> stdout */
};

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

int rt_fg_block_signals(sigset_t *old, struct bento_err *err)
{
        sigset_t set;
        int fd;

        forwardable_signals(&set);
        if (sigprocmask(SIG_BLOCK, &set, old) < 0)
                return bento_err_set(err, errno, "sigprocmask");
        fd = signalfd(-1, &set, SFD_CLOEXEC);
        if (fd < 0) {
                int saved = errno;
                sigprocmask(SIG_SETMASK, old, NULL);
                return bento_err_set(err, saved, "signalfd");
        }
        return fd;
}

static void copy_winsize(int from, int to)
{
        struct winsize ws;

        if (ioctl(from, TIOCGWINSZ, &ws) == 0)
                (void) ioctl(to, TIOCSWINSZ, &ws);
}

static void proxy_start(struct proxy *px, int master)
{
        px->master = master;
        px->raw = false;
        px->in = (struct pump){.from = STDIN_FILENO, .to = master, .open = master >= 0};
        px->out = (struct pump){.from = master, .to = STDOUT_FILENO, .open = master >= 0};
        if (master < 0)
                return;
        (void) fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
        if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &px->saved) < 0)
                return;
        struct termios raw = px->saved;
        cfmakeraw(&raw);
        px->raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
        /* the container's terminal takes the size of the one we run in */
        copy_winsize(STDIN_FILENO, master);
}

/* One step of a direction: read while the buffer is empty, write while it
 * is not.  A failed write drops what is pending: the other end is gone. */
static void pump_step(struct pump *p, short from_ev, short to_ev)
{
        ssize_t n;

        if (p->len == 0 && p->open && (from_ev & (POLLIN | POLLHUP | POLLERR))) {
                n = read(p->from, p->buf, sizeof(p->buf));
                if (n > 0) {
                        p->len = (size_t) n;
                        p->off = 0;
                } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                        /* end of file, or EIO from a master whose slave closed */
                        p->open = false;
                }
        }
        if (p->len > 0 && (to_ev & (POLLOUT | POLLHUP | POLLERR))) {
                n = write(p->to, p->buf + p->off, p->len - p->off);
                if (n > 0)
                        p->off += (size_t) n;
                else if (n < 0 && errno != EAGAIN && errno != EINTR)
                        p->off = p->len;
                if (p->off == p->len)
                        p->len = p->off = 0;
        }
}

/* poll() reports POLLHUP even for events 0: leave idle fds out (fd -1),
 * or a hung-up stdin would spin the loop. */
static struct pollfd pump_poll_from(const struct pump *p)
{
        bool want = p->open && p->len == 0;

        return (struct pollfd){.fd = want ? p->from : -1, .events = POLLIN};
}

static struct pollfd pump_poll_to(const struct pump *p)
{
        return (struct pollfd){.fd = p->len > 0 ? p->to : -1, .events = POLLOUT};
}

/* Output still in the pty when the process ended: read it to the end
 * (EIO once every slave fd is closed), or until it stays idle. */
static void proxy_drain(struct proxy *px)
{
        struct pollfd p = {.fd = px->master, .events = POLLIN};
        size_t off = 0;

        while (px->out.len > off) {
                ssize_t n = write(STDOUT_FILENO, px->out.buf + off, px->out.len - off);
                if (n <= 0)
                        break;
                off += (size_t) n;
        }
        px->out.len = 0;
        while (px->out.open && poll(&p, 1, DRAIN_IDLE_MS) > 0) {
                ssize_t n = read(px->master, px->out.buf, sizeof(px->out.buf));
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (n <= 0)
                        break;
                for (ssize_t done = 0, w; done < n; done += w) {
                        w = write(STDOUT_FILENO, px->out.buf + done, (size_t) (n - done));
                        if (w <= 0)
                                return;
                }
        }
}

static void forward_signal(const struct proxy *px, int pidfd, const struct signalfd_siginfo *si)
{
        if (si->ssi_signo == SIGCHLD)
                return;
        /* a SIGPIPE our own write to a closed stdout raised is not news
         * for the container */
        if (si->ssi_signo == SIGPIPE && (pid_t) si->ssi_pid == getpid())
                return;
        if (si->ssi_signo == SIGWINCH && px->master >= 0) {
                /* the kernel tells the container's foreground job itself */
                copy_winsize(STDIN_FILENO, px->master);
                return;
        }
        (void) syscall(SYS_pidfd_send_signal, pidfd, (int) si->ssi_signo, NULL, 0);
}

/* Reap every child that ended (orphans too, for a subreaper); pid's wait
 * status once it is reaped (-1 when its wait failed), else -2.  `gone`
 * says pidfd reported the exit. */
static int reap(pid_t pid, bool gone)
{
        int status = 0;

        for (pid_t w; (w = waitpid(-1, &status, WNOHANG)) > 0;)
                if (w == pid)
                        return status;
        if (!gone)
                return -2;
        /* exited but not reapable by waitpid(-1) (already collected): do
         * not spin on a pidfd that stays readable */
        return waitpid(pid, &status, 0) == pid ? status : -1;
}

static int loop_once(struct proxy *px, pid_t pid, int pidfd, int sigfd,
                     const struct rt_fg_watch *watch)
{
        struct pollfd fds[7] = {
            {.fd = pidfd, .events = POLLIN},
            {.fd = sigfd, .events = POLLIN},
            {.fd = watch ? watch->fd : -1, .events = POLLIN},
            pump_poll_from(&px->in),
            pump_poll_to(&px->in),
            pump_poll_from(&px->out),
            pump_poll_to(&px->out),
        };
        nfds_t n = px->master >= 0 ? 7 : 3;

        if (poll(fds, n, -1) < 0 && errno != EINTR)
                return -1;
        /* before the exit below: what the watch reads may go with the process */
        if (watch && (fds[2].revents & POLLIN))
                watch->ready(watch->data);
        if (fds[1].revents & POLLIN) {
                struct signalfd_siginfo si;
                if (read(sigfd, &si, sizeof(si)) == sizeof(si))
                        forward_signal(px, pidfd, &si);
        }
        if (px->master >= 0) {
                pump_step(&px->in, fds[3].revents, fds[4].revents);
                pump_step(&px->out, fds[5].revents, fds[6].revents);
        }
        return reap(pid, fds[0].revents & POLLIN);
}

int rt_fg_wait_status(pid_t pid, int pidfd, int sigfd, int master)
{
        return rt_fg_wait_status_watching(pid, pidfd, sigfd, master, NULL);
}

int rt_fg_wait_status_watching(pid_t pid, int pidfd, int sigfd, int master,
                               const struct rt_fg_watch *watch)
{
        struct proxy px;
        int status = -2;

        if (watch && watch->fd < 0)
                watch = NULL;
        proxy_start(&px, master);
        while (status == -2)
                status = loop_once(&px, pid, pidfd, sigfd, watch);
        if (master >= 0)
                proxy_drain(&px);
        if (px.raw)
                (void) tcsetattr(STDIN_FILENO, TCSANOW, &px.saved);
        return status;
}

int rt_fg_exit_code(int status)
{
        if (status < 0)
                return 1;
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return 1;
}

int rt_fg_wait(pid_t pid, int pidfd, int sigfd, int master)
{
        return rt_fg_exit_code(rt_fg_wait_status(pid, pidfd, sigfd, master));
}
