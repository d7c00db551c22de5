/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec gate of one run (hooks/exec-gate, docs/exec-gate.md).  It is
 * started as soon as the run directory exists, so that it comes up while
 * bento writes the bundle, and it is waited for only just before
 * `bento-runtime run`, whose create needs its socket.  A gate that no runtime
 * ever connected to would wait for ever: it is killed at once.  One that
 * served a sandbox leaves by itself when the last sandboxed process is
 * gone, and is killed only if it does not.
 *
 * With --record-exec on an exec: all run the same gate runs in record mode
 * (docs/exec-gate.md, "Record mode"): it lets every exec through and
 * writes each to the run directory's record file (run/exec-record.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "spawn.h"
#include "run.h"

#define GATE_READY_TIMEOUT_MS 10000
#define GATE_EXIT_TIMEOUT_MS  2000

int run_gate_spawn(struct run_gate *g, const char *socket, const char *record,
                   struct bento_err *err)
{
        cleanup_free char *gate = compile_helper_path("BENTO_EXEC_GATE", "bento-exec-gate");
        const char *argv[] = {
            gate, "--socket", socket, "--ready-fd", "3", record ? "--record" : NULL, record, NULL};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        cleanup_close int wr = -1;
        int pipefd[2];

        *g = (struct run_gate){.pid = 0, .ready_fd = -1};
        if (!gate)
                return bento_err_set(err, ENOMEM, "exec gate");
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "exec gate");
        g->ready_fd = pipefd[0];
        wr = pipefd[1];
        fds.err = STDERR_FILENO;
        fds.extra = wr;
        fds.extra_as = 3;
        fds.own_group = true; /* Ctrl-C must not take the gate down before the sandbox */
        g->path = TAKE_PTR(gate);
        return run_spawn((char *const *) argv, &fds, &g->pid, err);
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

void run_gate_stop(struct run_gate *g)
{
        int status;

        if (g->pid > 0 &&
            (!g->in_use || run_wait_timeout(g->pid, &status, GATE_EXIT_TIMEOUT_MS) < 0)) {
                kill(g->pid, SIGKILL);
                (void) run_wait(g->pid, &status);
        }
        if (g->ready_fd >= 0)
                close(g->ready_fd);
        free(g->path);
        *g = (struct run_gate){.pid = 0, .ready_fd = -1};
}
