/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the egress proxy's own resolver (hooks/egress/dns*.c):
 * queries as RFC 1035 spells them, answers read as hostile (wrong id or
 * question, loops, overruns, dots inside labels), resolv.conf and hosts
 * files read as the C library reads them, and whole lookups against a
 * name server run by the test on 127.0.0.1 (a random port): A and AAAA,
 * CNAME chains, the search list in ndots order, NXDOMAIN, a server that
 * fails or stays silent (the next one is asked; the deadline holds), a
 * forged id, and a truncated answer asked again over TCP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dns.h"
#include "io.h"
#include "tap.h"

/* ---- building answers ---- */

struct msg {
        uint8_t b[2048];
        size_t len;
};

static void put16(struct msg *m, uint16_t v)
{
        m->b[m->len++] = (uint8_t) (v >> 8);
        m->b[m->len++] = (uint8_t) v;
}

static void put_name(struct msg *m, const char *name)
{
        while (*name) {
                size_t l = strcspn(name, ".");

                m->b[m->len++] = (uint8_t) l;
                memcpy(m->b + m->len, name, l);
                m->len += l;
                name += l;
                if (*name == '.')
                        name++;
        }
        m->b[m->len++] = 0;
}

/* The answer to query q: flags byte 3 (rcode), then records added. */
static void answer_to(struct msg *m, const uint8_t *q, size_t qlen, uint8_t rcode, bool tc)
{
        memcpy(m->b, q, qlen);
        m->len = qlen;
        m->b[2] = (uint8_t) (0x80 | 0x01 | (tc ? 0x02 : 0));
        m->b[3] = (uint8_t) (0x80 | rcode);
        m->b[6] = m->b[7] = 0;
}

static void add_rr(struct msg *m, const char *owner, uint16_t type, const void *data, size_t dlen)
{
        uint16_t an = (uint16_t) ((m->b[6] << 8) | m->b[7]);

        if (owner)
                put_name(m, owner);
        else
                put16(m, 0xc00c); /* a pointer to the question's name */
        put16(m, type);
        put16(m, 1);
        put16(m, 0);
        put16(m, 60);
        put16(m, (uint16_t) dlen);
        memcpy(m->b + m->len, data, dlen);
        m->len += dlen;
        an++;
        m->b[6] = (uint8_t) (an >> 8);
        m->b[7] = (uint8_t) an;
}

static void add_a(struct msg *m, const char *owner, const char *ip)
{
        uint8_t a[4];

        inet_pton(AF_INET, ip, a);
        add_rr(m, owner, DNS_TYPE_A, a, 4);
}

static void add_cname(struct msg *m, const char *owner, const char *target)
{
        struct msg t = {.len = 0};

        put_name(&t, target);
        add_rr(m, owner, DNS_TYPE_CNAME, t.b, t.len);
}

static const char *ip_of(const struct egress_addrs *a, size_t i, char *buf)
{
        const struct sockaddr_storage *ss = &a->a[i];

        if (ss->ss_family == AF_INET)
                return inet_ntop(AF_INET, &((const struct sockaddr_in *) ss)->sin_addr, buf, 64);
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) ss)->sin6_addr, buf, 64);
}

static uint8_t query[DNS_QUERY_MAX];
static size_t query_len;

static void new_query(const char *name, uint16_t type)
{
        query_len = dns_query_build(query, sizeof(query), 0x1234, name, type);
}

/* The answer in m to the query made last (id 0x1234), read for name. */
static int parse(const struct msg *m, const char *name, uint16_t type, struct egress_addrs *out)
{
        return dns_answer_parse(m->b, m->len, 0x1234, name, type, 1, out);
}

/* A query for name's A record, and in m its answer: one address, ip. */
static void answered(struct msg *m, const char *name, const char *ip)
{
        new_query(name, DNS_TYPE_A);
        answer_to(m, query, query_len, 0, false);
        add_a(m, NULL, ip);
}

/* ---- queries ---- */

