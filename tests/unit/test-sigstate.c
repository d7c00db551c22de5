/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento_signals_not_default (bundle/sigstate.c): the signals this process
 * ignores or catches, and none that is at its default, as /proc/self/status
 * says; what it adds and removes is seen at once.
 */
#include <signal.h>
#include <string.h>

#include "sigstate.h"
#include "tap.h"

static void on_signal(int sig)
{
        (void) sig;
}

TEST(ignored_and_caught_signals_are_in_the_set_default_ones_are_not)
{
        sigset_t set;

        ASSERT_TRUE(signal(SIGUSR1, on_signal) != SIG_ERR);
        ASSERT_TRUE(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
        ASSERT_TRUE(signal(SIGWINCH, SIG_DFL) != SIG_ERR);
        ASSERT_TRUE(signal(SIGRTMIN + 5, SIG_IGN) != SIG_ERR);
        bento_signals_not_default(&set);
        ASSERT_EQ(sigismember(&set, SIGUSR1), 1);
        ASSERT_EQ(sigismember(&set, SIGUSR2), 1);
        ASSERT_EQ(sigismember(&set, SIGRTMIN + 5), 1);
        ASSERT_EQ(sigismember(&set, SIGWINCH), 0);
        ASSERT_EQ(sigismember(&set, SIGKILL), 0);
}

TEST(a_signal_set_back_to_the_default_leaves_the_set)
{
        sigset_t set;

        ASSERT_TRUE(signal(SIGUSR1, SIG_DFL) != SIG_ERR);
        ASSERT_TRUE(signal(SIGUSR2, SIG_DFL) != SIG_ERR);
        ASSERT_TRUE(signal(SIGRTMIN + 5, SIG_DFL) != SIG_ERR);
        bento_signals_not_default(&set);
        ASSERT_EQ(sigismember(&set, SIGUSR1), 0);
        ASSERT_EQ(sigismember(&set, SIGUSR2), 0);
        ASSERT_EQ(sigismember(&set, SIGRTMIN + 5), 0);
}

TAP_MAIN()
