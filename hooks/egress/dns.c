/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Asking the name servers (dns.h): for each name to try (the search list
 * as resolv.conf's ndots orders it), the A and the AAAA question go out
 * together on one connected UDP socket per server, so only that server's
 * replies reach us, each with a random id; a truncated answer is asked
 * again over TCP.  A server that fails or stays silent passes the question
 * to the next, for `attempts` rounds, and nothing waits past the caller's
 * deadline.
 */
#include "dns.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"

#define TCP_MAX 65535

/* One question (A or AAAA) about one name. */
struct question {
        uint16_t type, id;
        uint8_t query[DNS_QUERY_MAX];
        size_t len;
        int result; /* 0, -ENOENT: answered; -EAGAIN: not yet (no server has) */
        struct egress_addrs found;
};

/* One name being looked up: what to ask, and of whom. */
struct lookup {
        const struct dns_conf *c;
        const char *name;
        unsigned short port;
        int64_t deadline_ms; /* the caller's, for the whole lookup */
        struct question qs[2];
};

static int64_t min64(int64_t a, int64_t b)
{
        return a < b ? a : b;
}

static int read_full(int fd, uint8_t *buf, size_t len, int64_t deadline_ms)
{
        size_t got = 0;

        while (got < len) {
                ssize_t n = read(fd, buf + got, len - got);
                int w;

                if (n > 0) {
                        got += (size_t) n;
                        continue;
                }
                if (n == 0)
                        return -EPIPE;
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                w = egress_wait(fd, POLLIN, deadline_ms);
                if (w <= 0)
                        return w < 0 ? w : -ETIMEDOUT;
        }
        return 0;
}

/* The question over TCP: after a truncated UDP answer, or from the start
 * (options use-vc). */
static int ask_tcp(const struct lookup *l, size_t ns, struct question *q, int64_t deadline_ms)
{
        const struct dns_conf *c = l->c;
        cleanup_close int fd =
            socket(c->ns[ns].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        cleanup_free uint8_t *answer = NULL;
        uint8_t frame[2 + DNS_QUERY_MAX], head[2] = {0, 0};
        size_t len;
        int r;

        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *) &c->ns[ns], c->ns_len[ns]) < 0 &&
            errno != EINPROGRESS)
                return -errno;
        frame[0] = (uint8_t) (q->len >> 8);
        frame[1] = (uint8_t) (q->len & 0xff);
        memcpy(frame + 2, q->query, q->len);
        r = egress_wait_writable(fd, deadline_ms);
        if (r == 0)
                r = egress_write_all(fd, frame, q->len + 2, deadline_ms);
        if (r == 0)
                r = read_full(fd, head, 2, deadline_ms);
        if (r < 0)
                return r;
        len = (size_t) ((head[0] << 8) | head[1]);
        answer = malloc(TCP_MAX);
        if (!answer)
                return -ENOMEM;
        r = read_full(fd, answer, len, deadline_ms);
        if (r < 0)
                return r;
        return dns_answer_parse(answer, len, q->id, l->name, q->type, l->port, &q->found);
}

/* What an answer to q means for q; false when it was not one. */
static bool settle(const struct lookup *l, size_t ns, struct question *q, int r)
{
        if (r == -EMSGSIZE)
                r = ask_tcp(l, ns, q, min64(egress_now_ms() + l->c->timeout_ms, l->deadline_ms));
        if (r == -EBADMSG)
                return false; /* someone else's answer, or garbage: keep waiting */
        if (r == 0 || r == -ENOENT)
                q->result = r; /* else: failed or refused here, the next server is asked */
        return true;
}

/* Both questions to server ns over UDP, until both are settled or the
 * try's deadline passes. */
static void ask_udp(struct lookup *l, size_t ns, int64_t try_deadline)
{
        const struct dns_conf *c = l->c;
        cleanup_close int fd =
            socket(c->ns[ns].ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        bool waiting[2] = {false, false};
        uint8_t answer[DNS_UDP_MAX];

        if (fd < 0 || connect(fd, (const struct sockaddr *) &c->ns[ns], c->ns_len[ns]) < 0)
                return;
        for (size_t i = 0; i < 2; i++)
                if (l->qs[i].result == -EAGAIN)
                        waiting[i] = send(fd, l->qs[i].query, l->qs[i].len, MSG_NOSIGNAL) ==
                                     (ssize_t) l->qs[i].len;
        while (waiting[0] || waiting[1]) {
                int w = egress_wait(fd, POLLIN, try_deadline);
                ssize_t n;

                if (w <= 0 || !(w & POLLIN))
                        break;
                n = recv(fd, answer, sizeof(answer), 0);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                continue;
                        break; /* ECONNREFUSED: nobody listens there */
                }
                for (size_t i = 0; i < 2; i++) {
                        struct question *q = &l->qs[i];
                        int r;

                        if (!waiting[i])
                                continue;
                        r = dns_answer_parse(answer, (size_t) n, q->id, l->name, q->type, l->port,
                                             &q->found);
                        if (settle(l, ns, q, r)) {
                                waiting[i] = false;
                                break;
                        }
                }
        }
}

