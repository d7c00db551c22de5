/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: what the tracer keeps per traced thread, and the
 * decoding of one system call at its seccomp stop into the lines it will
 * report once the call's result is known (record.c).
 */
#ifndef BENTO_OBSERVE_TRACEE_H
#define BENTO_OBSERVE_TRACEE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "observe.h"
#include "report.h"
#include "systab.h"

/* One line to write at the syscall-exit stop. */
struct obs_line {
        const char *verb;  /* "read", "write", "probe", "chdir", "exec", "unix" */
        const char *fixed; /* second word when it is not the result ("connect"), or NULL */
        bool probe;        /* ENOTDIR means absent too */
        int path;          /* which of the tracee's path buffers */
};

struct obs_tracee {
        pid_t pid;
        bool started;   /* its attach stop was seen (the root: seized running) */
        bool pending;   /* decoded at the seccomp stop (or notification), waiting for
                         * the exit stop (or the result stop, trace.c) */
        int nr;         /* the pending call's number (the notification transport) */
        int restart_nr; /* a call the result stop found restarting (-ERESTART*):
                         * its retry runs without another result stop; or -1 */
        /* the last call whose notification the observer received (number and
         * instruction pointer), or -1: a call that can block is interrupted
         * inside itself only if it was received (trace.c, restart_unreceived) */
        int recv_nr;
        unsigned long long recv_ip;
        int n_lines;
        struct obs_line lines[2];
        char path[2][OBS_PATH_BUF];
};

/* The result word of an access reported without waiting for its result. */
#define OBS_RESULT_UNWATCHED "unwatched"

/* Decode the system call at a seccomp stop (nr and args of the x86_64
 * ABI, sc its table row) into t->lines, or write a dropped line.  Returns
 * true when the tracee must stop at the syscall's exit; false also when
 * the lines were written at once (a read or probe in one of o's
 * --no-result-under trees). */
bool obs_decode(struct obs_tracee *t, const struct obs_syscall *sc, const uint64_t *args,
                const struct observe_opts *o, struct obs_report *r);

/* The word a result is reported as: "ok", "absent" or "error". */
const char *obs_result_word(bool is_error, long long rval, bool probe);

/* Write t's pending lines with the result, and clear them. */
void obs_emit(struct obs_tracee *t, const char *result_or_null, bool is_error, long long rval,
              struct obs_report *r);

#endif
