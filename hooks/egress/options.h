/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command line of bento-egress (documented in `bento-egress --help` and
 * docs/egress.md), and the rules an annotation of the container adds.
 */
#ifndef BENTO_EGRESS_OPTIONS_H
#define BENTO_EGRESS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "err.h"

enum egress_mode {
        EGRESS_MODE_HOOK,    /* the normal case: an OCI hook */
        EGRESS_MODE_CHECK,   /* --check: validate and print the rules */
        EGRESS_MODE_HELP,    /* --help */
        EGRESS_MODE_VERSION, /* --version */
};

/* Parse argv into cfg (defaults first).  Returns the mode, or -EINVAL with
 * err saying which argument is wrong. */
int egress_options_parse(int argc, char **argv, struct egress_config *cfg, struct bento_err *err);

/* Add the rules in text (HOST:PORT items separated by commas, spaces or
 * newlines), as read from an annotation.  where names the source for
 * messages.  Returns 0 or -EINVAL. */
int egress_rules_add_list(struct egress_config *cfg, const char *text, const char *where,
                          struct bento_err *err);

/* The --help text. */
void egress_usage(FILE *f);

#endif