static bool open_question(const struct lookup *l)
{
        return l->qs[0].result == -EAGAIN || l->qs[1].result == -EAGAIN;
}

static void ask(struct lookup *l)
{
        const struct dns_conf *c = l->c;

        for (int round = 0; round < c->attempts; round++) {
                for (size_t ns = 0; ns < c->n_ns; ns++) {
                        int64_t now = egress_now_ms();

                        if (!open_question(l) || now >= l->deadline_ms)
                                return;
                        if (!c->use_tcp) {
                                ask_udp(l, ns, min64(now + c->timeout_ms, l->deadline_ms));
                                continue;
                        }
                        for (size_t i = 0; i < 2; i++)
                                if (l->qs[i].result == -EAGAIN)
                                        (void) settle(l, ns, &l->qs[i], -EMSGSIZE);
                }
        }
}

/* A and AAAA for one fully spelled name: 0, -ENOENT or -EAGAIN. */
static int lookup_one(const struct dns_conf *c, const char *name, unsigned short port,
                      int64_t deadline_ms, struct egress_addrs *out)
{
        struct lookup l = {.c = c, .name = name, .port = port, .deadline_ms = deadline_ms};
        uint16_t ids[2];
        bool failed = false;

        if (getrandom(ids, sizeof(ids), 0) != (ssize_t) sizeof(ids))
                return -EAGAIN;
        for (size_t i = 0; i < 2; i++) {
                struct question *q = &l.qs[i];

                q->type = i == 0 ? DNS_TYPE_A : DNS_TYPE_AAAA;
                q->id = ids[i];
                q->result = -EAGAIN;
                q->len = dns_query_build(q->query, sizeof(q->query), ids[i], name, q->type);
                if (q->len == 0)
                        return -ENOENT; /* not a name DNS can carry */
        }
        ask(&l);
        for (size_t i = 0; i < 2; i++) {
                for (size_t k = 0; k < l.qs[i].found.n && out->n < EGRESS_ADDRS_MAX; k++) {
                        out->a[out->n] = l.qs[i].found.a[k];
                        out->len[out->n++] = l.qs[i].found.len[k];
                }
                failed |= l.qs[i].result == -EAGAIN;
        }
        if (out->n > 0)
                return 0;
        return failed ? -EAGAIN : -ENOENT;
}

static size_t dots(const char *name)
{
        size_t n = 0;

        for (; *name; name++)
                n += *name == '.';
        return n;
}

int dns_lookup(const struct dns_conf *c, const char *name, unsigned short port, int64_t deadline_ms,
               struct egress_addrs *out)
{
        char full[DNS_SEARCH_MAX][DNS_NAME_MAX + 2];
        const char *tries[DNS_SEARCH_MAX + 1];
        bool as_is_first = dots(name) >= (size_t) c->ndots, failed = false;
        size_t n = 0;

        /* resolv.conf(5): a name with ndots dots or more is tried as it is
         * before the search domains, any other after them */
        if (as_is_first)
                tries[n++] = name;
        for (size_t s = 0; s < c->n_search; s++) {
                int len = snprintf(full[s], sizeof(full[s]), "%s.%s", name, c->search[s]);

                if (len > 0 && (size_t) len <= DNS_NAME_MAX)
                        tries[n++] = full[s];
        }
        if (!as_is_first)
                tries[n++] = name;
        out->n = 0;
        for (size_t i = 0; i < n; i++) {
                int r = lookup_one(c, tries[i], port, deadline_ms, out);

                if (r == 0)
                        return 0;
                failed |= r == -EAGAIN;
                if (egress_now_ms() >= deadline_ms)
                        return -EAGAIN;
        }
        return failed ? -EAGAIN : -ENOENT;
}
