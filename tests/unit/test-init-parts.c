/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the parts of bento-init that stand in for libc
 * (hooks/init/out.c, hooks/init/signals.c): its error texts are glibc's
 * strerror() for every error it can meet, its numbers, its argument checks
 * and its reading of /proc/self/status agree with what the libc versions
 * did (bundle/sigstate.c), on hostile input too, and the signal reset
 * leaves a fresh signal state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out.h"
#include "signals.h"
#include "sigstate.h"
#include "tap.h"

/* What out wrote to a pipe, NUL-terminated in buf. */
static ssize_t written(void (*fill)(struct init_out *, const void *), const void *arg, char *buf,
                       size_t size)
{
        int p[2];
        struct init_out out = {0};
        ssize_t n, total = 0;

        if (pipe(p) < 0)
                return -1;
        out.fd = p[1];
        fill(&out, arg);
        out_flush(&out);
        close(p[1]);
        while ((n = read(p[0], buf + total, size - 1 - (size_t) total)) > 0)
                total += n;
        close(p[0]);
        buf[total] = '\0';
        return total;
}

static void fill_errno(struct init_out *out, const void *arg)
{
        out_errno(out, *(const int *) arg);
}

static void fill_int(struct init_out *out, const void *arg)
{
        out_int(out, *(const long *) arg);
}

static void fill_str(struct init_out *out, const void *arg)
{
        out_str(out, arg);
}

TEST(error_texts_are_strerrors)
{
        static const int errs[] = {ENOENT, EACCES,  ENOEXEC, EPERM,        ENOMEM, EBADF,
                                   E2BIG,  ETXTBSY, ENOTDIR, ELOOP,        EINVAL, EAGAIN,
                                   EIO,    EISDIR,  EFAULT,  ENAMETOOLONG, ENFILE, EMFILE};
        char buf[256];

        for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
                ASSERT_TRUE(written(fill_errno, &errs[i], buf, sizeof(buf)) > 0);
                ASSERT_STREQ(buf, strerror(errs[i]));
        }
}

TEST(other_errors_are_numbers)
{
        static const int errs[] = {0, ESRCH, EDOM, 200, -3};
        static const char *const want[] = {"error 0", "error 3", "error 33", "error 200",
                                           "error -3"};
        char buf[64];

        for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
                ASSERT_TRUE(written(fill_errno, &errs[i], buf, sizeof(buf)) > 0);
                ASSERT_STREQ(buf, want[i]);
        }
}

TEST(numbers_are_decimal)
{
        static const long vals[] = {0, 7, 143, -5, LONG_MAX, LONG_MIN};
        char buf[64], want[64];

        for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
                ASSERT_TRUE(written(fill_int, &vals[i], buf, sizeof(buf)) > 0);
                snprintf(want, sizeof(want), "%ld", vals[i]);
                ASSERT_STREQ(buf, want);
        }
}

TEST(text_longer_than_the_buffer_arrives_whole)
{
        size_t n = sizeof(((struct init_out *) 0)->buf) * 3 + 17;
        char *text = malloc(n + 1), *buf = malloc(n + 2);

        ASSERT_TRUE(text && buf);
        for (size_t i = 0; i < n; i++)
                text[i] = (char) ('a' + i % 26);
        text[n] = '\0';
        ASSERT_EQ(written(fill_str, text, buf, n + 2), (ssize_t) n);
        ASSERT_TRUE(memcmp(buf, text, n + 1) == 0);
        free(text);
        free(buf);
}

TEST(a_write_to_a_bad_descriptor_drops_the_text)
{
        struct init_out out = {.fd = -1};

        out_str(&out, "lost");
        out_flush(&out);
        ASSERT_EQ(out.len, 0);
}

TEST(strings_compare_whole)
{
        ASSERT_TRUE(init_streq("", ""));
        ASSERT_TRUE(init_streq("--", "--"));
        ASSERT_TRUE(!init_streq("-", "--"));
        ASSERT_TRUE(!init_streq("--", "-"));
        ASSERT_TRUE(!init_streq("--help", "--helq"));
        ASSERT_TRUE(!init_streq("", "-"));
}

TEST(status_fd_takes_decimal_descriptors_above_2)
{
        ASSERT_EQ(init_parse_fd("3"), 3);
        ASSERT_EQ(init_parse_fd("03"), 3);
        ASSERT_EQ(init_parse_fd("1048576"), 1048576);
        ASSERT_EQ(init_parse_fd("2"), -1);
        ASSERT_EQ(init_parse_fd("0"), -1);
        ASSERT_EQ(init_parse_fd(""), -1);
        ASSERT_EQ(init_parse_fd("-3"), -1);
        ASSERT_EQ(init_parse_fd("+3"), -1);
        ASSERT_EQ(init_parse_fd(" 3"), -1);
        ASSERT_EQ(init_parse_fd("3 "), -1);
        ASSERT_EQ(init_parse_fd("3x"), -1);
        ASSERT_EQ(init_parse_fd("0x10"), -1);
        ASSERT_EQ(init_parse_fd("1048577"), -1);
        ASSERT_EQ(init_parse_fd("99999999999999999999999999"), -1);
}