TEST(a_query_is_spelled_as_rfc_1035_says)
{
        static const uint8_t want[] = {0x12, 0x34, 0x01, 0x00, 0,   1,   0,   0, 0, 0,  0, 0, 3,
                                       'w',  'w',  'w',  3,    'c', 'o', 'm', 0, 0, 28, 0, 1};

        new_query("www.com", DNS_TYPE_AAAA);
        ASSERT_EQ(query_len, sizeof(want));
        ASSERT_TRUE(memcmp(query, want, sizeof(want)) == 0);
}

TEST(names_dns_cannot_carry_make_no_query)
{
        char long_label[80], long_name[300];

        memset(long_label, 'a', 64);
        long_label[64] = '\0';
        for (size_t i = 0; i < 254; i++)
                long_name[i] = i % 2 ? '.' : 'a';
        long_name[254] = '\0';
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, "", DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, "a..b", DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, ".a", DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, "a.", DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, long_label, DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, sizeof(query), 1, long_name, DNS_TYPE_A), 0);
        ASSERT_EQ(dns_query_build(query, 20, 1, "example.com", DNS_TYPE_A), 0);
        long_label[63] = '\0';
        ASSERT_TRUE(dns_query_build(query, sizeof(query), 1, long_label, DNS_TYPE_A) > 0);
}

/* ---- answers ---- */

TEST(addresses_are_read_from_the_answer_with_the_port_set)
{
        struct egress_addrs out = {.n = 0};
        struct msg m;
        char buf[64];

        new_query("api.example.com", DNS_TYPE_A);
        answer_to(&m, query, query_len, 0, false);
        add_a(&m, NULL, "192.0.2.7");
        add_a(&m, "API.Example.COM", "192.0.2.8");
        add_a(&m, "other.example.com", "192.0.2.9"); /* not ours: ignored */
        ASSERT_EQ(dns_answer_parse(m.b, m.len, 0x1234, "api.example.com", DNS_TYPE_A, 443, &out),
                  0);
        ASSERT_EQ(out.n, 2);
        ASSERT_STREQ(ip_of(&out, 0, buf), "192.0.2.7");
        ASSERT_STREQ(ip_of(&out, 1, buf), "192.0.2.8");
        ASSERT_EQ(ntohs(((struct sockaddr_in *) &out.a[0])->sin_port), 443);
}

TEST(a_cname_chain_is_followed_in_any_order)
{
        struct egress_addrs out = {.n = 0};
        static const uint8_t six[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
        struct msg m;
        char buf[64];

        new_query("www.example.com", DNS_TYPE_AAAA);
        answer_to(&m, query, query_len, 0, false);
        add_rr(&m, "edge.cdn.test", DNS_TYPE_AAAA, six, 16); /* before the CNAMEs */
        add_cname(&m, "www.example.com", "lb.example.com");
        add_cname(&m, "lb.example.com", "edge.cdn.test");
        ASSERT_EQ(dns_answer_parse(m.b, m.len, 0x1234, "www.example.com", DNS_TYPE_AAAA, 80, &out),
                  0);
        ASSERT_EQ(out.n, 1);
        ASSERT_STREQ(ip_of(&out, 0, buf), "2001:db8::1");
}

TEST(what_the_server_says_is_kept_apart)
{
        struct egress_addrs out = {.n = 0};
        struct msg m;

        static const struct {
                uint8_t rcode;
                bool truncated;
                int want;
        } cases[] = {
            {3, false, -ENOENT},  /* NXDOMAIN */
            {0, false, -ENOENT},  /* no record: no address of that type */
            {2, false, -EAGAIN},  /* SERVFAIL */
            {5, false, -EAGAIN},  /* REFUSED */
            {0, true, -EMSGSIZE}, /* truncated */
        };

        new_query("gone.example.com", DNS_TYPE_A);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                answer_to(&m, query, query_len, cases[i].rcode, cases[i].truncated);
                ASSERT_EQ(parse(&m, "gone.example.com", DNS_TYPE_A, &out), cases[i].want);
        }
        ASSERT_EQ(out.n, 0);
}

