/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text helpers for the reports validate and inspect print: strings that come from the host or from
 * a file bento did not write are quoted with escapes, so an embedded newline or a bidirectional
 * control cannot forge a line of the report; prose is wrapped at 78 columns on word boundaries.
 */
#ifndef BENTO_REPORT_TEXT_H
#define BENTO_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#define TEXT_WIDTH 78

/* s between double quotes, with '"', '\\', control characters, invalid
 * UTF-8 bytes and invisible format characters (bidi overrides, zero-width
 * marks) escaped the way Go's %q spells them.  Heap string, NULL when out of
 * memory; a NULL s gives "(null)" quoted. */
char *text_quote(const char *s);

/* Print text wrapped at TEXT_WIDTH columns as one paragraph
 * (bento_wrap_paragraph): the first line starts with first, the others with
 * cont.  Words are split on spaces and never broken; a word longer than a
 * line stands alone on it.  Ends with a newline. */
void text_wrap(FILE *f, const char *first, const char *cont, const char *text);

/* asprintf() into a heap string, NULL when out of memory. */
char *text_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print text to f wrapped at width columns (bento_wrap(): each line of
 * text a paragraph, the first line starts with first, the others with
 * indent, newline-terminated);
 * out of memory, text as it is on one line. */
void text_print_wrapped(FILE *f, const char *text, size_t width, const char *first,
                        const char *indent);

#endif
