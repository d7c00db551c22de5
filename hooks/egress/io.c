/* SPDX-License-Identifier: Apache-2.0 */
/* Deadline-bounded socket I/O (see io.h). */
#include "io.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t egress_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int egress_wait(int fd, short events, int64_t deadline_ms)
{
        for (;;) {
                struct pollfd p = {.fd = fd, .events = events};
                int64_t left = deadline_ms - egress_now_ms();
                int n;

                if (left <= 0)
                        return 0;
                n = poll(&p, 1, left > 60000 ? 60000 : (int) left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n > 0)
                        return p.revents;
        }
}

int egress_wait_writable(int fd, int64_t deadline_ms)
{
        int w = egress_wait(fd, POLLOUT, deadline_ms);

        if (w == 0)
                return -ETIMEDOUT;
        return w < 0 ? w : 0;
}

int egress_write_all(int fd, const void *buf, size_t len, int64_t deadline_ms)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
                int w;

                if (n > 0) {
                        p += n;
                        len -= (size_t) n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno != EAGAIN)
                        return -errno;
                w = egress_wait_writable(fd, deadline_ms);
                if (w < 0)
                        return w;
        }
        return 0;
}

static const char *status_text(int code)
{
        switch (code) {
        case 200:
                return "Connection established";
        case 400:
                return "Bad Request";
        case 403:
                return "Forbidden";
        case 503:
                return "Service Unavailable";
        default:
                return "Bad Gateway";
        }
}

int egress_send_status(int fd, int code, const char *body, int write_ms)
{
        char buf[1024];
        int n = snprintf(buf, sizeof(buf),
                         "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                         "%s\n",
                         code, status_text(code), body);

        if (n < 0)
                return -EIO;
        if ((size_t) n >= sizeof(buf))
                n = (int) sizeof(buf) - 1;
        return egress_write_all(fd, buf, (size_t) n, egress_now_ms() + write_ms);
}
