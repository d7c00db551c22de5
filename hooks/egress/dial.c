/* SPDX-License-Identifier: Apache-2.0 */
/* Guarded, address-pinned dialling (see dial.h). */
#include "dial.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "guard.h"
#include "io.h"

static bool guard_allows(const struct sockaddr *sa, bool literal_grant)
{
        const struct egress_nat64 *nat64 = NULL;
        enum egress_class c;

        /* only IPv6 verdicts depend on NAT64 discovery: IPv4 never waits */
        if (sa->sa_family == AF_INET6)
                nat64 = egress_nat64_get();
        c = egress_classify(sa, nat64);
        return c == EGRESS_PUBLIC || (c == EGRESS_PRIVATE && literal_grant);
}

static int connect_one(const struct sockaddr *sa, socklen_t len, int64_t deadline_ms)
{
        cleanup_close int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int w, soerr = 0;
        socklen_t sl = sizeof(soerr);

        if (fd < 0)
                return -errno;
        if (connect(fd, sa, len) == 0)
                return TAKE_FD(fd);
        if (errno != EINPROGRESS)
                return -errno;
        w = egress_wait_writable(fd, deadline_ms);
        if (w < 0)
                return w;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
                return -errno;
        if (soerr != 0)
                return -soerr;
        return TAKE_FD(fd);
}

int egress_dial(const struct egress_addrs *addrs, bool literal_grant, int64_t deadline_ms,
                bool *ret_guarded)
{
        int last = -EHOSTUNREACH;

        *ret_guarded = false;
        for (size_t i = 0; i < addrs->n; i++) {
                const struct sockaddr *sa = (const struct sockaddr *) &addrs->a[i];
                int fd;

                if (!guard_allows(sa, literal_grant)) {
                        *ret_guarded = true;
                        last = -EACCES;
                        continue;
                }
                if (egress_now_ms() >= deadline_ms)
                        return -ETIMEDOUT;
                fd = connect_one(sa, addrs->len[i], deadline_ms);
                if (fd >= 0)
                        return fd;
                last = fd;
        }
        return last;
}