TEST(an_answer_to_another_question_is_not_ours)
{
        struct egress_addrs out = {.n = 0};
        struct msg m;

        answered(&m, "a.example.com", "192.0.2.1");
        ASSERT_EQ(dns_answer_parse(m.b, m.len, 0x4321, "a.example.com", DNS_TYPE_A, 1, &out),
                  -EBADMSG);
        ASSERT_EQ(parse(&m, "b.example.com", DNS_TYPE_A, &out), -EBADMSG);
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_AAAA, &out), -EBADMSG);
        m.b[2] &= 0x7f; /* a query, not a response */
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_A, &out), -EBADMSG);
        ASSERT_EQ(out.n, 0);
}

TEST(malformed_answers_are_refused_without_reading_past_them)
{
        struct egress_addrs out = {.n = 0};
        struct msg m;

        answered(&m, "a.example.com", "192.0.2.1");
        for (size_t cut = 0; cut < m.len; cut++) {
                uint8_t *copy = malloc(cut ? cut : 1); /* exactly cut bytes, for ASan */

                memcpy(copy, m.b, cut);
                ASSERT_EQ(dns_answer_parse(copy, cut, 0x1234, "a.example.com", DNS_TYPE_A, 1, &out),
                          -EBADMSG);
                free(copy);
        }
        /* a good record, then a broken one: nothing of it is taken */
        answer_to(&m, query, query_len, 0, false);
        add_a(&m, NULL, "192.0.2.1");
        add_a(&m, NULL, "192.0.2.2");
        m.len -= 2;
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_A, &out), -EBADMSG);
        ASSERT_EQ(out.n, 0);
        /* a compression pointer that points at itself */
        answer_to(&m, query, query_len, 0, false);
        put16(&m, (uint16_t) (0xc000 | m.len));
        m.b[7] = 1;
        m.len += 10;
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_A, &out), -EBADMSG);
        /* a label holding a dot would pass for two labels */
        answer_to(&m, query, query_len, 0, false);
        add_a(&m, "a\x01.example.com", "192.0.2.1");
        m.b[query_len + 1] = 1;
        m.b[query_len + 2] = '.';
        ASSERT_TRUE(parse(&m, "a.example.com", DNS_TYPE_A, &out) < 0);
        /* a CNAME loop */
        answer_to(&m, query, query_len, 0, false);
        add_cname(&m, "a.example.com", "b.example.com");
        add_cname(&m, "b.example.com", "a.example.com");
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_A, &out), -EBADMSG);
        /* an A record that is not four bytes is no address */
        answer_to(&m, query, query_len, 0, false);
        add_rr(&m, NULL, DNS_TYPE_A, "\1\2\3\4\5", 5);
        ASSERT_EQ(parse(&m, "a.example.com", DNS_TYPE_A, &out), -ENOENT);
        ASSERT_EQ(out.n, 0);
}

/* ---- resolv.conf and hosts ---- */

static const char *ns_text(const struct dns_conf *c, size_t i, char *buf)
{
        const struct sockaddr_storage *ss = &c->ns[i];

        if (ss->ss_family == AF_INET)
                return inet_ntop(AF_INET, &((const struct sockaddr_in *) ss)->sin_addr, buf, 64);
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) ss)->sin6_addr, buf, 64);
}

TEST(resolv_conf_is_read_as_the_c_library_reads_it)
{
        static const char text[] = "# comment\n"
                                   "nameserver 192.0.2.53 ; trailing\n"
                                   "nameserver not-an-address\n"
                                   "nameserver 2001:db8::53\n"
                                   "search first.test\n"
                                   "search Corp.Example. lab.example\n"
                                   "options ndots:2 timeout:1 attempts:9 rotate use-vc\n"
                                   "nameserver 192.0.2.54\n"
                                   "nameserver 192.0.2.55\n";
        struct dns_conf c;
        char buf[64];

        dns_conf_parse(text, sizeof(text) - 1, 53, &c);
        ASSERT_EQ(c.n_ns, 3);
        ASSERT_STREQ(ns_text(&c, 0, buf), "192.0.2.53");
        ASSERT_STREQ(ns_text(&c, 1, buf), "2001:db8::53");
        ASSERT_STREQ(ns_text(&c, 2, buf), "192.0.2.54");
        ASSERT_EQ(ntohs(((struct sockaddr_in *) &c.ns[0])->sin_port), 53);
        ASSERT_EQ(c.n_search, 2); /* the last search line wins */
        ASSERT_STREQ(c.search[0], "corp.example");
        ASSERT_STREQ(c.search[1], "lab.example");
        ASSERT_EQ(c.ndots, 2);
        ASSERT_EQ(c.timeout_ms, 1000);
        ASSERT_EQ(c.attempts, DNS_ATTEMPTS_MAX); /* clamped */
        ASSERT_TRUE(c.use_tcp);
}

