/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The character screen of docs/manifest.md, "SYNTAX RULES".  A manifest is read by a human
 * before it is approved, so any character that can make a value look like
 * something else on a terminal or in a review tool (bidirectional controls,
 * line separators, zero-width and other invisible characters, control
 * characters) is refused outright rather than displayed.  The same module
 * owns the sanitiser every message that quotes manifest content goes
 * through; UTF-8 itself is decoded by bundle/utf8.h.
 */
#ifndef BENTO_SCREEN_H
#define BENTO_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In the priority order of docs/manifest.md, "SYNTAX RULES": a code point in several classes is
 * named after the first one it belongs to. */
enum screen_class {
        SCREEN_OK,
        SCREEN_INVALID_UTF8,
        SCREEN_BIDI,
        SCREEN_LINE_SEPARATOR,
        SCREEN_INVISIBLE,
        SCREEN_CONTROL,
        _SCREEN_CLASS_MAX,
};

struct screen_hit {
        enum screen_class cls;
        uint32_t cp;   /* the offending code point; 0 for SCREEN_INVALID_UTF8 */
        size_t offset; /* byte offset of the offending sequence */
};

/* Classify one code point (never SCREEN_INVALID_UTF8). */
enum screen_class screen_classify(uint32_t cp);

/* Screen a value.  Invalid UTF-8 anywhere wins over everything else;
 * otherwise the first offending code point is reported.  Returns true when
 * the value is clean (and then *ret is set to SCREEN_OK). */
bool screen_check(const char *s, size_t len, struct screen_hit *ret);

/* The words of docs/manifest.md, "SYNTAX RULES": "a bidirectional formatting character", ... */
const char *screen_class_name(enum screen_class c);

/* Copy s into buf (size > 4) for a message: C0, DEL and C1 controls,
 * bidirectional controls and line separators are dropped (they could
 * reorder or forge the line around them), invalid bytes become U+FFFD, and
 * the copy is cut at about max_bytes with "..." so one huge value cannot
 * swamp the report.  Returns buf. */
char *screen_sanitize(const char *s, size_t len, size_t max_bytes, char *buf, size_t size);

#endif
