/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the tracer loop (observe.h).  Two transports bring the
 * calls of the filter (filter.h) to the observer.
 *
 * Notifications (the listener of a SECCOMP_RET_USER_NOTIF filter): the
 * observer waits in SECCOMP_IOCTL_NOTIF_RECV, decodes the call (record.c)
 * and answers SECCOMP_USER_NOTIF_FLAG_CONTINUE: one sleep and one wake-up
 * of the caller, three system calls of the observer and no ptrace request
 * (docs/performance.md has what that saves).  The caller waits until the
 * answer, so the path is read before the call runs.  A call whose result is reported
 * gets a result stop: PTRACE_INTERRUPT before the answer (the listener's
 * waiters ignore all but fatal signals once their notification was
 * received, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV), so the caller stops
 * as it leaves the call, with the result in its registers.  ptrace stays
 * for everything else below; its stops are collected whenever SIGCHLD
 * interrupts the wait (a timer's SIGALRM covers a SIGCHLD that arrives
 * just before it).  A notification from a thread that is not traced
 * (CLONE_UNTRACED) is answered ENOSYS, as SECCOMP_RET_TRACE without a
 * tracer would be.
 *
 * ptrace stops (SECCOMP_RET_TRACE, where no listener could be had): one
 * waitpid(-1, __WALL) loop serves every thread and child of the target:
 *
 *   seccomp stop   decode (record.c); PTRACE_SYSCALL to the exit stop when
 *                  there is a result to wait for, PTRACE_CONT otherwise
 *   exit stop      the result into the pending lines; PTRACE_CONT
 *   exec event     a multithreaded execve hands the execing thread's
 *                  record to the leader's pid, which it takes over
 *   fork/clone     new tracees (their first stop may come before the
 *                  parent's event: whichever is seen first adds them)
 *   group stop     PTRACE_LISTEN, so the tracee stays stopped
 *   signal         passed on unchanged
 *
 * The target's own ptrace() is skipped with EPERM at its seccomp stop, so
 * it can neither detach nor confuse the tracer.  The loop ends when no
 * tracee is left; the root's end is the report's last line.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracee.h"

#define X32_SYSCALL_BIT 0x40000000ULL

/* Linux 6.6; younger than Debian 12's headers */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The kernel's restart codes: a call a signal (or the result stop itself)
 * interrupted, which runs again. */
#define ERESTARTSYS_FIRST 512
#define ERESTARTSYS_LAST  516
#define ERESTARTSYS_CODE  512 /* what an interrupted wait for the listener leaves */
#define ERESTARTNOINTR    513 /* restarted whatever the handler's SA_RESTART */

struct tracer {
        const struct observe_opts *opts;
        struct obs_report *report;
        struct obs_tracee **t;
        size_t n, cap;
        pid_t root;
        int root_status;      /* wait status of the root; -1 while it runs */
        int listener;         /* the notification transport's descriptor, or -1 */
        struct obs_ring ring; /* the preload library's (--shim), or fd -1 */
        struct seccomp_notif *req;
        struct seccomp_notif_resp *resp;
        size_t req_size, resp_size;
};

static struct obs_tracee *find(struct tracer *tr, pid_t pid)
{
        for (size_t i = 0; i < tr->n; i++)
                if (tr->t[i]->pid == pid)
                        return tr->t[i];
        return NULL;
}

/* The tracee for pid, added when not yet known.  Out of memory is fatal:
 * a tracee the tracer cannot keep would run unrecorded. */
static struct obs_tracee *find_or_add(struct tracer *tr, pid_t pid)
{
        struct obs_tracee *t = find(tr, pid);

        if (t)
                return t;
        if (tr->n == tr->cap) {
                size_t cap = tr->cap ? 2 * tr->cap : 16;
                struct obs_tracee **v = realloc(tr->t, cap * sizeof(*v));

                if (!v)
                        abort();
                tr->t = v;
                tr->cap = cap;
        }
        t = calloc(1, sizeof(*t));
        if (!t)
                abort();
        t->pid = pid;
        t->restart_nr = -1;
        t->recv_nr = -1;
        tr->t[tr->n++] = t;
        return t;
}

/* A tracee is gone: a call it never returned from is reported as an
 * error (it was attempted; its result is unknown). */
static void forget(struct tracer *tr, pid_t pid)
{
        for (size_t i = 0; i < tr->n; i++) {
                struct obs_tracee *t = tr->t[i];

                if (t->pid != pid)
                        continue;
                if (t->pending)
                        obs_emit(t, "error", true, 0, tr->report);
                free(t);
                tr->t[i] = tr->t[--tr->n];
                return;
        }
}

/* Whether the tracer uses notifications (no syscall-exit stops then). */
static bool notifying;

static void resume(struct obs_tracee *t, int sig)
{
        /* ESRCH: killed meanwhile; its exit is the next thing waitpid says */
        ptrace(t->pending && !notifying ? PTRACE_SYSCALL : PTRACE_CONT, t->pid, NULL,
               (void *) (long) sig);
}

/* Skip the system call at a seccomp stop: it returns -err. */
static void skip(struct obs_tracee *t, int err)
{
        struct user_regs_struct regs;

        if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs) == 0) {
                regs.orig_rax = (unsigned long long) -1;
                regs.rax = (unsigned long long) (long long) -err;
                ptrace(PTRACE_SETREGS, t->pid, NULL, &regs);
        }
        t->pending = false;
        resume(t, 0);
}

