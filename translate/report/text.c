/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quoting and wrapping for human reports (text.h).
 */
#include "text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "textwrap.h"
#include "utf8.h"

/* Code points that print as nothing or reorder what follows. */
static bool invisible(uint32_t c)
{
        return (c >= 0x80 && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
               (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c == 0xfeff;
}

char *text_quote(const char *s)
{
        const unsigned char *p = (const unsigned char *) (s ? s : "(null)");
        size_t len = strlen((const char *) p);
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        if (!f)
                return NULL;
        fputc('"', f);
        for (size_t i = 0; i < len;) {
                uint32_t c = 0;
                size_t n = bento_utf8_decode((const char *) p + i, len - i, &c);

                if (n == 0) {
                        fprintf(f, "\\x%02x", p[i]);
                        i++;
                        continue;
                }
                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", (int) c);
                else if (c == '\n')
                        fputs("\\n", f);
                else if (c == '\t')
                        fputs("\\t", f);
                else if (c == '\r')
                        fputs("\\r", f);
                else if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\x%02x", (unsigned) c);
                else if (invisible(c))
                        fprintf(f, "\\u%04x", (unsigned) c);
                else
                        fwrite(p + i, 1, n, f);
                i += n;
        }
        fputc('"', f);
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}

void text_wrap(FILE *f, const char *first, const char *cont, const char *text)
{
        bento_wrap_paragraph(f, text, strlen(text), TEXT_WIDTH, first, cont);
}

char *text_printf(const char *fmt, ...)
{
        char *s = NULL;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(&s, fmt, ap);
        va_end(ap);
        return n < 0 ? NULL : s;
}
