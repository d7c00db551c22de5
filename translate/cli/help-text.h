/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text `bento <verb> --help` prints.  It is made from the verb's manual
 * page source, docs/cli/bento-<verb>.md, by docs/gen-docs.py into
 * $(BUILDDIR)/gen/help-text.c at build time (docs/README.md), so the help
 * and the manual page cannot disagree.  Only main.c uses it.
 */
#ifndef BENTO_HELP_TEXT_H
#define BENTO_HELP_TEXT_H

/* The full help of a verb (synopsis, summary, description, options, exit
 * status), or NULL when the verb has no page. */
const char *bento_help_text(const char *verb);

#endif
