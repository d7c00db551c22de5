/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-init: the process 1 a bento sandbox gives its target
 * (docs/hooks/bento-init.md).  Without it the target itself would be
 * process 1 of its pid namespace, and the kernel treats that process
 * apart: a signal it has no handler for is dropped (`kill -TERM $$` does
 * nothing, abort() cannot end it by SIGABRT), and every orphan of the box
 * becomes its child to reap.  bento-init starts the target as process 2
 * and, until the target ends:
 *
 *   - reaps every child (orphans included), so no zombie stays behind;
 *   - forwards every catchable signal sent to it (bento-runtime kill, a
 *     process of the box) to the target; one the terminal sent to the
 *     foreground process group reached the target already and is not sent
 *     twice;
 *   - when the target has ended, kills what is left of the box and exits
 *     with the target's status (128+N for a death by signal N), at once,
 *     without waiting for the rest.
 *
 * It runs under the box's seccomp filter, cgroup and Landlock like the
 * target (the runtime applies them before it execs bento-init): it is no
 * way out.  Under exec: none the exec gate lets it make exactly one exec,
 * the target's (docs/exec-gate.md).  It links nothing, not even libc
 * (sys.h, start.c): the box needs nothing to run it, and its start costs
 * an exec and no more.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "out.h"
#include "signals.h"
#include "sys.h"

#define PROG "bento-init"

/* Its own failures, like a shell's: 125 cannot start, 126 cannot run the
 * target, 127 no such target. */
#define INIT_EXIT_FAILED    125
#define INIT_EXIT_CANNOT    126
#define INIT_EXIT_NOT_FOUND 127

static void print_help(void)
{
        struct init_out out = {.fd = 1};

        out_str(&out,
                "usage: " PROG " [--status-fd N] [--] COMMAND [ARG...]\n"
                "\n"
                "The process 1 of a bento sandbox.  Starts COMMAND as its only child,\n"
                "forwards the signals sent to it to COMMAND, reaps every process of the\n"
                "box, and exits with COMMAND's status (128+N for a death by signal N) as\n"
                "soon as COMMAND ends, killing what is left.  125: it could not start,\n"
                "126: COMMAND cannot run, 127: COMMAND does not exist.\n"
                "\n"
                "  --status-fd N   at the end, write \"exit N\" or \"signal N\" (how COMMAND\n"
                "                  ended) to descriptor N (above 2), which COMMAND does not\n"
                "                  inherit\n"
                "  -h, --help      this text\n"
                "  -V, --version   the version\n");
        out_flush(&out);
}

static void print_version(void)
{
        struct init_out out = {.fd = 1};

        out_str(&out, PROG " " BENTO_VERSION " (commit " BENTO_COMMIT ")\n");
        out_flush(&out);
}

/* "bento-init: WHAT[ NAME]: REASON" on stderr, in one write. */
static void say(const char *what, const char *name, int e)
{
        struct init_out out = {.fd = 2};

        out_str(&out, PROG ": ");
        out_str(&out, what);
        if (name) {
                out_str(&out, " ");
                out_str(&out, name);
        }
        out_str(&out, ": ");
        out_errno(&out, e);
        out_str(&out, "\n");
        out_flush(&out);
}

/* bento-init's own failure to start: reported, then status 125. */
static int fail(const char *what, long e)
{
        say(what, NULL, (int) -e);
        return INIT_EXIT_FAILED;
}

/* What the target's child needs, and how its exec failed: it shares our
 * memory (start_target). */
struct target {
        char **argv, **envp;
        init_sigset old;     /* the mask to give it */
        init_sigset changed; /* the dispositions that are not the default */
        int exec_errno;      /* 0 until its exec failed */
};

/* The target: the signal mask and dispositions of a fresh process, then
 * the exec.  Only returns on failure (as an exit status). */
static int run_target(void *arg)
{
        struct target *t = arg;
        long r;

        init_signals_reset(t->changed & ~init_synchronous_signals(), t->old);
        r = sys_execve(t->argv[0], t->argv, t->envp);
        t->exec_errno = (int) -r;
        return r == -ENOENT ? INIT_EXIT_NOT_FOUND : INIT_EXIT_CANNOT;
}

/* The target as our child, made with CLONE_VM|CLONE_VFORK: on this kind
 * of host a fork's copy of our page tables and the copy-on-write faults
 * after it cost more than everything else bento-init does; the child
 * shares our memory until its exec, while we wait.  It has its own signal
 * dispositions and mask (no CLONE_SIGHAND), which it resets.  Its stack is
 * a buffer of ours, above which it never returns (init_clone).  Under
 * exec: none-strict this is the one clone the exec gate lets through (not
 * vfork(2), which the filter refuses).  Returns the pid, or a negative
 * errno. */
