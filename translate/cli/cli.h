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

#include "argv.h"
#include "manifest/manifest.h"

/* Load and validate the manifest at path.  Returns 0 with *ret set, or
 * prints why it cannot be used ("bento: ..." on stderr) and returns the
 * exit status (125). */
int cli_load_manifest(const char *path, struct manifest **ret);

/* docs/manifest.md, "ENVIRONMENT": an --env argument must be NAME=VALUE with NAME in the manifest's
 * allowlist.  Returns 0, or prints why not and returns 125. */
int cli_check_env_override(const struct manifest *m, const char *arg);

/* A verb's command line (argv[0] is the verb) for bento_argv_next: flags
 * and operands mixed, operands handed back in order, "--" ending the
 * flags. */
void cli_argv_init(struct bento_argv *a, int argc, char **argv);

/* After bento_argv_next failed: err reworded the way bento words usage
 * errors ("unknown flag: --x", "--env needs a value", "invalid value for
 * --json: x (want true or false)"). */
void cli_flag_problem(const struct bento_argv *a, struct bento_err *err);

/* The same, printed as the verb's usage error; returns 125. */
int cli_usage_problem(const char *verb, const struct bento_argv *a, struct bento_err *err);

/* A verb that takes exactly one operand (what: "a manifest path") got n:
 * 0, or the usage error for none or too many (printed; returns 125). */
int cli_one_operand(const char *verb, const char *what, int n);

#endif