TEST(an_empty_resolv_conf_asks_the_local_host)
{
        struct dns_conf c;
        char buf[64];

        dns_conf_parse("domain\n", 7, 53, &c);
        ASSERT_EQ(c.n_ns, 2);
        ASSERT_STREQ(ns_text(&c, 0, buf), "127.0.0.1");
        ASSERT_STREQ(ns_text(&c, 1, buf), "::1");
        ASSERT_EQ(c.n_search, 0);
        ASSERT_EQ(c.ndots, 1);
        ASSERT_EQ(c.timeout_ms, 5000);
        ASSERT_EQ(c.attempts, 2);
        dns_conf_load("/nonexistent/resolv.conf", &c);
        ASSERT_EQ(c.n_ns, 2);
}

TEST(the_hosts_file_lists_names_without_case)
{
        char path[] = "/tmp/test-egress-dns-hosts-XXXXXX";
        static const char text[] = "127.0.0.1 localhost\n"
                                   "192.0.2.10 Build.Example. build # the build host\n"
                                   "not-an-address ignored.example\n"
                                   "2001:db8::10 build.example\n"
                                   "# 192.0.2.99 commented.example\n";
        struct egress_addrs out = {.n = 0};
        char buf[64];
        int fd = mkstemp(path);

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, text, sizeof(text) - 1), (ssize_t) (sizeof(text) - 1));
        close(fd);
        ASSERT_EQ(dns_hosts_lookup(path, "build.example", 8080, &out), 0);
        ASSERT_EQ(out.n, 2);
        ASSERT_STREQ(ip_of(&out, 0, buf), "192.0.2.10");
        ASSERT_STREQ(ip_of(&out, 1, buf), "2001:db8::10");
        ASSERT_EQ(ntohs(((struct sockaddr_in6 *) &out.a[1])->sin6_port), 8080);
        out.n = 0;
        ASSERT_EQ(dns_hosts_lookup(path, "ignored.example", 1, &out), -ENOENT);
        ASSERT_EQ(dns_hosts_lookup(path, "commented.example", 1, &out), -ENOENT);
        ASSERT_EQ(dns_hosts_lookup("/nonexistent/hosts", "build.example", 1, &out), -ENOENT);
        unlink(path);
}

/* ---- whole lookups against a name server of our own ---- */

enum server_mode {
        SERVE_ANSWER,   /* A 192.0.2.1 for names starting "ok", NXDOMAIN for the rest */
        SERVE_SERVFAIL, /* SERVFAIL for everything */
        SERVE_SILENT,   /* never answers */
        SERVE_FORGED,   /* a reply with a wrong id first, then the real one */
        SERVE_TRUNCATE, /* TC over UDP; the answer over TCP */
};

struct server {
        enum server_mode mode;
        int udp, tcp;
        unsigned short port;
        char asked[8][DNS_NAME_MAX + 1]; /* names of the A questions, in order */
        size_t n_asked;
        pthread_t thread;
};

static void question_name(const uint8_t *q, size_t len, char *out)
{
        size_t pos = 12, n = 0;

        while (pos < len && q[pos]) {
                if (n)
                        out[n++] = '.';
                memcpy(out + n, q + pos + 1, q[pos]);
                n += q[pos];
                pos += 1 + q[pos];
        }
        out[n] = '\0';
}

