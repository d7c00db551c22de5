/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the report writer (report.h).  A reader that goes away
 * (EPIPE) does not stop the tracer: the target runs to its end, the lines
 * are dropped, and bento, which closed the pipe, knows the report is cut.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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
        const unsigned char *rnd = (const unsigned char *) getauxval(AT_RANDOM);

        r->fd = fd;
        r->len = 0;
        r->once = NULL;
        r->n_once = r->cap_once = r->once_bytes = 0;
        /* a seed the target cannot know, so that it cannot pick paths that
         * all land in one chain */
        r->seed = 0xcbf29ce484222325ULL;
        if (rnd)
                memcpy(&r->seed, rnd, sizeof(r->seed));
}

void obs_report_done(struct obs_report *r)
{
        for (size_t i = 0; i < r->cap_once; i++)
                free(r->once[i].line);
        free(r->once);
        r->once = NULL;
        r->n_once = r->cap_once = r->once_bytes = 0;
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

/* FNV-1a from the seed. */
static unsigned long long hash_of(unsigned long long seed, const char *s)
{
        unsigned long long h = seed;

        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 0x100000001b3ULL;
        }
        return h;
}

static struct obs_once_slot *slot_for(struct obs_once_slot *v, size_t cap, unsigned long long h,
                                      const char *line)
{
        for (size_t i = (size_t) h & (cap - 1);; i = (i + 1) & (cap - 1))
                if (!v[i].line || (v[i].hash == h && strcmp(v[i].line, line) == 0))
                        return &v[i];
}

/* Room for one more line, kept at most half full.  False when the set may
 * not grow (or memory is short): the caller writes the line anyway. */
static bool once_room(struct obs_report *r, size_t bytes)
{
        struct obs_once_slot *v;
        size_t cap;

        if (r->n_once >= OBS_ONCE_MAX || r->once_bytes + bytes > OBS_ONCE_BYTES)
                return false;
        if (2 * (r->n_once + 1) <= r->cap_once)
                return true;
        cap = r->cap_once ? 2 * r->cap_once : 1024;
        v = calloc(cap, sizeof(*v));
        if (!v)
                return false;
        for (size_t i = 0; i < r->cap_once; i++)
                if (r->once[i].line)
                        *slot_for(v, cap, r->once[i].hash, r->once[i].line) = r->once[i];
        free(r->once);
        r->once = v;
        r->cap_once = cap;
        return true;
}

/* The longest line the once-set keeps: two words and a path of the tracer's
 * buffers, unencoded. */
#define ONCE_KEY_BYTES (64 + 2 * PATH_MAX + 2)

/* "word1 word2 path", the line as the once-set keeps it, into key (a NULL
 * word or path is empty).  Built by hand rather than with a printf, and on
 * the stack: this runs for nearly every call the observer sees, and a line
 * seen before (most of them) then costs no allocation.  Returns its length,
 * or 0 when it does not fit (the caller writes the line anyway). */
static size_t once_key(char *key, const char *word1, const char *word2, const char *path)
{
        const char *part[3] = {word1, word2 ? word2 : "", path ? path : ""};
        size_t n = 0;

        for (int i = 0; i < 3; i++) {
                size_t len = strlen(part[i]);

                if (len >= ONCE_KEY_BYTES - n - 1)
                        return 0;
                if (i > 0)
                        key[n++] = ' ';
                memcpy(key + n, part[i], len);
                n += len;
        }
        key[n] = '\0';
        return n;
}

void obs_report_line_once(struct obs_report *r, const char *word1, const char *word2,
                          const char *path)
{
        char key[ONCE_KEY_BYTES];
        size_t n = once_key(key, word1, word2, path);
        unsigned long long h;
        char *line;

        if (n == 0)
                return obs_report_line(r, word1, word2, path);
        h = hash_of(r->seed, key);
        if (r->cap_once && slot_for(r->once, r->cap_once, h, key)->line)
                return; /* written before */
        if (once_room(r, n + 1) && (line = malloc(n + 1)) != NULL) {
                memcpy(line, key, n + 1);
                *slot_for(r->once, r->cap_once, h, key) = (struct obs_once_slot){h, line};
                r->n_once++;
                r->once_bytes += n + 1;
        }
        obs_report_line(r, word1, word2, path);
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
