/* SPDX-License-Identifier: Apache-2.0 */
/* Request-head parsing for the CONNECT proxy (see request.h). */
#include "request.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "utf8.h"

ssize_t egress_head_end(const char *buf, size_t len)
{
        size_t line = 0;

        for (size_t i = 0; i < len; i++) {
                if (buf[i] != '\n')
                        continue;
                /* an empty line (or one holding just "\r") ends the head */
                if (i == line || (i == line + 1 && buf[line] == '\r'))
                        return (ssize_t) (i + 1);
                line = i + 1;
        }
        return -1;
}

/* Format and default-ignorable characters (Unicode Cf and
 * Other_Default_Ignorable_Code_Point), as ranges. */
static bool invisible(uint32_t c)
{
        static const uint32_t ranges[][2] = {
            {0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x0600, 0x0605},   {0x061c, 0x061c},
            {0x06dd, 0x06dd},   {0x070f, 0x070f},   {0x0890, 0x0891},   {0x08e2, 0x08e2},
            {0x115f, 0x1160},   {0x17b4, 0x17b5},   {0x180e, 0x180e},   {0x200b, 0x200f},
            {0x2060, 0x2065},   {0x206a, 0x206f},   {0x3164, 0x3164},   {0xfeff, 0xfeff},
            {0xffa0, 0xffa0},   {0xfff0, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
            {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
        };

        for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
                if (c >= ranges[i][0] && c <= ranges[i][1])
                        return true;
        return false;
}

static const char *char_class(uint32_t c)
{
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
                return "a bidirectional formatting character";
        if (c == 0x2028 || c == 0x2029)
                return "a line separator";
        if (invisible(c))
                return "a zero-width or invisible character";
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f))
                return "a control character";
        return NULL;
}

const char *egress_unsafe_class(const char *s, size_t len)
{
        for (size_t i = 0; i < len;) {
                uint32_t cp = 0;
                size_t n = bento_utf8_decode(s + i, len - i, &cp);
                const char *cls;

                if (n == 0)
                        return "invalid UTF-8";
                cls = char_class(cp);
                if (cls)
                        return cls;
                i += n;
        }
        return NULL;
}

void egress_format_target(const char *host, const char *port, char *buf, size_t size)
{
        if (strchr(host, ':'))
                snprintf(buf, size, "[%s]:%s", host, port);
        else
                snprintf(buf, size, "%s:%s", host, port);
}

