/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/exec-gate-message.c: the container process state a
 * runtime sends to the exec gate is checked as hostile input (schema, the
 * fds list, size and descriptor caps), and a message is complete at EOF or
 * as soon as it is one whole JSON document (runc keeps the socket open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "exec-gate-message.h"
#include "tap.h"

static struct bento_err err;

/* What bento-runtime, runc 1.1.5 and crun 1.8.1 send (ids and pids aside). */
static const char *const bento_msg =
    "{\"ociVersion\":\"1.2.0\",\"fds\":[\"seccompFd\"],\"pid\":4242,\"metadata\":\"m\","
    "\"state\":{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":4242,"
    "\"bundle\":\"/b\",\"annotations\":{}}}";
static const char *const runc_msg =
    "{\"ociVersion\":\"1.0.2-dev\",\"fds\":[\"seccompFd\"],\"pid\":77,\"state\":"
    "{\"ociVersion\":\"1.0.2-dev\",\"id\":\"r1\",\"status\":\"creating\",\"pid\":77,"
    "\"bundle\":\"/b\"}}";
static const char *const crun_msg =
    "{\"ociVersion\":\"0.2.0\",\"fds\":[\"seccompFd\"],\"pid\":78,\"state\":"
    "{\"ociVersion\":\"0.2.0\",\"id\":\"k1\",\"status\":\"creating\",\"pid\":78,"
    "\"bundle\":\"/b\"}}";

static int parse(const char *doc, size_t n_fds, struct gate_state *st)
{
        bento_err_clear(&err);
        return gate_state_parse(doc, strlen(doc), n_fds, st, &err);
}

/* The message must be refused with a message containing want. */
static int rejects(const char *doc, size_t n_fds, const char *want)
{
        struct gate_state st;

        if (parse(doc, n_fds, &st) >= 0) {
                printf("#   accepted: %s\n", doc);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   \"%s\" lacks \"%s\"\n", err.msg, want);
                return 0;
        }
        return 1;
}

TEST(runtimes_messages_are_accepted)
{
        struct gate_state st;

        ASSERT_OK(parse(bento_msg, 1, &st));
        ASSERT_EQ(st.pid, 4242);
        ASSERT_EQ(st.seccomp_index, 0);
        ASSERT_STREQ(st.id, "c1");
        ASSERT_STREQ(st.oci_version, "1.2.0");
        ASSERT_OK(parse(runc_msg, 1, &st));
        ASSERT_EQ(st.pid, 77);
        ASSERT_STREQ(st.id, "r1");
        ASSERT_OK(parse(crun_msg, 1, &st));
        ASSERT_STREQ(st.oci_version, "0.2.0");
}

/* Only the exact metadata bento writes for a bundle run under bento-init
 * gives the init's child its exec; anything else keeps the single one. */
TEST(init_metadata_is_exact)
{
        static const char *const not_init[] = {"bento-exec-gate/1", "bento-exec-gate/1 init ",
                                               "bento-exec-gate/1 INIT", "init", ""};
        struct gate_state st;
        char doc[512];

        snprintf(doc, sizeof(doc),
                 "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,\"metadata\":\"%s\","
                 "\"state\":{\"id\":\"x\"}}",
                 GATE_METADATA_INIT);
        ASSERT_OK(parse(doc, 1, &st));
        ASSERT_TRUE(st.init);
        for (size_t i = 0; i < sizeof(not_init) / sizeof(not_init[0]); i++) {
                snprintf(doc, sizeof(doc),
                         "{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
                         "\"metadata\":\"%s\",\"state\":{\"id\":\"x\"}}",
                         not_init[i]);
                ASSERT_OK(parse(doc, 1, &st));
                ASSERT_TRUE(!st.init);
        }
        ASSERT_OK(parse(runc_msg, 1, &st));
        ASSERT_TRUE(!st.init);
}

TEST(seccomp_fd_is_found_by_name)
{
        struct gate_state st;

        ASSERT_OK(parse("{\"ociVersion\":\"1\",\"fds\":[\"pidFd\",\"seccompFd\"],\"pid\":5,"
                        "\"state\":{\"id\":\"x\"},\"unknown\":[1,2]}",
                        2, &st));
        ASSERT_EQ(st.seccomp_index, 1);
        ASSERT_EQ(st.pid, 5);
}