static void reply_for(struct server *s, const uint8_t *q, size_t len, bool tcp, struct msg *m)
{
        char name[DNS_NAME_MAX + 1];
        uint16_t type = (uint16_t) ((q[len - 4] << 8) | q[len - 3]);

        question_name(q, len, name);
        if (type == DNS_TYPE_A && s->n_asked < 8 && !tcp)
                snprintf(s->asked[s->n_asked++], sizeof(s->asked[0]), "%s", name);
        if (s->mode == SERVE_SERVFAIL) {
                answer_to(m, q, len, 2, false);
        } else if (s->mode == SERVE_TRUNCATE && !tcp) {
                answer_to(m, q, len, 0, true);
        } else if (strncmp(name, "ok", 2) != 0) {
                answer_to(m, q, len, 3, false);
        } else {
                answer_to(m, q, len, 0, false);
                if (type == DNS_TYPE_A)
                        add_a(m, NULL, "192.0.2.1");
        }
}

static void serve_tcp(struct server *s)
{
        int c = accept(s->tcp, NULL, NULL);
        uint8_t head[2], q[512];
        struct msg m;

        if (c < 0)
                return;
        while (read(c, head, 2) == 2) {
                size_t len = (size_t) ((head[0] << 8) | head[1]);

                if (len > sizeof(q) || read(c, q, len) != (ssize_t) len)
                        break;
                reply_for(s, q, len, true, &m);
                head[0] = (uint8_t) (m.len >> 8);
                head[1] = (uint8_t) m.len;
                if (write(c, head, 2) != 2 || write(c, m.b, m.len) != (ssize_t) m.len)
                        break;
        }
        close(c);
}

static void *serve(void *arg)
{
        struct server *s = arg;

        for (;;) {
                struct sockaddr_storage from;
                socklen_t flen = sizeof(from);
                uint8_t q[512];
                struct msg m;
                ssize_t n = recvfrom(s->udp, q, sizeof(q), 0, (struct sockaddr *) &from, &flen);

                if (n <= 0)
                        return NULL;
                if (s->mode == SERVE_SILENT)
                        continue;
                reply_for(s, q, (size_t) n, false, &m);
                if (s->mode == SERVE_FORGED) {
                        struct msg forged = m;

                        forged.b[0] ^= 0xff;
                        (void) sendto(s->udp, forged.b, forged.len, 0, (struct sockaddr *) &from,
                                      flen);
                }
                (void) sendto(s->udp, m.b, m.len, 0, (struct sockaddr *) &from, flen);
                if (s->mode == SERVE_TRUNCATE)
                        serve_tcp(s);
        }
}

static int server_start(struct server *s, enum server_mode mode)
{
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t alen = sizeof(a);

        memset(s, 0, sizeof(*s));
        s->mode = mode;
        s->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        s->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s->udp < 0 || s->tcp < 0 || bind(s->udp, (struct sockaddr *) &a, sizeof(a)) < 0 ||
            getsockname(s->udp, (struct sockaddr *) &a, &alen) < 0)
                return -1;
        s->port = ntohs(a.sin_port);
        /* the same port for TCP; a port taken for TCP only fails the test */
        if (bind(s->tcp, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(s->tcp, 4) < 0)
                return -1;
        return pthread_create(&s->thread, NULL, serve, s) == 0 ? 0 : -1;
}

static void server_stop(struct server *s)
{
        shutdown(s->udp, SHUT_RDWR);
        shutdown(s->tcp, SHUT_RDWR);
        pthread_join(s->thread, NULL);
        close(s->udp);
        close(s->tcp);
}

/* A resolv.conf naming the servers given (their ports come from the first). */
static void conf_for(struct dns_conf *c, const char *extra, struct server *a, struct server *b)
{
        char text[512];
        int n = snprintf(text, sizeof(text), "nameserver 127.0.0.1\n%s%s\n",
                         b ? "nameserver 127.0.0.1\n" : "", extra);

        dns_conf_parse(text, (size_t) n, a->port, c);
        if (b)
                ((struct sockaddr_in *) &c->ns[1])->sin_port = htons(b->port);
}

