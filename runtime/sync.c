/* SPDX-License-Identifier: Apache-2.0 */
/* Parent/init handshake messages over a SOCK_SEQPACKET pair (see sync.h). */
#include "sync.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One sendmsg of len bytes, with fd attached when fd >= 0. */
static int send_with_fd(int sock, const void *buf, size_t len, int fd)
{
        struct iovec iov = {.iov_base = (void *) buf, .iov_len = len};
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        ssize_t n;

        if (fd >= 0) {
                struct cmsghdr *c;
                memset(&ctl, 0, sizeof(ctl));
                mh.msg_control = ctl.buf;
                mh.msg_controllen = sizeof(ctl.buf);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return n == (ssize_t) len ? 0 : -EPIPE;
}

int rt_sync_send(int sock, enum rt_sync_type type, int32_t code, const char *msg, int fd)
{
        struct rt_sync_msg m;

        memset(&m, 0, sizeof(m));
        m.type = type;
        m.code = code;
        if (msg)
                strncpy(m.msg, msg, sizeof(m.msg) - 1);
        return send_with_fd(sock, &m, sizeof(m), fd) < 0 ? -EPIPE : 0;
}

int rt_sync_send_raw_fd(int sock, int fd)
{
        return send_with_fd(sock, " ", 1, fd);
}

void rt_sync_send_err(int sock, const struct bento_err *err)
{
        (void) rt_sync_send(sock, RT_SYNC_ERROR, err->code, err->msg, -1);
}

int rt_sync_recv(int sock, struct rt_sync_msg *msg, int *ret_fd)
{
        struct iovec iov = {.iov_base = msg, .iov_len = sizeof(*msg)};
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        struct cmsghdr *c;
        int fd = -1;
        ssize_t n;

        if (ret_fd)
                *ret_fd = -1;
        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        for (c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                        memcpy(&fd, CMSG_DATA(c), sizeof(int));
        if (n != (ssize_t) sizeof(*msg)) {
                if (fd >= 0)
                        close(fd);
                return -EPIPE;
        }
        msg->msg[sizeof(msg->msg) - 1] = '\0';
        if (ret_fd)
                *ret_fd = fd;
        else if (fd >= 0)
                close(fd);
        return 0;
}

int rt_sync_expect(int sock, enum rt_sync_type type, struct rt_sync_msg *msg, int *ret_fd,
                   struct bento_err *err)
{
        if (rt_sync_recv(sock, msg, ret_fd) < 0)
                return bento_err_setx(err, EPIPE, "the container process exited during setup");
        if (msg->type == RT_SYNC_ERROR)
                return bento_err_setx(err, msg->code > 0 ? msg->code : EIO, "%s", msg->msg);
        if (msg->type != (uint32_t) type)
                return bento_err_setx(err, EPROTO, "unexpected setup message %u (wanted %d)",
                                      msg->type, (int) type);
        return 0;
}
