/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for bundle/mountinfo.c, the reader of a table whose
 * names the sandboxed program chooses.  Besides "no crash, no leak, no
 * undefined behaviour": the iterator and parse_all agree on what parses,
 * and every accepted line round-trips: written back with the kernel's
 * escapes, it parses to the same fields.  A violation aborts, so libFuzzer
 * keeps the input.  Inputs above 64 KiB are skipped (the cap is a unit
 * test's business).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mountinfo.h"

/* Escape a name as the kernel does (space, tab, newline, backslash). */
static char *escape(const char *s, char *out)
{
        for (; *s; s++)
                if (strchr(" \t\n\\", *s))
                        out += sprintf(out, "\\%03o", (unsigned char) *s);
                else
                        *out++ = *s;
        *out = '\0';
        return out;
}

static void round_trip(const struct bento_mountinfo *m)
{
        size_t cap =
            4 * (strlen(m->root) + strlen(m->mnt) + strlen(m->fstype) + strlen(m->source)) +
            strlen(m->opts) + strlen(m->optional) + strlen(m->superopts) + 128;
        char *line = malloc(cap), *p = line;
        struct bento_mountinfo again;

        must(line != NULL, "malloc");
        p += sprintf(p, "%lu %lu %u:%u ", m->id, m->parent, m->major, m->minor);
        p = escape(m->root, p);
        *p++ = ' ';
        p = escape(m->mnt, p);
        p += sprintf(p, " %s %s%s- ", m->opts, m->optional, m->optional[0] ? " " : "");
        p = escape(m->fstype, p);
        *p++ = ' ';
        p = escape(m->source, p);
        sprintf(p, " %s", m->superopts);
        must(bento_mountinfo_parse_line(line, &again) == 0, "re-parse");
        must(again.id == m->id && again.parent == m->parent && again.major == m->major &&
                 again.minor == m->minor,
             "numbers round trip");
        must(strcmp(again.root, m->root) == 0 && strcmp(again.mnt, m->mnt) == 0 &&
                 strcmp(again.opts, m->opts) == 0 && strcmp(again.optional, m->optional) == 0 &&
                 strcmp(again.fstype, m->fstype) == 0 && strcmp(again.source, m->source) == 0 &&
                 strcmp(again.superopts, m->superopts) == 0,
             "fields round trip");
        free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *a, *b, *pos;
        struct bento_mountinfo *all = NULL, m;
        size_t n = 0, i = 0;
        int r;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        a = strndup((const char *) data, size);
        b = strndup((const char *) data, size);
        must(a && b, "strndup");
        must(bento_mountinfo_parse_all(a, &all, &n) == 0, "parse_all");
        pos = b;
        while ((r = bento_mountinfo_next(&pos, &m)) != 0) {
                if (r < 0)
                        continue;
                must(i < n, "iterator finds more than parse_all");
                must(strcmp(m.mnt, all[i].mnt) == 0, "iterator and parse_all differ");
                round_trip(&m);
                i++;
        }
        must(i == n, "iterator finds fewer than parse_all");
        free(all);
        free(a);
        free(b);
        return 0;
}
