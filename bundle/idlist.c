/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's CPU/node list format → bitmap (see idlist.h).  Stricter than
 * the kernel's own parser on purpose: no blanks, no strides, no empty
 * elements, so a typo in a config is refused instead of read as something
 * else.
 */
#include "idlist.h"

#include <errno.h>
#include <string.h>

/* One decimal number at *p (digits only, at most 9 of them so it cannot
 * overflow); advances *p. */
static int read_number(const char **p, unsigned long *ret)
{
        const char *s = *p;
        unsigned long v = 0;
        int n = 0;

        while (*s >= '0' && *s <= '9' && n < 10) {
                v = v * 10 + (unsigned long) (*s - '0');
                s++;
                n++;
        }
        if (n == 0 || n == 10)
                return -EINVAL;
        *p = s;
        *ret = v;
        return 0;
}

/* One element "a" or "a-b" at *p, followed by a comma (not the last
 * character) or the end; advances *p past the comma. */
static int read_element(const char **p, unsigned long *a, unsigned long *b)
{
        if (read_number(p, a) < 0)
                return -EINVAL;
        *b = *a;
        if (**p == '-') {
                (*p)++;
                if (read_number(p, b) < 0 || *b < *a)
                        return -EINVAL;
        }
        if (**p == ',' && (*p)[1] != '\0') {
                (*p)++;
                return 0;
        }
        return **p == '\0' ? 0 : -EINVAL;
}

int bento_idlist_parse(const char *s, unsigned long *bits, size_t nbits, unsigned long *bad_at)
{
        const char *p = s;

        memset(bits, 0, BENTO_IDLIST_WORDS(nbits) * sizeof(unsigned long));
        while (*p) {
                unsigned long a = 0, b = 0;

                if (read_element(&p, &a, &b) < 0) {
                        if (bad_at)
                                *bad_at = (unsigned long) (p - s);
                        return -EINVAL;
                }
                if (b >= nbits) {
                        if (bad_at)
                                *bad_at = b;
                        return -ERANGE;
                }
                for (unsigned long i = a; i <= b; i++)
                        bits[i / BENTO_IDLIST_WORD_BITS] |= 1ul << (i % BENTO_IDLIST_WORD_BITS);
        }
        return 0;
}
