/* SPDX-License-Identifier: Apache-2.0 */
/* Egress rule parsing and matching (see rules.h; docs/manifest.md, "NETWORK RULES").  The grammar
 * and the matching are bundle/hostname.c, shared with the manifest checker,
 * so the proxy enforces exactly what the reviewer approved. */
#include "rules.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hostname.h"

int egress_host_pattern_check(const char *host, struct bento_err *err)
{
        char canon[BENTO_IP_CANON_MAX], why[BENTO_ERR_MSG_MAX];
        enum bento_host_problem p = bento_host_pattern_check(host, canon);

        if (p == BENTO_HOST_OK)
                return 0;
        bento_host_problem_text(p, host, strlen(host), canon, why, sizeof(why));
        return bento_err_setx(err, EINVAL, "%s", why);
}

int egress_port_pattern_check(const char *port, struct bento_err *err)
{
        char why[BENTO_ERR_MSG_MAX];
        enum bento_port_problem p = bento_port_pattern_check(port);

        if (p == BENTO_PORT_OK)
                return 0;
        bento_port_problem_text(p, port, why, sizeof(why));
        return bento_err_setx(err, EINVAL, "%s", why);
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
        bento_host_normalise(rule.host);
        *ret = rule;
        return 0;
}

bool egress_rules_allow(const struct egress_rule *rules, size_t n, const char *host,
                        const char *port)
{
        for (size_t i = 0; i < n; i++)
                if (bento_host_matches(rules[i].host, host) &&
                    bento_port_matches(rules[i].port, port))
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
                    bento_port_matches(rules[i].port, port))
                        return true;
        }
        return false;
}
