/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verbs of the bento CLI.  commands.c holds the table; each cmd_*
 * parses its own flags from argv (argv[0] is the verb) and returns the exit
 * status (docs/cli/bento.md, "EXIT STATUS": 0 on success, 125 when bento refuses or
 * fails).  Only main.c and cmd-*.c print.
 */
#ifndef BENTO_COMMANDS_H
#define BENTO_COMMANDS_H

#include <stddef.h>

#include "argv.h"
#include "run/run.h" /* BENTO_EXIT_REFUSED */

struct bento_verb {
        const char *name;
        int (*run)(int argc, char **argv); /* argv[0] is the verb */
        const char *use;                   /* the usage line */
        const char *summary;               /* one line for --help */
        const struct bento_opt *opts;      /* its flags (bundle/argv.h), in cmd-<verb>.c */
};

extern const struct bento_verb bento_verbs[];
extern const size_t bento_n_verbs;

/* The row for a verb name, or NULL. */
const struct bento_verb *bento_find_verb(const char *name);

/* Each verb's flag table, the one list of what it parses (the docs test
 * reads them: every flag in a table is in the verb's page and back). */
extern const struct bento_opt cmd_run_opts[];
extern const struct bento_opt cmd_translate_opts[];
extern const struct bento_opt cmd_validate_opts[];
extern const struct bento_opt cmd_inspect_opts[];
extern const struct bento_opt cmd_approve_opts[];
extern const struct bento_opt cmd_doctor_opts[];
extern const struct bento_opt cmd_version_opts[];
extern const struct bento_opt cmd_profile_opts[];
extern const struct bento_opt cmd_completion_opts[];

/* The flags of bento itself, before any verb (main.c parses them;
 * cmd-completion.c offers them). */
enum { BENTO_GLOBAL_HELP, BENTO_GLOBAL_VERSION };
extern const struct bento_opt bento_global_opts[];

int cmd_run(int argc, char **argv);
/* The poststop hook of a translated bundle (compile/compile.c), not a user verb. */
int cmd_remove_mount_points(int argc, char **argv);
int cmd_translate(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* Report a usage mistake of a verb the way docs/cli/bento.md, "EXIT STATUS" asks: "bento:
 * <message>", the verb's use line and the pointer to its --help.  Returns 125. */
int bento_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
