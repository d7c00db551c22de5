/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Strict UTF-8, the one decoder every program uses: the JSON reader and
 * writer, the manifest screen and canonical writer, the report quoting and
 * the runtime's log and mount table.  Strict means what RFC 3629 allows and
 * nothing else: no overlong forms (C0 80, E0 80 80, F0 80 80 80), no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no sequence cut
 * short by the end of the input.  One decoder, so a string one part of
 * bento accepts is never one another part refuses or reads differently.
 */
#ifndef BENTO_UTF8_H
#define BENTO_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decode the sequence that starts s (len bytes available, len may be 0).
 * Returns its length (1..4) with the code point in *ret_cp, or 0 (*ret_cp
 * untouched) when the bytes there are not a complete, strictly valid
 * sequence.  A NUL byte is the valid code point U+0000. */
size_t bento_utf8_decode(const char *s, size_t len, uint32_t *ret_cp);

/* Whether all len bytes of s are strictly valid UTF-8. */
bool bento_utf8_valid(const char *s, size_t len);

/* A heap copy of the len bytes of s (which may hold NULs) as valid UTF-8:
 * each byte that does not start a valid sequence becomes U+FFFD, the way
 * Go's encoding/json writes such a string.  NULL when out of memory. */
char *bento_utf8_lossy(const char *s, size_t len);

/* Whether byte c continues a multi-byte sequence (10xxxxxx), for code that
 * counts or cuts characters in text already known to be valid. */
static inline bool bento_utf8_continuation(unsigned char c)
{
        return (c & 0xc0) == 0x80;
}

#endif
