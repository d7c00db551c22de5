/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The resource limit syntaxes of docs/manifest.md, "LIMITS": a memory size ("128M")
 * and a CPU percentage ("12.5%").  Both are parsed exactly, without strtod
 * or locale-dependent functions, so a value means the same everywhere and
 * the message for a bad one can say precisely what is wrong.
 *
 * (Not named limits.h: beside the translate sources that name would be found by
 * the C library's own #include of <limits.h> and break its headers.)
 */
#ifndef BENTO_TRANSLATE_LIMITS_H
#define BENTO_TRANSLATE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* The largest CPU quota, in hundredths of a percent (the original's bound,
 * "21474836.47%"). */
#define LIMITS_CPU_MAX_HUNDREDTHS 2147483647ull

/* Parse a memory size: a plain byte count or digits followed by K, M or G
 * (powers of 1024).  Returns 0 with *ret set, or -EINVAL with the reason in
 * why (starting "size ..." or "invalid size ...", value quoted).  Zero is
 * accepted here; the caller decides what zero means. */
int limits_parse_size(const char *s, uint64_t *ret, char *why, size_t size);

/* Parse a percentage into hundredths of a percent.  Same convention; the
 * reason starts with the quoted value ("\"100\" must be a percentage ..."). */
int limits_parse_percent(const char *s, uint64_t *ret, char *why, size_t size);

#endif
