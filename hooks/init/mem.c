/* SPDX-License-Identifier: Apache-2.0 */
/* memset and memcpy for bento-init, which links no libc (sys.h). */
#include <stddef.h>

/* The compiler may call these for a struct's copy or zeroing even in a
 * program without libc (-ffreestanding does not stop it).  A string
 * instruction each: a loop in C could itself be turned into a call to the
 * function it is in. */
void *memset(void *dst, int c, size_t n);
void *memset(void *dst, int c, size_t n)
{
        void *d = dst;

        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
        return dst;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
        void *d = dst;

        __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
        return dst;
}
