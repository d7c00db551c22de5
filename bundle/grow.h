/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room for one more item in a heap array that grows by doubling.  Growing
 * by one item at a time costs a copy of the whole array per item wherever
 * realloc cannot extend in place (always under ASan), which made a
 * translate of 10,000 write grants take minutes.
 */
#ifndef BENTO_GROW_H
#define BENTO_GROW_H

#include <errno.h>
#include <stdlib.h>

/* *items holds n items of size bytes in room for *cap: make room for
 * n + 1.  0, or -ENOMEM with *items unchanged. */
static inline int bento_grow(void **items, size_t *cap, size_t n, size_t size)
{
        size_t want = *cap ? *cap * 2 : 64;
        void *p;

        if (n < *cap)
                return 0;
        p = reallocarray(*items, want, size);
        if (!p)
                return -ENOMEM;
        *items = p;
        *cap = want;
        return 0;
}

#endif
