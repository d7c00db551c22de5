/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPU and memory-node lists in the kernel's list format, which
 * runtime-spec uses too ("0-3,7": decimal numbers and a-b ranges, comma
 * separated), parsed into a bitmap of unsigned long words as
 * sched_setaffinity(2) and set_mempolicy(2) take it.  One parser for the
 * config model (process.execCPUAffinity, linux.memoryPolicy.nodes) and the
 * runtime's cgroup cpuset code.
 */
#ifndef BENTO_IDLIST_H
#define BENTO_IDLIST_H

#include <stdbool.h>
#include <stddef.h>

#define BENTO_IDLIST_WORD_BITS (8 * sizeof(unsigned long))
/* Words needed for nbits bits. */
#define BENTO_IDLIST_WORDS(nbits) (((nbits) + BENTO_IDLIST_WORD_BITS - 1) / BENTO_IDLIST_WORD_BITS)

/* Parse s into bits (nbits bits, zeroed first).  The empty string is the
 * empty set.  Returns 0; -EINVAL for anything that is not a list (a space,
 * a sign, "3-1", a trailing comma), with *bad_at (when not NULL) set to the
 * offset of the first bad character; -ERANGE for a number >= nbits, with
 * *bad_at set to the number itself. */
int bento_idlist_parse(const char *s, unsigned long *bits, size_t nbits, unsigned long *bad_at);

static inline bool bento_idlist_test(const unsigned long *bits, size_t i)
{
        return (bits[i / BENTO_IDLIST_WORD_BITS] >> (i % BENTO_IDLIST_WORD_BITS)) & 1ul;
}

#endif
