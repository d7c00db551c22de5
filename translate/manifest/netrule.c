/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host and port patterns of network rules (docs/manifest.md, "NETWORK RULES").  IP literals
 * are parsed and printed back with inet_pton()/inet_ntop() and must come out
 * unchanged: a second spelling of the same address (leading zeros, upper
 * case, an IPv4-mapped IPv6 form) would let a reviewer read one thing while
 * the proxy matches another.
 */
#include "netrule.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "screen.h"

#define SHOWN_MAX 128

__attribute__((format(printf, 3, 4))) static int why_set(char *why, size_t size, const char *fmt,
                                                         ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static const char *shown(const char *s, char *buf, size_t size)
{
        return screen_sanitize(s, strlen(s), SHOWN_MAX, buf, size);
}

/* The canonical text of an IP literal, or false when s is not one. */
static bool ip_canonical(const char *s, char *canon, size_t size)
{
        unsigned char a[16];

        if (inet_pton(AF_INET, s, a) == 1)
                return inet_ntop(AF_INET, a, canon, (socklen_t) size) != NULL;
        if (inet_pton(AF_INET6, s, a) != 1)
                return false;
        /* An IPv4-mapped address reaches the IPv4 host: its only canonical
         * spelling is the dotted quad. */
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(a, mapped, sizeof(mapped)) == 0)
                return inet_ntop(AF_INET, a + 12, canon, (socklen_t) size) != NULL;
        return inet_ntop(AF_INET6, a, canon, (socklen_t) size) != NULL;
}

static bool all_digits_and_dots(const char *s)
{
        return *s && strspn(s, "0123456789.") == strlen(s);
}

static bool valid_label(const char *s, size_t n)
{
        if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];

                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-'))
                        return false;
        }
        return true;
}

static bool valid_hostname(const char *s)
{
        const char *label = s, *last = s;

        for (;;) {
                const char *dot = strchr(label, '.');
                size_t n = dot ? (size_t) (dot - label) : strlen(label);

                if (!valid_label(label, n))
                        return false;
                last = label;
                if (!dot)
                        break;
                label = dot + 1;
        }
        /* "foo.123" would read as a partial IP address to some resolvers. */
        return strspn(last, "0123456789") != strlen(last);
}

static int host_name_or_ip(const char *host, const char *name, char *why, size_t size)
{
        char canon[INET6_ADDRSTRLEN], b[SHOWN_MAX + 8];

        if (ip_canonical(name, canon, sizeof(canon))) {
                if (name != host)
                        return why_set(why, size,
                                       "host \"%s\": a suffix wildcard cannot cover an IP "
                                       "address; write the address itself",
                                       shown(host, b, sizeof(b)));
                if (strcmp(canon, host) != 0)
                        return why_set(why, size, "host \"%s\" is not canonical (write it as %s)",
                                       shown(host, b, sizeof(b)), canon);
                return 0;
        }
        if (all_digits_and_dots(name))
                return why_set(why, size,
                               "host \"%s\" is not a canonical IP address (write a full "
                               "dotted-quad or a hostname)",
                               shown(host, b, sizeof(b)));
        if (!valid_hostname(name))
                return why_set(why, size, "host \"%s\" is not a valid hostname",
                               shown(host, b, sizeof(b)));
        return 0;
}

int netrule_check_host(const char *host, char *why, size_t size)
{
        size_t len = host ? strlen(host) : 0;

        if (len == 0)
                return why_set(why, size, "empty host");
        if (strpbrk(host, "\r\n\t %")) {
                char b[SHOWN_MAX + 8];

                return why_set(why, size, "host \"%s\" contains control or reserved characters",
                               shown(host, b, sizeof(b)));
        }
        if (strcmp(host, "*") == 0)
                return 0;
        if (len > NETRULE_HOST_MAX)
                return why_set(why, size, "host is too long (%zu characters, at most %d)", len,
                               NETRULE_HOST_MAX);
        if (host[0] == '.') {
                if (host[1] == '\0')
                        return why_set(why, size,
                                       "host \".\": a suffix wildcard needs a domain after the "
                                       "dot (\".example.com\")");
                return host_name_or_ip(host, host + 1, why, size);
        }
        return host_name_or_ip(host, host, why, size);
}

