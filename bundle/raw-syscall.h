/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A system call made with the syscall instruction itself (x86-64), for code
 * built without libc: the observer's preload library (hooks/observe/shim/)
 * and bento-init (hooks/init/).  Its result is the kernel's: a negative
 * errno on failure, no errno variable.
 */
#ifndef BENTO_RAW_SYSCALL_H
#define BENTO_RAW_SYSCALL_H

#include <stdbool.h>

static inline long bento_raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
        long ret;
        register long r10 __asm__("r10") = d;
        register long r8 __asm__("r8") = e;
        register long r9 __asm__("r9") = f;

        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
        return ret;
}

/* Whether a raw system call's return value is an error (-4095..-1). */
static inline bool bento_raw_failed(long r)
{
        return (unsigned long) r >= -4095UL;
}

#endif