static void on_seccomp(struct tracer *tr, struct obs_tracee *t)
{
        struct __ptrace_syscall_info info;
        const struct obs_syscall *sc;

        /* the observer's filter notifies: a stop a filter of the target asked for */
        if (notifying)
                return resume(t, 0);
        memset(&info, 0, sizeof(info));
        if (ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, (void *) sizeof(info), &info) <= 0 ||
            info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
                obs_report_line(tr->report, "dropped", "unknown", "unreadable-registers");
                return skip(t, ENOSYS);
        }
        /* another ABI: the table's numbers and argument layouts are
         * x86_64's, so the call is refused rather than let through unseen */
        if (info.arch != AUDIT_ARCH_X86_64 || (info.seccomp.nr & X32_SYSCALL_BIT)) {
                char num[32];

                snprintf(num, sizeof(num), "%llu", (unsigned long long) info.seccomp.nr);
                obs_report_line(tr->report, "dropped", num, "x32-or-ia32");
                return skip(t, ENOSYS);
        }
        sc = obs_syscall_find((int) info.seccomp.nr);
        if (!sc) /* a stop the target's own filter asked for */
                return resume(t, 0);
        switch (sc->kind) {
        case OBS_PTRACE:
                return skip(t, EPERM);
        case OBS_SECCOMP:
                /* a user-notification listener could answer calls itself
                 * (or let them continue) without a stop: refused */
                if (info.seccomp.args[0] == SECCOMP_SET_MODE_FILTER &&
                    (info.seccomp.args[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER))
                        return skip(t, EPERM);
                return resume(t, 0);
        case OBS_UNHANDLED:
                obs_report_line(tr->report, "dropped", sc->name, "unhandled-syscall");
                return resume(t, 0);
        default:
                if (t->pending) /* an exit stop never came: keep the attempt */
                        obs_emit(t, "error", true, 0, tr->report);
                obs_decode(t, sc, info.seccomp.args, tr->opts, tr->report);
                return resume(t, 0);
        }
}

static void on_syscall_exit(struct tracer *tr, struct obs_tracee *t)
{
        struct __ptrace_syscall_info info;

        memset(&info, 0, sizeof(info));
        if (t->pending) {
                if (ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, (void *) sizeof(info), &info) > 0 &&
                    info.op == PTRACE_SYSCALL_INFO_EXIT)
                        obs_emit(t, NULL, info.exit.is_error, info.exit.rval, tr->report);
                else
                        obs_emit(t, "error", true, 0, tr->report);
        }
        resume(t, 0);
}

/* A successful execve.  In a thread other than the leader the kernel gives
 * the execing thread the leader's pid: its pending record moves there.
 * With notifications the exec is reported here: this stop is the call's
 * result (it only comes of a success), and it takes the place of the
 * result stop the call was interrupted for (any ptrace stop clears a
 * pending PTRACE_INTERRUPT). */
