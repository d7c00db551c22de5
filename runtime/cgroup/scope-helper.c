/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-systemd-scope run for the systemd driver (systemd.c) and waited
 * for.  It is the program beside this bento-runtime (base/beside.h), never
 * one from PATH.  It starts clean: the signal mask empty and every
 * disposition at its default, standard input and output /dev/null, its
 * standard error a pipe to the runtime, no other descriptor (the runtime
 * may hold ones meant for the container), and of the environment only the
 * variables that say where the buses are and the sanitizers' options.
 * Its one line of error becomes the runtime's error as it is, so the
 * messages are what they were when the runtime spoke to systemd itself.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/beside.h"
#include "base/proc.h"
#include "cleanup.h"

#define SCOPE_PROGRAM "bento-systemd-scope"
/* Its own waits are bounded (sd-bus's 25 s per call, 10 s for the job);
 * this is the bound of the whole, in case the bus stalls elsewhere. */
#define SCOPE_TIMEOUT_MS 60000

extern char **environ;

/* What the helper's environment may hold (sd-bus reads the first three). */
static const char *const kept_env[] = {
    "DBUS_SYSTEM_BUS_ADDRESS=", "DBUS_SESSION_BUS_ADDRESS=",
    "XDG_RUNTIME_DIR=",         "ASAN_OPTIONS=",
    "UBSAN_OPTIONS=",           "LSAN_OPTIONS=",
};
#define KEPT_ENV_N (sizeof(kept_env) / sizeof(kept_env[0]))

static void clean_env(char *envp[KEPT_ENV_N + 1])
{
        size_t n = 0;

        for (size_t k = 0; k < KEPT_ENV_N; k++)
                for (char **e = environ; e && *e; e++)
                        if (strncmp(*e, kept_env[k], strlen(kept_env[k])) == 0) {
                                envp[n++] = *e;
                                break;
                        }
        envp[n] = NULL;
}

static int spawn_helper(const char *path, char *const argv[], int err_fd, pid_t *ret,
                        struct bento_err *err)
{
        char *envp[KEPT_ENV_N + 1];
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t at;
        sigset_t none, all;
        int r;

        clean_env(envp);
        sigemptyset(&none);
        sigfillset(&all);
        if (posix_spawn_file_actions_init(&fa) != 0)
                return bento_err_set(err, ENOMEM, "--systemd-cgroup: " SCOPE_PROGRAM);
        if (posix_spawnattr_init(&at) != 0) {
                posix_spawn_file_actions_destroy(&fa);
                return bento_err_set(err, ENOMEM, "--systemd-cgroup: " SCOPE_PROGRAM);
        }
        r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (!r)
                r = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        if (!r)
                r = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
        if (!r)
                r = posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
        if (!r)
                r = posix_spawnattr_setsigmask(&at, &none);
        if (!r)
                r = posix_spawnattr_setsigdefault(&at, &all);
        if (!r)
                r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        if (!r)
                r = posix_spawn(ret, path, &fa, &at, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&at);
        if (r == ENOENT || r == EACCES)
                return bento_err_setx(err, ENOTSUP,
                                      "--systemd-cgroup: there is no %s to run (%s), so there is "
                                      "no way to ask systemd for the container's scope; run "
                                      "without --systemd-cgroup to use the cgroupfs driver",
                                      path, strerror(r));
        if (r)
                return bento_err_set(err, r, "--systemd-cgroup: cannot run %s", path);
        return 0;
}

static int remaining_ms(const struct timespec *deadline)
{
        struct timespec now;
        long long ms;

        clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
        return ms < 0 ? 0 : (int) ms;
}

/* The helper's standard error until it closes it (its first
 * sizeof(line) - 1 bytes kept); false when it outlived the bound. */
static bool read_stderr(int fd, char *line, size_t size)
{
        struct timespec deadline;
        size_t used = 0;

        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += SCOPE_TIMEOUT_MS / 1000;
        for (;;) {
                struct pollfd p = {.fd = fd, .events = POLLIN};
                char buf[256];
                ssize_t n;
                int r = poll(&p, 1, remaining_ms(&deadline));

                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        break;
                n = read(fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        line[used] = '\0';
                        return true;
                }
                if (used + 1 < size) {
                        size_t take = (size_t) n < size - 1 - used ? (size_t) n : size - 1 - used;
                        memcpy(line + used, buf, take);
                        used += take;
                }
        }
        line[used] = '\0';
        return false;
}

/* The helper's status, or -1 when it could not be read. */
static int reap(pid_t pid, bool kill_first)
{
        int status = 0;

        if (kill_first)
                (void) kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return status;
}

/* What the helper said or how it ended, as the runtime's error. */
static int relay(const char *path, int status, char *line, struct bento_err *err)
{
        char *nl = strchr(line, '\n');

        if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        if (nl)
                *nl = '\0';
        if (line[0])
                return bento_err_setx(err, EIO, "%s", line);
        if (status >= 0 && WIFSIGNALED(status))
                return bento_err_setx(err, EIO, "--systemd-cgroup: %s was killed by signal %d",
                                      path, WTERMSIG(status));
        if (status >= 0)
                return bento_err_setx(err, EIO,
                                      "--systemd-cgroup: %s failed (exit status %d) and said "
                                      "nothing",
                                      path, WEXITSTATUS(status));
        return bento_err_setx(err, EIO, "--systemd-cgroup: %s: its exit status is lost", path);
}

/* Its standard error read to the end, then its status. */
static int wait_helper(const char *path, pid_t pid, int rd, struct bento_err *err)
{
        char line[BENTO_ERR_MSG_MAX];
        bool done = read_stderr(rd, line, sizeof(line));
        int status = reap(pid, !done);

        if (!done)
                return bento_err_setx(err, ETIMEDOUT,
                                      "--systemd-cgroup: %s did not finish within %d s", path,
                                      SCOPE_TIMEOUT_MS / 1000);
        return relay(path, status, line, err);
}

int cg_scope_helper_run(char **argv, struct bento_err *err)
{
        cleanup_free char *path = rt_program_beside_self(SCOPE_PROGRAM, err);
        cleanup_close int rd = -1, wr = -1;
        struct sigaction saved;
        bool restore;
        int p[2], r;
        pid_t pid = -1;

        if (!path)
                return -err->code;
        if (pipe2(p, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "--systemd-cgroup: pipe");
        rd = rt_fd_above_stdio(p[0]);
        wr = rt_fd_above_stdio(p[1]);
        if (rd < 0 || wr < 0)
                return bento_err_set(err, -(rd < 0 ? rd : wr), "--systemd-cgroup: pipe");
        argv[0] = (char *) SCOPE_PROGRAM;
        restore = rt_chld_default(&saved);
        r = spawn_helper(path, argv, wr, &pid, err);
        if (r >= 0) {
                close(TAKE_FD(wr));
                r = wait_helper(path, pid, rd, err);
        }
        if (restore)
                (void) sigaction(SIGCHLD, &saved, NULL);
        return r;
}
