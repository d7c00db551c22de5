/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the tracer loop (observe.h).  One waitpid(-1, __WALL)
 * loop serves every thread and child of the target:
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "tracee.h"

#define X32_SYSCALL_BIT 0x40000000ULL

struct tracer {
        const struct observe_opts *opts;
        struct obs_report *report;
        struct obs_tracee **t;
        size_t n, cap;
        pid_t root;
        int root_status; /* wait status of the root; -1 while it runs */
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

static void resume(struct obs_tracee *t, int sig)
{
        /* ESRCH: killed meanwhile; its exit is the next thing waitpid says */
        ptrace(t->pending ? PTRACE_SYSCALL : PTRACE_CONT, t->pid, NULL, (void *) (long) sig);
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

/* A successful execve in a thread other than the leader: the kernel gives
 * the execing thread the leader's pid.  Its pending record moves there. */
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

static void on_stop(struct tracer *tr, struct obs_tracee *t, int status)
{
        int sig = WSTOPSIG(status), event = (status >> 16) & 0xff;

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

/* The report's last line, and the observer's exit status. */
static int report_end(struct tracer *tr)
{
        int st = tr->root_status;
        char num[16];

        while (tr->n > 0)
                forget(tr, tr->t[0]->pid);
        free(tr->t);
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
        struct tracer tr = {.opts = o, .report = &report, .root_status = -1};
        struct obs_tracee *root;
        pid_t pid;

        obs_report_init(&report, o->report_fd);
        obs_report_line(&report, "observe", OBS_REPORT_VERSION, NULL);
        obs_report_flush(&report);
        pid = obs_spawn(o->command, o->report_fd);
        if (pid < 0) {
                fprintf(stderr, "bento-observe: starting %s: %s\n", o->command[0],
                        strerror((int) -pid));
                return OBS_EXIT_FAILED;
        }
        tr.root = pid;
        root = find_or_add(&tr, pid);
        root->started = true; /* seized while running: no attach stop */
        setup_signals(pid);
        trace_all(&tr);
        return report_end(&tr);
}
