/* SPDX-License-Identifier: Apache-2.0 */
/* Egress rule validation and matching (see rules.h; docs/manifest.md, "NETWORK RULES"). */
#include "rules.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool egress_port_canonical(const char *s)
{
        size_t n = strlen(s);
        unsigned long v = 0;

        if (n == 0 || n > 5 || s[0] == '0')
                return false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (unsigned long) (s[i] - '0');
        }
        return v >= 1 && v <= 65535;
}

void egress_host_normalise(char *host)
{
        size_t n = strlen(host);

        for (size_t i = 0; i < n; i++)
                if (host[i] >= 'A' && host[i] <= 'Z')
                        host[i] = (char) (host[i] - 'A' + 'a');
        if (n > 0 && host[n - 1] == '.')
                host[n - 1] = '\0';
}

/* The printable form inet_ntop gives for an address, with IPv4-mapped IPv6
 * written as the IPv4 it maps (so "::ffff:10.0.0.1" is not canonical). */
static bool ip_canonical_form(const char *s, char *buf, size_t size)
{
        unsigned char a[16];

        if (inet_pton(AF_INET, s, a) == 1)
                return inet_ntop(AF_INET, a, buf, (socklen_t) size) != NULL;
        if (inet_pton(AF_INET6, s, a) != 1)
                return false;
        if (memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
                return inet_ntop(AF_INET, a + 12, buf, (socklen_t) size) != NULL;
        return inet_ntop(AF_INET6, a, buf, (socklen_t) size) != NULL;
}

static bool only_digits_and_dots(const char *s)
{
        return s[strspn(s, "0123456789.")] == '\0';
}

static bool valid_label_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
}

/* Labels of 1-63 [A-Za-z0-9-] without a hyphen at either end, no empty
 * label, and a last label that is not all digits. */
static bool valid_hostname(const char *s)
{
        const char *label = s;
        bool last_has_alpha = false;

        if (*s == '\0')
                return false;
        for (const char *p = s;; p++) {
                if (*p == '.' || *p == '\0') {
                        size_t len = (size_t) (p - label);

                        if (len == 0 || len > 63 || label[0] == '-' || p[-1] == '-')
                                return false;
                        last_has_alpha = strspn(label, "0123456789") < len;
                        if (*p == '\0')
                                break;
                        label = p + 1;
                        continue;
                }
                if (!valid_label_char(*p))
                        return false;
        }
        return last_has_alpha;
}

int egress_host_pattern_check(const char *host, struct bento_err *err)
{
        char canon[INET6_ADDRSTRLEN];

        if (host[0] == '\0')
                return bento_err_setx(err, EINVAL, "empty host");
        if (strpbrk(host, "\r\n\t %"))
                return bento_err_setx(err, EINVAL,
                                      "host \"%s\" contains control or reserved characters", host);
        if (strcmp(host, "*") == 0)
                return 0;
        if (strlen(host) > EGRESS_HOST_MAX)
                return bento_err_setx(err, EINVAL, "host \"%.40s...\" is too long (over %d)", host,
                                      EGRESS_HOST_MAX);
        if (host[0] == '.') {
                if (host[1] == '\0')
                        return bento_err_setx(err, EINVAL,
                                              "host \".\": suffix wildcard needs a domain after "
                                              "the dot");
                if (ip_canonical_form(host + 1, canon, sizeof(canon)) ||
                    only_digits_and_dots(host + 1))
                        return bento_err_setx(err, EINVAL,
                                              "host \"%s\": a suffix wildcard cannot cover an IP "
                                              "address",
                                              host);
                if (!valid_hostname(host + 1))
                        return bento_err_setx(err, EINVAL, "host \"%s\" is not a valid hostname",
                                              host);
                return 0;
        }
        if (ip_canonical_form(host, canon, sizeof(canon))) {
                if (strcmp(canon, host) != 0)
                        return bento_err_setx(err, EINVAL,
                                              "host \"%s\" is not canonical (write it as %s)", host,
                                              canon);
                return 0;
        }
        if (only_digits_and_dots(host))
                return bento_err_setx(err, EINVAL,
                                      "host \"%s\" is not a canonical IP address (write a full "
                                      "dotted-quad or a hostname)",
                                      host);
        if (!valid_hostname(host))
                return bento_err_setx(err, EINVAL, "host \"%s\" is not a valid hostname", host);
        return 0;
}

/* One port number of a pattern: plain decimal 1-65535. */
static int port_number(const char *whole, const char *s, size_t len, unsigned long *ret,
                       struct bento_err *err)
{
        unsigned long v = 0;

        if (len == 0 || len > 6)
                return bento_err_setx(err, EINVAL, "port \"%s\" out of range 1-65535", whole);
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return bento_err_setx(err, EINVAL, "port \"%s\" must be plain decimal",
                                              whole);
                v = v * 10 + (unsigned long) (s[i] - '0');
        }
        if (v < 1 || v > 65535)
                return bento_err_setx(err, EINVAL, "port \"%s\" out of range 1-65535", whole);
        if (s[0] == '0')
                return bento_err_setx(err, EINVAL, "port \"%s\" must be plain decimal", whole);
        *ret = v;
        return 0;
}