static void on_exec(struct tracer *tr, struct obs_tracee *t)
{
        unsigned long former = 0;
        struct obs_tracee *old;

        if (ptrace(PTRACE_GETEVENTMSG, t->pid, NULL, &former) == 0 && (pid_t) former != t->pid &&
            (old = find(tr, (pid_t) former)) != NULL) {
                pid_t pid = t->pid;

                memcpy(t, old, sizeof(*t));
                t->pid = pid;
                t->started = true;
                old->pending = false;
                forget(tr, (pid_t) former);
                t = find(tr, pid);
        }
        if (notifying && t->pending)
                obs_emit(t, NULL, false, 0, tr->report);
        resume(t, 0);
}

static void on_new_child(struct tracer *tr, struct obs_tracee *t)
{
        unsigned long child = 0;

        if (ptrace(PTRACE_GETEVENTMSG, t->pid, NULL, &child) == 0 && child > 0)
                find_or_add(tr, (pid_t) child);
        resume(t, 0);
}

static bool is_stop_signal(int sig)
{
        return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A signal came to a tracee that was waiting for the listener to receive its
 * call: the kernel gave the wait up (only after the receipt is it killable
 * only, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV), the call never ran, and it
 * left -ERESTARTSYS, which a handler without SA_RESTART turns into EINTR: a
 * stat() failing with EINTR, which no stat() does unobserved.  So the call
 * is made to restart whatever the handler (-ERESTARTNOINTR), as it would
 * have run to its end without the observer.  Only for a call the filter
 * sends to the observer: one that can block in itself (an open of a FIFO, a
 * connect) and whose notification was received was interrupted inside
 * itself, and keeps its EINTR. */
static void restart_unreceived(struct obs_tracee *t)
{
        struct user_regs_struct regs;
        const struct obs_syscall *sc;
        bool can_block;

        if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs) < 0 ||
            (long long) regs.rax != -ERESTARTSYS_CODE || regs.orig_rax > INT_MAX)
                return;
        sc = obs_syscall_find((int) regs.orig_rax);
        if (!sc)
                return;
        can_block = sc->kind == OBS_OPEN || sc->kind == OBS_OPEN_HOW || sc->kind == OBS_CONNECT;
        if (can_block && t->recv_nr == (int) regs.orig_rax && t->recv_ip == regs.rip)
                return;
        regs.rax = (unsigned long long) -ERESTARTNOINTR;
        ptrace(PTRACE_SETREGS, t->pid, NULL, &regs);
}

/* PTRACE_EVENT_STOP: a new tracee's first stop, or a group stop. */
static void on_event_stop(struct obs_tracee *t, int sig)
{
        if (!t->started) {
                t->started = true;
                return resume(t, 0);
        }
        if (is_stop_signal(sig)) {
                ptrace(PTRACE_LISTEN, t->pid, NULL, NULL);
                return;
        }
        resume(t, 0);
}

/* The first stop of a tracee after a notified call it was interrupted for
 * (the result stop, or a signal or group stop that came first; an exec
 * event comes before the call's end and is not one): the call is over and
 * its result is in the registers. */
static void take_result(struct tracer *tr, struct obs_tracee *t)
{
        struct user_regs_struct regs;
        long long rv;

        if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs) < 0 || (long long) regs.orig_rax != t->nr)
                return obs_emit(t, "error", true, 0, tr->report);
        rv = (long long) regs.rax;
        /* interrupted (by the stop, a FIFO's open for one): it runs again,
         * and that retry goes without a result stop, so it cannot be
         * interrupted for ever; this attempt's result is unknown */
        if (rv >= -ERESTARTSYS_LAST && rv <= -ERESTARTSYS_FIRST) {
                t->restart_nr = t->nr;
                return obs_emit(t, "error", true, 0, tr->report);
        }
        obs_emit(t, NULL, rv < 0 && rv >= -4095, rv, tr->report);
}

