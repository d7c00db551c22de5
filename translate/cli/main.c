/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento: the command line around the manifest (docs/cli/bento.md).  This file
 * is only the dispatcher: global --help and --version, `help [VERB]`, then
 * the verb named in the table of commands.c.  A verb's --help is the text generated from
 * its manual page source (help-text.h), answered here with the verb's own
 * flag table so that a flag's value is never taken for --help.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "argv.h"
#include "cli.h"
#include "commands.h"
#include "compile/compile.h"
#include "help-text.h"
#include "run/launch.h"

static int help(FILE *f)
{
        fputs("bento runs a program under the permissions of a reviewed manifest.\n\n"
              "usage: bento <command> [arguments]\n\ncommands:\n",
              f);
        for (size_t i = 0; i < bento_n_verbs; i++)
                fprintf(f, "  %-10s %s\n", bento_verbs[i].name, bento_verbs[i].summary);
        fputs("\nRun `bento <command> --help` for what a command does and the flags it takes.\n"
              "The manual pages bento(1) and bento-manifest(5) say more.\n",
              f);
        return 0;
}

/* `bento VERB --help`: the text made from the verb's page. */
static void verb_help(const char *verb, const struct bento_opt *opts)
{
        const struct bento_verb *v = bento_find_verb(verb);
        const char *text = v ? bento_help_text(v->name) : NULL;

        (void) opts;
        /* A verb without a page still gets its usage line; the docs test
         * fails until the page is written. */
        if (text)
                fputs(text, stdout);
        else if (v)
                printf("usage: %s\n\n%s.\n", v->use, v->summary);
}

/* --help or -h among the verb's flags (before a bare "--", not as a
 * flag's value) prints its help and exits 0 (bundle/argv.h), before the
 * verb does anything and whatever else is wrong with the command line. */
static void answer_help(const struct bento_verb *v, int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1, .mixed = true};
        struct bento_argv_hit h;
        struct bento_err err = {0};

        a.help = verb_help;
        while (bento_argv_next(&a, v->opts, &h, &err) != 0)
                ;
}

/* `bento help [VERB]`: the command list, or exactly what `bento VERB
 * --help` prints, so that scripts and people can use either spelling. */
static int help_verb(int argc, char **argv)
{
        const struct bento_verb *v;

        if (argc < 2)
                return help(stdout);
        if (argc > 2) {
                fprintf(stderr,
                        "bento: help takes at most one command name, but got %d\n"
                        "usage: bento help [<command>]\n",
                        argc - 1);
                return BENTO_EXIT_REFUSED;
        }
        v = bento_find_verb(argv[1]);
        if (!v) {
                fprintf(stderr,
                        "bento: help: unknown command \"%s\"\nRun `bento --help` to see the "
                        "commands.\n",
                        argv[1]);
                return BENTO_EXIT_REFUSED;
        }
        verb_help(v->name, v->opts);
        return 0;
}

static int bad_global_flag(const struct bento_argv *a, struct bento_err *err)
{
        cli_flag_problem(a, err);
        fprintf(stderr, "bento: %s\nRun `bento --help` for the flags it takes.\n", err->msg);
        return BENTO_EXIT_REFUSED;
}

int main(int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err err = {0};
        const struct bento_verb *v;
        const char *verb;
        int r = bento_argv_next(&a, bento_global_opts, &h, &err);

        if (r < 0)
                return bad_global_flag(&a, &err);
        if (r > 0)
                return h.id == BENTO_GLOBAL_VERSION ? cmd_version(1, argv + a.i - 1) : help(stdout);
        if (a.i >= argc)
                return help(stdout);
        if (strcmp(argv[a.i], "help") == 0)
                return help_verb(argc - a.i, argv + a.i);
        verb = argv[a.i];
        argc -= a.i;
        argv += a.i;
        if (strcmp(verb, COMPILE_CLEANUP_VERB) == 0)
                return cmd_remove_mount_points(argc, argv);
        /* the Landlock-only tier's launcher, started by bento run (run/launch.h) */
        if (strcmp(verb, LAUNCH_VERB) == 0)
                return launch_main(argc, argv);
        v = bento_find_verb(verb);
        if (!v) {
                fprintf(stderr,
                        "bento: unknown command \"%s\"\nRun `bento --help` to see the "
                        "commands.\n",
                        verb);
                return BENTO_EXIT_REFUSED;
        }
        answer_help(v, argc, argv);
        return v->run(argc, argv);
}