/* Answered plainly, past a forged reply (a wrong id, sent first), and
 * over TCP after a truncated UDP answer: the same address each time. */
TEST(a_name_is_asked_of_the_server_and_answered)
{
        static const enum server_mode modes[] = {SERVE_ANSWER, SERVE_FORGED, SERVE_TRUNCATE};

        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
                struct egress_addrs out = {.n = 0};
                struct server s;
                struct dns_conf c;
                char buf[64];

                ASSERT_OK(server_start(&s, modes[i]));
                conf_for(&c, "options timeout:2", &s, NULL);
                ASSERT_EQ(dns_lookup(&c, "ok.example", 443, egress_now_ms() + 5000, &out), 0);
                ASSERT_EQ(out.n, 1);
                ASSERT_STREQ(ip_of(&out, 0, buf), "192.0.2.1");
                ASSERT_EQ(ntohs(((struct sockaddr_in *) &out.a[0])->sin_port), 443);
                if (modes[i] == SERVE_ANSWER)
                        ASSERT_EQ(
                            dns_lookup(&c, "missing.example", 443, egress_now_ms() + 5000, &out),
                            -ENOENT);
                server_stop(&s);
        }
}

TEST(the_search_list_comes_first_for_a_name_with_few_dots)
{
        struct egress_addrs out = {.n = 0};
        struct server s;
        struct dns_conf c;

        ASSERT_OK(server_start(&s, SERVE_ANSWER));
        conf_for(&c, "search nope.test ok.corp", &s, NULL);
        /* no dot (< ndots 1): db.nope.test, then db.ok.corp (NXDOMAIN:
         * it does not start "ok"), then db itself */
        ASSERT_EQ(dns_lookup(&c, "db", 1, egress_now_ms() + 5000, &out), -ENOENT);
        ASSERT_EQ(s.n_asked, 3);
        ASSERT_STREQ(s.asked[0], "db.nope.test");
        ASSERT_STREQ(s.asked[1], "db.ok.corp");
        ASSERT_STREQ(s.asked[2], "db");
        /* one dot: as it is first, and found there */
        s.n_asked = 0;
        ASSERT_EQ(dns_lookup(&c, "ok.svc", 1, egress_now_ms() + 5000, &out), 0);
        ASSERT_EQ(s.n_asked, 1);
        ASSERT_STREQ(s.asked[0], "ok.svc");
        server_stop(&s);
}

TEST(a_failing_server_passes_the_question_to_the_next)
{
        struct egress_addrs out = {.n = 0};
        struct server bad, good;
        struct dns_conf c;

        ASSERT_OK(server_start(&bad, SERVE_SERVFAIL));
        ASSERT_OK(server_start(&good, SERVE_ANSWER));
        conf_for(&c, "options timeout:2 attempts:1", &bad, &good);
        ASSERT_EQ(dns_lookup(&c, "ok.example", 1, egress_now_ms() + 5000, &out), 0);
        ASSERT_EQ(out.n, 1);
        ASSERT_EQ(bad.n_asked, 1);
        ASSERT_EQ(good.n_asked, 1);
        /* failing everywhere is not "no such name" */
        conf_for(&c, "options timeout:2 attempts:1", &bad, NULL);
        ASSERT_EQ(dns_lookup(&c, "ok.example", 1, egress_now_ms() + 5000, &out), -EAGAIN);
        server_stop(&bad);
        server_stop(&good);
}

TEST(a_silent_server_does_not_hold_the_lookup_past_its_deadline)
{
        struct egress_addrs out = {.n = 0};
        struct server s;
        struct dns_conf c;
        int64_t t0 = egress_now_ms();

        ASSERT_OK(server_start(&s, SERVE_SILENT));
        conf_for(&c, "options timeout:5 attempts:2", &s, NULL);
        ASSERT_EQ(dns_lookup(&c, "ok.example", 1, t0 + 300, &out), -EAGAIN);
        ASSERT_TRUE(egress_now_ms() - t0 < 2000);
        ASSERT_TRUE(egress_now_ms() - t0 >= 290);
        server_stop(&s);
}

TAP_MAIN()
