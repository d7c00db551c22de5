/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/spawn.c: the programs a run starts get the
 * descriptors, directory and environment they are given (or fail to
 * start, and say so), and run_wait_timeout() reaps a child that
 * ends within the bound and gives up (leaving it to the caller) on one that
 * does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/spawn.h"
#include "tap.h"

static pid_t spawn_sh(const char *script, int out)
{
        char *const argv[] = {"/bin/sh", "-c", (char *) script, NULL};
        struct run_spawn_fds fds = {.in = -1, .out = out, .err = -1, .extra = -1, .extra_as = -1};
        struct bento_err err = {0};
        pid_t pid = 0;

        if (run_spawn(argv, &fds, &pid, &err) < 0) {
                printf("# spawn: %s\n", err.msg);
                return -1;
        }
        return pid;
}

TEST(a_child_that_ends_is_reaped_with_its_status)
{
        int status = 0;
        pid_t pid = spawn_sh("exit 7", -1);

        ASSERT_TRUE(pid > 0);
        ASSERT_EQ(run_wait_timeout(pid, &status, 10000), 0);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 7);
        /* reaped: nothing is left to wait for */
        ASSERT_TRUE(waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD);
}

TEST(a_child_that_does_not_end_is_left_running)
{
        int status = 0;
        pid_t pid = spawn_sh("exec sleep 30", -1);

        ASSERT_TRUE(pid > 0);
        ASSERT_EQ(run_wait_timeout(pid, &status, 50), -ETIMEDOUT);
        /* still there for the caller to kill */
        ASSERT_EQ(kill(pid, 0), 0);
        ASSERT_EQ(kill(pid, SIGKILL), 0);
        ASSERT_EQ(run_wait(pid, &status), 0);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST(the_child_writes_where_it_is_told)
{
        int pipefd[2];
        char buf[16] = {0};
        int status = 0;
        pid_t pid;

        ASSERT_OK(pipe2(pipefd, O_CLOEXEC));
        pid = spawn_sh("echo hi", pipefd[1]);
        close(pipefd[1]);
        ASSERT_TRUE(pid > 0);
        ASSERT_EQ(read(pipefd[0], buf, sizeof(buf) - 1), 3);
        ASSERT_STREQ(buf, "hi\n");
        close(pipefd[0]);
        ASSERT_EQ(run_wait_timeout(pid, &status, 10000), 0);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A name looked up in PATH, an environment of its own. */
TEST(the_child_starts_with_what_it_is_given)
{
        char *const argv[] = {"sh", "-c", "echo \"$ONLY ${HOME:-unset}\"", NULL};
        char *env[] = {"ONLY=given", NULL};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err err = {0};
        char buf[128] = {0};
        int pipefd[2], status = 0;
        pid_t pid = 0;

        ASSERT_OK(pipe2(pipefd, O_CLOEXEC));
        fds.out = pipefd[1];
        fds.env = env;
        ASSERT_OK(run_spawn(argv, &fds, &pid, &err));
        close(pipefd[1]);
        ASSERT_TRUE(read(pipefd[0], buf, sizeof(buf) - 1) > 0);
        close(pipefd[0]);
        ASSERT_STREQ(buf, "given unset\n");
        ASSERT_EQ(run_wait(pid, &status), 0);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(a_child_that_cannot_start_is_an_error)
{
        char *const missing[] = {"no-such-program-anywhere-on-path", NULL};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err err = {0};
        pid_t pid = 0;

        ASSERT_TRUE(run_spawn(missing, &fds, &pid, &err) < 0);
        ASSERT_TRUE(strstr(err.msg, "no-such-program-anywhere-on-path") != NULL);
}

TAP_MAIN()
