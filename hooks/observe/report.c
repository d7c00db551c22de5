/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the report writer (report.h).  A reader that goes away
 * (EPIPE) does not stop the tracer: the target runs to its end, the lines
 * are dropped, and bento, which closed the pipe, knows the report is cut.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

size_t obs_pct_encode(const char *s, size_t n, char *out)
{
        static const char hex[] = "0123456789ABCDEF";
        size_t o = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c <= 0x20 || c >= 0x7f || c == '%') {
                        out[o++] = '%';
                        out[o++] = hex[c >> 4];
                        out[o++] = hex[c & 0xf];
                } else {
                        out[o++] = (char) c;
                }
        }
        out[o] = '\0';
        return o;
}

void obs_report_init(struct obs_report *r, int fd)
{
        r->fd = fd;
        r->len = 0;
}

bool obs_report_flush(struct obs_report *r)
{
        size_t off = 0;

        while (r->fd >= 0 && off < r->len) {
                ssize_t w = write(r->fd, r->buf + off, r->len - off);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        r->fd = -1;
                        break;
                }
                off += (size_t) w;
        }
        r->len = 0;
        return r->fd >= 0;
}

static void append(struct obs_report *r, const char *s, size_t n)
{
        memcpy(r->buf + r->len, s, n);
        r->len += n;
}

/* The longest line: two words and a path of the tracer's buffers (two
 * PATH_MAX parts joined), three bytes per encoded byte. */
#define LINE_MAX_BYTES (64 + 3 * (2 * PATH_MAX + 2))

void obs_report_line(struct obs_report *r, const char *word1, const char *word2, const char *path)
{
        if (sizeof(r->buf) - r->len < LINE_MAX_BYTES)
                obs_report_flush(r);
        append(r, word1, strlen(word1));
        if (word2) {
                append(r, " ", 1);
                append(r, word2, strlen(word2));
        }
        if (path) {
                size_t n = strnlen(path, 2 * PATH_MAX + 2);

                append(r, " ", 1);
                r->len += obs_pct_encode(path, n, r->buf + r->len);
        }
        append(r, "\n", 1);
}