static void on_stop(struct tracer *tr, struct obs_tracee *t, int status)
{
        int sig = WSTOPSIG(status), event = (status >> 16) & 0xff;

        if (notifying && t->pending && event != PTRACE_EVENT_EXEC)
                take_result(tr, t);
        switch (event) {
        case PTRACE_EVENT_SECCOMP:
                return on_seccomp(tr, t);
        case PTRACE_EVENT_EXEC:
                return on_exec(tr, t);
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK:
        case PTRACE_EVENT_CLONE:
                return on_new_child(tr, t);
        case PTRACE_EVENT_STOP:
                return on_event_stop(t, sig);
        case 0:
                if (sig == (SIGTRAP | 0x80))
                        return on_syscall_exit(tr, t);
                t->started = true;
                if (notifying)
                        restart_unreceived(t);
                return resume(t, sig); /* a signal for the tracee */
        default:
                return resume(t, 0);
        }
}

static void on_death(struct tracer *tr, pid_t pid, int status)
{
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
                char num[32];

                snprintf(num, sizeof(num), "%d", (int) pid);
                obs_report_line(tr->report, "sigsys", num, NULL);
        }
        if (pid == tr->root)
                tr->root_status = status;
        forget(tr, pid);
}

static volatile sig_atomic_t forward_to;

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT sent to the observer go to the target:
 * the observer stays to write the report of how the target ended. */
static void forward(int sig)
{
        if (forward_to > 0)
                kill((pid_t) forward_to, sig);
}

static void setup_signals(pid_t root)
{
        static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        forward_to = root;
        sa.sa_handler = forward;
        for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
                sigaction(fwd[i], &sa, NULL);
        /* a reader that went away must not kill the tracer (report.c) */
        signal(SIGPIPE, SIG_IGN);
}

static void trace_all(struct tracer *tr)
{
        for (;;) {
                int status = 0;
                pid_t pid = waitpid(-1, &status, __WALL);
                struct obs_tracee *t;

                if (pid < 0) {
                        if (errno == EINTR)
                                continue;
                        break; /* ECHILD: no tracee left */
                }
                if (WIFEXITED(status) || WIFSIGNALED(status)) {
                        on_death(tr, pid, status);
                        continue;
                }
                if (!WIFSTOPPED(status))
                        continue;
                t = find_or_add(tr, pid);
                on_stop(tr, t, status);
        }
}

/* -- the notification transport ------------------------------------------ */

static volatile sig_atomic_t child_event, ticks;

static void on_sigchld(int sig)
{
        (void) sig;
        child_event = 1;
}

static void on_tick(int sig)
{
        (void) sig;
        ticks++;
        child_event = 1;
}

/* Handlers without SA_RESTART, so that they interrupt the wait for a
 * notification: SIGCHLD when a tracee stops or ends, and a SIGALRM every
 * 50 ms that has waitpid asked again, for a SIGCHLD that came between the
 * check of child_event and the wait (its stop is then seen late, never
 * lost). */
static void setup_notify_signals(void)
{
        struct sigaction sa;
        struct itimerval tick = {{0, 50000}, {0, 50000}};

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigchld;
        sigaction(SIGCHLD, &sa, NULL);
        sa.sa_handler = on_tick;
        sigaction(SIGALRM, &sa, NULL);
        setitimer(ITIMER_REAL, &tick, NULL);
}

/* Answer the notification in tr->req: let the call run (err 0), or fail it
 * with -err.  Fails (ENOENT) when the caller was killed meanwhile. */
static int answer(struct tracer *tr, int err)
{
        memset(tr->resp, 0, tr->resp_size);
        tr->resp->id = tr->req->id;
        if (err)
                tr->resp->error = -err;
        else
                tr->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        return ioctl(tr->listener, SECCOMP_IOCTL_NOTIF_SEND, tr->resp);
}

/* Wait for the result stop of pid's call, which comes next unless the call
 * blocks: the stop follows the answer by one call's time, and waiting for it
 * here rather than for the SIGCHLD it raises saves an interrupted wait and a
 * pass over every tracee.  A call that has not returned after a tick or two
 * (one blocked, killable-only, in the kernel) is left to the main loop, so
 * the other threads' calls do not wait behind it for long. */
