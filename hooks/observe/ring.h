/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the record ring its preload library writes (shim/,
 * docs/profile.md "The preload library").  A memfd of fixed size, sealed
 * against growing and shrinking, shared by the observer and every process
 * of the target that loaded the library:
 *
 *   offset 0        struct obs_ring_head: magic, size, the bytes reserved
 *                   so far, and the trees the library may record in
 *   OBS_RING_HEAD   records, one after another, each 8-byte aligned:
 *                   struct obs_ring_rec, then the path and its NUL
 *
 * A writer reserves a record's room with one atomic add on `used`, fills
 * it, and stores its size last (release): a size of 0 is a record not
 * (yet) written.  Room past the end is never handed out: the writer that
 * finds the ring full lets its call go to the observer as a notification.
 * The ring is read once, after the last traced process has ended; what
 * the target wrote there is hostile input, read from a copy and checked as
 * such (ring.c).
 *
 * The gadget: the library maps a page at OBS_SHIM_GADGET holding
 * "endbr64; syscall; ret", and makes the calls it records there.  The
 * observer's filter (filter.c) lets a file lookup run without a stop when
 * its instruction pointer is OBS_SHIM_GADGET_IP and the call is one the
 * library records (a stat, an access, a read-only open): the only calls it
 * lets by, so a target that jumps there itself hides lookups from its own
 * draft and nothing else.
 */
#ifndef BENTO_OBSERVE_RING_H
#define BENTO_OBSERVE_RING_H

#include <stdint.h>

#define OBS_RING_MAGIC 0x31676e69726f6262ULL /* "bboring1" */
#define OBS_RING_SIZE  (8U << 20)            /* 8 MiB, touched only as written */
#define OBS_RING_HEAD  4096U
#define OBS_RING_TREES (OBS_RING_HEAD - 64U)

/* The environment variable that names the ring's descriptor in the target. */
#define OBS_RING_ENV "BENTO_OBSERVE_RING"

/* Where the library maps its gadget: above AddressSanitizer's shadow and
 * below where PIE executables and the mmap area go. */
#define OBS_SHIM_GADGET    0x4b0000000000ULL
#define OBS_SHIM_GADGET_IP (OBS_SHIM_GADGET + 6) /* after endbr64 (4) and syscall (2) */

struct obs_ring_head {
        uint64_t magic;
        uint64_t size; /* of the memfd, OBS_RING_SIZE */
        uint64_t used; /* bytes reserved after OBS_RING_HEAD (atomic) */
        uint32_t trees_len;
        uint32_t reserved[9];
        /* the --no-result-under trees, each NUL-terminated, trees_len bytes */
        char trees[OBS_RING_TREES];
};

_Static_assert(sizeof(struct obs_ring_head) == OBS_RING_HEAD, "the head fills one page");

/* verbs of a record: the report line's first word */
#define OBS_RING_READ  'r'
#define OBS_RING_PROBE 'p'

struct obs_ring_rec {
        uint32_t size; /* whole record, a multiple of 8; 0 until written */
        uint8_t verb;  /* OBS_RING_READ or OBS_RING_PROBE */
        uint8_t pad[3];
        char path[]; /* NUL-terminated */
};

/* The room a record of a path of len bytes takes. */
static inline uint32_t obs_ring_rec_size(uint32_t len)
{
        return (uint32_t) ((sizeof(struct obs_ring_rec) + len + 1 + 7) & ~7U);
}

#endif
