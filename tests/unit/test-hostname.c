/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host-name grammar of network rules (bundle/hostname.c) against both
 * sides of the policy/enforcement boundary: every row of one table is put
 * to the manifest checker (translate/manifest/netrule.c) and to
 * bento-egress's rule parser (hooks/egress/rules.c), which must both give
 * the row's verdict, in the same words.  Then one table of matches, put to
 * the manifest's matcher and to the proxy's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hostname.h"
#include "manifest/netrule.h"
#include "rules.h"
#include "tap.h"

struct host_row {
        const char *host;
        enum bento_host_problem want;
        const char *words; /* part of the refusal, NULL when accepted */
};

static const struct host_row hosts[] = {
    {"*", BENTO_HOST_OK, NULL},
    {"example.com", BENTO_HOST_OK, NULL},
    {"Example.COM", BENTO_HOST_OK, NULL},
    {".example.com", BENTO_HOST_OK, NULL},
    {"localhost", BENTO_HOST_OK, NULL},
    {"x-1.b2.io", BENTO_HOST_OK, NULL},
    {"a.b2c", BENTO_HOST_OK, NULL},
    {"10.0.0.5", BENTO_HOST_OK, NULL},
    {"2001:db8::1", BENTO_HOST_OK, NULL},
    {"::1", BENTO_HOST_OK, NULL},
    {"", BENTO_HOST_EMPTY, "empty host"},
    {"a b.com", BENTO_HOST_RESERVED, "contains control or reserved characters"},
    {"fe80::1%eth0", BENTO_HOST_RESERVED, "contains control or reserved characters"},
    {"a\tb", BENTO_HOST_RESERVED, "contains control or reserved characters"},
    {".", BENTO_HOST_BARE_DOT, "suffix wildcard needs a domain after the dot"},
    {".10.0.0.1", BENTO_HOST_SUFFIX_IP, "suffix wildcard cannot cover an IP address"},
    {".::1", BENTO_HOST_SUFFIX_IP, "suffix wildcard cannot cover an IP address"},
    {"::ffff:10.0.0.1", BENTO_HOST_NOT_CANONICAL, "is not canonical (write it as 10.0.0.1)"},
    {"2001:DB8::1", BENTO_HOST_NOT_CANONICAL, "(write it as 2001:db8::1)"},
    {"2001:db8:0:0:0:0:0:1", BENTO_HOST_NOT_CANONICAL, "(write it as 2001:db8::1)"},
    {"127.1", BENTO_HOST_PARTIAL_IP, "is not a canonical IP address"},
    {"2130706433", BENTO_HOST_PARTIAL_IP, "is not a canonical IP address"},
    {"127.0.0.01", BENTO_HOST_PARTIAL_IP, "is not a canonical IP address"},
    {".1.2.3", BENTO_HOST_PARTIAL_IP, "is not a canonical IP address"},
    {"foo.123", BENTO_HOST_BAD_NAME, "host \"foo.123\" is not a valid hostname"},
    {"-a.com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"a-.com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"a..com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"..com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"a.com.", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"a_b.com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"*.example.com", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
    {"caf\xc3\xa9.fr", BENTO_HOST_BAD_NAME, "is not a valid hostname"},
};

struct port_row {
        const char *port;
        enum bento_port_problem want;
        const char *words;
};

static const struct port_row ports[] = {
    {"*", BENTO_PORT_OK, NULL},
    {"1", BENTO_PORT_OK, NULL},
    {"443", BENTO_PORT_OK, NULL},
    {"65535", BENTO_PORT_OK, NULL},
    {"8000-8999", BENTO_PORT_OK, NULL},
    {"5-5", BENTO_PORT_OK, NULL},
    {"", BENTO_PORT_EMPTY, "empty port (use a number, a lo-hi range, or \"*\")"},
    {"0", BENTO_PORT_RANGE, "port \"0\" out of range 1-65535"},
    {"65536", BENTO_PORT_RANGE, "out of range 1-65535"},
    {"1-70000", BENTO_PORT_RANGE, "out of range 1-65535"},
    {"99999999999", BENTO_PORT_RANGE, "out of range 1-65535"},
    {"08080", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {"-80", BENTO_PORT_SYNTAX, "port \"-80\" must be plain decimal"},
    {"+443", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {"http", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {"1-", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {"1--2", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {" 80", BENTO_PORT_SYNTAX, "must be plain decimal"},
    {"443-80", BENTO_PORT_INVERTED, "port range \"443-80\" is inverted"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(host_patterns_agree)
{
        for (size_t i = 0; i < N(hosts); i++) {
                const struct host_row *t = &hosts[i];
                char canon[BENTO_IP_CANON_MAX], why[512];
                struct bento_err err = {0};
                int tr = netrule_check_host(t->host, why, sizeof(why));
                int eg = egress_host_pattern_check(t->host, &err);

                if (bento_host_pattern_check(t->host, canon) != t->want)
                        TAP_FAIL("\"%s\": grammar verdict %d, expected %d", t->host,
                                 bento_host_pattern_check(t->host, canon), t->want);
                if ((tr == 0) != !t->words || (eg == 0) != !t->words)
                        TAP_FAIL("\"%s\": manifest %d, egress %d", t->host, tr, eg);
                if (!t->words)
                        continue;
                ASSERT_CONTAINS(why, t->words);
                ASSERT_CONTAINS(err.msg, t->words);
                /* the same words; only how a control character in the
                 * quoted pattern is shown may differ */
                if (!strpbrk(t->host, "\t\r\n"))
                        ASSERT_STREQ(err.msg, why);
        }
}

TEST(port_patterns_agree)
{
        for (size_t i = 0; i < N(ports); i++) {
                const struct port_row *t = &ports[i];
                char why[512];
                struct bento_err err = {0};
                int tr = netrule_check_port(t->port, why, sizeof(why));
                int eg = egress_port_pattern_check(t->port, &err);

                if (bento_port_pattern_check(t->port) != t->want)
                        TAP_FAIL("\"%s\": grammar verdict %d, expected %d", t->port,
                                 bento_port_pattern_check(t->port), t->want);
                if ((tr == 0) != !t->words || (eg == 0) != !t->words)
                        TAP_FAIL("\"%s\": manifest %d, egress %d", t->port, tr, eg);
                if (!t->words)
                        continue;
                ASSERT_CONTAINS(why, t->words);
                ASSERT_STREQ(err.msg, why);
        }
}

/* A host over BENTO_HOST_MAX is refused by both, counted in characters. */
TEST(too_long_agrees)
{
        char host[BENTO_HOST_MAX + 2], canon[BENTO_IP_CANON_MAX], why[512];
        struct bento_err err = {0};

        /* "a.a.a...": 127 one-letter labels make 253 characters */
        for (size_t i = 0; i < BENTO_HOST_MAX; i++)
                host[i] = i % 2 ? '.' : 'a';
        host[BENTO_HOST_MAX] = '\0';
        ASSERT_EQ(bento_host_pattern_check(host, canon), BENTO_HOST_OK);
        host[0] = 'b';
        ASSERT_EQ(netrule_check_host(host, why, sizeof(why)), 0);
        ASSERT_EQ(egress_host_pattern_check(host, &err), 0);
        memmove(host + 1, host, BENTO_HOST_MAX + 1);
        host[0] = 'a';
        ASSERT_EQ(bento_host_pattern_check(host, canon), BENTO_HOST_TOO_LONG);
        ASSERT_EQ(netrule_check_host(host, why, sizeof(why)), -EINVAL);
        ASSERT_EQ(egress_host_pattern_check(host, &err), -EINVAL);
        ASSERT_STREQ(why, "host is too long (254 characters, at most 253)");
        ASSERT_STREQ(err.msg, why);
}

struct match_row {
        const char *host, *port; /* the rule */
        const char *target, *target_port;
        bool want;
};

static const struct match_row matches[] = {
    {"example.com", "443", "example.com", "443", true},
    {"EXAMPLE.COM", "443", "Example.Com.", "443", true},
    {"example.com", "443", "example.com", "80", false},
    {"example.com", "443", "api.example.com", "443", false},
    {"example.com", "443", "example.com..", "443", false}, /* one dot only */
    {".example.com", "443", "a.example.com", "443", true},
    {".example.com", "443", "x.y.example.com.", "443", true},
    {".example.com", "443", "example.com", "443", false},
    {".example.com", "443", "badexample.com", "443", false},
    {"*", "*", "anything.test", "1", true},
    {"h.test", "8000-8099", "h.test", "8000", true},
    {"h.test", "8000-8099", "h.test", "8099", true},
    {"h.test", "8000-8099", "h.test", "8100", false},
    {"h.test", "8000-8099", "h.test", "7999", false},
    {"192.0.2.7", "80", "192.0.2.7", "80", true},
    {"192.0.2.7", "80", "192.0.2.70", "80", false},
    {"2001:db8::1", "*", "2001:db8::1", "22", true},
    /* Unicode is not folded: only A-Z are lowered */
    {"example.com", "443", "EXAMPLE.CO\xc3\x8d", "443", false},
};

/* The proxy's view: the rule as bento-egress parses it from its command
 * line, the target as its request parser leaves it (one trailing dot
 * dropped, lower-cased). */
static bool egress_allows(const struct match_row *t)
{
        struct egress_rule rule;
        struct bento_err err = {0};
        char spec[300], target[300];

        snprintf(spec, sizeof(spec), "%s:%s", t->host, t->port);
        if (egress_rule_parse(spec, &rule, &err) < 0)
                return false;
        snprintf(target, sizeof(target), "%s", t->target);
        bento_host_normalise(target);
        return egress_rules_allow(&rule, 1, target, t->target_port);
}

TEST(matches_agree)
{
        for (size_t i = 0; i < N(matches); i++) {
                const struct match_row *t = &matches[i];
                bool tr = netrule_host_matches(t->host, t->target) &&
                          bento_port_matches(t->port, t->target_port);

                if (tr != t->want)
                        TAP_FAIL("%s:%s ~ %s:%s: manifest says %d", t->host, t->port, t->target,
                                 t->target_port, tr);
                if (egress_allows(t) != t->want)
                        TAP_FAIL("%s:%s ~ %s:%s: egress says %d", t->host, t->port, t->target,
                                 t->target_port, !t->want);
        }
}

TEST(canonical_ports_and_normalising)
{
        char h[32];

        ASSERT_TRUE(bento_port_canonical("1") && bento_port_canonical("65535"));
        ASSERT_TRUE(!bento_port_canonical("0") && !bento_port_canonical("65536"));
        ASSERT_TRUE(!bento_port_canonical("080") && !bento_port_canonical(""));
        ASSERT_TRUE(!bento_port_canonical("+1") && !bento_port_canonical("1-2"));
        snprintf(h, sizeof(h), "A.Example.COM.");
        bento_host_normalise(h);
        ASSERT_STREQ(h, "a.example.com");
        snprintf(h, sizeof(h), "a..");
        bento_host_normalise(h);
        ASSERT_STREQ(h, "a.");
}

TAP_MAIN()