static void await_result(struct tracer *tr, pid_t pid)
{
        sig_atomic_t start = ticks;

        for (;;) {
                int status = 0;
                pid_t p = waitpid(pid, &status, __WALL);
                struct obs_tracee *t;

                if (p < 0) {
                        if (errno == EINTR && ticks - start < 2)
                                continue;
                        return; /* ECHILD: gone; or still in the call */
                }
                if (WIFEXITED(status) || WIFSIGNALED(status))
                        return on_death(tr, p, status);
                if (!WIFSTOPPED(status))
                        continue;
                t = find_or_add(tr, p);
                on_stop(tr, t, status);
                if (!t->pending)
                        return;
        }
}

/* A call to record: decode it; when its result is to be reported, have
 * the caller stop as it leaves the call, then let it run.  A traced caller
 * cannot be reaped, so its pid is its own while the observer reads its
 * memory. */
static void on_notified_call(struct tracer *tr, struct obs_tracee *t, const struct obs_syscall *sc)
{
        bool retry = t->restart_nr == sc->nr;

        if (t->pending) /* its result stop never came: keep the attempt */
                obs_emit(t, "error", true, 0, tr->report);
        t->restart_nr = -1;
        if (!obs_decode(t, sc, (const uint64_t *) tr->req->data.args, tr->opts, tr->report)) {
                answer(tr, 0);
                return;
        }
        t->nr = sc->nr;
        if (retry || ptrace(PTRACE_INTERRUPT, t->pid, NULL, NULL) < 0) {
                obs_emit(t, "error", true, 0, tr->report);
                answer(tr, 0);
                return;
        }
        /* ENOENT: killed meanwhile; its end reports a pending call.  An exec
         * ends in an exec event, under another pid when a thread other
         * than the leader calls it: the main loop follows that. */
        if (answer(tr, 0) == 0 && sc->kind != OBS_EXEC)
                await_result(tr, t->pid);
}

static void on_notification(struct tracer *tr)
{
        const struct seccomp_data *d = &tr->req->data;
        struct obs_tracee *t = tr->req->pid > 0 ? find(tr, (pid_t) tr->req->pid) : NULL;
        const struct obs_syscall *sc;

        /* not traced: the call fails as a SECCOMP_RET_TRACE without a tracer does */
        if (!t) {
                answer(tr, ENOSYS);
                return;
        }
        t->recv_nr = (int) d->nr;
        t->recv_ip = d->instruction_pointer;
        if (d->arch != AUDIT_ARCH_X86_64 || (d->nr & X32_SYSCALL_BIT)) {
                char num[32];

                snprintf(num, sizeof(num), "%u", (unsigned) d->nr);
                obs_report_line(tr->report, "dropped", num, "x32-or-ia32");
                answer(tr, ENOSYS);
                return;
        }
        sc = obs_syscall_find(d->nr);
        if (!sc) {
                answer(tr, 0);
                return;
        }
        switch (sc->kind) {
        case OBS_PTRACE:
                answer(tr, EPERM);
                return;
        case OBS_SECCOMP:
                /* the kernel refuses a second listener too (EBUSY) */
                answer(tr, d->args[0] == SECCOMP_SET_MODE_FILTER &&
                                   (d->args[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER)
                               ? EPERM
                               : 0);
                return;
        case OBS_UNHANDLED:
                obs_report_line(tr->report, "dropped", sc->name, "unhandled-syscall");
                answer(tr, 0);
                return;
        default:
                on_notified_call(tr, t, sc);
                return;
        }
}

/* Every stop and end waitpid has; false once no tracee is left. */
static bool collect(struct tracer *tr)
{
        for (;;) {
                int status = 0;
                pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);

                if (pid == 0)
                        return true;
                if (pid < 0) {
                        if (errno == EINTR)
                                continue;
                        return false; /* ECHILD */
                }
                if (WIFEXITED(status) || WIFSIGNALED(status))
                        on_death(tr, pid, status);
                else if (WIFSTOPPED(status))
                        on_stop(tr, find_or_add(tr, pid), status);
        }
}

