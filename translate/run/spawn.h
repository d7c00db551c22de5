/* SPDX-License-Identifier: Apache-2.0 */
/* Child programs of a run (spawn.c). */
#ifndef BENTO_RUN_SPAWN_H
#define BENTO_RUN_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

struct run_spawn_fds {
        int in, out, err; /* -1: /dev/null */
        int extra;        /* one more descriptor to pass, or -1 */
        int extra_as;     /* the number it gets in the child */
        int extra2;       /* a second one (bento profile's report pipe), or -1; the */
        int extra2_as;    /* sources must not be either target number */
        const int *keep;  /* more descriptors it inherits at their own numbers */
        size_t n_keep;
        bool own_group; /* a process group of its own (Ctrl-C does not reach it) */
        char **env;     /* its environment; NULL: bento's */
};

#define RUN_SPAWN_FDS_NULL                                                                         \
        {                                                                                          \
                .in = -1, .out = -1, .err = -1, .extra = -1, .extra_as = -1, .extra2 = -1,         \
                .extra2_as = -1, .keep = NULL, .n_keep = 0, .own_group = false, .env = NULL        \
        }

/* argv[0] without a slash is looked for in PATH. */
int run_spawn(char *const argv[], const struct run_spawn_fds *fds, pid_t *ret,
              struct bento_err *err);
/* bento's environment without what the caller meant for bento itself:
 * socket activation (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES) and the service
 * manager's NOTIFY_SOCKET.  bento-runtime would hand those descriptors, or a
 * relay to that socket, into the box, which no manifest granted.  The array
 * points into environ; free() it (not the strings).  NULL on ENOMEM. */
char **run_spawn_env_for_runtime(void);
/* waitpid, retried on EINTR.  Returns 0 or -errno. */
int run_wait(pid_t pid, int *status);
/* The same with a deadline: -ETIMEDOUT when pid is still running. */
int run_wait_timeout(pid_t pid, int *status, int timeout_ms);

/* CLOCK_MONOTONIC in milliseconds. */
long run_now_ms(void);
/* Spawn and wait. */
int run_call(char *const argv[], const struct run_spawn_fds *fds, int *ret_status,
             struct bento_err *err);

/* Block SIGINT and SIGTERM (the old mask in *old) and return a signalfd
 * for them: a run takes Ctrl-C and a kill from its poll loop, as events.
 * Returns the fd, or -errno with err set. */
int run_block_signals(sigset_t *old, struct bento_err *err);

#endif
