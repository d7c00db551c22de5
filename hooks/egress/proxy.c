/* SPDX-License-Identifier: Apache-2.0 */
/* The accept loop and the handler threads (see proxy.h). */
#include "proxy.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handler.h"
#include "io.h"
#include "report.h"

/* Room to spare for a lookup (dns.c keeps under 20 KiB on the stack);
 * every large buffer is on the heap. */
#define HANDLER_STACK  ((size_t) 512 * 1024)
#define BACKOFF_MIN_MS 5
#define BACKOFF_MAX_MS 1000

static atomic_uint active;
static atomic_ulong accepted;
static unsigned long accept_errors; /* only the accept loop touches it */

struct job {
        int fd;
        const struct egress_config *cfg;
};

unsigned long egress_proxy_accepted(void)
{
        return atomic_load(&accepted);
}

unsigned long egress_proxy_accept_errors(void)
{
        return accept_errors;
}

static void *handler_thread(void *arg)
{
        struct job j = *(struct job *) arg;

        free(arg);
        egress_handle(j.fd, j.cfg);
        atomic_fetch_sub(&active, 1);
        return NULL;
}

/* Answer from the accept loop itself: 503 over the cap, 502 when no
 * handler could be started.  The response fits an empty socket buffer, so
 * the send cannot block. */
static void refuse_now(int fd, enum egress_decision d)
{
        const char *body = d == EGRESS_AT_CAPACITY
                               ? "bento egress proxy is at its connection limit"
                               : "bento egress proxy could not complete the request";
        char msg[256];
        int n = snprintf(msg, sizeof(msg),
                         "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                         "%s\n",
                         egress_decision_status(d),
                         d == EGRESS_AT_CAPACITY ? "Service Unavailable" : "Bad Gateway", body);

        egress_report_decision(d, NULL, NULL, body);
        if (n > 0 && (size_t) n < sizeof(msg))
                (void) !send(fd, msg, (size_t) n, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
}

static int start_handler(int fd, const struct egress_config *cfg, const pthread_attr_t *attr)
{
        struct job *j = malloc(sizeof(*j));
        pthread_t t;
        int r;

        if (!j)
                return -ENOMEM;
        j->fd = fd;
        j->cfg = cfg;
        atomic_fetch_add(&active, 1);
        r = pthread_create(&t, attr, handler_thread, j);
        if (r != 0) {
                atomic_fetch_sub(&active, 1);
                free(j);
                return -r;
        }
        return 0;
}

static bool transient_accept_error(int e)
{
        return e == EMFILE || e == ENFILE || e == ENOMEM || e == ENOBUFS || e == ECONNABORTED ||
               e == EPERM || e == EPROTO;
}

/* Wait for a client or the container's end.  Returns 1 for a client, 0
 * when the container init exited, -errno on failure. */
static int wait_event(int listen_fd, int pidfd, int backoff_ms)
{
        for (;;) {
                struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN},
                                      {.fd = listen_fd, .events = POLLIN}};
                int n = poll(p, backoff_ms ? 1 : 2, backoff_ms ? backoff_ms : -1);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (p[0].revents)
                        return 0;
                if (backoff_ms)
                        return 1; /* the pause is over: try accept() again */
                if (p[1].revents & (POLLERR | POLLNVAL))
                        return -EIO;
                if (p[1].revents)
                        return 1;
        }
}

int egress_proxy_serve(int listen_fd, int pidfd, const struct egress_config *cfg)
{
        pthread_attr_t attr;
        int backoff = 0, r = 0;

        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, HANDLER_STACK);
        while ((r = wait_event(listen_fd, pidfd, backoff)) > 0) {
                int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

                if (fd < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                continue;
                        if (!transient_accept_error(errno)) {
                                r = -errno;
                                break;
                        }
                        /* out of fds or memory: back off, doubling, and keep
                         * watching the container meanwhile; the first one
                         * is reported, since clients may be failing */
                        if (accept_errors++ == 0)
                                egress_report_degraded(errno);
                        backoff =
                            backoff ? (backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2)
                                    : BACKOFF_MIN_MS;
                        continue;
                }
                backoff = 0;
                atomic_fetch_add(&accepted, 1);
                if (atomic_load(&active) >= cfg->limits.max_conns) {
                        refuse_now(fd, EGRESS_AT_CAPACITY);
                        continue;
                }
                if (start_handler(fd, cfg, &attr) < 0)
                        refuse_now(fd, EGRESS_FAULT);
        }
        pthread_attr_destroy(&attr);
        return r;
}
