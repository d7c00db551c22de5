/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec gate of one run (docs/exec-gate.md).  bento serves it itself, on
 * a thread of its own running the gate's code (bundle/exec-gate.h): the
 * program bento-exec-gate would cost every exec-blocked run a process
 * start (an exec, its loader, its exit: about 2 ms of CPU on the CI
 * machine) while bento and the runtime are starting too.  $BENTO_EXEC_GATE
 * (an absolute path) names a program to run instead, the way the other
 * helpers are overridden.
 *
 * Either way the gate is started as soon as the run directory exists, so
 * that it is listening by the time the runtime creates the sandbox, and it
 * is waited for only just before `bento-runtime run`.  A gate that no
 * runtime ever connected to would wait for ever: it is stopped at once.
 * One that served a sandbox leaves by itself when the last sandboxed
 * process is gone, and is stopped only if it does not within
 * GATE_EXIT_TIMEOUT_MS.
 *
 * With --record-exec on an exec: all run the same gate runs in record mode
 * (docs/exec-gate.md, "Record mode"): it lets every exec through and
 * writes each to the run directory's record file (run/exec-record.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compile/compile.h"
#include "exec-gate.h"
#include "spawn.h"
#include "run.h"

#define GATE_READY_TIMEOUT_MS 10000
#define GATE_EXIT_TIMEOUT_MS  2000

/* The gate's own timeout for a runtime to connect and send its message:
 * the program's default. */
#define GATE_CONNECT_TIMEOUT_S GATE_TIMEOUT_DEFAULT

static void *serve(void *arg)
{
        struct run_gate *g = arg;

        (void) gate_run(&g->opts);
        return NULL;
}

/* The thread starts with every signal blocked, so that bento's signals
 * (taken on a signalfd by the thread that waits for the sandbox) are never
 * delivered to it. */
static int start_thread(struct run_gate *g, int ready_wr, struct bento_err *err)
{
        sigset_t all, old;
        int stop[2], r;

        if (pipe2(stop, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "exec gate");
        g->stop_rd = stop[0];
        g->stop_wr = stop[1];
        g->opts = (struct gate_opts){.socket_path = g->socket,
                                     .ready_fd = ready_wr,
                                     .timeout_s = GATE_CONNECT_TIMEOUT_S,
                                     .record_path = g->record,
                                     .stop_fd = g->stop_rd};
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        r = pthread_create(&g->thread, NULL, serve, g);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r != 0)
                return bento_err_set(err, r, "cannot start the exec gate");
        g->threaded = true;
        return 0;
}

static int start_program(struct run_gate *g, const char *program, int ready_wr,
                         struct bento_err *err)
{
        const char *argv[] = {program,      "--socket", g->socket,
                              "--ready-fd", "3",        g->record ? "--record" : NULL,
                              g->record,    NULL};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;

        fds.err = STDERR_FILENO;
        fds.extra = ready_wr;
        fds.extra_as = 3;
        fds.own_group = true; /* Ctrl-C must not take the gate down before the sandbox */
        return run_spawn((char *const *) argv, &fds, &g->pid, err);
}

int run_gate_spawn(struct run_gate *g, const char *socket, const char *record,
                   struct bento_err *err)
{
        const char *program = getenv("BENTO_EXEC_GATE");
        int pipefd[2], r;

        *g = (struct run_gate) RUN_GATE_INIT;
        g->on = true;
        g->socket = strdup(socket);
        g->record = record ? strdup(record) : NULL;
        g->path = strdup(program && program[0] == '/' ? program : "bento's exec gate");
        if (!g->socket || (record && !g->record) || !g->path)
                return bento_err_set(err, ENOMEM, "exec gate");
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "exec gate");
        g->ready_fd = pipefd[0];
        if (program && program[0] == '/') {
                r = start_program(g, program, pipefd[1], err);
                close(pipefd[1]);
                return r;
        }
        /* The thread's gate writes its byte and closes the write end (or
         * closes it unwritten when it cannot listen): it owns it once it runs. */
        r = start_thread(g, pipefd[1], err);
        if (r < 0)
                close(pipefd[1]);
        return r;
}

int run_gate_ready(struct run_gate *g, struct bento_err *err)
{
        struct pollfd pfd = {.fd = g->ready_fd, .events = POLLIN};
        char byte;
        int r;

        do
                r = poll(&pfd, 1, GATE_READY_TIMEOUT_MS);
        while (r < 0 && errno == EINTR);
        if (r <= 0 || read(g->ready_fd, &byte, 1) != 1)
                return bento_err_setx(err, EIO,
                                      "the exec gate (%s) did not come up, so the exec block "
                                      "cannot be enforced",
                                      g->path ? g->path : "bento-exec-gate");
        return 0;
}

/* The thread ends by itself once the sandbox is gone; bounded by
 * GATE_EXIT_TIMEOUT_MS when it served one, then (or at once) told to stop. */
static void stop_thread(struct run_gate *g)
{
        struct timespec until;

        if (g->in_use) {
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_sec += GATE_EXIT_TIMEOUT_MS / 1000;
                if (pthread_timedjoin_np(g->thread, NULL, &until) == 0)
                        return;
        }
        (void) !write(g->stop_wr, "S", 1);
        (void) pthread_join(g->thread, NULL);
}

void run_gate_stop(struct run_gate *g)
{
        int status;

        if (g->threaded)
                stop_thread(g);
        if (g->pid > 0 &&
            (!g->in_use || run_wait_timeout(g->pid, &status, GATE_EXIT_TIMEOUT_MS) < 0)) {
                kill(g->pid, SIGKILL);
                (void) run_wait(g->pid, &status);
        }
        /* A thread that failed to start never took the write end; one that
         * ran closed it itself (the gate closes its --ready-fd). */
        if (g->ready_fd >= 0)
                close(g->ready_fd);
        if (g->stop_rd >= 0)
                close(g->stop_rd);
        if (g->stop_wr >= 0)
                close(g->stop_wr);
        free(g->path);
        free(g->socket);
        free(g->record);
        *g = (struct run_gate) RUN_GATE_INIT;
}