int egress_port_pattern_check(const char *port, struct bento_err *err)
{
        const char *dash;
        unsigned long lo = 0, hi = 0;
        int r;

        if (port[0] == '\0')
                return bento_err_setx(err, EINVAL,
                                      "empty port (use a number, a lo-hi range, or \"*\")");
        if (strcmp(port, "*") == 0)
                return 0;
        if (port[0] == '-' || port[0] == '+')
                return bento_err_setx(err, EINVAL, "port \"%s\" must be plain decimal", port);
        dash = strchr(port, '-');
        if (!dash)
                return port_number(port, port, strlen(port), &lo, err);
        r = port_number(port, port, (size_t) (dash - port), &lo, err);
        if (r >= 0)
                r = port_number(port, dash + 1, strlen(dash + 1), &hi, err);
        if (r < 0)
                return r;
        if (lo > hi)
                return bento_err_setx(err, EINVAL, "port range \"%s\" is inverted", port);
        return 0;
}

int egress_rule_parse(const char *spec, struct egress_rule *ret, struct bento_err *err)
{
        struct egress_rule rule = {0};
        const char *host = spec, *colon;
        size_t host_len;
        int r;

        if (spec[0] == '[') {
                const char *close = strchr(spec, ']');

                if (!close || close[1] != ':')
                        return bento_err_setx(
                            err, EINVAL, "rule \"%s\": write an IPv6 literal as [ADDR]:PORT", spec);
                host = spec + 1;
                host_len = (size_t) (close - host);
                colon = close + 1;
        } else {
                colon = strrchr(spec, ':');
                if (!colon)
                        return bento_err_setx(err, EINVAL,
                                              "rule \"%s\" has no port: write HOST:PORT (PORT is "
                                              "a number, a lo-hi range, or *)",
                                              spec);
                /* a port never holds ':', so the last one splits even an
                 * unbracketed IPv6 literal ("2001:db8::1:443") */
                host_len = (size_t) (colon - spec);
        }
        if (host_len > EGRESS_HOST_MAX || strlen(colon + 1) >= sizeof(rule.port))
                return bento_err_setx(err, EINVAL, "rule \"%.60s\" is too long", spec);
        memcpy(rule.host, host, host_len);
        memcpy(rule.port, colon + 1, strlen(colon + 1) + 1);
        r = egress_host_pattern_check(rule.host, err);
        if (r >= 0)
                r = egress_port_pattern_check(rule.port, err);
        if (r < 0)
                return bento_err_prefix(err, "rule \"%s\"", spec);
        if (spec[0] == '[' && !strchr(rule.host, ':'))
                return bento_err_setx(err, EINVAL,
                                      "rule \"%s\": brackets are for IPv6 literals only", spec);
        egress_host_normalise(rule.host);
        *ret = rule;
        return 0;
}

static bool host_matches(const char *pattern, const char *host)
{
        size_t plen, hlen;

        if (strcmp(pattern, "*") == 0)
                return true;
        if (pattern[0] != '.')
                return strcmp(pattern, host) == 0;
        plen = strlen(pattern);
        hlen = strlen(host);
        return hlen > plen && strcmp(host + hlen - plen, pattern) == 0;
}

static bool port_matches(const char *pattern, const char *port)
{
        const char *dash = strchr(pattern, '-');
        unsigned long lo, hi, p;

        if (strcmp(pattern, "*") == 0)
                return true;
        if (!dash)
                return strcmp(pattern, port) == 0; /* single ports compare as strings */
        lo = strtoul(pattern, NULL, 10);
        hi = strtoul(dash + 1, NULL, 10);
        p = strtoul(port, NULL, 10);
        return p >= lo && p <= hi;
}

bool egress_rules_allow(const struct egress_rule *rules, size_t n, const char *host,
                        const char *port)
{
        for (size_t i = 0; i < n; i++)
                if (host_matches(rules[i].host, host) && port_matches(rules[i].port, port))
                        return true;
        return false;
}

bool egress_literal_grant(const struct egress_rule *rules, size_t n, const char *host,
                          const char *port)
{
        unsigned char want[16], have[16];
        int family = strchr(host, ':') ? AF_INET6 : AF_INET;

        if (inet_pton(family, host, want) != 1)
                return false;
        for (size_t i = 0; i < n; i++) {
                int f = strchr(rules[i].host, ':') ? AF_INET6 : AF_INET;

                if (f != family || inet_pton(f, rules[i].host, have) != 1)
                        continue;
                if (memcmp(want, have, family == AF_INET ? 4 : 16) == 0 &&
                    port_matches(rules[i].port, port))
                        return true;
        }
        return false;
}
