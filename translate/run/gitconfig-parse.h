/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one reader of git's config file syntax in bento (gitconfig-parse.c):
 * sections, [section "sub"] and the old [section.sub], keys without a
 * value, quoting, the four escapes, line continuations, comments, a UTF-8
 * byte order mark, CR LF line ends.  Names are folded the way git folds
 * them (section and key to lower case; a quoted subsection kept, an old
 * [section.sub] folded whole).  Only ASCII counts as a letter or a space,
 * as in git.
 *
 * Strict mode stops where git stops reading the file and says so: git
 * refuses a config it cannot parse, so the caller knows the answer is
 * "git fails".  Lenient mode (the auto-exec report's list of settings)
 * skips a line it cannot read and goes on, and takes any character in an
 * old-style subsection: a setting is named even when git would first need
 * the file repaired.
 */
#ifndef BENTO_RUN_GITCONFIG_PARSE_H
#define BENTO_RUN_GITCONFIG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* One setting: key is "section.key" or "section.subsection.key"; value is
 * NULL for a key written without "=" (git's "true").  A negative return
 * stops the parse and is returned by gitcfg_parse(). */
typedef int (*gitcfg_entry_fn)(const char *key, const char *value, void *data);

/* The parse returned this: the text is not valid git config syntax. */
#define GITCFG_SYNTAX (-1000)

/* Parse len bytes of text (NULs allowed; a value is cut at its first NUL,
 * as git's C strings are).  0, GITCFG_SYNTAX (strict mode only), -ENOMEM,
 * or the callback's negative value. */
int gitcfg_parse(const char *text, size_t len, bool lenient, gitcfg_entry_fn fn, void *data);

/* Split a key given to the callback: section (length *section_len), the
 * subsection or NULL, and the last part.  git's own rule: the subsection
 * is everything between the first and the last dot. */
void gitcfg_split(const char *key, size_t *section_len, const char **sub, size_t *sub_len,
                  const char **name);

#endif
