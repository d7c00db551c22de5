/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe-shim.so: recording a lookup in the ring (shim.h).  The
 * path is copied once, judged by its spelling with the observer's own
 * rules (../pathcheck.h), and written to the ring unless this process
 * wrote it already: the observer reports such a line once anyway, and a
 * Python program stats the same few hundred files over and over.  The
 * record's room is taken with a compare-and-swap, so a full ring hands out
 * nothing past its end and the call goes to the observer instead.
 */
#include <stdint.h>
#include <string.h>

#include "../pathcheck.h"
#include "shim.h"

/* Hashes of the paths this process recorded (open addressing; 0 = free).
 * Filled to three quarters at most; then every path is written again,
 * which costs ring room, not correctness. */
#define SEEN_SLOTS (1U << 14)
static uint64_t seen[SEEN_SLOTS];
static uint32_t n_seen;

static uint64_t hash(const char *s, size_t n, char verb)
{
        uint64_t h = 0xcbf29ce484222325ULL ^ (unsigned char) verb;

        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char) s[i]) * 0x100000001b3ULL;
        return h ? h : 1;
}

/* Whether h is in the table; when not and there is room, it is added. */
static bool seen_before(uint64_t h)
{
        for (uint32_t i = (uint32_t) h & (SEEN_SLOTS - 1);; i = (i + 1) & (SEEN_SLOTS - 1)) {
                uint64_t cur = __atomic_load_n(&seen[i], __ATOMIC_RELAXED);

                if (cur == h)
                        return true;
                if (cur != 0)
                        continue;
                if (__atomic_load_n(&n_seen, __ATOMIC_RELAXED) >= SEEN_SLOTS / 4 * 3)
                        return false;
                if (__atomic_compare_exchange_n(&seen[i], &cur, h, false, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
                        __atomic_add_fetch(&n_seen, 1, __ATOMIC_RELAXED);
                        return false;
                }
                if (cur == h) /* another thread took the slot for the same path */
                        return true;
        }
}

/* Room for size bytes of records, or NULL when the ring is full. */
static struct obs_ring_rec *reserve(uint32_t size)
{
        uint64_t used = __atomic_load_n(&shim_ring->used, __ATOMIC_RELAXED);

        do {
                if (used > OBS_RING_SIZE - OBS_RING_HEAD - size)
                        return NULL;
        } while (!__atomic_compare_exchange_n(&shim_ring->used, &used, used + size, true,
                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return (struct obs_ring_rec *) ((char *) shim_ring + OBS_RING_HEAD + used);
}

/* The NUL-terminated string at p into copy, or -1 when it does not fit.
 * Only the string's own bytes are read, as the kernel would. */
static long copy_path(const char *p, char *copy)
{
        for (long i = 0; i < SHIM_PATH_MAX; i++)
                if ((copy[i] = p[i]) == '\0')
                        return i;
        return -1;
}

bool shim_take(const char *path, char verb, char *copy)
{
        struct obs_ring_rec *rec;
        uint64_t h;
        uint32_t size;
        long len;

        /* a pointer into the first page is left to the kernel (EFAULT) */
        if (!shim_ready || (uintptr_t) path < 4096 || path[0] != '/')
                return false;
        len = copy_path(path, copy);
        if (len < 0 || !obs_path_under(copy, shim_trees, shim_n_trees))
                return false;
        h = hash(copy, (size_t) len, verb);
        if (seen_before(h))
                return true;
        size = obs_ring_rec_size((uint32_t) len);
        rec = reserve(size);
        if (!rec)
                return false;
        rec->verb = (uint8_t) verb;
        memcpy(rec->path, copy, (size_t) len + 1);
        __atomic_store_n(&rec->size, size, __ATOMIC_RELEASE);
        return true;
}
