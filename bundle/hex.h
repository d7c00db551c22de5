/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lower-case hex for bytes that must cross a text file unchanged: the exec
 * gate writes the argv it read from a sandboxed process's memory (any bytes
 * at all, invalid UTF-8 included) into its record this way, and bento reads
 * them back byte for byte.
 */
#ifndef BENTO_HEX_H
#define BENTO_HEX_H

#include <stddef.h>

/* The 2*len hex digits of data, NUL-terminated, on the heap; NULL when out
 * of memory. */
char *bento_hex_encode(const void *data, size_t len);

/* The bytes hex spells (an even number of hex digits, either case), on the
 * heap with a NUL after them, their count in *ret_len.  Returns 0, -EINVAL
 * for anything that is not hex, or -ENOMEM. */
int bento_hex_decode(const char *hex, char **ret, size_t *ret_len);

/* The value of one hex digit (either case), or -1.  Inline, and needing
 * nothing of libc, for bento-init too (hooks/init/). */
static inline int bento_hex_digit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

#endif
