/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the libFuzzer targets of tests/fuzz share: the entry point's
 * prototype, the input size above which a target skips (the size caps are
 * the unit tests' business, and big inputs only slow the search down), and
 * must(), which aborts on a broken invariant so that libFuzzer keeps the
 * input.
 */
#ifndef BENTO_FUZZ_H
#define BENTO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_MAX_BYTES (64u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void must(int ok, const char *what)
{
        if (!ok) {
                fprintf(stderr, "fuzz invariant broken: %s\n", what);
                abort();
        }
}

#endif
