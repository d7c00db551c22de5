/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolv.conf and the hosts file, read the way the C library reads them
 * (resolv.conf(5), hosts(5)): word by word, comments from '#' (and ';' in
 * resolv.conf), anything not understood skipped.  Both are read afresh for
 * every lookup, as getaddrinfo does, so an edited file applies at once.
 */
#include "dns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "fileio.h"
#include "hostname.h"

#define RESOLV_CONF_MAX ((size_t) 64 * 1024)
#define HOSTS_MAX_BYTES ((size_t) 1024 * 1024)
#define LINE_MAX_BYTES  1024
#define WORDS_MAX       64

bool dns_ip_literal(const char *s, unsigned short port, struct sockaddr_storage *ss, socklen_t *len)
{
        struct sockaddr_in *in = (struct sockaddr_in *) ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;

        memset(ss, 0, sizeof(*ss));
        if (inet_pton(AF_INET, s, &in->sin_addr) == 1) {
                in->sin_family = AF_INET;
                in->sin_port = htons(port);
                *len = sizeof(*in);
                return true;
        }
        if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(port);
                *len = sizeof(*in6);
                return true;
        }
        return false;
}

/* The words of the next line of text, comments cut; false at the end.
 * A line longer than LINE_MAX_BYTES is skipped whole. */
static bool next_line(const char **text, const char *end, const char *comments,
                      char line[LINE_MAX_BYTES], char *words[WORDS_MAX], size_t *n)
{
        while (*text < end) {
                const char *nl = memchr(*text, '\n', (size_t) (end - *text));
                size_t len = (size_t) ((nl ? nl : end) - *text);
                char *save = NULL, *w;

                if (len >= LINE_MAX_BYTES) {
                        *text = nl ? nl + 1 : end;
                        continue;
                }
                memcpy(line, *text, len);
                line[len] = '\0';
                *text = nl ? nl + 1 : end;
                line[strcspn(line, comments)] = '\0';
                *n = 0;
                for (w = strtok_r(line, " \t\r\f\v", &save); w && *n < WORDS_MAX;
                     w = strtok_r(NULL, " \t\r\f\v", &save))
                        words[(*n)++] = w;
                if (*n > 0)
                        return true;
        }
        return false;
}

/* A domain of the search list as queries use it: lower case, no trailing
 * dot; false for one that cannot be (empty, the root, too long). */
static bool domain(const char *w, char out[DNS_NAME_MAX + 1])
{
        size_t len = strlen(w);

        if (len > 0 && w[len - 1] == '.')
                len--;
        if (len == 0 || len > DNS_NAME_MAX)
                return false;
        memcpy(out, w, len);
        out[len] = '\0';
        bento_host_normalise(out);
        return out[0] != '\0';
}

static int option_value(const char *w, const char *name, int lo, int hi, int *ret)
{
        size_t n = strlen(name);
        char *end = NULL;
        long v;

        if (strncmp(w, name, n) != 0 || w[n] != ':')
                return 0;
        v = strtol(w + n + 1, &end, 10);
        if (end == w + n + 1 || *end != '\0')
                return 1; /* spelled wrong: the default stays */
        *ret = (int) (v < lo ? lo : v > hi ? hi : v);
        return 1;
}

static void set_search(struct dns_conf *c, char *const *words, size_t n)
{
        c->n_search = 0;
        for (size_t i = 0; i < n && c->n_search < DNS_SEARCH_MAX; i++)
                if (domain(words[i], c->search[c->n_search]))
                        c->n_search++;
}

static void set_options(struct dns_conf *c, char *const *words, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                int seconds = 0;

                if (option_value(words[i], "ndots", 0, 15, &c->ndots) ||
                    option_value(words[i], "attempts", 1, DNS_ATTEMPTS_MAX, &c->attempts))
                        continue;
                if (option_value(words[i], "timeout", 1, DNS_TIMEOUT_MAX, &seconds)) {
                        if (seconds > 0)
                                c->timeout_ms = seconds * 1000;
                        continue;
                }
                if (strcmp(words[i], "use-vc") == 0 || strcmp(words[i], "usevc") == 0)
                        c->use_tcp = true;
        }
}

void dns_conf_parse(const char *text, size_t len, unsigned short port, struct dns_conf *c)
{
        const char *end = text + len;
        char line[LINE_MAX_BYTES], *words[WORDS_MAX];
        size_t n;

        memset(c, 0, sizeof(*c));
        c->ndots = 1;
        c->timeout_ms = 5000;
        c->attempts = 2;
        while (next_line(&text, end, "#;", line, words, &n)) {
                if (strcmp(words[0], "nameserver") == 0 && n > 1 && c->n_ns < DNS_NS_MAX) {
                        if (dns_ip_literal(words[1], port, &c->ns[c->n_ns], &c->ns_len[c->n_ns]))
                                c->n_ns++;
                } else if (strcmp(words[0], "search") == 0) {
                        set_search(c, words + 1, n - 1);
                } else if (strcmp(words[0], "domain") == 0) {
                        set_search(c, words + 1, n > 1 ? 1 : 0);
                } else if (strcmp(words[0], "options") == 0) {
                        set_options(c, words + 1, n - 1);
                }
        }
        if (c->n_ns == 0) {
                (void) dns_ip_literal("127.0.0.1", port, &c->ns[0], &c->ns_len[0]);
                (void) dns_ip_literal("::1", port, &c->ns[1], &c->ns_len[1]);
                c->n_ns = 2;
        }
}

void dns_conf_load(const char *path, struct dns_conf *ret)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        size_t len = 0;

        if (bento_read_file(path, RESOLV_CONF_MAX, &data, &len, &ignored) < 0)
                len = 0;
        dns_conf_parse(data ? data : "", len, 53, ret);
}

int dns_hosts_lookup(const char *path, const char *name, unsigned short port,
                     struct egress_addrs *out)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        char line[LINE_MAX_BYTES], *words[WORDS_MAX];
        const char *text, *end;
        bool listed = false;
        size_t len = 0, n;

        if (bento_read_file(path, HOSTS_MAX_BYTES, &data, &len, &ignored) < 0)
                return -ENOENT;
        text = data;
        end = data + len;
        while (next_line(&text, end, "#", line, words, &n)) {
                struct sockaddr_storage ss;
                socklen_t sslen;

                if (!dns_ip_literal(words[0], port, &ss, &sslen))
                        continue;
                for (size_t i = 1; i < n; i++) {
                        size_t wl = strlen(words[i]);

                        if (wl > 0 && words[i][wl - 1] == '.')
                                words[i][--wl] = '\0';
                        if (strcasecmp(words[i], name) != 0)
                                continue;
                        listed = true;
                        if (out->n < EGRESS_ADDRS_MAX) {
                                out->a[out->n] = ss;
                                out->len[out->n++] = sslen;
                        }
                        break;
                }
        }
        return listed ? 0 : -ENOENT;
}
