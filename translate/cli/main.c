/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento: the command line around the manifest (docs/cli/bento.md).  This file
 * is only the dispatcher: global --help and --version, then the verb named
 * in the table of commands.c.  A verb's --help is the text generated from
 * its manual page source (help-text.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compile/compile.h"
#include "help-text.h"

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

/* "--help" anywhere before a bare "--" asks for the verb's help. */
static bool wants_help(int argc, char **argv)
{
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
                        return true;
        return false;
}

int main(int argc, char **argv)
{
        const struct bento_verb *v;

        if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
            strcmp(argv[1], "help") == 0)
                return help(stdout);
        if (strcmp(argv[1], "--version") == 0)
                return cmd_version(1, argv + 1);
        if (argv[1][0] == '-') {
                fprintf(stderr,
                        "bento: unknown flag: %s\nRun `bento --help` for the flags it "
                        "takes.\n",
                        argv[1]);
                return BENTO_EXIT_REFUSED;
        }
        if (strcmp(argv[1], COMPILE_CLEANUP_VERB) == 0)
                return cmd_remove_mount_points(argc - 1, argv + 1);
        v = bento_find_verb(argv[1]);
        if (!v) {
                fprintf(stderr,
                        "bento: unknown command \"%s\"\nRun `bento --help` to see the "
                        "commands.\n",
                        argv[1]);
                return BENTO_EXIT_REFUSED;
        }
        if (wants_help(argc - 1, argv + 1)) {
                const char *text = bento_help_text(v->name);

                /* A verb without a page still gets its usage line; the docs
                 * test fails until the page is written. */
                if (text)
                        fputs(text, stdout);
                else
                        printf("usage: %s\n\n%s.\n", v->use, v->summary);
                return 0;
        }
        return v->run(argc - 1, argv + 1);
}
