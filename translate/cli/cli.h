/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers the verbs share for talking to the user.  Only cmd-*.c and
 * cli-*.c print.
 */
#ifndef BENTO_CLI_H
#define BENTO_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "manifest/manifest.h"

/* Load and validate the manifest at path.  Returns 0 with *ret set, or
 * prints why it cannot be used ("bento: ..." on stderr) and returns the
 * exit status (125). */
int cli_load_manifest(const char *path, struct manifest **ret);

/* Why a manifest could not be loaded, as the CLI words it (without the
 * "bento: " prefix): the rendered problems, or a pointer to what a script
 * handed over by mistake probably meant.  Heap string, NULL on ENOMEM. */
char *cli_load_error(const char *path, const struct manifest_problems *p,
                     const struct bento_err *err);

/* docs/manifest.md, "ENVIRONMENT": an --env argument must be NAME=VALUE with NAME in the manifest's
 * allowlist.  Returns 0, or prints why not and returns 125. */
int cli_check_env_override(const struct manifest *m, const char *arg);

/* A boolean as Go's strconv.ParseBool spells it (1 t T TRUE true True, and
 * 0 f F FALSE false False; docs/cli/bento.md, "EXIT STATUS").  Returns 0 with *ret set, or -EINVAL
 * with *ret untouched. */
int cli_parse_bool(const char *s, bool *ret);

/* A boolean flag such as --json: name alone means true, name=<bool> takes
 * cli_parse_bool()'s spellings.  Returns 1 with *ret set when arg is the
 * flag, 0 when it is some other argument, -EINVAL (*ret untouched) for
 * name= with a bad value. */
int cli_bool_flag(const char *arg, const char *name, bool *ret);

/* A verb that takes exactly one operand (what: "a manifest path") got n:
 * 0, or the usage error for none or too many (printed; returns 125). */
int cli_one_operand(const char *verb, const char *what, int n);

#endif