/* A number of a port pattern: 1 when valid, 0 when not plain decimal, -1
 * when out of range. */
static int port_number(const char *s, size_t n, unsigned *ret)
{
        unsigned v = 0;

        if (n == 0 || (s[0] == '0' && n > 1))
                return 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return 0;
                if (v <= 65535)
                        v = v * 10 + (unsigned) (s[i] - '0');
        }
        if (v < 1 || v > 65535)
                return -1;
        *ret = v;
        return 1;
}

int netrule_check_port(const char *port, char *why, size_t size)
{
        char b[SHOWN_MAX + 8];
        const char *dash;
        unsigned lo = 0, hi = 0;
        int r1, r2 = 1;

        if (!port || !*port)
                return why_set(why, size, "empty port (use a number, a lo-hi range, or \"*\")");
        if (strcmp(port, "*") == 0)
                return 0;
        dash = port[0] ? strchr(port + 1, '-') : NULL;
        r1 = port_number(port, dash ? (size_t) (dash - port) : strlen(port), &lo);
        if (dash)
                r2 = port_number(dash + 1, strlen(dash + 1), &hi);
        if (r1 == 0 || r2 == 0)
                return why_set(why, size,
                               "port \"%s\" must be plain decimal (no sign, no leading zero), a "
                               "lo-hi range, or \"*\"",
                               shown(port, b, sizeof(b)));
        if (r1 < 0 || r2 < 0)
                return why_set(why, size, "port \"%s\" out of range 1-65535",
                               shown(port, b, sizeof(b)));
        if (dash && lo > hi)
                return why_set(why, size, "port range \"%s\" is inverted",
                               shown(port, b, sizeof(b)));
        return 0;
}

/* Length of a host once one trailing dot is dropped. */
static size_t host_len(const char *h)
{
        size_t n = strlen(h);

        return n > 0 && h[n - 1] == '.' ? n - 1 : n;
}

/* ASCII-only case folding: a locale-dependent strcasecmp could fold
 * non-ASCII letters differently on another host. */
static bool same_ascii_ci(const char *a, const char *b, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                unsigned char x = (unsigned char) a[i], y = (unsigned char) b[i];

                if (x >= 'A' && x <= 'Z')
                        x = (unsigned char) (x - 'A' + 'a');
                if (y >= 'A' && y <= 'Z')
                        y = (unsigned char) (y - 'A' + 'a');
                if (x != y)
                        return false;
        }
        return true;
}

bool netrule_host_matches(const char *pattern, const char *host)
{
        size_t pn, hn;

        if (!pattern || !host)
                return false;
        if (strcmp(pattern, "*") == 0)
                return true;
        pn = host_len(pattern);
        hn = host_len(host);
        if (pattern[0] == '.')
                /* ".example.com" covers proper subdomains only: the target
                 * needs at least one character before the dot. */
                return hn > pn && same_ascii_ci(host + hn - pn, pattern, pn);
        return hn == pn && same_ascii_ci(host, pattern, pn);
}

bool netrule_port_matches(const char *pattern, const char *port)
{
        const char *dash;
        unsigned lo, hi, p;

        if (!pattern || !port)
                return false;
        if (strcmp(pattern, "*") == 0)
                return true;
        dash = pattern[0] ? strchr(pattern + 1, '-') : NULL;
        if (!dash)
                return strcmp(pattern, port) == 0;
        if (port_number(pattern, (size_t) (dash - pattern), &lo) != 1 ||
            port_number(dash + 1, strlen(dash + 1), &hi) != 1 ||
            port_number(port, strlen(port), &p) != 1)
                return false;
        return p >= lo && p <= hi;
}
