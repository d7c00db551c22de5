/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A backtracking matcher for git's path globs (git-wildmatch.h), written
 * from git's documentation of the syntax (gitignore(5), git-config(1)
 * "includeIf").  Every step costs one unit of the caller's budget, so a
 * pattern of many stars against a long text gives up instead of taking
 * exponential time.
 */
#include <stddef.h>
#include <string.h>

#include "git-wildmatch.h"

#define TOO_HARD (-1)

static int fold(int c, bool casefold)
{
        return casefold && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* 1 or 0, or -1 for a name git does not know (the class then matches
 * nothing). */
static int in_named_class(const char *name, size_t len, int c)
{
        static const struct {
                const char *name;
                const char *ranges; /* pairs of first and last */
        } classes[] = {
            {"alnum", "09AZaz"},   {"alpha", "AZaz"},
            {"blank", "\t\t  "},   {"cntrl", "\001\037\177\177"},
            {"digit", "09"},       {"graph", "!~"},
            {"lower", "az"},       {"print", " ~"},
            {"punct", "!/:@[`{~"}, {"space", "\t\r  "},
            {"upper", "AZ"},       {"xdigit", "09AFaf"},
        };

        for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
                const char *r = classes[i].ranges;

                if (strlen(classes[i].name) != len || memcmp(classes[i].name, name, len) != 0)
                        continue;
                for (; *r; r += 2)
                        if (c >= (unsigned char) r[0] && c <= (unsigned char) r[1])
                                return 1;
                return 0;
        }
        return -1;
}

/* One [...] class at *pp (just after "["): whether t is in it.  *pp moves
 * past the closing "]"; -2 when the class never closes (no match then). */
static int bracket(const unsigned char **pp, int t, bool casefold)
{
        const unsigned char *p = *pp;
        bool negated = *p == '!' || *p == '^', matched = false;
        int prev = -1;

        if (negated)
                p++;
        for (bool first = true; first || *p != ']'; first = false) {
                int c = *p;

                if (!c)
                        return -2;
                if (c == '[' && p[1] == ':') {
                        const unsigned char *end =
                            (const unsigned char *) strstr((const char *) p + 2, ":]");

                        if (end) {
                                size_t len = (size_t) (end - p - 2);
                                int in = in_named_class((const char *) p + 2, len, t);

                                if (in < 0)
                                        return -2;
                                matched |=
                                    in || (casefold && len == 5 && memcmp(p + 2, "upper", 5) == 0 &&
                                           t >= 'a' && t <= 'z');
                                p = end + 2;
                                prev = -1;
                                continue;
                        }
                }
                if (c == '\\' && !(c = *++p))
                        return -2;
                if (c == '-' && prev >= 0 && p[1] && p[1] != ']') {
                        int hi = *++p;

                        if (hi == '\\' && !(hi = *++p))
                                return -2;
                        matched |= (t >= prev && t <= hi) ||
                                   (casefold && fold(t, true) >= fold(prev, true) &&
                                    fold(t, true) <= fold(hi, true));
                        prev = -1;
                        p++;
                        continue;
                }
                matched |= fold(c, casefold) == fold(t, casefold);
                prev = c;
                p++;
        }
        *pp = p + 1;
        return matched != negated;
}

static int match(const unsigned char *p, const unsigned char *t, const unsigned char *start,
                 bool casefold, unsigned long *budget);

/* The stars at p (one "*", or a "**" between slashes, which may cross
 * them) and the rest of the pattern after them, against t. */
static int match_stars(const unsigned char *p, const unsigned char *t, const unsigned char *start,
                       bool casefold, unsigned long *budget)
{
        const unsigned char *stars = p;
        bool crosses;
        int r;

        while (p[1] == '*')
                p++;
        crosses =
            p > stars && (stars == start || stars[-1] == '/') && (p[1] == '\0' || p[1] == '/');
        p++;
        if (crosses && !*p)
                return 1;
        if (crosses) { /* "** /": no directory, or any number of them */
                for (;;) {
                        if ((r = match(p + 1, t, start, casefold, budget)) != 0)
                                return r;
                        t = (const unsigned char *) strchr((const char *) t, '/');
                        if (!t)
                                return 0;
                        t++;
                }
        }
        for (;; t++) {
                if ((r = match(p, t, start, casefold, budget)) != 0)
                        return r;
                if (!*t || *t == '/')
                        return 0;
        }
}

/* One element of the pattern at *pp ("?", a bracket, an escaped or a plain
 * byte) against the byte c (not the end of the text): 1 when it matches,
 * with *pp left on the element's last byte. */
static int match_one(const unsigned char **pp, unsigned char c, bool casefold)
{
        const unsigned char *p = *pp;

        if (*p == '?')
                return c != '/';
        if (*p == '[') {
                int r;

                p++;
                r = c == '/' ? 0 : bracket(&p, c, casefold);
                *pp = p - 1;
                return r > 0;
        }
        if (*p == '\\' && !*++p)
                return 0; /* a pattern that ends in "\\" matches nothing */
        *pp = p;
        return fold(*p, casefold) == fold(c, casefold);
}

static int match(const unsigned char *p, const unsigned char *t, const unsigned char *start,
                 bool casefold, unsigned long *budget)
{
        for (; *p; p++, t++) {
                if (!*budget)
                        return TOO_HARD;
                --*budget;
                if (*p == '*')
                        return match_stars(p, t, start, casefold, budget);
                if (!*t || !match_one(&p, *t, casefold))
                        return 0;
        }
        return *t == '\0';
}

enum git_wild git_wildmatch(const char *pattern, const char *text, bool casefold,
                            unsigned long *budget)
{
        const unsigned char *p = (const unsigned char *) pattern;
        int r = match(p, (const unsigned char *) text, p, casefold, budget);

        return r == TOO_HARD ? GIT_WILD_TOO_HARD : r ? GIT_WILD_YES : GIT_WILD_NO;
}
