/* SPDX-License-Identifier: Apache-2.0 */
/* Host-side name resolution and NAT64 discovery (see resolve.h, dns.h). */
#include "resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "dns.h"
#include "fileio.h"
#include "io.h"
#include "rules.h"

#define HOSTS_FILE_MAX   ((size_t) 1024 * 1024)
#define HOSTS_MAX        4096
#define NAT64_TIMEOUT_MS 3000

struct host_entry {
        char name[EGRESS_HOST_MAX + 1];
        struct sockaddr_storage addr;
        socklen_t len;
};

/* The names file: written once before threads start, read-only after. */
static struct host_entry *hosts;
static size_t n_hosts;

static int hosts_add_line(char *line, const char *path, unsigned lineno, struct bento_err *err)
{
        char *save = NULL, *addr = strtok_r(line, " \t\r", &save), *name;
        struct sockaddr_storage ss;
        socklen_t len;

        if (!addr || addr[0] == '#')
                return 0;
        if (!dns_ip_literal(addr, 0, &ss, &len))
                return bento_err_setx(err, EINVAL, "%s:%u: \"%s\" is not an IP address", path,
                                      lineno, addr);
        while ((name = strtok_r(NULL, " \t\r", &save)) && name[0] != '#') {
                struct host_entry *e;

                if (n_hosts == HOSTS_MAX)
                        return bento_err_setx(err, E2BIG, "%s: more than %d names", path,
                                              HOSTS_MAX);
                if (strlen(name) > EGRESS_HOST_MAX)
                        return bento_err_setx(err, EINVAL, "%s:%u: name too long", path, lineno);
                e = &hosts[n_hosts++];
                memcpy(e->name, name, strlen(name) + 1);
                bento_host_normalise(e->name);
                e->addr = ss;
                e->len = len;
        }
        return 0;
}

int egress_hosts_load(const char *path, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        char *save = NULL, *line;
        unsigned lineno = 0;
        size_t len = 0;
        int r;

        r = bento_read_file(path, HOSTS_FILE_MAX, &data, &len, err);
        if (r < 0)
                return bento_err_prefix(err, "--hosts-file");
        free(hosts);
        n_hosts = 0;
        hosts = calloc(HOSTS_MAX, sizeof(*hosts));
        if (!hosts)
                return bento_err_set(err, ENOMEM, "--hosts-file '%s'", path);
        for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                lineno++;
                r = hosts_add_line(line, path, lineno, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void add_addr(struct egress_addrs *out, const struct sockaddr *sa, socklen_t len,
                     unsigned short port)
{
        struct sockaddr_storage *ss;

        if (out->n == EGRESS_ADDRS_MAX || len > sizeof(*ss))
                return;
        if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
                return;
        ss = &out->a[out->n];
        memset(ss, 0, sizeof(*ss));
        memcpy(ss, sa, len);
        if (sa->sa_family == AF_INET)
                ((struct sockaddr_in *) ss)->sin_port = htons(port);
        else
                ((struct sockaddr_in6 *) ss)->sin6_port = htons(port);
        out->len[out->n++] = len;
}

static const char *resolv_conf_path = "/etc/resolv.conf";

void egress_resolv_conf_set(const char *path)
{
        resolv_conf_path = path;
}

int egress_resolve(const char *host, const char *port, int64_t deadline_ms,
                   struct egress_addrs *ret)
{
        unsigned short p = (unsigned short) strtoul(port, NULL, 10);
        struct dns_conf conf;
        bool listed = false;

        ret->n = 0;
        if (dns_ip_literal(host, p, &ret->a[0], &ret->len[0])) {
                ret->n = 1;
                return 0;
        }
        for (size_t i = 0; i < n_hosts; i++) {
                if (strcmp(hosts[i].name, host) != 0)
                        continue;
                listed = true;
                add_addr(ret, (const struct sockaddr *) &hosts[i].addr, hosts[i].len, p);
        }
        if (listed)
                return ret->n > 0 ? 0 : -ENOENT;
        if (dns_hosts_lookup("/etc/hosts", host, p, ret) == 0)
                return ret->n > 0 ? 0 : -ENOENT;
        dns_conf_load(resolv_conf_path, &conf);
        return dns_lookup(&conf, host, p, deadline_ms, ret);
}

/* ---- NAT64 discovery ---------------------------------------------------- */

static pthread_mutex_t nat64_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nat64_cond;
static struct egress_nat64 nat64_result;
static bool nat64_started, nat64_done;
static struct timespec nat64_deadline; /* CLOCK_MONOTONIC */

static void *nat64_thread(void *arg)
{
        struct egress_nat64 found = {0};
        struct egress_addrs addrs = {0};
        int r = egress_resolve("ipv4only.arpa", "1", egress_now_ms() + NAT64_TIMEOUT_MS, &addrs);

        (void) arg;
        /* "no such name" or no AAAA is a conclusive "no DNS64"; any other
         * failure, or an answer that reveals no prefix, is inconclusive */
        if (r < 0 && r != -ENOENT)
                found.inconclusive = true;
        for (size_t i = 0; r == 0 && i < addrs.n; i++) {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) &addrs.a[i];

                if (in6->sin6_family != AF_INET6)
                        continue;
                if (!egress_nat64_add_answer(&found, in6->sin6_addr.s6_addr))
                        found.inconclusive = true;
        }
        pthread_mutex_lock(&nat64_lock);
        if (!nat64_done) {
                nat64_result = found;
                nat64_done = true;
                pthread_cond_broadcast(&nat64_cond);
        }
        pthread_mutex_unlock(&nat64_lock);
        return NULL;
}

int egress_nat64_start(void)
{
        pthread_condattr_t ca;
        pthread_attr_t attr;
        pthread_t t;
        int r;

        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&nat64_cond, &ca);
        pthread_condattr_destroy(&ca);
        clock_gettime(CLOCK_MONOTONIC, &nat64_deadline);
        nat64_deadline.tv_sec += NAT64_TIMEOUT_MS / 1000;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        r = pthread_create(&t, &attr, nat64_thread, NULL);
        pthread_attr_destroy(&attr);
        if (r != 0)
                return -r;
        nat64_started = true;
        return 0;
}

const struct egress_nat64 *egress_nat64_get(void)
{
        if (!nat64_started)
                return NULL;
        pthread_mutex_lock(&nat64_lock);
        while (!nat64_done) {
                if (pthread_cond_timedwait(&nat64_cond, &nat64_lock, &nat64_deadline) ==
                    ETIMEDOUT) {
                        /* the lookup hangs: inconclusive, and its late
                         * answer is ignored */
                        nat64_result.inconclusive = true;
                        nat64_done = true;
                }
        }
        pthread_mutex_unlock(&nat64_lock);
        return &nat64_result;
}
