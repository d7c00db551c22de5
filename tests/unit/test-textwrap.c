/* SPDX-License-Identifier: Apache-2.0 */
/* bundle/textwrap.c: the one word-boundary wrapper (moved here from
 * test-admission.c with the wrapper itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "tap.h"
#include "textwrap.h"

/* One paragraph as a string. */
static char *paragraph(const char *p, size_t width, const char *first, const char *indent)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        bento_wrap_paragraph(f, p, strlen(p), width, first, indent);
        fclose(f);
        return buf;
}

TEST(wrap)
{
        cleanup_free char *s = bento_wrap("aaa bbb ccc\nddd", 8, "> ", "  ");

        ASSERT_STREQ(s, "> aaa\n  bbb\n  ccc\n  ddd\n");
        free(s);
        s = bento_wrap("averyveryverylongword x", 8, "", "");
        ASSERT_STREQ(s, "averyveryverylongword\nx\n"); /* never splits a word */
}

TEST(paragraph_breaks_only_at_spaces)
{
        cleanup_free char *a = paragraph("  one  two three  ", 9, "", "");
        cleanup_free char *b = paragraph("a\nb c", 4, "", "");
        cleanup_free char *c = paragraph("", 10, "- ", "  ");
        cleanup_free char *d = paragraph("abc def", 7, "", "");
        cleanup_free char *e = paragraph("abc def", 6, "> ", ">> ");

        /* runs of spaces collapse; leading and trailing ones vanish */
        ASSERT_STREQ(a, "one two\nthree\n");
        /* a newline is part of a word here; bento_wrap splits on it first */
        ASSERT_STREQ(b, "a\nb\nc\n");
        /* an empty paragraph is its prefix alone */
        ASSERT_STREQ(c, "- \n");
        /* a line may be exactly width long */
        ASSERT_STREQ(d, "abc def\n");
        /* the prefix counts; a word too long for even a fresh line stands alone */
        ASSERT_STREQ(e, "> abc\n>> def\n");
}

TEST(paragraphs_after_the_first_take_the_indent)
{
        cleanup_free char *s = bento_wrap("x\n\ny", 10, "1 ", "  ");

        ASSERT_STREQ(s, "1 x\n  \n  y\n");
}

TAP_MAIN()
