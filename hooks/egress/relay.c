/* SPDX-License-Identifier: Apache-2.0 */
/* The bidirectional copy loop of a tunnel (see relay.h). */
#include "relay.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"

#define RELAY_BUF (16 * 1024)

struct pipe_dir {
        int from, to;
        char buf[RELAY_BUF];
        size_t len, off;
        bool eof;  /* `from` said EOF */
        bool shut; /* `to` was shut down for writing */
};

/* Send what is buffered.  Returns 1 when all of it went, 0 when the
 * socket is full, -errno on a socket error. */
static int flush(struct pipe_dir *d)
{
        while (d->len > d->off) {
                ssize_t n = send(d->to, d->buf + d->off, d->len - d->off, MSG_NOSIGNAL);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                d->off += (size_t) n;
        }
        d->len = d->off = 0;
        return 1;
}

/* Move what can be moved without blocking, reading at most one buffer, so
 * a peer that never stops sending cannot keep the loop (and its deadline
 * checks) from coming round.  Returns 1 when something was read (or EOF
 * seen), 0 when nothing happened, -errno on a socket error. */
static int pump(struct pipe_dir *d)
{
        int r = flush(d);
        ssize_t n;

        if (r <= 0)
                return r;
        if (d->eof) {
                if (!d->shut && shutdown(d->to, SHUT_WR) < 0 && errno != ENOTCONN)
                        return -errno;
                d->shut = true;
                return 0;
        }
        do
                n = recv(d->from, d->buf, sizeof(d->buf), 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EAGAIN ? 0 : -errno;
        if (n == 0) {
                d->eof = true;
                return 1;
        }
        d->len = (size_t) n;
        r = flush(d);
        return r < 0 ? r : 1;
}

static short events_for(const struct pipe_dir *d, bool as_source)
{
        if (as_source)
                return (d->len == 0 && !d->eof) ? POLLIN : 0;
        return d->len > d->off ? POLLOUT : 0;
}

/* The nearest deadline that applies now. */
static int64_t next_deadline(int64_t idle_at, int64_t first_at, int64_t end_at)
{
        int64_t d = idle_at < end_at ? idle_at : end_at;

        return first_at > 0 && first_at < d ? first_at : d;
}

int egress_relay(int client, int upstream, const struct egress_limits *lim)
{
        /* 32 KiB of buffers: on the heap, not on a handler's small stack */
        cleanup_free struct pipe_dir *dirs = calloc(2, sizeof(struct pipe_dir));
        int64_t start = egress_now_ms();
        int64_t idle_at = start + lim->idle_ms, end_at = start + lim->tunnel_ms;
        int64_t first_at = lim->first_byte_ms > 0 ? start + lim->first_byte_ms : 0;
        struct pipe_dir *up, *down;

        if (!dirs)
                return -ENOMEM;
        up = dirs;
        down = dirs + 1;
        up->from = down->to = client;
        up->to = down->from = upstream;
        while (!(up->shut && down->shut)) {
                struct pollfd p[2] = {{.fd = client}, {.fd = upstream}};
                int64_t deadline = next_deadline(idle_at, first_at, end_at), left;
                int a, b, n;

                a = pump(up);
                b = pump(down);
                if (a < 0 || b < 0)
                        return a < 0 ? a : b;
                if (up->shut && down->shut)
                        break; /* both sides said EOF and heard it */
                if (b > 0)
                        first_at = 0; /* the upstream has spoken */
                if (a > 0 || b > 0) {
                        int64_t now = egress_now_ms();

                        if (now >= end_at)
                                return -ETIMEDOUT; /* even a busy tunnel ends */
                        idle_at = now + lim->idle_ms;
                        continue;
                }
                left = deadline - egress_now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                p[0].events = events_for(up, true) | events_for(down, false);
                p[1].events = events_for(down, true) | events_for(up, false);
                n = poll(p, 2, left > 60000 ? 60000 : (int) left);
                if (n < 0 && errno != EINTR)
                        return -errno;
                /* a hang-up on a socket we wait nothing from would wake
                 * poll() forever: that peer is gone, the tunnel is over */
                for (int i = 0; n > 0 && i < 2; i++)
                        if (!p[i].events && (p[i].revents & (POLLERR | POLLHUP)))
                                return -ECONNRESET;
        }
        return 0;
}
