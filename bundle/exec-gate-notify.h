/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Answering seccomp user notifications for exec calls (docs/exec-gate.md,
 * "What the gate lets through"): exactly one exec is let through -- the first execve or execveat
 * made by the container's init (the runtime, still before any target code
 * has run, replacing itself with the target) -- and every other notified
 * call, from any process, fails with EPERM.  Letting a call through uses
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE; that is safe here because the decision
 * rests on who calls and when, never on the call's (changeable) arguments.
 *
 * "The init" is the pid the runtime named in the container process state,
 * or a thread of it (runc's init is a Go program).  The notification's pid
 * is in the gate's pid namespace, so the gate must run in the runtime's
 * (or one where both agree); otherwise nothing is let through, which fails
 * closed.
 *
 * When the container's process 1 is bento-init (the bundle says so in its
 * listenerMetadata), the runtime's exec is that of bento-init, which then
 * forks and execs the target.  The gate lets exactly these two through, in
 * this order: the first exec of the init, then the first exec of a direct
 * child of the init that is not the init itself.  No target code exists
 * before the second, so nothing else can take it, and after it the target
 * has no allowance, exactly as without the init.
 *
 * Under exec: none-strict every process-creating call is refused too, so
 * the bundle sends those of clone (the one glibc's fork uses) to the gate
 * as well.  The gate then lets one through: the first, made by the init
 * after its own exec (bento-init forking the target-to-be).  Only the init
 * exists then, so nothing else can take it; every later one fails with
 * EPERM, as the filter alone would answer.
 *
 * In record mode (n->record set) nothing is refused: every call continues,
 * and each exec is written to the record before it is answered.
 */
#ifndef BENTO_GATE_NOTIFY_H
#define BENTO_GATE_NOTIFY_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "exec-gate-record.h"

struct gate_notify {
        int fd; /* the listener, -1 when closed */
        pid_t init_pid;
        bool init_child; /* process 1 is bento-init: the target is its child */
        bool init_exec;  /* init_child: bento-init's own exec has gone through */
        bool init_fork;  /* init_child: bento-init's one fork has gone through */
        struct seccomp_notif *req;
        struct seccomp_notif_resp *resp;
        size_t req_size, resp_size;
        bool allowed;         /* the target's exec has gone through */
        unsigned long denied; /* calls answered with EPERM */
        /* Record mode (record.h): every call is let through, each exec
         * recorded first.  NULL: the exec block above. */
        struct gate_record *record;
};

/* One answered notification, for the caller's log. */
struct gate_decision {
        pid_t pid;
        char call[32]; /* system call name, or "syscall N" */
        bool let_through;
        bool gone; /* the caller went away before the answer arrived */
};

/* Take over the listener fd (closed by gate_notify_close() in every case)
 * for the container whose init is init_pid (bento-init when init_child).
 * Returns 0 or -errno. */
int gate_notify_init(struct gate_notify *n, int fd, pid_t init_pid, bool init_child,
                     struct bento_err *err);

/* Receive and answer one notification.  Returns 1 with *ret filled, 0 when
 * there was nothing to answer (the caller left before it was read), or
 * -errno on failure of the listener itself. */
int gate_notify_handle(struct gate_notify *n, struct gate_decision *ret, struct bento_err *err);

/* Close the listener (every call still waiting, and every later one, then
 * fails with ENOSYS) and free the buffers.  Safe to call more than once. */
void gate_notify_close(struct gate_notify *n);

#endif