TEST(status_masks_are_read_strictly)
{
        uint64_t v = 1;

        ASSERT_TRUE(init_status_mask("Name:\tx\nSigIgn:\t0000000000001001\n", "\nSigIgn:", &v));
        ASSERT_EQ(v, 0x1001);
        ASSERT_TRUE(init_status_mask("a\nSigCgt: \t FFFFFFFFFFFFFFFF\nb\n", "\nSigCgt:", &v));
        ASSERT_EQ(v, (long long) ~0ULL);
        ASSERT_TRUE(init_status_mask("a\nSigIgn:\tabc\n", "\nSigIgn:", &v));
        ASSERT_EQ(v, 0xabc);
        /* missing, elsewhere than at a line's start, without digits, with
         * a sign or a prefix, more than 64 bits, junk after it, no end */
        ASSERT_TRUE(!init_status_mask("Name:\tx\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("SigIgn:\t1\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nXSigIgn:\t1\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t-1\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t0x1\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t10000000000000000\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t12z\n", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("a\nSigIgn:\t12", "\nSigIgn:", &v));
        ASSERT_TRUE(!init_status_mask("", "\nSigIgn:", &v));
}

/* bento_signals_not_default's set as 64 bits. */
static init_sigset libc_not_default(void)
{
        sigset_t set;
        init_sigset bits = 0;

        bento_signals_not_default(&set);
        for (int sig = 1; sig <= 64; sig++)
                if (sigismember(&set, sig) == 1)
                        bits |= INIT_SIGBIT(sig);
        return bits;
}

TEST(not_default_agrees_with_the_libc_version)
{
        struct sigaction ign = {.sa_handler = SIG_IGN}, old_usr1, old_rt;

        ASSERT_OK(sigaction(SIGUSR1, &ign, &old_usr1));
        ASSERT_OK(sigaction(SIGRTMIN + 3, &ign, &old_rt));
        init_sigset mine = init_signals_not_default(), libc = libc_not_default();

        sigaction(SIGUSR1, &old_usr1, NULL);
        sigaction(SIGRTMIN + 3, &old_rt, NULL);
        ASSERT_TRUE(mine & INIT_SIGBIT(SIGUSR1));
        ASSERT_TRUE(mine & INIT_SIGBIT(SIGRTMIN + 3));
        ASSERT_TRUE(!(mine & INIT_SIGBIT(SIGUSR2)));
        /* but for the two signals glibc keeps for itself (32 and 33), which
         * its sigaddset() refuses, so the libc version cannot list them;
         * bento-init resets those too when they are not the default */
        ASSERT_EQ(mine & ~(INIT_SIGBIT(32) | INIT_SIGBIT(33)), libc);
}

TEST(synchronous_signals_are_the_faults_and_the_uncatchable)
{
        init_sigset s = init_synchronous_signals();
        static const int in[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL,
                                 SIGTRAP, SIGSYS, SIGKILL, SIGSTOP};
        static const int out[] = {SIGTERM, SIGINT, SIGCHLD, SIGUSR1, SIGHUP, SIGABRT, 64};

        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
                ASSERT_TRUE(s & INIT_SIGBIT(in[i]));
        for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
                ASSERT_TRUE(!(s & INIT_SIGBIT(out[i])));
}

/* In a child: USR1 and TERM ignored, INT handled, the reset of USR1, INT
 * (and KILL, which it must pass over) with the mask {HUP}; exits 0 when
 * USR1 and INT are back at the default, TERM untouched and the mask {HUP}. */
static int reset_in_child(void)
{
        struct sigaction ign = {.sa_handler = SIG_IGN}, got;
        sigset_t mask;

        sigaction(SIGUSR1, &ign, NULL);
        sigaction(SIGTERM, &ign, NULL);
        sigaction(SIGINT, &ign, NULL);
        init_signals_reset(INIT_SIGBIT(SIGUSR1) | INIT_SIGBIT(SIGINT) | INIT_SIGBIT(SIGKILL),
                           INIT_SIGBIT(SIGHUP));
        if (sigaction(SIGUSR1, NULL, &got) < 0 || got.sa_handler != SIG_DFL)
                return 1;
        if (sigaction(SIGINT, NULL, &got) < 0 || got.sa_handler != SIG_DFL)
                return 2;
        if (sigaction(SIGTERM, NULL, &got) < 0 || got.sa_handler != SIG_IGN)
                return 3;
        if (sigprocmask(SIG_SETMASK, NULL, &mask) < 0 || sigismember(&mask, SIGHUP) != 1 ||
            sigismember(&mask, SIGUSR1) != 0)
                return 4;
        return 0;
}

TEST(reset_gives_the_default_dispositions_and_the_mask)
{
        int st;
        pid_t pid = fork();

        ASSERT_TRUE(pid >= 0);
        if (pid == 0)
                _exit(reset_in_child());
        ASSERT_EQ(waitpid(pid, &st, 0), pid);
        ASSERT_TRUE(WIFEXITED(st));
        ASSERT_EQ(WEXITSTATUS(st), 0);
}

TAP_MAIN()
