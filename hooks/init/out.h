/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-init's output without stdio: its help and version text, its error
 * messages, its status line.  Text gathers in a buffer and goes out in as
 * few writes as fit, the way stdio would have sent it.
 */
#ifndef BENTO_INIT_OUT_H
#define BENTO_INIT_OUT_H

#include <stdbool.h>
#include <stddef.h>

struct init_out {
        int fd;
        size_t len;
        char buf[1024];
};

/* Append s (or the decimal v) to out, writing the buffer out first when it
 * is full; a write error drops the text, as nothing could report it. */
void out_str(struct init_out *out, const char *s);
void out_int(struct init_out *out, long v);
/* Write out what is buffered. */
void out_flush(struct init_out *out);

/* What strerror() says for the errors bento-init can meet, or "error N". */
void out_errno(struct init_out *out, int e);

/* Whether a and b are the same string. */
bool init_streq(const char *a, const char *b);

/* A descriptor number above 2 for --status-fd (decimal digits alone, at
 * most 2^20), or -1. */
int init_parse_fd(const char *s);

#endif
