/* SPDX-License-Identifier: Apache-2.0 */
/* The go of `run --wait-fd` (run-go.h). */
#include "run-go.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"

/* One message: its byte into *byte (0 at end-of-file), its descriptors
 * kept open, close-on-exec, for the rest of the runtime's life. */
static int recv_one(int fd, char *byte, struct bento_err *err)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(WAIT_GO_FDS * sizeof(int))];
        } c;
        struct iovec io = {.iov_base = byte, .iov_len = 1};
        struct msghdr m = {
            .msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof(c.buf)};
        ssize_t n;

        *byte = 0;
        do
                n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return bento_err_set(err, errno, "run: --wait-fd %d", fd);
        /* descriptors that did not fit were closed by the kernel: the
         * caller's would then not all be held */
        if (m.msg_flags & MSG_CTRUNC)
                return bento_err_setx(err, EPROTO,
                                      "run: --wait-fd %d: more than %d descriptors in one message",
                                      fd, WAIT_GO_FDS);
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
                if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
                        return bento_err_setx(err, EPROTO,
                                              "run: --wait-fd %d: a message that is not "
                                              "descriptors",
                                              fd);
        return 0;
}

int rt_run_wait_go(int fd, struct bento_err *err)
{
        cleanup_close int sock = fd;
        int type = 0;
        socklen_t len = sizeof(type);
        char byte;

        if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
                return bento_err_setx(err, ENOTSOCK,
                                      "run: --wait-fd %d is not a unix stream socket", fd);
        for (;;) {
                int r = recv_one(sock, &byte, err);

                if (r < 0)
                        return r;
                if (byte == 0)
                        return 0; /* end-of-file: given up */
                if (byte == WAIT_GO)
                        return 1;
                if (byte != WAIT_GO_HOLD)
                        return bento_err_setx(err, EPROTO,
                                              "run: --wait-fd %d: the caller said %#x, neither "
                                              "hold nor go",
                                              fd, (unsigned char) byte);
        }
}
