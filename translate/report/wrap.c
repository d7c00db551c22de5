/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Printing a paragraph wrapped on word boundaries (bento_wrap() of
 * bundle/textwrap.h), the way the verbs word refusals, notes and legends.
 * Running out of memory costs only the wrapping: the text still goes out,
 * on one line.
 */
#include <stdio.h>

#include "cleanup.h"
#include "text.h"
#include "textwrap.h"

void text_print_wrapped(FILE *f, const char *text, size_t width, const char *first,
                        const char *indent)
{
        cleanup_free char *wrapped = bento_wrap(text, width, first, indent);

        fputs(wrapped ? wrapped : text, f);
        if (!wrapped)
                fputc('\n', f);
}