static bool notify_setup(struct tracer *tr)
{
        struct seccomp_notif_sizes sizes;

        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
                return false;
        tr->req_size =
            sizes.seccomp_notif > sizeof(*tr->req) ? sizes.seccomp_notif : sizeof(*tr->req);
        tr->resp_size = sizes.seccomp_notif_resp > sizeof(*tr->resp) ? sizes.seccomp_notif_resp
                                                                     : sizeof(*tr->resp);
        tr->req = calloc(1, tr->req_size);
        tr->resp = calloc(1, tr->resp_size);
        if (!tr->req || !tr->resp)
                abort();
        /* the caller and the observer hand over on one CPU (Linux 6.6; a
         * wake-up on another CPU costs several times the switch) */
        ioctl(tr->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
        return true;
}

static bool listener_hung_up(struct tracer *tr)
{
        struct pollfd p = {.fd = tr->listener, .events = POLLIN};

        return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

static void notify_all(struct tracer *tr)
{
        child_event = 1;
        setup_notify_signals();
        for (;;) {
                if (child_event) {
                        child_event = 0;
                        if (!collect(tr))
                                break;
                }
                memset(tr->req, 0, tr->req_size);
                if (ioctl(tr->listener, SECCOMP_IOCTL_NOTIF_RECV, tr->req) == 0) {
                        on_notification(tr);
                        continue;
                }
                if (errno == EINTR)
                        continue;
                /* ENOENT: the caller was killed meanwhile, or no process uses the
                 * filter any more (the listener hangs up): the last ones are
                 * ending, and waitpid follows them to it */
                if (errno == ENOENT && !listener_hung_up(tr))
                        continue;
                if (errno != ENOENT) {
                        /* unusable: the calls fail with ENOSYS from here on */
                        fprintf(stderr, "bento-observe: receiving a notification: %s\n",
                                strerror(errno));
                        close(tr->listener);
                        tr->listener = -1;
                }
                break;
        }
        setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
        trace_all(tr); /* the ends still to come, if any */
}

/* The report's last line, and the observer's exit status. */
static int report_end(struct tracer *tr)
{
        int st = tr->root_status;
        char num[16];

        while (tr->n > 0)
                forget(tr, tr->t[0]->pid);
        free(tr->t);
        obs_ring_report(&tr->ring, tr->opts, tr->report);
        if (st == -1) { /* never seen to end: no end line, the report is cut */
                obs_report_flush(tr->report);
                fputs("bento-observe: the target's end was not seen\n", stderr);
                return OBS_EXIT_FAILED;
        }
        snprintf(num, sizeof(num), "%d", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        obs_report_line(tr->report, "end", WIFEXITED(st) ? "exit" : "signal", num);
        obs_report_flush(tr->report);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int observe_run(const struct observe_opts *o)
{
        static struct obs_report report;
        struct tracer tr = {
            .opts = o, .report = &report, .root_status = -1, .listener = -1, .ring = {.fd = -1}};
        struct obs_tracee *root;
        pid_t pid;
        int r;

        obs_report_init(&report, o->report_fd);
        obs_report_line(&report, "observe", OBS_REPORT_VERSION, NULL);
        obs_report_flush(&report);
        /* without a ring the library stays idle: every call is notified */
        if (o->shim && o->n_no_result > 0)
                (void) obs_ring_open(&tr.ring, o->no_result, o->n_no_result);
        pid = obs_spawn(o, tr.ring.fd, &tr.listener);
        if (pid < 0) {
                fprintf(stderr, "bento-observe: starting %s: %s\n", o->command[0],
                        strerror((int) -pid));
                obs_ring_close(&tr.ring);
                return OBS_EXIT_FAILED;
        }
        tr.root = pid;
        root = find_or_add(&tr, pid);
        root->started = true; /* seized while running: no attach stop */
        setup_signals(pid);
        /* the filter notifies: no stop of the observer's own from here on */
        notifying = tr.listener >= 0;
        if (notifying && notify_setup(&tr)) {
                notify_all(&tr);
        } else {
                if (notifying) { /* the calls fail with ENOSYS rather than wait */
                        fputs("bento-observe: the notification listener is unusable\n", stderr);
                        close(tr.listener);
                        tr.listener = -1;
                }
                trace_all(&tr);
        }
        if (tr.listener >= 0)
                close(tr.listener);
        free(tr.req);
        free(tr.resp);
        r = report_end(&tr);
        obs_ring_close(&tr.ring);
        obs_report_done(&report);
        return r;
}
