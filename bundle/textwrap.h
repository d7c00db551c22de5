/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Wrapping text on word boundaries for terminal output: the one wrapper
 * behind every paragraph bento prints (refusals, doctor's notes, validate
 * and inspect reports).  It lives in bundle/ rather than in a stage of
 * translate/ because it is plain formatting, needed by the host, report and
 * cli stages alike, and no stage should own it by accident of being first.
 * Words are runs of non-space bytes and are never split; a word longer than
 * the line gets a line of its own.  Widths count bytes.
 */
#ifndef BENTO_TEXTWRAP_H
#define BENTO_TEXTWRAP_H

#include <stddef.h>
#include <stdio.h>

/* Write the len bytes of p to f as one paragraph wrapped at width columns:
 * the first line starts with first, the others with indent, and the last
 * ends in '\n'.  Only ' ' separates words; any other byte, '\n' included,
 * is part of a word. */
void bento_wrap_paragraph(FILE *f, const char *p, size_t len, size_t width, const char *first,
                          const char *indent);

/* text as a heap string, each of its '\n'-separated paragraphs wrapped as
 * bento_wrap_paragraph does: the first line of all starts with first, every
 * other line with indent.  NULL when out of memory. */
char *bento_wrap(const char *text, size_t width, const char *first, const char *indent);

#endif