/* Printable ASCII copy of s[0..len) for a message (at most 200 bytes). */
static void quote_safe(const char *s, size_t len, char *buf, size_t size)
{
        size_t o = 0;

        for (size_t i = 0; i < len && i < 200 && o + 1 < size; i++)
                buf[o++] = (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"') ? s[i] : '?';
        buf[o] = '\0';
}

/* The request line split at spaces and tabs: up to three fields. */
struct fields {
        const char *f[3];
        size_t len[3];
        size_t n;
};

static void split_line(const char *head, size_t len, struct fields *out)
{
        const char *end = memchr(head, '\n', len);
        size_t i = 0, n = end ? (size_t) (end - head) : len;

        if (n > 0 && head[n - 1] == '\r')
                n--;
        memset(out, 0, sizeof(*out));
        while (i < n && out->n < 3) {
                size_t start;

                while (i < n && (head[i] == ' ' || head[i] == '\t'))
                        i++;
                if (i == n)
                        break;
                start = i;
                while (i < n && head[i] != ' ' && head[i] != '\t')
                        i++;
                out->f[out->n] = head + start;
                out->len[out->n++] = i - start;
        }
}

__attribute__((format(printf, 2, 3))) static void bad(struct egress_request *r, const char *fmt,
                                                      ...)
{
        va_list ap;

        r->kind = EGRESS_REQ_BAD;
        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
}

/* Split "host:port" / "[v6]:port".  Returns false with the reason set. */
static bool split_target(const char *t, size_t len, struct egress_request *r, const char **host,
                         size_t *host_len, const char **port, size_t *port_len)
{
        char q[256];
        const char *colon;

        quote_safe(t, len, q, sizeof(q));
        if (len > 0 && t[0] == '[') {
                const char *close = memchr(t, ']', len);

                if (!close || (size_t) (close - t) + 1 >= len || close[1] != ':') {
                        bad(r, "malformed target \"%s\": %s", q,
                            "write an IPv6 target as [address]:port");
                        return false;
                }
                *host = t + 1;
                *host_len = (size_t) (close - t) - 1;
                colon = close + 1;
        } else {
                colon = memrchr(t, ':', len);
                if (!colon) {
                        bad(r, "malformed target \"%s\": %s", q, "missing port");
                        /* still worth recording: a bare host the client meant */
                        if (len <= EGRESS_HOST_MAX && !egress_unsafe_class(t, len)) {
                                memcpy(r->host, t, len);
                                r->host[len] = '\0';
                                bento_host_normalise(r->host);
                        }
                        return false;
                }
                *host = t;
                *host_len = (size_t) (colon - t);
                if (memchr(t, ':', *host_len)) {
                        bad(r, "malformed target \"%s\": %s", q,
                            "write an IPv6 target as [address]:port");
                        return false;
                }
        }
        *port = colon + 1;
        *port_len = len - (size_t) (*port - t);
        return true;
}

static void parse_target(const char *t, size_t len, struct egress_request *r)
{
        const char *host = NULL, *port = NULL, *cls;
        size_t host_len = 0, port_len = 0;
        char q[256];

        if (!split_target(t, len, r, &host, &host_len, &port, &port_len))
                return;
        cls = egress_unsafe_class(t, len);
        if (cls) {
                bad(r, "target contains %s", cls);
                return;
        }
        if (host_len > 0 && host[host_len - 1] == '.')
                host_len--;
        if (host_len == 0) {
                bad(r, "empty target host");
                return;
        }
        if (host_len > EGRESS_HOST_MAX) {
                quote_safe(t, len, q, sizeof(q));
                bad(r, "malformed target \"%s\": %s", q, "host name too long");
                return;
        }
        quote_safe(port, port_len, q, sizeof(q));
        if (port_len >= sizeof(r->port)) {
                bad(r, "malformed target port \"%s\"", q);
                return;
        }
        memcpy(r->port, port, port_len);
        r->port[port_len] = '\0';
        if (!bento_port_canonical(r->port)) {
                r->port[0] = '\0';
                bad(r, "malformed target port \"%s\"", q);
                return;
        }
        /* the one trailing dot is already gone: only lower-case here, so
         * "a.." keeps its second dot, as bento-manifest(5), NETWORK RULES, says */
        for (size_t i = 0; i < host_len; i++)
                r->host[i] =
                    (char) (host[i] >= 'A' && host[i] <= 'Z' ? host[i] - 'A' + 'a' : host[i]);
        r->host[host_len] = '\0';
        r->kind = EGRESS_REQ_CONNECT;
}

/* An absolute http:// or https:// URI of a plain proxy request. */
static bool absolute_uri(const char *u, size_t len, struct egress_request *r)
{
        struct egress_request t = {0};
        const char *auth, *at, *end, *def;
        size_t alen;
        char target[EGRESS_HOST_MAX + 16];

        if (len > 7 && strncasecmp(u, "http://", 7) == 0) {
                auth = u + 7;
                def = "80";
        } else if (len > 8 && strncasecmp(u, "https://", 8) == 0) {
                auth = u + 8;
                def = "443";
        } else {
                return false;
        }
        alen = len - (size_t) (auth - u);
        end = auth;
        while ((size_t) (end - auth) < alen && !strchr("/?#", *end))
                end++;
        alen = (size_t) (end - auth);
        at = memrchr(auth, '@', alen);
        if (at) {
                alen -= (size_t) (at + 1 - auth);
                auth = at + 1;
        }
        /* reuse the CONNECT target rules, adding the scheme's port if absent */
        if (alen == 0 || alen > EGRESS_HOST_MAX + 8)
                return false;
        if ((auth[0] == '[' && auth[alen - 1] == ']') ||
            (auth[0] != '[' && !memchr(auth, ':', alen)))
                snprintf(target, sizeof(target), "%.*s:%s", (int) alen, auth, def);
        else
                snprintf(target, sizeof(target), "%.*s", (int) alen, auth);
        parse_target(target, strlen(target), &t);
        if (t.kind != EGRESS_REQ_CONNECT)
                return false;
        *r = t;
        r->kind = EGRESS_REQ_UNTUNNELED;
        return true;
}

void egress_request_parse(const char *head, size_t len, struct egress_request *ret)
{
        struct fields f;

        memset(ret, 0, sizeof(*ret));
        split_line(head, len, &f);
        if (f.n == 0 || f.len[0] != 7 || strncasecmp(f.f[0], "CONNECT", 7) != 0) {
                if (f.n >= 2 && absolute_uri(f.f[1], f.len[1], ret))
                        return;
                bad(ret, "expected a CONNECT request");
                return;
        }
        if (f.n < 2) {
                bad(ret, "malformed target \"%s\": %s", "", "missing host:port");
                return;
        }
        parse_target(f.f[1], f.len[1], ret);
}
