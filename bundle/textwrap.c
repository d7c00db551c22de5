/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Word-boundary wrapping (textwrap.h).  A line breaks before a word only
 * when the line already holds one, so a prefix alone never makes an empty
 * line and an over-long word is printed whole.
 */
#include "textwrap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void bento_wrap_paragraph(FILE *f, const char *p, size_t len, size_t width, const char *first,
                          const char *indent)
{
        size_t col = strlen(first), start = col;

        fputs(first, f);
        for (size_t i = 0; i < len;) {
                size_t w;

                while (i < len && p[i] == ' ')
                        i++;
                if (i == len)
                        break;
                for (w = 0; i + w < len && p[i + w] != ' ';)
                        w++;
                if (col > start && col + 1 + w > width) {
                        fputc('\n', f);
                        fputs(indent, f);
                        col = start = strlen(indent);
                }
                if (col > start)
                        fputc(' ', f), col++;
                fwrite(p + i, 1, w, f);
                col += w;
                i += w;
        }
        fputc('\n', f);
}

char *bento_wrap(const char *text, size_t width, const char *first, const char *indent)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        bool lead = true;

        if (!f)
                return NULL;
        for (const char *p = text;;) {
                size_t n = strcspn(p, "\n");

                bento_wrap_paragraph(f, p, n, width, lead ? first : indent, indent);
                lead = false;
                if (!p[n])
                        break;
                p += n + 1;
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