static long start_target(struct target *t)
{
        static char stack[64 * 1024] __attribute__((aligned(16)));
        long pid =
            init_clone(CLONE_VM | CLONE_VFORK | SIGCHLD, stack + sizeof(stack), run_target, t);

        /* the child has exec'd the target, or given up: say why here,
         * where stderr is ours again */
        if (pid > 0 && t->exec_errno)
                say("cannot run", t->argv[0], t->exec_errno);
        return pid;
}

/* Reap every child that has ended; true once the target is among them,
 * with its wait status in *status. */
static bool reap(long target, int *status)
{
        bool ended = false;
        int st;
        long pid;

        while ((pid = sys_wait4(-1, &st, WNOHANG)) > 0)
                if (pid == target) {
                        *status = st;
                        ended = true;
                }
        return ended;
}

/* --status-fd: how the target ended, one line ("exit N" or "signal N"),
 * for a caller that must tell a death by signal N from an exit with
 * 128+N, which process 1 cannot pass on by dying of the signal itself
 * (bento run reads it; docs/hooks/bento-init.md). */
static void report_status(int fd, int st)
{
        struct init_out out = {.fd = fd};

        if (fd < 0)
                return;
        out_str(&out, WIFSIGNALED(st) ? "signal " : "exit ");
        out_int(&out, WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        out_str(&out, "\n");
        out_flush(&out);
        (void) sys_close(fd);
}

/* Until the target ends: reap on SIGCHLD, forward the rest.  A signal the
 * kernel sent (SI_KERNEL: the terminal's ^C to the foreground group, which
 * holds the target too) is not sent a second time. */
static int serve(int sfd, long target)
{
        /* zeroed for the analyzer, which cannot see the kernel write it */
        struct signalfd_siginfo si = {0};
        int status = INIT_EXIT_FAILED << 8;

        for (;;) {
                long n = sys_read(sfd, &si, sizeof(si));

                if (n == -EINTR)
                        continue;
                if (n != (long) sizeof(si)) {
                        say("reading signals", NULL, n < 0 ? (int) -n : EIO);
                        (void) sys_kill(target, SIGKILL);
                }
                if (n != (long) sizeof(si) || si.ssi_signo == SIGCHLD) {
                        if (reap(target, &status))
                                return status;
                        continue;
                }
                if (si.ssi_code != SI_KERNEL)
                        (void) sys_kill(target, (int) si.ssi_signo);
        }
}

static int start(char **argv, char **envp, int status_fd)
{
        /* every signal but the synchronous ones goes to the signalfd */
        init_sigset set = ~init_synchronous_signals();
        struct target t = {.argv = argv, .envp = envp};
        long r, sfd, target;
        int st;

        /* the target does not inherit the status descriptor */
        if (status_fd >= 0 && bento_raw_failed(r = sys_fcntl(status_fd, F_SETFD, FD_CLOEXEC)))
                return fail("--status-fd", r);
        if (bento_raw_failed(r = sys_sigprocmask(SIG_BLOCK, &set, &t.old)))
                return fail("sigprocmask", r);
        sfd = sys_signalfd(&set, SFD_CLOEXEC);
        if (bento_raw_failed(sfd))
                return fail("signalfd", sfd);
        /* Process 1 of its namespace inherits orphans anyway; elsewhere
         * (a bundle without a pid namespace) it asks for them. */
        if (sys_getpid() != 1)
                (void) sys_prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* bento-init installs no handler: what is not the default is what
         * it inherited ignored, which an exec would pass on (signals.h) */
        t.changed = init_signals_not_default();
        target = start_target(&t);
        if (bento_raw_failed(target))
                return fail("clone", target);
        st = serve((int) sfd, target);
        /* The target is gone: nothing else of the box outlives it.  In a pid
         * namespace kill(-1) reaches every process but this one. */
        if (sys_getpid() == 1)
                (void) sys_kill(-1, SIGKILL);
        report_status(status_fd, st);
        return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

int init_main(int argc, char **argv, char **envp)
{
        int i = 1, status_fd = -1;

        if (i < argc && (init_streq(argv[i], "-h") || init_streq(argv[i], "--help"))) {
                print_help();
                return 0;
        }
        if (i < argc && (init_streq(argv[i], "-V") || init_streq(argv[i], "--version"))) {
                print_version();
                return 0;
        }
        if (i + 1 < argc && init_streq(argv[i], "--status-fd")) {
                status_fd = init_parse_fd(argv[i + 1]);
                if (status_fd < 0 || bento_raw_failed(sys_fcntl(status_fd, F_GETFD, 0)))
                        return fail("--status-fd: not an open descriptor above 2", -EBADF);
                i += 2;
        }
        if (i < argc && init_streq(argv[i], "--"))
                i++;
        if (i >= argc || argv[i][0] != '/') {
                struct init_out out = {.fd = 2};

                out_str(&out,
                        PROG ": usage: " PROG " [--status-fd N] [--] /ABSOLUTE/COMMAND [ARG...]\n");
                out_flush(&out);
                return INIT_EXIT_FAILED;
        }
        return start(argv + i, envp, status_fd);
}
