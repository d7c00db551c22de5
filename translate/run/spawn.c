/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the programs a run needs (bento-runtime, bento-exec-gate) with
 * exactly the descriptors they should have.  A child sharing bento's memory
 * until its exec (vfork semantics, as posix_spawn's) keeps this cheap and
 * explicit: the child gets the three standard descriptors given, optionally
 * one more at a fixed number and a few at their own (the shield mount point
 * locks, policy/point-locks.h), default signal handling and an empty mask,
 * and the environment asked for; every other descriptor of bento is
 * close-on-exec, so nothing else leaks into a sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "sigstate.h"
#include "spawn.h"

extern char **environ;

/* The child's code runs on a stack AddressSanitizer did not make (a buffer
 * of the parent's frame), where its checks of stack accesses go wrong:
 * a sanitizer build leaves that code alone. */
#define CHILD_CODE __attribute__((no_sanitize("address")))

/* What the child of run_spawn needs, and how its start failed: it shares
 * bento's memory until its exec. */
struct spawn_child {
        char *const *argv;
        const struct run_spawn_fds *fds;
        char *const *env;
        const sigset_t *reset; /* the dispositions that are not the default */
        int err;               /* 0 until a step or the exec failed */
};

/* src at the number dst, without close-on-exec (dup2 onto itself would
 * leave the flag: it is cleared instead). */
CHILD_CODE static int move_fd(int src, int dst)
{
        if (src == dst)
                return fcntl(dst, F_SETFD, 0);
        return dup2(src, dst) < 0 ? -1 : 0;
}

/* /dev/null at the number fd. */
CHILD_CODE static int null_at(int fd)
{
        int nfd = open("/dev/null", fd ? O_WRONLY : O_RDONLY);

        if (nfd < 0 || nfd == fd)
                return nfd < 0 ? -1 : 0;
        if (dup2(nfd, fd) < 0)
                return -1;
        return close(nfd);
}

CHILD_CODE static int child_fds(const struct run_spawn_fds *fds)
{
        const int std[3] = {fds->in, fds->out, fds->err};

        for (int i = 0; i < 3; i++)
                if ((std[i] >= 0 ? move_fd(std[i], i) : null_at(i)) < 0)
                        return -1;
        if (fds->extra >= 0 && move_fd(fds->extra, fds->extra_as) < 0)
                return -1;
        if (fds->extra2 >= 0 && move_fd(fds->extra2, fds->extra2_as) < 0)
                return -1;
        for (size_t i = 0; i < fds->n_keep; i++)
                if (move_fd(fds->keep[i], fds->keep[i]) < 0)
                        return -1;
        return 0;
}

/* The child: its descriptors, its process group, default signal handling
 * and an empty mask, then the exec.  Only returns on failure. */
CHILD_CODE static int spawn_child(void *arg)
{
        struct spawn_child *c = arg;
        sigset_t none;

        if (child_fds(c->fds) < 0 || (c->fds->own_group && setpgid(0, 0) < 0)) {
                c->err = errno;
                return 127;
        }
        sigemptyset(&none);
        bento_signals_reset_raw(c->reset, &none);
        if (strchr(c->argv[0], '/'))
                execve(c->argv[0], c->argv, c->env);
        else
                execvpe(c->argv[0], c->argv, c->env);
        c->err = errno;
        return 127;
}

/* A clone with CLONE_VM|CLONE_VFORK, as posix_spawn makes, but the child
 * resets only the signals that are not at their default (sigstate.h):
 * glibc's resets or asks about all 64, two calls of about 2 us each on
 * this VM for each spawn, and the runtime's spawn is on the way to the
 * target.  Every signal is blocked while the child shares our memory, so
 * that no handler of ours runs in it; its stack is a buffer of ours. */
int run_spawn(char *const argv[], const struct run_spawn_fds *fds, pid_t *ret,
              struct bento_err *err)
{
        char stack[32 * 1024] __attribute__((aligned(16)));
        struct spawn_child c = {
            .argv = argv, .fds = fds, .env = fds->env ? fds->env : environ, .err = 0};
        sigset_t all, old, reset;
        int status;
        pid_t pid;

        bento_signals_not_default(&reset);
        c.reset = &reset;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        pid = clone(spawn_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
        if (pid < 0)
                c.err = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid > 0 && c.err) {
                (void) run_wait(pid, &status);
                pid = -1;
        }
        if (pid < 0)
                return bento_err_set(err, c.err, "cannot start %s", argv[0]);
        *ret = pid;
        return 0;
}

static bool meant_for_bento(const char *entry)
{
        static const char *const names[] = {
            "LISTEN_FDS=", "LISTEN_PID=", "LISTEN_FDNAMES=", "NOTIFY_SOCKET="};

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (strncmp(entry, names[i], strlen(names[i])) == 0)
                        return true;
        return false;
}

char **run_spawn_env_for_runtime(void)
{
        size_t n = 0, k = 0;
        char **env;

        while (environ[n])
                n++;
        env = calloc(n + 1, sizeof(char *));
        if (!env)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!meant_for_bento(environ[i]))
                        env[k++] = environ[i];
        return env;
}

int run_wait(pid_t pid, int *status)
{
        for (;;) {
                if (waitpid(pid, status, 0) == pid)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}

long run_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int run_wait_timeout(pid_t pid, int *status, int timeout_ms)
{
        long end = run_now_ms() + timeout_ms;
        /* A pidfd wakes the wait the moment the child exits; without one
         * (a kernel before 5.3) the child is asked again every 5 ms. */
        cleanup_close int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);

        for (;;) {
                pid_t r = waitpid(pid, status, WNOHANG);
                long left = end - run_now_ms();

                if (r == pid)
                        return 0;
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (left <= 0)
                        return -ETIMEDOUT;
                if (pidfd >= 0)
                        (void) poll(&(struct pollfd){.fd = pidfd, .events = POLLIN}, 1, (int) left);
                else
                        (void) poll(NULL, 0, left < 5 ? (int) left : 5);
        }
}

int run_call(char *const argv[], const struct run_spawn_fds *fds, int *ret_status,
             struct bento_err *err)
{
        pid_t pid = 0;
        int r = run_spawn(argv, fds, &pid, err);

        if (r < 0)
                return r;
        r = run_wait(pid, ret_status);
        if (r < 0)
                return bento_err_set(err, -r, "waiting for %s", argv[0]);
        return 0;
}

int run_block_signals(sigset_t *old, struct bento_err *err)
{
        sigset_t set;
        int fd;

        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &set, old) < 0)
                return bento_err_set(err, errno, "signals");
        fd = signalfd(-1, &set, SFD_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "signals");
        return fd;
}
