/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host and port patterns of network rules (hostname.h).  IP literals are
 * parsed and printed back with inet_pton()/inet_ntop() and must come out
 * unchanged; everything else is compared byte by byte with ASCII-only case
 * folding, so the verdict is the same under every locale and on every host.
 */
#include "hostname.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(BENTO_IP_CANON_MAX >= INET6_ADDRSTRLEN, "room for any address");

bool bento_ip_canonical(const char *s, char *canon, size_t size)
{
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        unsigned char a[16];

        if (inet_pton(AF_INET, s, a) == 1)
                return inet_ntop(AF_INET, a, canon, (socklen_t) size) != NULL;
        if (inet_pton(AF_INET6, s, a) != 1)
                return false;
        /* An IPv4-mapped address reaches the IPv4 host: its only canonical
         * spelling is the dotted quad. */
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

/* name is host, or what follows the dot of a suffix wildcard. */
static enum bento_host_problem name_or_ip(const char *host, const char *name, char *canon)
{
        if (bento_ip_canonical(name, canon, BENTO_IP_CANON_MAX)) {
                if (name != host)
                        return BENTO_HOST_SUFFIX_IP;
                return strcmp(canon, host) == 0 ? BENTO_HOST_OK : BENTO_HOST_NOT_CANONICAL;
        }
        if (all_digits_and_dots(name))
                return BENTO_HOST_PARTIAL_IP;
        return valid_hostname(name) ? BENTO_HOST_OK : BENTO_HOST_BAD_NAME;
}

enum bento_host_problem bento_host_pattern_check(const char *host, char canon[BENTO_IP_CANON_MAX])
{
        size_t len = host ? strlen(host) : 0;

        if (len == 0)
                return BENTO_HOST_EMPTY;
        if (strpbrk(host, "\r\n\t %"))
                return BENTO_HOST_RESERVED;
        if (strcmp(host, "*") == 0)
                return BENTO_HOST_OK;
        if (len > BENTO_HOST_MAX)
                return BENTO_HOST_TOO_LONG;
        if (host[0] == '.')
                return host[1] == '\0' ? BENTO_HOST_BARE_DOT : name_or_ip(host, host + 1, canon);
        return name_or_ip(host, host, canon);
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

/* The dash of a "LO-HI" range; a leading '-' is a sign, not a range. */
static const char *range_dash(const char *port)
{
        return port[0] ? strchr(port + 1, '-') : NULL;
}

enum bento_port_problem bento_port_pattern_check(const char *port)
{
        const char *dash;
        unsigned lo = 0, hi = 0;
        int r1, r2 = 1;

        if (!port || !*port)
                return BENTO_PORT_EMPTY;
        if (strcmp(port, "*") == 0)
                return BENTO_PORT_OK;
        dash = range_dash(port);
        r1 = port_number(port, dash ? (size_t) (dash - port) : strlen(port), &lo);
        if (dash)
                r2 = port_number(dash + 1, strlen(dash + 1), &hi);
        if (r1 == 0 || r2 == 0)
                return BENTO_PORT_SYNTAX;
        if (r1 < 0 || r2 < 0)
                return BENTO_PORT_RANGE;
        return dash && lo > hi ? BENTO_PORT_INVERTED : BENTO_PORT_OK;
}

__attribute__((format(printf, 3, 4))) static void say(char *why, size_t size, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
}

void bento_host_problem_text(enum bento_host_problem p, const char *shown, size_t len,
                             const char *canon, char *why, size_t size)
{
        switch (p) {
        case BENTO_HOST_OK:
                say(why, size, "host \"%s\" is valid", shown);
                return;
        case BENTO_HOST_EMPTY:
                say(why, size, "empty host");
                return;
        case BENTO_HOST_RESERVED:
                say(why, size, "host \"%s\" contains control or reserved characters", shown);
                return;
        case BENTO_HOST_TOO_LONG:
                say(why, size, "host is too long (%zu characters, at most %d)", len,
                    BENTO_HOST_MAX);
                return;
        case BENTO_HOST_BARE_DOT:
                say(why, size,
                    "host \".\": a suffix wildcard needs a domain after the dot "
                    "(\".example.com\")");
                return;
        case BENTO_HOST_SUFFIX_IP:
                say(why, size,
                    "host \"%s\": a suffix wildcard cannot cover an IP address; write the "
                    "address itself",
                    shown);
                return;
        case BENTO_HOST_NOT_CANONICAL:
                say(why, size, "host \"%s\" is not canonical (write it as %s)", shown, canon);
                return;
        case BENTO_HOST_PARTIAL_IP:
                say(why, size,
                    "host \"%s\" is not a canonical IP address (write a full dotted-quad or a "
                    "hostname)",
                    shown);
                return;
        case BENTO_HOST_BAD_NAME:
                break;
        }
        say(why, size, "host \"%s\" is not a valid hostname", shown);
}

void bento_port_problem_text(enum bento_port_problem p, const char *shown, char *why, size_t size)
{
        switch (p) {
        case BENTO_PORT_OK:
                say(why, size, "port \"%s\" is valid", shown);
                return;
        case BENTO_PORT_EMPTY:
                say(why, size, "empty port (use a number, a lo-hi range, or \"*\")");
                return;
        case BENTO_PORT_SYNTAX:
                say(why, size,
                    "port \"%s\" must be plain decimal (no sign, no leading zero), a lo-hi "
                    "range, or \"*\"",
                    shown);
                return;
        case BENTO_PORT_RANGE:
                say(why, size, "port \"%s\" out of range 1-65535", shown);
                return;
        case BENTO_PORT_INVERTED:
                break;
        }
        say(why, size, "port range \"%s\" is inverted", shown);
}

bool bento_port_canonical(const char *s)
{
        unsigned v;

        return port_number(s, strlen(s), &v) == 1;
}

static char ascii_lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char) (c - 'A' + 'a') : c;
}

void bento_host_normalise(char *host)
{
        size_t n = strlen(host);

        for (size_t i = 0; i < n; i++)
                host[i] = ascii_lower(host[i]);
        if (n > 0 && host[n - 1] == '.')
                host[n - 1] = '\0';
}

bool bento_host_matches(const char *pattern, const char *host)
{
        size_t pn, hn;

        if (!pattern || !host)
                return false;
        if (strcmp(pattern, "*") == 0)
                return true;
        if (pattern[0] != '.')
                return strcmp(pattern, host) == 0;
        /* ".example.com" covers proper subdomains only: the target needs
         * at least one character before the dot. */
        pn = strlen(pattern);
        hn = strlen(host);
        return hn > pn && strcmp(host + hn - pn, pattern) == 0;
}

bool bento_port_matches(const char *pattern, const char *port)
{
        const char *dash;
        unsigned lo, hi, p;

        if (!pattern || !port)
                return false;
        if (strcmp(pattern, "*") == 0)
                return true;
        dash = range_dash(pattern);
        if (!dash)
                return strcmp(pattern, port) == 0;
        if (port_number(pattern, (size_t) (dash - pattern), &lo) != 1 ||
            port_number(dash + 1, strlen(dash + 1), &hi) != 1 ||
            port_number(port, strlen(port), &p) != 1)
                return false;
        return p >= lo && p <= hi;
}
