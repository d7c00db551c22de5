/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the pure parts of bento-egress (hooks/egress): rule
 * validation and matching (docs/manifest.md, "NETWORK RULES"), the upstream guard's address
 * classification with its IPv4-in-IPv6 and NAT64 cases (docs/egress.md, "The upstream guard"), and
 * the request parser (docs/egress.md, "How it works").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "guard.h"
#include "hookstate.h"
#include "options.h"
#include "io.h"
#include "relay.h"
#include "report.h"
#include "request.h"
#include "rules.h"
#include "tap.h"

static struct bento_err err;

/* Parse a rule; NULL when refused (err holds why). */
static const struct egress_rule *rule(const char *spec)
{
        static struct egress_rule r;

        bento_err_clear(&err);
        return egress_rule_parse(spec, &r, &err) < 0 ? NULL : &r;
}

static int refused_with(const char *spec, const char *want)
{
        if (rule(spec)) {
                printf("#   accepted: %s\n", spec);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   \"%s\": message \"%s\" lacks \"%s\"\n", spec, err.msg, want);
                return 0;
        }
        return 1;
}

TEST(rule_hosts_and_ports)
{
        ASSERT_STREQ(rule("Example.COM:443")->host, "example.com");
        ASSERT_STREQ(rule("[2001:db8::1]:80")->host, "2001:db8::1");
        ASSERT_STREQ(rule("2001:db8::1:80")->port, "80");
        ASSERT_STREQ(rule(".example.com:1-100")->port, "1-100");
        ASSERT_STREQ(rule("*:*")->host, "*");
        ASSERT_TRUE(rule("10.0.0.5:22"));
        ASSERT_TRUE(rule("a-b.c9:65535"));
}

TEST(rule_refusals_say_why)
{
        ASSERT_TRUE(refused_with(":443", "empty host"));
        ASSERT_TRUE(refused_with("a%b:1", "control or reserved"));
        ASSERT_TRUE(refused_with(".:1", "suffix wildcard needs a domain"));
        ASSERT_TRUE(refused_with(".10.0.0.1:1", "cannot cover an IP"));
        ASSERT_TRUE(refused_with("[::ffff:10.0.0.1]:1", "write it as 10.0.0.1"));
        ASSERT_TRUE(refused_with("[2001:DB8::1]:1", "write it as 2001:db8::1"));
        ASSERT_TRUE(refused_with("127.1:1", "not a canonical IP address"));
        ASSERT_TRUE(refused_with("2130706433:1", "not a canonical IP address"));
        ASSERT_TRUE(refused_with("127.0.0.01:1", "not a canonical IP address"));
        ASSERT_TRUE(refused_with("foo.123:1", "not a valid hostname"));
        ASSERT_TRUE(refused_with("-a.com:1", "not a valid hostname"));
        ASSERT_TRUE(refused_with("a..com:1", "not a valid hostname"));
        ASSERT_TRUE(refused_with("example.com.:1", "not a valid hostname"));
        ASSERT_TRUE(refused_with("example.com:", "empty port"));
        ASSERT_TRUE(refused_with("example.com:08080", "plain decimal"));
        ASSERT_TRUE(refused_with("example.com:+443", "plain decimal"));
        ASSERT_TRUE(refused_with("example.com:0", "out of range"));
        ASSERT_TRUE(refused_with("example.com:65536", "out of range"));
        ASSERT_TRUE(refused_with("example.com:9-3", "inverted"));
        ASSERT_TRUE(refused_with("example.com", "no port"));
        ASSERT_TRUE(refused_with("[example.com]:1", "IPv6 literals only"));
}

static bool allows(const char *const *specs, size_t n, const char *host, const char *port)
{
        struct egress_rule rules[8];
        char h[EGRESS_HOST_MAX + 1];

        for (size_t i = 0; i < n; i++)
                if (egress_rule_parse(specs[i], &rules[i], &err) < 0)
                        return false;
        snprintf(h, sizeof(h), "%s", host);
        bento_host_normalise(h);
        return egress_rules_allow(rules, n, h, port);
}

