/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the programs a run needs (bento-runtime, bento-exec-gate) with
 * exactly the descriptors they should have.  posix_spawn keeps this cheap
 * (vfork semantics) and explicit: the child gets the three standard
 * descriptors given, optionally one more at a fixed number and a few at
 * their own (the shield mount point locks, policy/point-locks.h), default signal
 * handling and an empty mask, and the directory and environment asked
 * for; every other descriptor of bento is close-on-exec, so nothing else
 * leaks into a sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "spawn.h"

extern char **environ;

static void cleanup_file_actions_fn(posix_spawn_file_actions_t **fa)
{
        if (*fa)
                posix_spawn_file_actions_destroy(*fa);
}

static void cleanup_attr_fn(posix_spawnattr_t **a)
{
        if (*a)
                posix_spawnattr_destroy(*a);
}

int run_spawn(char *const argv[], const struct run_spawn_fds *fds, pid_t *ret,
              struct bento_err *err)
{
        posix_spawn_file_actions_t fa_buf,
            *fa __attribute__((cleanup(cleanup_file_actions_fn))) = NULL;
        posix_spawnattr_t at_buf, *at __attribute__((cleanup(cleanup_attr_fn))) = NULL;
        const int std[3] = {fds->in, fds->out, fds->err};
        sigset_t none, all;
        short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
        int r;

        if (posix_spawn_file_actions_init(&fa_buf) != 0)
                return bento_err_set(err, ENOMEM, "spawn");
        fa = &fa_buf;
        if (posix_spawnattr_init(&at_buf) != 0)
                return bento_err_set(err, ENOMEM, "spawn");
        at = &at_buf;
        for (int i = 0; i < 3; i++) {
                r = std[i] >= 0 ? posix_spawn_file_actions_adddup2(fa, std[i], i)
                                : posix_spawn_file_actions_addopen(fa, i, "/dev/null",
                                                                   i ? O_WRONLY : O_RDONLY, 0);
                if (r != 0)
                        return bento_err_set(err, r, "spawn");
        }
        if (fds->extra >= 0 && posix_spawn_file_actions_adddup2(fa, fds->extra, fds->extra_as) != 0)
                return bento_err_set(err, ENOMEM, "spawn");
        if (fds->extra2 >= 0 &&
            posix_spawn_file_actions_adddup2(fa, fds->extra2, fds->extra2_as) != 0)
                return bento_err_set(err, ENOMEM, "spawn");
        /* dup2 onto itself clears close-on-exec (glibc, POSIX 2024). */
        for (size_t i = 0; i < fds->n_keep; i++)
                if (posix_spawn_file_actions_adddup2(fa, fds->keep[i], fds->keep[i]) != 0)
                        return bento_err_set(err, ENOMEM, "spawn");
        sigemptyset(&none);
        sigfillset(&all);
        if (fds->own_group)
                flags |= POSIX_SPAWN_SETPGROUP;
        if (posix_spawnattr_setflags(at, flags) != 0 ||
            posix_spawnattr_setsigmask(at, &none) != 0 ||
            posix_spawnattr_setsigdefault(at, &all) != 0)
                return bento_err_set(err, EINVAL, "spawn");
        r = (strchr(argv[0], '/') ? posix_spawn : posix_spawnp)(ret, argv[0], fa, at, argv,
                                                                fds->env ? fds->env : environ);
        if (r != 0)
                return bento_err_set(err, r, "cannot start %s", argv[0]);
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
