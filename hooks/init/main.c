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
 * the target's (docs/exec-gate.md).  It links libc only, so the box needs
 * nothing but the host's libc to run it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigstate.h"

#define PROG "bento-init"

/* In a sanitizer build, LeakSanitizer's check at exit clones a helper
 * process, which an exec: none-strict box refuses (only bento-init's one
 * fork of the target goes through the exec gate), so the check would turn
 * every exit into its own fatal error.  bento-init allocates next to
 * nothing and frees nothing on purpose before it exits: its leak check is
 * off; the rest of the sanitizers stay on. */
#ifdef __SANITIZE_ADDRESS__
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
        return "detect_leaks=0";
}
#endif

/* Its own failures, like a shell's: 125 cannot start, 126 cannot run the
 * target, 127 no such target. */
#define INIT_EXIT_FAILED    125
#define INIT_EXIT_CANNOT    126
#define INIT_EXIT_NOT_FOUND 127

/* Signals that say something about bento-init's own code, never forwarded
 * (blocking them would hide its own crash). */
static bool synchronous(int sig)
{
        return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
               sig == SIGTRAP || sig == SIGSYS || sig == SIGKILL || sig == SIGSTOP;
}

static void print_help(void)
{
        printf("usage: " PROG " [--status-fd N] [--] COMMAND [ARG...]\n"
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
}

static void say(const char *what, const char *name, int e)
{
        fprintf(stderr, PROG ": %s%s%s: %s\n", what, name ? " " : "", name ? name : "",
                strerror(e));
}

/* bento-init's own failure to start: reported, then status 125. */
static int fail(const char *what, int e)
{
        say(what, NULL, e);
        return INIT_EXIT_FAILED;
}

/* What the target's child needs, and how its exec failed: it shares our
 * memory (start_target). */
struct target {
        char **argv;
        const sigset_t *old;
        sigset_t changed; /* the dispositions that are not the default */
        int exec_errno;   /* 0 until its exec failed */
};

/* The target: the signal mask and dispositions of a fresh process, then
 * the exec.  Only returns on failure (as an exit status). */
static int run_target(void *arg)
{
        struct target *t = arg;

        for (int sig = 1; sig < NSIG; sig++)
                if (synchronous(sig))
                        sigdelset(&t->changed, sig);
        bento_signals_reset_raw(&t->changed, t->old);
        execv(t->argv[0], t->argv);
        t->exec_errno = errno;
        return errno == ENOENT ? INIT_EXIT_NOT_FOUND : INIT_EXIT_CANNOT;
}

/* The target as our child, made with CLONE_VM|CLONE_VFORK: on this kind
 * of host a fork's copy of our page tables and the copy-on-write faults
 * after it cost more than everything else bento-init does; the child
 * shares our memory until its exec, while we wait.  It has its own signal
 * dispositions and mask (no CLONE_SIGHAND), which it resets.  Its stack is
 * a buffer of ours, above which it never returns.  Under exec: none-strict
 * this is the one clone the exec gate lets through (not vfork(2), which
 * the filter refuses).  Returns the pid, or -1 with errno set. */
static pid_t start_target(struct target *t)
{
        static char stack[64 * 1024] __attribute__((aligned(16)));
        pid_t pid = clone(run_target, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, t);

        /* the child has exec'd the target, or given up: say why here,
         * where stderr is ours again */
        if (pid > 0 && t->exec_errno)
                say("cannot run", t->argv[0], t->exec_errno);
        return pid;
}

/* Reap every child that has ended; true once the target is among them,
 * with its wait status in *status. */
static bool reap(pid_t target, int *status)
{
        bool ended = false;
        int st;
        pid_t pid;

        while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
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
        char line[32];
        int n;

        if (fd < 0)
                return;
        if (WIFSIGNALED(st))
                n = snprintf(line, sizeof(line), "signal %d\n", WTERMSIG(st));
        else
                n = snprintf(line, sizeof(line), "exit %d\n", WEXITSTATUS(st));
        (void) !write(fd, line, (size_t) n);
        close(fd);
}

/* Until the target ends: reap on SIGCHLD, forward the rest.  A signal the
 * kernel sent (SI_KERNEL: the terminal's ^C to the foreground group, which
 * holds the target too) is not sent a second time. */
static int serve(int sfd, pid_t target)
{
        struct signalfd_siginfo si;
        int status = INIT_EXIT_FAILED << 8;

        for (;;) {
                ssize_t n = read(sfd, &si, sizeof(si));

                if (n < 0 && errno == EINTR)
                        continue;
                if (n != (ssize_t) sizeof(si)) {
                        say("reading signals", NULL, n < 0 ? errno : EIO);
                        (void) kill(target, SIGKILL);
                }
                if (n != (ssize_t) sizeof(si) || si.ssi_signo == SIGCHLD) {
                        if (reap(target, &status))
                                return status;
                        continue;
                }
                if (si.ssi_code != SI_KERNEL)
                        (void) kill(target, (int) si.ssi_signo);
        }
}

static int start(char **argv, int status_fd)
{
        sigset_t set, old;
        struct target t = {.argv = argv, .old = &old};
        pid_t target;
        int sfd, st;

        sigfillset(&set);
        for (int sig = 1; sig < NSIG; sig++)
                if (synchronous(sig))
                        sigdelset(&set, sig);
        /* the target does not inherit the status descriptor */
        if (status_fd >= 0 && fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0)
                return fail("--status-fd", errno);
        if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
                return fail("sigprocmask", errno);
        sfd = signalfd(-1, &set, SFD_CLOEXEC);
        if (sfd < 0)
                return fail("signalfd", errno);
        /* Process 1 of its namespace inherits orphans anyway; elsewhere
         * (a bundle without a pid namespace) it asks for them. */
        if (getpid() != 1)
                (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* bento-init installs no handler: what is not the default is what
         * it inherited ignored, which an exec would pass on (sigstate.h) */
        bento_signals_not_default(&t.changed);
        target = start_target(&t);
        if (target < 0)
                return fail("clone", errno);
        st = serve(sfd, target);
        /* The target is gone: nothing else of the box outlives it.  In a pid
         * namespace kill(-1) reaches every process but this one. */
        if (getpid() == 1)
                (void) kill(-1, SIGKILL);
        report_status(status_fd, st);
        return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* A descriptor number above 2 for --status-fd, or -1. */
static int parse_fd(const char *s)
{
        char *end = NULL;
        long v;

        if (*s < '0' || *s > '9')
                return -1;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || *end || v < 3 || v > 1 << 20)
                return -1;
        return (int) v;
}

int main(int argc, char **argv)
{
        int i = 1, status_fd = -1;

        if (i < argc && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)) {
                print_help();
                return 0;
        }
        if (i < argc && (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)) {
                printf(PROG " %s (commit %s)\n", BENTO_VERSION, BENTO_COMMIT);
                return 0;
        }
        if (i + 1 < argc && strcmp(argv[i], "--status-fd") == 0) {
                status_fd = parse_fd(argv[i + 1]);
                if (status_fd < 0 || fcntl(status_fd, F_GETFD) < 0)
                        return fail("--status-fd: not an open descriptor above 2", EBADF);
                i += 2;
        }
        if (i < argc && strcmp(argv[i], "--") == 0)
                i++;
        if (i >= argc || argv[i][0] != '/') {
                fprintf(stderr,
                        PROG ": usage: " PROG " [--status-fd N] [--] /ABSOLUTE/COMMAND [ARG...]\n");
                return INIT_EXIT_FAILED;
        }
        return start(argv + i, status_fd);
}
