/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bento-egress's network gate client (hooks/egress/gate.c,
 * docs/embedding.md, "The network gate protocol"): which destinations may be
 * put to the gate at all, and how each kind of answer, or the lack of one,
 * is read.  The gate is the other end of a socketpair, its answers queued
 * before the question is asked.
 */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate.h"
#include "tap.h"

static int peer = -1;

/* A fresh gate with a 300 ms timeout; the test's end is in peer. */
static void fresh(void)
{
        int sv[2];

        if (peer >= 0)
                close(peer);
        ASSERT_OK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
        egress_gate_init(sv[0], 300);
        peer = sv[1];
}

static void queue(const char *s)
{
        ASSERT_EQ(write(peer, s, strlen(s)), (ssize_t) strlen(s));
}

/* The questions the gate was sent, as one string. */
static void asked(const char *want)
{
        char buf[512] = {0};
        ssize_t n = recv(peer, buf, sizeof(buf) - 1, MSG_DONTWAIT);

        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(buf, want);
}

TEST(what_the_guard_refuses_is_never_asked)
{
        ASSERT_TRUE(!egress_gate_askable("127.0.0.1"));
        ASSERT_TRUE(!egress_gate_askable("169.254.169.254"));
        ASSERT_TRUE(!egress_gate_askable("10.0.0.1"));
        ASSERT_TRUE(!egress_gate_askable("192.168.1.1"));
        ASSERT_TRUE(!egress_gate_askable("::1"));
        ASSERT_TRUE(!egress_gate_askable("::ffff:127.0.0.1"));
        ASSERT_TRUE(!egress_gate_askable("fd00::1"));
        ASSERT_TRUE(!egress_gate_askable("1:2:3"));
        /* public literals and names are */
        ASSERT_TRUE(egress_gate_askable("192.0.2.2"));
        ASSERT_TRUE(egress_gate_askable("2001:4860::8888"));
        ASSERT_TRUE(egress_gate_askable("api.example.com"));
}

TEST(allow_and_deny_by_id)
{
        fresh();
        queue("1 allow\n");
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SAYS_ALLOW);
        asked("1 example.com 443\n");
        queue("2 deny\n");
        ASSERT_EQ(egress_gate_ask("example.org", "80"), EGRESS_GATE_SAYS_DENY);
        asked("2 example.org 80\n");
}

TEST(silence_denies_that_question_and_its_late_answer_is_skipped)
{
        fresh();
        ASSERT_EQ(egress_gate_ask("slow.example", "443"), EGRESS_GATE_SILENT);
        queue("1 allow\n2 deny\n"); /* the late answer first */
        ASSERT_EQ(egress_gate_ask("next.example", "443"), EGRESS_GATE_SAYS_DENY);
}

TEST(garbage_ends_the_gate)
{
        fresh();
        queue("1 maybe\n");
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SILENT);
        queue("2 allow\n"); /* too late: it is not asked again */
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SILENT);
}

TEST(an_id_never_asked_ends_the_gate)
{
        fresh();
        queue("7 allow\n");
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SILENT);
}

TEST(an_overlong_line_ends_the_gate)
{
        char line[200];

        fresh();
        memset(line, '1', sizeof(line) - 1);
        line[sizeof(line) - 1] = '\0';
        queue(line);
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SILENT);
}

TEST(a_closed_gate_denies)
{
        fresh();
        close(peer);
        peer = -1;
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SILENT);
}

TEST(no_gate_denies)
{
        egress_gate_init(-1, 300);
        ASSERT_TRUE(!egress_gate_enabled());
        ASSERT_EQ(egress_gate_ask("example.com", "443"), EGRESS_GATE_SAYS_DENY);
}

TAP_MAIN()
