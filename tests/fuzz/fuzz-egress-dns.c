/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for what bento-egress reads from the network and the
 * host when it resolves a name (hooks/egress/dns-message.c, dns-conf.c):
 * a name server's answer, and resolv.conf text.  The first byte picks
 * which; for an answer, the id is taken from the answer itself and the
 * question is a fixed name, so the fuzzer reaches the records.
 *
 * Besides "no crash, no leak, no undefined behaviour": an answer yields
 * only addresses of the type asked, at most EGRESS_ADDRS_MAX of them, each
 * with the port asked; a parsed resolv.conf has 1 to 3 name servers and
 * settings within their bounds.  A violation aborts.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "dns.h"

#define NAME "a.example.com"
#define PORT 8443

static void answer(const uint8_t *msg, size_t len, uint16_t type)
{
        struct egress_addrs out = {.n = 0};
        uint16_t id = len >= 2 ? (uint16_t) ((msg[0] << 8) | msg[1]) : 0;
        int r = dns_answer_parse(msg, len, id, NAME, type, PORT, &out);

        must(r == 0 || r == -ENOENT || r == -EAGAIN || r == -EMSGSIZE || r == -EBADMSG,
             "result is one of the documented ones");
        must((r == 0) == (out.n > 0), "addresses exactly on success");
        must(out.n <= EGRESS_ADDRS_MAX, "address count");
        for (size_t i = 0; i < out.n; i++) {
                const struct sockaddr_in *in = (const struct sockaddr_in *) &out.a[i];

                must(out.a[i].ss_family == (type == DNS_TYPE_A ? AF_INET : AF_INET6),
                     "address family of the type asked");
                must(ntohs(in->sin_port) == PORT, "port set");
        }
}

static void conf(const uint8_t *text, size_t len)
{
        struct dns_conf c;

        dns_conf_parse((const char *) text, len, 53, &c);
        must(c.n_ns >= 1 && c.n_ns <= DNS_NS_MAX, "name server count");
        must(c.n_search <= DNS_SEARCH_MAX, "search list length");
        for (size_t i = 0; i < c.n_search; i++)
                must(c.search[i][0] != '\0' && strlen(c.search[i]) <= DNS_NAME_MAX,
                     "search domain");
        must(c.ndots >= 0 && c.ndots <= 15, "ndots");
        must(c.timeout_ms >= 1000 && c.timeout_ms <= DNS_TIMEOUT_MAX * 1000, "timeout");
        must(c.attempts >= 1 && c.attempts <= DNS_ATTEMPTS_MAX, "attempts");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1 || size > 64u * 1024u)
                return 0;
        if (data[0] & 1) {
                conf(data + 1, size - 1);
        } else {
                answer(data + 1, size - 1, DNS_TYPE_A);
                answer(data + 1, size - 1, DNS_TYPE_AAAA);
        }
        return 0;
}
