/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec gate: the seccomp agent of a bento bundle's exec block
 * (docs/exec-gate.md).  bento-exec-gate (hooks/exec-gate/main.c) reads its
 * command line into a struct gate_opts and runs it; `bento run` runs the
 * same gate on a thread of its own (translate/run/gate.c).  The serving
 * code is exec-gate-serve.c and the exec-gate-*.c it calls.
 */
#ifndef BENTO_GATE_H
#define BENTO_GATE_H

#include <stdbool.h>

#define GATE_TIMEOUT_DEFAULT 60    /* seconds */
#define GATE_TIMEOUT_MAX     86400 /* seconds */

/* Exit statuses of the gate itself (a wrapped command's own status passes
 * through unchanged). */
#define GATE_EXIT_FAILED         1   /* daemon mode: could not serve a container */
#define GATE_EXIT_USAGE          2   /* daemon mode: bad command line */
#define GATE_EXIT_WRAPPER_FAILED 125 /* wrapper mode: the gate failed */
#define GATE_EXIT_CANNOT_EXEC    126 /* wrapper mode: the command cannot run */
#define GATE_EXIT_NOT_FOUND      127 /* wrapper mode: the command does not exist */

struct gate_opts {
        const char *socket_path; /* where to listen (listenerPath) */
        int ready_fd;            /* -1, or where to write one byte once listening */
        unsigned int timeout_s;  /* for the runtime to connect, then to send its message */
        bool verbose;            /* log every decision to stderr */
        const char *record_path; /* record mode (record.h): let all through, write here */
        char **command;          /* wrapper mode: the command to run; NULL otherwise */
        /* -1 in the program, which takes its signals on a signalfd.  In a
         * thread of another program (bento run serves its own exec gate):
         * a descriptor that becomes readable when the gate must stop; no
         * signal disposition or mask of the process is touched. */
        int stop_fd;
};

/* Run the gate: listen, (start the command,) take one runtime connection,
 * serve its container until no task uses the filter any more (and the
 * command has exited).  Prints its own diagnostics.  Returns the exit
 * status for main(). */
int gate_run(const struct gate_opts *o);

#endif
