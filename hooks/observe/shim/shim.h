/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe-shim.so: the observer's preload library (docs/profile.md,
 * "The preload library").  Loaded into every dynamically linked program of
 * a profiling run (LD_PRELOAD), it takes the calls a program makes most,
 * stat() and open() of its own libraries, and when the path is clean,
 * absolute and in one of the trees whose result the observer does not
 * need, writes it to the observer's ring (../ring.h) and makes the call
 * itself from the gadget the observer's filter lets through: a call then
 * costs a system call instead of a notification, a sleep and two switches.
 * Every other call is made as the program would have made it, and the
 * observer is notified of it as before.
 *
 * Built without libc (-nostdlib: it names no library, so it loads into any
 * program), it makes its calls with the syscall instruction (raw-syscall.h;
 * the filter sees a call of its own as the program's) and takes from
 * the program's libc only getenv() (once, at load) and errno.
 */
#ifndef BENTO_OBSERVE_SHIM_H
#define BENTO_OBSERVE_SHIM_H

#include <stdbool.h>
#include <stddef.h>

#include "../ring.h"
#include "raw-syscall.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* The longest path the library records (with its NUL); a longer one is
 * left to the observer.  Small, for the stacks of signal handlers. */
#define SHIM_PATH_MAX 1024

/* A system call from the gadget page (../ring.h), which the filter lets
 * by for the calls the library records.  The call pushes its return
 * address: the stack pointer first steps over the red zone the compiler
 * may keep below it. */
static inline long shim_gadget(long nr, long a, long b, long c, long d)
{
        long ret;
        register long r10 __asm__("r10") = d;

        __asm__ volatile("sub $128, %%rsp\n\tcall *%[g]\n\tadd $128, %%rsp"
                         : "=a"(ret)
                         : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), [g] "r"(OBS_SHIM_GADGET)
                         : "rcx", "r11", "memory", "cc");
        return ret;
}

/* setup.c: whether the ring and the gadget are in place (set once, at
 * load), and the trees the library may record in. */
extern bool shim_ready;
extern const char *shim_trees[];
extern size_t shim_n_trees;
extern struct obs_ring_head *shim_ring;

/* record.c: whether the call on path may run from the gadget, having been
 * recorded with verb (OBS_RING_READ or OBS_RING_PROBE).  When it may, copy
 * holds the path as read, once (SHIM_PATH_MAX bytes), and the call must
 * be made on that copy: what was recorded is what runs. */
bool shim_take(const char *path, char verb, char *copy);

#endif
