/* SPDX-License-Identifier: Apache-2.0 */
/* Parent/init handshake messages over a SOCK_SEQPACKET pair (see sync.h). */
#include "sync.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One sendmsg of len bytes, with n_fds fds attached. */
static int send_with_fds(int sock, const void *buf, size_t len, const int *fds, size_t n_fds)
{
        struct iovec iov = {.iov_base = (void *) buf, .iov_len = len};
        union {
                char buf[CMSG_SPACE(sizeof(int) * RT_SYNC_MAX_FDS)];
                struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        ssize_t n;

        if (n_fds > RT_SYNC_MAX_FDS)
                return -EINVAL;
        if (n_fds > 0) {
                struct cmsghdr *c;
                memset(&ctl, 0, sizeof(ctl));
                mh.msg_control = ctl.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return n == (ssize_t) len ? 0 : -EPIPE;
}

int rt_sync_send_fds(int sock, enum rt_sync_type type, int32_t code, const int *fds, size_t n_fds)
{
        struct rt_sync_msg m;

        memset(&m, 0, sizeof(m));
        m.type = type;
        m.code = code;
        return send_with_fds(sock, &m, sizeof(m), fds, n_fds) < 0 ? -EPIPE : 0;
}

int rt_sync_send(int sock, enum rt_sync_type type, int32_t code, const char *msg, int fd)
{
        struct rt_sync_msg m;

        memset(&m, 0, sizeof(m));
        m.type = type;
        m.code = code;
        if (msg)
                strncpy(m.msg, msg, sizeof(m.msg) - 1);
        return send_with_fds(sock, &m, sizeof(m), &fd, fd >= 0 ? 1 : 0) < 0 ? -EPIPE : 0;
}

int rt_sync_send_raw_fd(int sock, int fd)
{
        return send_with_fds(sock, " ", 1, &fd, 1);
}

void rt_sync_send_err(int sock, const struct bento_err *err)
{
        (void) rt_sync_send(sock, RT_SYNC_ERROR, err->code, err->msg, -1);
}

/* Keep up to max of the fds a control message carries (in *kept), close
 * the rest. */
static void take_fds(struct cmsghdr *c, int *fds, size_t max, size_t *kept)
{
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

        for (size_t i = 0; i < n; i++) {
                int fd;

                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*kept < max)
                        fds[(*kept)++] = fd;
                else
                        close(fd);
        }
}

int rt_sync_recv_fds(int sock, struct rt_sync_msg *msg, int *fds, size_t max, size_t *ret_n)
{
        struct iovec iov = {.iov_base = msg, .iov_len = sizeof(*msg)};
        union {
                char buf[CMSG_SPACE(sizeof(int) * RT_SYNC_MAX_FDS)];
                struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        struct cmsghdr *c;
        size_t kept = 0;
        ssize_t n;

        *ret_n = 0;
        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        for (c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                        take_fds(c, fds, max, &kept);
        if (n != (ssize_t) sizeof(*msg)) {
                for (size_t i = 0; i < kept; i++)
                        close(fds[i]);
                return -EPIPE;
        }
        msg->msg[sizeof(msg->msg) - 1] = '\0';
        *ret_n = kept;
        return 0;
}

int rt_sync_recv(int sock, struct rt_sync_msg *msg, int *ret_fd)
{
        int fd = -1;
        size_t n = 0;
        int r = rt_sync_recv_fds(sock, msg, &fd, ret_fd ? 1 : 0, &n);

        if (ret_fd)
                *ret_fd = r == 0 && n == 1 ? fd : -1;
        return r;
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