TEST(id_is_made_safe_to_print)
{
        struct gate_state st;

        ASSERT_OK(parse("{\"ociVersion\":\"1\",\"fds\":[\"seccompFd\"],\"pid\":5,"
                        "\"state\":{\"id\":\"a\\u001b[31mb\\u00e9\"}}",
                        1, &st));
        ASSERT_STREQ(st.id, "a?[31mb??");
}

TEST(bad_documents)
{
        ASSERT_TRUE(rejects("[]", 1, "expected an object"));
        ASSERT_TRUE(rejects("{\"fds\":[\"seccompFd\"]", 1, "container process state"));
        ASSERT_TRUE(rejects("{} {}", 1, "container process state"));
        ASSERT_TRUE(rejects("{\"pid\":1,\"pid\":2}", 1, "pid"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"a\\u0000b\"}", 1, "container process state"));
}

#define HEAD "{\"ociVersion\":\"1\","

TEST(schema)
{
        ASSERT_TRUE(rejects("{\"fds\":[\"seccompFd\"],\"pid\":5,\"state\":{\"id\":\"x\"}}", 1,
                            "ociVersion: required property is missing"));
        ASSERT_TRUE(rejects("{\"ociVersion\":1,\"fds\":[\"seccompFd\"],\"pid\":5,"
                            "\"state\":{\"id\":\"x\"}}",
                            1, "ociVersion: expected a string"));
        ASSERT_TRUE(rejects(HEAD "\"pid\":5,\"state\":{\"id\":\"x\"}}", 0, "fds: required"));
        ASSERT_TRUE(rejects(HEAD "\"fds\":\"seccompFd\",\"pid\":5,\"state\":{\"id\":\"x\"}}", 1,
                            "fds: expected"));
        ASSERT_TRUE(rejects(HEAD "\"fds\":[3],\"pid\":5,\"state\":{\"id\":\"x\"}}", 1,
                            "fds[0]: expected a string"));
        ASSERT_TRUE(rejects(HEAD "\"fds\":[\"pidFd\"],\"pid\":5,\"state\":{\"id\":\"x\"}}", 1,
                            "fds: no \"seccompFd\""));
        ASSERT_TRUE(rejects(HEAD "\"fds\":[\"seccompFd\",\"seccompFd\"],\"pid\":5,"
                                 "\"state\":{\"id\":\"x\"}}",
                            2, "fds[1]: \"seccompFd\" named twice"));
        ASSERT_TRUE(rejects(HEAD "\"fds\":[\"seccompFd\"],\"pid\":5,\"state\":{\"id\":\"x\"}}", 2,
                            "fds: names 1 descriptor(s), but 2 came with it"));
        ASSERT_TRUE(rejects(HEAD "\"fds\":[\"seccompFd\"],\"pid\":5,\"state\":{\"id\":\"x\"}}", 0,
                            "but 0 came with it"));
}

#define FDS HEAD "\"fds\":[\"seccompFd\"],"

TEST(pid_and_state)
{
        ASSERT_TRUE(rejects(FDS "\"state\":{\"id\":\"x\"}}", 1, "pid: required"));
        ASSERT_TRUE(rejects(FDS "\"pid\":0,\"state\":{\"id\":\"x\"}}", 1, "pid"));
        ASSERT_TRUE(rejects(FDS "\"pid\":-4,\"state\":{\"id\":\"x\"}}", 1, "pid"));
        ASSERT_TRUE(rejects(FDS "\"pid\":4294967297,\"state\":{\"id\":\"x\"}}", 1, "pid"));
        ASSERT_TRUE(rejects(FDS "\"pid\":1.5,\"state\":{\"id\":\"x\"}}", 1, "pid"));
        ASSERT_TRUE(rejects(FDS "\"pid\":\"5\",\"state\":{\"id\":\"x\"}}", 1, "pid"));
        ASSERT_TRUE(rejects(FDS "\"pid\":5,\"metadata\":7,\"state\":{\"id\":\"x\"}}", 1,
                            "metadata: expected a string"));
        ASSERT_TRUE(rejects(FDS "\"pid\":5}", 1, "state: required property is missing"));
        ASSERT_TRUE(rejects(FDS "\"pid\":5,\"state\":[]}", 1, "state: expected an object"));
        ASSERT_TRUE(rejects(FDS "\"pid\":5,\"state\":{}}", 1, "state.id: required"));
        ASSERT_TRUE(rejects(FDS "\"pid\":5,\"state\":{\"id\":\"x\",\"pid\":6}}", 1,
                            "state.pid: 6, but the message is about pid 5"));
}

/* ---- receiving -------------------------------------------------------------- */