TEST(matching)
{
        static const char *const exact[] = {"EXAMPLE.COM:443"};
        static const char *const suffix[] = {".example.com:443"};
        static const char *const any[] = {"*:*"};
        static const char *const range[] = {"h.test:8000-8099"};
        static const char *const ip[] = {"192.0.2.7:80"};

        ASSERT_TRUE(allows(exact, 1, "example.com", "443"));
        ASSERT_TRUE(allows(exact, 1, "Example.Com.", "443"));
        ASSERT_TRUE(!allows(exact, 1, "example.com", "80"));
        ASSERT_TRUE(!allows(exact, 1, "api.example.com", "443"));
        ASSERT_TRUE(allows(suffix, 1, "a.example.com", "443"));
        ASSERT_TRUE(allows(suffix, 1, "x.y.example.com", "443"));
        ASSERT_TRUE(!allows(suffix, 1, "example.com", "443"));
        ASSERT_TRUE(!allows(suffix, 1, "badexample.com", "443"));
        ASSERT_TRUE(allows(any, 1, "anything.test", "1"));
        ASSERT_TRUE(allows(range, 1, "h.test", "8000"));
        ASSERT_TRUE(allows(range, 1, "h.test", "8099"));
        ASSERT_TRUE(!allows(range, 1, "h.test", "8100"));
        ASSERT_TRUE(allows(ip, 1, "192.0.2.7", "80"));
        ASSERT_TRUE(!allows(ip, 0, "192.0.2.7", "80")); /* no rules: deny */
        /* Unicode is not folded: only A-Z are lowered */
        ASSERT_TRUE(!allows(exact, 1, "EXAMPLE.CO\xc3\x8d", "443"));
}

TEST(literal_grant)
{
        struct egress_rule r[2];

        ASSERT_OK(egress_rule_parse("10.0.0.5:22", &r[0], &err));
        ASSERT_OK(egress_rule_parse("2001:db8::5:*", &r[1], &err));
        ASSERT_TRUE(egress_literal_grant(r, 2, "10.0.0.5", "22"));
        ASSERT_TRUE(!egress_literal_grant(r, 2, "10.0.0.5", "23"));
        ASSERT_TRUE(!egress_literal_grant(r, 2, "internal.corp", "22"));
        ASSERT_TRUE(egress_literal_grant(r, 2, "2001:db8:0::5", "1"));
}

static enum egress_class v4(const char *s)
{
        uint8_t a[4];

        if (inet_pton(AF_INET, s, a) != 1)
                return (enum egress_class) - 1;
        return egress_classify_v4(a);
}

static enum egress_class v6n(const char *s, const struct egress_nat64 *n)
{
        uint8_t a[16];

        if (inet_pton(AF_INET6, s, a) != 1)
                return (enum egress_class) - 1;
        return egress_classify_v6(a, n);
}

static enum egress_class v6(const char *s)
{
        return v6n(s, NULL);
}

TEST(guard_ipv4)
{
        static const char *const reserved[] = {"127.0.0.1",       "127.255.0.1", "169.254.169.254",
                                               "169.254.0.1",     "0.0.0.0",     "0.1.2.3",
                                               "224.0.0.1",       "239.1.1.1",   "240.0.0.1",
                                               "255.255.255.255", "198.18.0.1",  "198.19.255.255"};
        static const char *const private[] = {"10.0.0.1",    "172.16.0.1", "172.31.255.255",
                                              "192.168.1.1", "100.64.0.1", "100.127.255.255"};
        static const char *const public[] = {"192.0.2.1",      "198.51.100.1", "203.0.113.1",
                                             "172.32.0.1",     "100.128.0.1",  "198.20.0.1",
                                             "223.255.255.255"};

        for (size_t i = 0; i < sizeof(reserved) / sizeof(*reserved); i++)
                if (v4(reserved[i]) != EGRESS_RESERVED)
                        TAP_FAIL("%s should be reserved", reserved[i]);
        for (size_t i = 0; i < sizeof(private) / sizeof(*private); i++)
                if (v4(private[i]) != EGRESS_PRIVATE)
                        TAP_FAIL("%s should be private", private[i]);
        for (size_t i = 0; i < sizeof(public) / sizeof(*public); i++)
                if (v4(public[i]) != EGRESS_PUBLIC)
                        TAP_FAIL("%s should be public", public[i]);
}

