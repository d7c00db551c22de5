/* SPDX-License-Identifier: Apache-2.0 */
/*
 * git's config syntax, read the way git 2.39 reads it (config.c there):
 * one character at a time, CR LF taken as LF, the end of the text taken as
 * a last LF.  Written from git's documented format and its behaviour, not
 * from its code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "gitconfig-parse.h"

/* git's own character classes: ASCII only, whatever the locale. */
static bool g_space(int c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool g_alpha(int c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool g_keychar(int c)
{
        return g_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int g_lower(int c)
{
        return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

struct text {
        const unsigned char *p;
        size_t len, pos;
        bool eof;
        int last; /* the character next() returned last */
};

static int next(struct text *t)
{
        int c;

        if (t->pos >= t->len) {
                t->eof = true;
                return t->last = '\n';
        }
        c = t->p[t->pos++];
        if (c == '\r' && t->pos < t->len && t->p[t->pos] == '\n') {
                t->pos++;
                c = '\n';
        }
        return t->last = c;
}

/* A lenient reader's way past a line it could not read. */
static void skip_line(struct text *t)
{
        while (t->last != '\n')
                next(t);
}

struct buf {
        char *s;
        size_t n, cap;
};

static int put(struct buf *b, int c)
{
        if (b->n + 2 > b->cap) {
                size_t cap = b->cap ? b->cap * 2 : 64;
                char *s = realloc(b->s, cap);

                if (!s)
                        return -ENOMEM;
                b->s = s;
                b->cap = cap;
        }
        b->s[b->n++] = (char) c;
        b->s[b->n] = '\0';
        return 0;
}

/* Empty, and a string even before the first character ("" is not NULL). */
static int reset(struct buf *b)
{
        if (!b->s && put(b, 'x') < 0)
                return -ENOMEM;
        b->n = 0;
        b->s[0] = '\0';
        return 0;
}

/* The value after "=": quotes joined, escapes undone, comments and
 * unquoted trailing space dropped, inner runs of space kept one for one. */
static int parse_value(struct text *t, struct buf *v)
{
        bool quote = false, comment = false;
        size_t space = 0;
        int r = reset(v);

        for (int c = next(t); r >= 0; c = next(t)) {
                if (c == '\n')
                        return quote ? GITCFG_SYNTAX : 0;
                if (comment)
                        continue;
                if (g_space(c) && !quote) {
                        if (v->n)
                                space++;
                        continue;
                }
                if (!quote && (c == ';' || c == '#')) {
                        comment = true;
                        continue;
                }
                for (; space && r >= 0; space--)
                        r = put(v, ' ');
                if (c == '\\') {
                        c = next(t);
                        if (c == '\n')
                                continue; /* a line continuation */
                        if (c == 't' || c == 'b' || c == 'n')
                                c = c == 't' ? '\t' : c == 'b' ? '\b' : '\n';
                        else if (c != '\\' && c != '"')
                                return GITCFG_SYNTAX;
                } else if (c == '"') {
                        quote = !quote;
                        continue;
                }
                if (r >= 0)
                        r = put(v, c);
        }
        return r;
}

/* [section "sub"]: after the space, a quoted subsection, then "]". */
static int extended_header(struct text *t, struct buf *var, int c)
{
        int r;

        while (g_space(c)) {
                if (c == '\n')
                        return GITCFG_SYNTAX;
                c = next(t);
        }
        if (c != '"')
                return GITCFG_SYNTAX;
        r = put(var, '.');
        for (c = next(t); r >= 0 && c != '"'; c = next(t)) {
                if (c == '\n')
                        return GITCFG_SYNTAX;
                if (c == '\\' && (c = next(t)) == '\n')
                        return GITCFG_SYNTAX;
                r = put(var, c);
        }
        if (r < 0)
                return r;
        return next(t) == ']' ? 0 : GITCFG_SYNTAX;
}

/* The header after "[" (var starts empty).  A lenient reader takes any
 * character after the dot of [section.sub]. */
static int header(struct text *t, struct buf *var, bool lenient)
{
        bool dotted = false;
        int r = 0;

        for (int c = next(t); r >= 0; c = next(t)) {
                if (t->eof)
                        return GITCFG_SYNTAX;
                if (c == ']')
                        return var->n ? 0 : GITCFG_SYNTAX;
                if (g_space(c) && !dotted)
                        return extended_header(t, var, c);
                if (c == '.')
                        dotted = true;
                else if (!g_keychar(c) && !(lenient && dotted && c != '\n'))
                        return GITCFG_SYNTAX;
                r = put(var, g_lower(c));
        }
        return r;
}

/* "key", then optionally "= value", up to the end of the line; var holds
 * the section part and the key's first letter. */
static int entry(struct text *t, struct buf *var, struct buf *value, gitcfg_entry_fn fn, void *data)
{
        int c, r = 0;

        for (c = next(t); !t->eof && g_keychar(c) && r >= 0; c = next(t))
                r = put(var, g_lower(c));
        while (r >= 0 && (c == ' ' || c == '\t'))
                c = next(t);
        if (r < 0)
                return r;
        if (c == '\n')
                return fn(var->s, NULL, data);
        if (c != '=')
                return GITCFG_SYNTAX;
        r = parse_value(t, value);
        return r < 0 ? r : fn(var->s, value->s, data);
}

static void buf_free(struct buf *b)
{
        free(b->s);
}

int gitcfg_parse(const char *text, size_t len, bool lenient, gitcfg_entry_fn fn, void *data)
{
        struct text t = {.p = (const unsigned char *) text, .len = len, .last = '\n'};
        __attribute__((cleanup(buf_free))) struct buf var = {0}, value = {0};
        bool comment = false, known = true;
        size_t base = 0;
        int r = 0;

        if (len && t.p[0] == 0xef) {
                if (len < 3 || t.p[1] != 0xbb || t.p[2] != 0xbf)
                        return lenient ? 0 : GITCFG_SYNTAX; /* a partial byte order mark */
                t.pos = 3;
        }
        if (reset(&var) < 0)
                return -ENOMEM;
        while (r >= 0) {
                int c = next(&t);

                if (c == '\n') {
                        if (t.eof)
                                return 0;
                        comment = false;
                } else if (comment || g_space(c)) {
                        continue;
                } else if (c == '#' || c == ';') {
                        comment = true;
                } else if (c == '[') {
                        r = reset(&var);
                        if (r >= 0)
                                r = header(&t, &var, lenient);
                        if (r >= 0)
                                r = put(&var, '.');
                        known = r >= 0;
                        base = var.n;
                } else if (!g_alpha(c)) {
                        r = GITCFG_SYNTAX;
                } else {
                        var.n = base;
                        r = put(&var, g_lower(c));
                        if (r >= 0)
                                r = known ? entry(&t, &var, &value, fn, data) : (skip_line(&t), 0);
                }
                if (r == GITCFG_SYNTAX && lenient) {
                        skip_line(&t);
                        r = 0;
                }
        }
        return r;
}

void gitcfg_split(const char *key, size_t *section_len, const char **sub, size_t *sub_len,
                  const char **name)
{
        const char *dot = strchr(key, '.');
        const char *last = strrchr(key, '.');

        *section_len = dot ? (size_t) (dot - key) : strlen(key);
        *sub = dot && last != dot ? dot + 1 : NULL;
        *sub_len = *sub ? (size_t) (last - dot - 1) : 0;
        *name = last ? last + 1 : key + strlen(key);
}
