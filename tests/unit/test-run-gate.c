/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/gate.c: the exec gate bento serves on a
 * thread of its own.  It listens by the time run_gate_ready() returns, a
 * gate that cannot listen says so at once (not after the ten seconds a
 * silent one gets), one that no runtime connected to stops at once, and
 * the thread leaves bento's signals to bento.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "tap.h"

static char dir[] = "/tmp/test-run-gate-XXXXXX";

static long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Made by the first test that needs it, removed by the last one. */
static char *socket_path(const char *name)
{
        static char path[200];
        static bool made;

        if (!made && !mkdtemp(dir))
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
        made = true;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return path;
}

static int connect_to(const char *path)
{
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &addr, sizeof(addr)) == 0)
                return fd;
        if (fd >= 0)
                close(fd);
        return -1;
}

TEST(listens_once_ready_and_stops_at_once_when_unused)
{
        struct run_gate g = RUN_GATE_INIT;
        struct bento_err err = {0};
        const char *path = socket_path("gate.sock");
        struct stat st;
        long t0;

        unsetenv("BENTO_EXEC_GATE");
        ASSERT_OK(run_gate_spawn(&g, path, NULL, &err));
        ASSERT_TRUE(g.on && g.threaded && g.pid == 0);
        ASSERT_OK(run_gate_ready(&g, &err));
        ASSERT_TRUE(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
        t0 = now_ms();
        run_gate_stop(&g);
        ASSERT_TRUE(now_ms() - t0 < 1000);
        ASSERT_TRUE(!g.on && !g.threaded && g.ready_fd == -1);
        /* nobody listens any more */
        ASSERT_EQ(connect_to(path), -1);
}

TEST(a_gate_that_cannot_listen_says_so_at_once)
{
        struct run_gate g = RUN_GATE_INIT;
        struct bento_err err = {0};
        long t0;

        ASSERT_OK(run_gate_spawn(&g, socket_path("missing/gate.sock"), NULL, &err));
        t0 = now_ms();
        ASSERT_TRUE(run_gate_ready(&g, &err) < 0);
        ASSERT_TRUE(now_ms() - t0 < 2000);
        ASSERT_TRUE(strstr(err.msg, "did not come up") != NULL);
        run_gate_stop(&g);
}

TEST(a_used_gate_that_does_not_end_is_stopped_after_its_grace)
{
        struct run_gate g = RUN_GATE_INIT;
        struct bento_err err = {0};
        const char *path = socket_path("used.sock");
        long t0, took;

        ASSERT_OK(run_gate_spawn(&g, path, NULL, &err));
        ASSERT_OK(run_gate_ready(&g, &err));
        /* a sandbox was made with it, but it never served one: the wait for
         * its end is bounded */
        g.in_use = true;
        t0 = now_ms();
        run_gate_stop(&g);
        took = now_ms() - t0;
        ASSERT_TRUE(took >= 1000 && took < 5000);
}

TEST(the_thread_leaves_bentos_signals_to_bento)
{
        struct run_gate g = RUN_GATE_INIT;
        struct bento_err err = {0};
        struct timespec wait = {.tv_sec = 2};
        sigset_t usr1;

        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        ASSERT_OK(sigprocmask(SIG_BLOCK, &usr1, NULL));
        ASSERT_OK(run_gate_spawn(&g, socket_path("signals.sock"), NULL, &err));
        ASSERT_OK(run_gate_ready(&g, &err));
        /* sent to the process: only the thread that waits for it may take it */
        ASSERT_OK(kill(getpid(), SIGUSR1));
        ASSERT_EQ(sigtimedwait(&usr1, NULL, &wait), SIGUSR1);
        run_gate_stop(&g);
        ASSERT_OK(sigprocmask(SIG_UNBLOCK, &usr1, NULL));
}

TEST(a_program_named_in_the_environment_is_run_instead)
{
        struct run_gate g = RUN_GATE_INIT;
        struct bento_err err = {0};

        setenv("BENTO_EXEC_GATE", "/nonexistent/bento-exec-gate", 1);
        /* the spawn itself fails: there is no such program */
        ASSERT_TRUE(run_gate_spawn(&g, socket_path("program.sock"), NULL, &err) < 0);
        ASSERT_TRUE(!g.threaded);
        ASSERT_TRUE(strstr(err.msg, "/nonexistent/bento-exec-gate") != NULL);
        run_gate_stop(&g);
        unsetenv("BENTO_EXEC_GATE");
}

/* Last by its place in the file: the sockets' directory goes (a gate
 * removes its socket when it stops listening; the unlinks are for a test
 * that failed half-way). */
TEST(cleanup)
{
        static const char *const names[] = {"gate.sock", "used.sock", "signals.sock",
                                            "program.sock"};

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                (void) unlink(socket_path(names[i]));
        ASSERT_OK(rmdir(dir));
}

TAP_MAIN()
