/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the report it writes to --report-fd (docs/profile.md,
 * "The report"): text lines, one space between fields, the path last and
 * percent-encoded.  Lines are buffered and written whole; the buffer is
 * flushed when full and at the end.
 */
#ifndef BENTO_OBSERVE_REPORT_H
#define BENTO_OBSERVE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#define OBS_REPORT_VERSION "1" /* the first line: "observe 1" */

/* Percent-encode n bytes of s into out (room for 3 * n + 1 bytes): every
 * byte <= 0x20, >= 0x7f and '%' becomes %XX in upper-case hex, so a path
 * is one field whatever bytes it holds.  Returns the length written (out
 * is NUL-terminated). */
size_t obs_pct_encode(const char *s, size_t n, char *out);

/* How many lines obs_report_line_once() remembers, and how many bytes of
 * them: past either, every line is written. */
#define OBS_ONCE_MAX   (1 << 16)
#define OBS_ONCE_BYTES (16 << 20)

struct obs_once_slot {
        unsigned long long hash;
        char *line; /* NULL: free */
};

struct obs_report {
        int fd;     /* -1 once a write failed: the reader is gone */
        size_t len; /* bytes waiting in buf */
        char buf[1 << 16];
        /* the lines obs_report_line_once() wrote: open addressing */
        struct obs_once_slot *once;
        size_t n_once, cap_once, once_bytes;
        unsigned long long seed;
};

void obs_report_init(struct obs_report *r, int fd);

/* Free what obs_report_line_once() remembers. */
void obs_report_done(struct obs_report *r);

/* One line: the words in order, separated by one space; the last one, if
 * path is not NULL, is the percent-encoded path.  word2 may be NULL. */
void obs_report_line(struct obs_report *r, const char *word1, const char *word2, const char *path);

/* obs_report_line(), unless this very line was written by this function
 * before: for lines that say the same each time (a read or probe reported
 * without its result, which bento folds by path), so that a program that
 * stats the same file a thousand times costs one line, not a thousand. */
void obs_report_line_once(struct obs_report *r, const char *word1, const char *word2,
                          const char *path);

/* Write what is buffered.  Returns false when the reader is gone. */
bool obs_report_flush(struct obs_report *r);

#endif