TEST(guard_ipv6)
{
        ASSERT_EQ(v6("::1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("::"), EGRESS_RESERVED);
        ASSERT_EQ(v6("fe80::1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("fec0::1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("ff02::1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("fd00::1"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("fc00::1"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("2001:db8::1"), EGRESS_PUBLIC);
        /* IPv4 inside IPv6, judged by the IPv4 */
        ASSERT_EQ(v6("::ffff:127.0.0.1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("::ffff:169.254.169.254"), EGRESS_RESERVED);
        ASSERT_EQ(v6("::ffff:10.1.2.3"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("::ffff:192.0.2.1"), EGRESS_PUBLIC);
        ASSERT_EQ(v6("::127.0.0.1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("::ffff:0:10.0.0.1"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("64:ff9b::7f00:1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("64:ff9b::a9fe:a9fe"), EGRESS_RESERVED);
        ASSERT_EQ(v6("64:ff9b::c000:201"), EGRESS_PUBLIC);
        ASSERT_EQ(v6("2002:7f00:1::1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("2002:c0a8:101::1"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("2001:db8::5efe:a00:1"), EGRESS_PRIVATE); /* ISATAP over 10.0.0.1 */
        ASSERT_EQ(v6("2001:db8::200:5efe:7f00:1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("2001:db8::5efe:c000:201"), EGRESS_PUBLIC);
        /* RFC 8215 local-use: private at least, reserved when it decodes so */
        ASSERT_EQ(v6("64:ff9b:1::c000:201"), EGRESS_PRIVATE);
        ASSERT_EQ(v6("64:ff9b:1::7f00:1"), EGRESS_RESERVED);
        ASSERT_EQ(v6("64:ff9b:1:7f00:1::"), EGRESS_RESERVED); /* /48 */
}

TEST(nat64_discovery_and_verdicts)
{
        struct egress_nat64 n = {0}, blackout = {.inconclusive = true};
        uint8_t a[16];

        /* a /96 DNS64 at 2001:db8:64::/96 answering 192.0.0.170 */
        inet_pton(AF_INET6, "2001:db8:64::c000:aa", a);
        ASSERT_TRUE(egress_nat64_add_answer(&n, a));
        ASSERT_EQ(n.n, 1);
        ASSERT_EQ(n.prefixes[0].len, 96);
        inet_pton(AF_INET6, "2001:db8:64::c000:ab", a);
        ASSERT_TRUE(egress_nat64_add_answer(&n, a)); /* same prefix: not added twice */
        ASSERT_EQ(n.n, 1);
        inet_pton(AF_INET6, "2001:db8::1", a);
        ASSERT_TRUE(!egress_nat64_add_answer(&n, a));
        ASSERT_EQ(v6n("2001:db8:64::7f00:1", &n), EGRESS_RESERVED);
        ASSERT_EQ(v6n("2001:db8:64::a00:1", &n), EGRESS_PRIVATE);
        ASSERT_EQ(v6n("2001:db8:64::c000:201", &n), EGRESS_PUBLIC);
        /* outside the prefix, a decoding to non-public space is private */
        ASSERT_EQ(v6n("2001:db9::7f00:1", &n), EGRESS_PRIVATE);
        /* a /64 prefix: the IPv4 sits at bytes 9-12, byte 8 is zero */
        struct egress_nat64 m = {0};
        inet_pton(AF_INET6, "2001:db8:1:2:c0:0:aa00::", a);
        ASSERT_TRUE(egress_nat64_add_answer(&m, a));
        ASSERT_EQ(m.prefixes[0].len, 64);
        /* discovery failed: otherwise-public IPv6 is private */
        ASSERT_EQ(v6n("2001:db8::1", &blackout), EGRESS_PRIVATE);
        ASSERT_EQ(v6n("::ffff:192.0.2.1", &blackout), EGRESS_PUBLIC);
}

static void parse(const char *text, struct egress_request *r)
{
        ssize_t end = egress_head_end(text, strlen(text));

        egress_request_parse(text, end > 0 ? (size_t) end : strlen(text), r);
}

TEST(head_end)
{
        ASSERT_EQ(egress_head_end("CONNECT a:1 HTTP/1.1\r\n\r\nXYZ", 27), 24);
        ASSERT_EQ(egress_head_end("CONNECT a:1 HTTP/1.1\n\nX", 23), 22);
        ASSERT_EQ(egress_head_end("CONNECT a:1 HTTP/1.1\r\nHost: a\r\n", 31), -1);
        ASSERT_EQ(egress_head_end("\r\n", 2), 2);
        ASSERT_EQ(egress_head_end("", 0), -1);
}

TEST(requests)
{
        struct egress_request r;

        parse("CONNECT Example.COM.:443 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_CONNECT);
        ASSERT_STREQ(r.host, "example.com");
        ASSERT_STREQ(r.port, "443");
        parse("connect [2001:DB8::1]:8443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_CONNECT);
        ASSERT_STREQ(r.host, "2001:db8::1");
        parse("GET http://user@Example.com/x HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_UNTUNNELED);
        ASSERT_STREQ(r.host, "example.com");
        ASSERT_STREQ(r.port, "80");
        parse("POST https://h.test:8443?q HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_UNTUNNELED);
        ASSERT_STREQ(r.port, "8443");
        parse("GET / HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_BAD);
        ASSERT_STREQ(r.reason, "expected a CONNECT request");
        parse("GET ftp://h.test/ HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "expected a CONNECT request");
        parse("CONNECT h.test:08080 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "malformed target port \"08080\"");
        parse("CONNECT h.test:0 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "malformed target port \"0\"");
        parse("CONNECT h.test:123456 HTTP/1.1\r\n\r\n", &r);
        ASSERT_CONTAINS(r.reason, "malformed target port");
        parse("CONNECT .:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "empty target host");
        parse("CONNECT A..:443 HTTP/1.1\r\n\r\n", &r); /* exactly one dot goes */
        ASSERT_EQ(r.kind, EGRESS_REQ_CONNECT);
        ASSERT_STREQ(r.host, "a.");
        parse("GET http://../ HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_UNTUNNELED);
        ASSERT_STREQ(r.host, ".");
        parse("CONNECT :443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "empty target host");
        parse("CONNECT h.test HTTP/1.1\r\n\r\n", &r);
        ASSERT_EQ(r.kind, EGRESS_REQ_BAD);
        ASSERT_CONTAINS(r.reason, "missing port");
        ASSERT_STREQ(r.host, "h.test"); /* still recorded as a destination */
        parse("CONNECT 2001:db8::1:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_CONTAINS(r.reason, "[address]:port");
        parse("CONNECT h\x01.test:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "target contains a control character");
        parse("CONNECT h\xe2\x80\x8b.test:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "target contains a zero-width or invisible character");
        parse("CONNECT h\xe2\x80\xae.test:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "target contains a bidirectional formatting character");
        parse("CONNECT h\xff.test:443 HTTP/1.1\r\n\r\n", &r);
        ASSERT_STREQ(r.reason, "target contains invalid UTF-8");
        parse("CONNECT\r\n\r\n", &r);
        ASSERT_CONTAINS(r.reason, "missing host:port");
}

TEST(target_format)
{
        char buf[64];

        egress_format_target("2001:db8::1", "443", buf, sizeof(buf));
        ASSERT_STREQ(buf, "[2001:db8::1]:443");
        egress_format_target("h.test", "80", buf, sizeof(buf));
        ASSERT_STREQ(buf, "h.test:80");
}

TEST(hook_state)
{
        static const char doc[] = "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"created\","
                                  "\"pid\":4242,\"bundle\":\"/b\",\"annotations\":"
                                  "{\"org.bento.egress\":\"a.test:443 b.test:80\"}}";
        struct egress_hook_state st;

        ASSERT_OK(egress_hook_state_parse(doc, strlen(doc), "org.bento.egress", &st, &err));
        ASSERT_EQ(st.pid, 4242);
        ASSERT_STREQ(st.id, "c1");
        ASSERT_STREQ(st.annotation, "a.test:443 b.test:80");
        egress_hook_state_done(&st);
        ASSERT_TRUE(egress_hook_state_parse("{\"pid\":0}", 9, NULL, &st, &err) < 0);
        ASSERT_CONTAINS(err.msg, "no usable \"pid\"");
        ASSERT_TRUE(egress_hook_state_parse("{\"pid\":1,\"pid\":2}", 17, NULL, &st, &err) < 0);
        ASSERT_TRUE(egress_hook_state_parse("[1]", 3, NULL, &st, &err) < 0);
}

/* The configuration holds a large rule table: static, not on the stack. */
static struct egress_config cfg;

TEST(options_and_annotation_rules)
{
        char *argv[] = {"bento-egress",
                        "--allow",
                        "a.test:443",
                        "--max-connections",
                        "3",
                        "--idle-timeout",
                        "7",
                        "--report",
                        "/r",
                        NULL};
        char *bad[] = {"bento-egress", "--allow", "a.test", NULL};
        char *extra[] = {"bento-egress", "stray", NULL};

        ASSERT_EQ(egress_options_parse(9, argv, &cfg, &err), EGRESS_MODE_HOOK);
        ASSERT_EQ(cfg.n_rules, 1);
        ASSERT_EQ(cfg.limits.max_conns, 3);
        ASSERT_EQ(cfg.limits.idle_ms, 7000);
        ASSERT_EQ(cfg.limits.head_ms, 30000);
        ASSERT_STREQ(cfg.report, "/r");
        ASSERT_OK(
            egress_rules_add_list(&cfg, " b.test:80,\n[2001:db8::1]:1  ", "annotation", &err));
        ASSERT_EQ(cfg.n_rules, 3);
        ASSERT_STREQ(cfg.rules[2].host, "2001:db8::1");
        ASSERT_TRUE(egress_rules_add_list(&cfg, "c.test", "annotation", &err) < 0);
        ASSERT_CONTAINS(err.msg, "annotation: rule \"c.test\" has no port");
        ASSERT_TRUE(egress_options_parse(3, bad, &cfg, &err) < 0);
        ASSERT_TRUE(egress_options_parse(2, extra, &cfg, &err) < 0);
        ASSERT_CONTAINS(err.msg, "unexpected argument");
}

TEST(report_lines_and_cap)
{
        char path[] = "/tmp/test-egress-report.XXXXXX";
        cleanup_close int fd = mkstemp(path);
        char buf[4096] = {0};
        ssize_t n;

        ASSERT_TRUE(fd >= 0);
        unlink(path);
        egress_report_init(fd, 2);
        egress_report_decision(EGRESS_DENY, "a.test", "443", "why");
        egress_report_decision(EGRESS_REFUSED, NULL, NULL, "bad");
        egress_report_decision(EGRESS_ALLOW, "b.test", "1", NULL);
        egress_report_decision(EGRESS_ALLOW, "b.test", "2", NULL);
        egress_report_init(-1, 0);
        n = pread(fd, buf, sizeof(buf) - 1, 0);
        ASSERT_TRUE(n > 0);
        ASSERT_STREQ(buf,
                     "{\"event\":\"decision\",\"decision\":\"deny\",\"host\":\"a.test\","
                     "\"port\":\"443\",\"status\":403,\"reason\":\"why\",\"remedy\":\""
                     "the destination is not in the network allowlist: add a rule for this "
                     "host and port (manifest network:, or bento-egress --allow HOST:PORT) and "
                     "re-approve; the program saw a 403 from the proxy\"}\n"
                     "{\"event\":\"decision\",\"decision\":\"refused\",\"status\":400,"
                     "\"reason\":\"bad\",\"remedy\":\"the program sent something other "
                     "than a well-formed CONNECT host:port request; it saw a 400 from the "
                     "proxy\"}\n"
                     "{\"event\":\"truncated\",\"limit\":2}\n");
}

/* A relay between two socket pairs, run in a thread; the test plays both
 * peers through the other ends. */
struct relay_run {
        int client_far, upstream_far; /* the test's ends */
        int client, upstream;         /* the relay's ends */
        struct egress_limits lim;
        int result;
        pthread_t thread;
};

static void *relay_thread(void *arg)
{
        struct relay_run *r = arg;

        r->result = egress_relay(r->client, r->upstream, &r->lim);
        return NULL;
}

static int relay_start(struct relay_run *r, int idle_ms, int first_byte_ms)
{
        int a[2], b[2];

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a) < 0 ||
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b) < 0)
                return -1;
        r->client_far = a[0];
        r->client = a[1];
        r->upstream = b[0];
        r->upstream_far = b[1];
        fcntl(r->client, F_SETFL, O_NONBLOCK);
        fcntl(r->upstream, F_SETFL, O_NONBLOCK);
        r->lim = (struct egress_limits){.idle_ms = idle_ms,
                                        .first_byte_ms = first_byte_ms,
                                        .tunnel_ms = 60000,
                                        .write_ms = 1000};
        return pthread_create(&r->thread, NULL, relay_thread, r) == 0 ? 0 : -1;
}

static void relay_finish(struct relay_run *r)
{
        pthread_join(r->thread, NULL);
        close(r->client);
        close(r->upstream);
        close(r->client_far);
        close(r->upstream_far);
}

static ssize_t read_all(int fd, char *buf, size_t size)
{
        size_t n = 0;

        while (n < size) {
                ssize_t r = read(fd, buf + n, size - n);

                if (r <= 0)
                        return r < 0 ? -1 : (ssize_t) n;
                n += (size_t) r;
        }
        return (ssize_t) n;
}

TEST(relay_half_close_both_ways)
{
        struct relay_run r;
        char buf[16] = {0};

        ASSERT_OK(relay_start(&r, 5000, 5000));
        ASSERT_EQ(write(r.client_far, "abc", 3), 3);
        ASSERT_OK(shutdown(r.client_far, SHUT_WR));
        ASSERT_EQ(read_all(r.upstream_far, buf, sizeof(buf)), 3); /* then EOF */
        ASSERT_STREQ(buf, "abc");
        ASSERT_EQ(write(r.upstream_far, "xyz!", 4), 4);
        ASSERT_OK(shutdown(r.upstream_far, SHUT_WR));
        memset(buf, 0, sizeof(buf));
        ASSERT_EQ(read_all(r.client_far, buf, sizeof(buf)), 4);
        ASSERT_STREQ(buf, "xyz!");
        relay_finish(&r);
        ASSERT_EQ(r.result, 0);
}

TEST(relay_idle_and_first_byte_timeouts)
{
        struct relay_run r;
        int64_t t0 = egress_now_ms();

        /* the upstream never answers: the first-byte deadline ends it */
        ASSERT_OK(relay_start(&r, 5000, 200));
        ASSERT_EQ(write(r.client_far, "hello", 5), 5);
        relay_finish(&r);
        ASSERT_EQ(r.result, -ETIMEDOUT);
        ASSERT_TRUE(egress_now_ms() - t0 < 3000);
        /* nobody says anything: the idle timeout ends it */
        t0 = egress_now_ms();
        ASSERT_OK(relay_start(&r, 200, 0));
        relay_finish(&r);
        ASSERT_EQ(r.result, -ETIMEDOUT);
        ASSERT_TRUE(egress_now_ms() - t0 >= 200);
}

TAP_MAIN()
