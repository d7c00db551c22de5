/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle/argv.c, the parser of every program's command line, as a table:
 * each row is an argv (argv[0] is the verb), a mode, and what the parser
 * makes of it, rendered one hit after the other:
 *
 *   --name=value   an option and its value (a flag shows =true or =false)
 *   [word]         an operand (mixed mode)
 *   | rest: ...    where the options stopped (the words left as operands)
 *   ! message      the error (in scan mode the parse goes on after it)
 *   help(VERB)     --help printed the verb's help and the process exited 0
 *
 * Every row runs in a child process, because --help exits.  `prove -v`
 * lists the rows ("# row: argv => result"), so the table can be quoted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "tap.h"

enum { O_BUNDLE = 1, O_DETACH, O_JSON, O_ENV, O_ROOT, O_OUTPUT };

static const struct bento_opt opts[] = {
    {"bundle", 'b', BENTO_OPT_VALUE, O_BUNDLE, "DIR", "the bundle"},
    {"detach", 'd', BENTO_OPT_FLAG, O_DETACH, NULL, "do not wait"},
    {"json", 0, BENTO_OPT_BOOL, O_JSON, NULL, "machine output"},
    {"env", 'e', BENTO_OPT_VALUE, O_ENV, "NAME=VALUE", "an environment variable"},
    {"root", 0, BENTO_OPT_VALUE, O_ROOT, "DIR", "the state directory"},
    {"output", 'o', BENTO_OPT_VALUE, O_OUTPUT, "DIR", "where to write"},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

enum mode { STOP, MIXED, SCAN, NO_HELP };

struct row {
        const char *name;
        enum mode mode;
        const char *argv[8]; /* after the verb */
        const char *want;
};

static const struct row rows[] = {
    {"--f=v", STOP, {"--bundle=/b"}, "--bundle=/b"},
    {"--f v", STOP, {"--bundle", "/b"}, "--bundle=/b"},
    {"--f= (empty value)", STOP, {"--bundle="}, "--bundle="},
    {"--f=a=b (value holds =)", MIXED, {"--env=HOME=x"}, "--env=HOME=x"},
    {"missing value at the end", STOP, {"--bundle"}, "! option --bundle needs a value"},
    {"short missing value", STOP, {"-b"}, "! option --bundle needs a value"},
    {"unknown flag", STOP, {"--frobnicate", "x"}, "! unknown option '--frobnicate' (see --help)"},
    {"unknown short", STOP, {"-x"}, "! unknown option '-x' (see --help)"},
    {"unknown with =", STOP, {"--nope=1"}, "! unknown option '--nope=1' (see --help)"},
    {"-x v", STOP, {"-b", "/b"}, "--bundle=/b"},
    {"-xv (glued short value)", STOP, {"-b/b"}, "--bundle=/b"},
    {"-long (one dash, as runc)", STOP, {"-root", "/r", "-detach"}, "--root=/r --detach=true"},
    {"flags cluster no further", STOP, {"-dx"}, "! unknown option '-dx' (see --help)"},
    {"a value is the next word, whatever it is", STOP, {"--env", "--json"}, "--env=--json"},
    {"--help as a value is a value", STOP, {"--env", "--help"}, "--env=--help"},
    {"-- then dash-words as operands", MIXED, {"--", "-d", "--json", "x"}, "[-d] [--json] [x]"},
    {"-- stops options (stop mode)", STOP, {"-d", "--", "-x", "y"}, "--detach=true | rest: -x y"},
    {"options stop at the first operand",
     STOP,
     {"-d", "ID", "--bundle", "x"},
     "--detach=true | rest: ID --bundle x"},
    {"operands and options mix",
     MIXED,
     {"m.yaml", "--env=HOME=x", "--json"},
     "[m.yaml] --env=HOME=x --json=true"},
    {"--help after a verb", STOP, {"--help"}, "help(VERB)"},
    {"-h after a verb", STOP, {"-h"}, "help(VERB)"},
    {"--help after an operand (mixed)", MIXED, {"x.yaml", "--help"}, "[x.yaml] help(VERB)"},
    {"--help after -- is an operand", MIXED, {"--", "--help"}, "[--help]"},
    {"--help where argv is data", NO_HELP, {"--help"}, "! unknown option '--help' (see --help)"},
    {"bool =false", STOP, {"--json=false"}, "--json=false"},
    {"bool Go spellings",
     STOP,
     {"--json=F", "--json=1", "--json=True"},
     "--json=false --json=true --json=true"},
    {"bool bad value", STOP, {"--json=yes"}, "! option --json wants true or false, not 'yes'"},
    {"bool never takes the next word", MIXED, {"--json", "false"}, "--json=true [false]"},
    {"a flag given =value", STOP, {"--detach=true"}, "! option --detach takes no value"},
    {"repeated flags, in order",
     STOP,
     {"--env", "A=1", "-e", "B=2", "--env=C=3"},
     "--env=A=1 --env=B=2 --env=C=3"},
    {"- alone is an operand", MIXED, {"-", "-d"}, "[-] --detach=true"},
    {"- alone stops options", STOP, {"-d", "-", "x"}, "--detach=true | rest: - x"},
    {"an operand starting with - after --", MIXED, {"m.yaml", "--", "-rf"}, "[m.yaml] [-rf]"},
    {"scan goes on after a bad word",
     SCAN,
     {"--bogus", "--json", "--json=x", "--env"},
     "! unknown option '--bogus' (see --help) --json=true ! option --json wants true or false, "
     "not 'x' ! option --env needs a value"},
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static char out[1024];

/* Append one item to out, a space before all but the first. */
static void put(const char *item)
{
        size_t n = strlen(out);

        snprintf(out + n, sizeof(out) - n, "%s%s", n ? " " : "", item);
}

static const char *name_of(int id)
{
        for (const struct bento_opt *o = opts; o->name; o++)
                if (o->id == id)
                        return o->name;
        return "?";
}

static void help_printed(const char *verb, const struct bento_opt *table)
{
        char item[64];

        (void) table;
        snprintf(item, sizeof(item), "help(%s)", verb);
        put(item);
        fputs(out, stdout);
        fflush(stdout);
}

static void render_hit(const struct bento_argv_hit *h)
{
        char item[256];

        if (h->id == BENTO_ARGV_OPERAND)
                snprintf(item, sizeof(item), "[%s]", h->value);
        else
                snprintf(item, sizeof(item), "--%s=%s", name_of(h->id),
                         h->value ? h->value
                         : h->on  ? "true"
                                  : "false");
        put(item);
}

/* In the child: parse the row into out. */
static void parse_row(const struct row *row)
{
        char *argv[9] = {(char *) "VERB"};
        struct bento_argv a = {.argv = argv, .i = 1, .mixed = row->mode == MIXED};
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int r;

        for (a.argc = 1; a.argc < 9 && row->argv[a.argc - 1]; a.argc++)
                argv[a.argc] = (char *) row->argv[a.argc - 1];
        a.help = row->mode == NO_HELP ? NULL : help_printed;
        while ((r = bento_argv_next(&a, opts, &h, &err)) != 0) {
                if (r < 0) {
                        char item[BENTO_ERR_MSG_MAX + 2];

                        snprintf(item, sizeof(item), "! %s", err.msg);
                        put(item);
                        if (row->mode != SCAN)
                                return;
                        continue;
                }
                render_hit(&h);
        }
        if (!a.mixed && a.i < a.argc) {
                put("| rest:");
                for (int i = a.i; i < a.argc; i++)
                        put(argv[i]);
        }
}

/* Runs the row in a child (its stdout a pipe); the rendered result. */
static int run_row(const struct row *row, char *buf, size_t size)
{
        int p[2], status = 0;
        ssize_t n, got = 0;
        pid_t pid;

        if (pipe(p) < 0)
                return -errno;
        /* the child must not write the parent's pending output again */
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
                dup2(p[1], STDOUT_FILENO);
                close(p[0]);
                out[0] = '\0';
                parse_row(row);
                fputs(out, stdout);
                fflush(stdout);
                _exit(0);
        }
        close(p[1]);
        while (pid > 0 && (size_t) got < size - 1 &&
               (n = read(p[0], buf + got, size - 1 - (size_t) got)) > 0)
                got += n;
        buf[got] = '\0';
        close(p[0]);
        if (pid < 0 || waitpid(pid, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static void print_argv(const struct row *row)
{
        printf("# row: %-42s VERB", row->name);
        for (size_t i = 0; i < 8 && row->argv[i]; i++)
                printf(" %s", row->argv[i]);
        printf("%s", row->mode == MIXED     ? "   (mixed)"
                     : row->mode == SCAN    ? "   (scan)"
                     : row->mode == NO_HELP ? "   (no help)"
                                            : "");
}

TEST(the_table)
{
        int failed = 0;

        for (size_t i = 0; i < N_ROWS; i++) {
                char got[1024];
                int r = run_row(&rows[i], got, sizeof(got));

                print_argv(&rows[i]);
                printf("\n#        => %s\n", got);
                if (r < 0 || strcmp(got, rows[i].want) != 0) {
                        printf("#   MISMATCH, wanted: %s\n", rows[i].want);
                        failed++;
                }
        }
        ASSERT_EQ(failed, 0);
}

/* Each call consumes at least one word, so a loop that goes on after a
 * failure ends (run's --json scan relies on it). */
TEST(every_call_makes_progress)
{
        char *argv[] = {(char *) "v",        (char *) "--x",        (char *) "-y",
                        (char *) "--json=z", (char *) "--detach=1", (char *) "--bundle"};
        struct bento_argv a = {.argc = 6, .argv = argv, .i = 1, .mixed = true};
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int last = a.i, calls = 0;

        while (bento_argv_next(&a, opts, &h, &err) != 0) {
                ASSERT_TRUE(a.i > last);
                last = a.i;
                ASSERT_TRUE(++calls <= 5);
        }
        ASSERT_EQ(calls, 5);
}

/* The fault fields name the word and the option, for programs that word
 * their usage errors themselves (bento's "unknown flag: --x"). */
TEST(faults_name_the_word)
{
        char *argv[] = {(char *) "v", (char *) "--json=maybe", (char *) "--nope", (char *) "-e"};
        struct bento_argv a = {.argc = 4, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err err = {0};

        ASSERT_EQ(bento_argv_next(&a, opts, &h, &err), -EINVAL);
        ASSERT_EQ(a.fault, BENTO_ARGV_BAD_BOOL);
        ASSERT_STREQ(a.bad, "--json=maybe");
        ASSERT_STREQ(a.what->name, "json");
        ASSERT_EQ(bento_argv_next(&a, opts, &h, &err), -EINVAL);
        ASSERT_EQ(a.fault, BENTO_ARGV_UNKNOWN);
        ASSERT_STREQ(a.bad, "--nope");
        ASSERT_TRUE(a.what == NULL);
        ASSERT_EQ(bento_argv_next(&a, opts, &h, &err), -EINVAL);
        ASSERT_EQ(a.fault, BENTO_ARGV_NEEDS_VALUE);
        ASSERT_STREQ(a.what->name, "env");
        ASSERT_EQ(bento_argv_next(&a, opts, &h, &err), 0);
        ASSERT_EQ(a.fault, BENTO_ARGV_OK);
}

TEST(go_booleans)
{
        static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
        static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
        static const char *const bad[] = {"", "yes", "no", "on", "tRUE", "2", " true", "true "};
        bool v;

        for (size_t i = 0; i < 6; i++) {
                v = false;
                ASSERT_OK(bento_argv_bool(yes[i], &v));
                ASSERT_TRUE(v);
                ASSERT_OK(bento_argv_bool(no[i], &v));
                ASSERT_TRUE(!v);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                v = true;
                ASSERT_EQ(bento_argv_bool(bad[i], &v), -EINVAL);
                ASSERT_TRUE(v);
        }
}

TAP_MAIN()