static int send_with_fds(int sock, const char *text, const int *fds, size_t n)
{
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * 32)];
        } ctl;
        struct iovec iov = {.iov_base = (void *) text, .iov_len = strlen(text)};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

        if (n > 0) {
                struct cmsghdr *c;

                memset(&ctl, 0, sizeof(ctl));
                mh.msg_control = ctl.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
        }
        return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int socket_pair(int sv[2])
{
        return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv);
}

TEST(message_is_complete_once_it_is_a_whole_document)
{
        struct gate_message m = {0};
        struct gate_state st;
        int sv[2], devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), fd = -1;
        size_t half = strlen(runc_msg) / 2;
        char first[1024];

        ASSERT_OK(socket_pair(sv));
        memcpy(first, runc_msg, half);
        first[half] = '\0';
        ASSERT_OK(send_with_fds(sv[1], first, &devnull, 1));
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 0);
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 0); /* nothing more yet: EAGAIN */
        ASSERT_OK(send_with_fds(sv[1], runc_msg + half, NULL, 0));
        /* the socket stays open, as runc leaves it */
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 1);
        ASSERT_EQ(m.n_fds, 1);
        /* /dev/null is not a seccomp listener */
        ASSERT_EQ(gate_message_take(&m, &st, &fd, &err), -EBADF);
        ASSERT_CONTAINS(err.msg, "is not a seccomp listener");
        gate_message_free(&m);
        close(sv[0]);
        close(sv[1]);
        close(devnull);
}

TEST(eof_ends_the_message)
{
        struct gate_message m = {0};
        struct gate_state st;
        int sv[2], fd = -1;

        ASSERT_OK(socket_pair(sv));
        ASSERT_OK(send_with_fds(sv[1], "{\"ociVersion\":", NULL, 0));
        close(sv[1]);
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 0);
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 1);
        ASSERT_TRUE(m.eof);
        ASSERT_TRUE(gate_message_take(&m, &st, &fd, &err) < 0);
        gate_message_free(&m);
        /* and an empty connection */
        ASSERT_OK(socket_pair(sv));
        close(sv[1]);
        ASSERT_EQ(gate_message_read(&m, sv[0], &err), 1);
        ASSERT_EQ(gate_message_take(&m, &st, &fd, &err), -EPROTO);
        ASSERT_CONTAINS(err.msg, "without a message");
        gate_message_free(&m);
        close(sv[0]);
}

TEST(size_is_capped)
{
        struct gate_message m = {0};
        cleanup_free char *big = malloc(GATE_MESSAGE_MAX + 2);
        int sv[2], r = 0;
        size_t sent = 0;

        ASSERT_TRUE(big != NULL);
        memset(big, ' ', GATE_MESSAGE_MAX + 1);
        big[GATE_MESSAGE_MAX + 1] = '\0';
        ASSERT_OK(socket_pair(sv));
        /* write and read in turns: the socket buffer is smaller than the text */
        while (r == 0) {
                ssize_t n = sent < GATE_MESSAGE_MAX + 1
                                ? send(sv[1], big + sent, GATE_MESSAGE_MAX + 1 - sent,
                                       MSG_DONTWAIT | MSG_NOSIGNAL)
                                : 0;

                if (n > 0)
                        sent += (size_t) n;
                r = gate_message_read(&m, sv[0], &err);
        }
        ASSERT_EQ(r, -EFBIG);
        ASSERT_CONTAINS(err.msg, "larger than");
        gate_message_free(&m);
        close(sv[0]);
        close(sv[1]);
}

static int count_open_fds(void)
{
        int n = 0;

        for (int fd = 0; fd < 1024; fd++)
                if (fcntl(fd, F_GETFD) >= 0)
                        n++;
        return n;
}

TEST(too_many_descriptors_are_refused_and_closed)
{
        struct gate_message m = {0};
        int sv[2], fds[GATE_MESSAGE_FDS + 4], before, r;

        ASSERT_OK(socket_pair(sv));
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
                fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ASSERT_OK(send_with_fds(sv[1], runc_msg, fds, sizeof(fds) / sizeof(fds[0])));
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
                close(fds[i]);
        before = count_open_fds();
        r = gate_message_read(&m, sv[0], &err);
        ASSERT_EQ(r, -EPROTO);
        ASSERT_CONTAINS(err.msg, "more than 16 file descriptors");
        gate_message_free(&m);
        ASSERT_EQ(count_open_fds(), before);
        close(sv[0]);
        close(sv[1]);
}

TAP_MAIN()
