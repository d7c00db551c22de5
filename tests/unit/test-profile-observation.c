/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the observer's report parser (translate/profile/
 * observation.c) and the interpreter guess (interpreter.c): a well-formed
 * report read whole, every malformed line refused with its line:column,
 * the strict percent-decoding, the egress report folded in, and the
 * shebang readings table-driven with the two [bento] lines they print.
 */
#include <errno.h>
#include <string.h>

#include "cleanup.h"
#include "profile/profile.h"
#include "tap.h"

static struct bento_err err;

static int parse(const char *text, struct profile_observation *o)
{
        err = (struct bento_err){0};
        return profile_observation_parse(text, strlen(text), o, &err);
}

TEST(report_parses_every_record_kind)
{
        struct profile_observation o = {0};
        const char *text = "observe 1\n"
                           "read ok /data/a%20b.txt\n"
                           "write absent /out/x\n"
                           "probe error /etc/%25odd\n"
                           "read unwatched /usr/lib/x\n"
                           "probe unwatched /usr/lib/y\n"
                           "chdir ok /work\n"
                           "read ok /run/s.sock\n"
                           "unix connect /run/s.sock\n"
                           "unix bind /tmp/new.sock\n"
                           "exec error /usr/bin/missing\n"
                           "exec ok /usr/bin/ls\n"
                           "dropped mount unhandled-syscall\n"
                           "dropped mount unhandled-syscall\n"
                           "dropped 1234 x32-or-ia32\n"
                           "sigsys 77\n"
                           "end exit 3\n";

        ASSERT_OK(parse(text, &o));
        ASSERT_EQ(o.n_accesses, 8);
        ASSERT_STREQ(o.accesses[0].path, "/data/a b.txt");
        ASSERT_EQ(o.accesses[1].kind, PROFILE_ACCESS_WRITE);
        ASSERT_EQ(o.accesses[1].result, PROFILE_RESULT_ABSENT);
        ASSERT_STREQ(o.accesses[2].path, "/etc/%odd");
        ASSERT_EQ(o.accesses[2].kind, PROFILE_ACCESS_PROBE);
        ASSERT_EQ(o.accesses[3].result, PROFILE_RESULT_UNWATCHED);
        ASSERT_EQ(o.accesses[4].kind, PROFILE_ACCESS_PROBE);
        ASSERT_EQ(o.accesses[4].result, PROFILE_RESULT_UNWATCHED);
        ASSERT_EQ(o.accesses[5].kind, PROFILE_ACCESS_CHDIR);
        ASSERT_TRUE(o.accesses[6].unix_sock);                /* the connect marked the read */
        ASSERT_TRUE(!o.accesses[0].unix_sock);               /* and nothing else */
        ASSERT_EQ(o.accesses[7].kind, PROFILE_ACCESS_WRITE); /* bind alone: its own entry */
        ASSERT_TRUE(o.accesses[7].unix_sock);
        ASSERT_EQ(o.n_execs, 2);
        ASSERT_TRUE(o.execed);
        ASSERT_EQ(o.dropped_total, 3);
        ASSERT_EQ(o.n_dropped, 2);
        ASSERT_EQ(o.dropped[0].count, 2);
        ASSERT_TRUE(o.sigsys);
        ASSERT_EQ(o.sigsys_pid, 77);
        ASSERT_TRUE(o.finished);
        ASSERT_TRUE(!o.end_signal);
        ASSERT_EQ(o.end_code, 3);
        profile_observation_done(&o);
}

TEST(an_exec_that_failed_is_no_exec)
{
        struct profile_observation o = {0};

        ASSERT_OK(parse("observe 1\nexec absent /usr/bin/x\nend signal 9\n", &o));
        ASSERT_TRUE(!o.execed);
        ASSERT_TRUE(o.end_signal);
        ASSERT_EQ(o.end_code, 9);
        profile_observation_done(&o);
}

TEST(a_report_cut_short_is_unfinished_and_drops_the_partial_line)
{
        struct profile_observation o = {0};

        /* The cut could have shortened /home/u/.ssh/key to /home/u/.ss. */
        ASSERT_OK(parse("observe 1\nread ok /a\nread ok /home/u/.ss", &o));
        ASSERT_EQ(o.n_accesses, 1);
        ASSERT_TRUE(!o.finished);
        profile_observation_done(&o);
        ASSERT_TRUE(parse("observe 1", &o) < 0); /* not even a header */
        ASSERT_CONTAINS(err.msg, "no complete first line");
}

static const struct {
        const char *text;
        const char *where; /* "line L:C" */
        const char *why;
} bad_reports[] = {
    {"", "empty", "empty"},
    {"observe 2\n", "line 1:9", "unsupported report version"},
    {"hello\n", "line 1:1", "does not start"},
    {"observe 1\nopen ok /a\n", "line 2:1", "unknown record kind"},
    {"observe 1\n\n", "line 2:1", "empty field"},
    {"observe 1\nread  ok /a\n", "line 2:6", "empty field"},
    {"observe 1\nread ok /a \n", "line 2:12", "empty field"},
    {"observe 1\nread maybe /a\n", "line 2:6", "not ok, absent, error or unwatched"},
    /* only a read or a probe may come without its result */
    {"observe 1\nwrite unwatched /a\n", "line 2:7", "not ok, absent or error"},
    {"observe 1\nchdir unwatched /a\n", "line 2:7", "not ok, absent or error"},
    {"observe 1\nexec unwatched /a\n", "line 2:6", "not ok, absent or error"},
    {"observe 1\nread ok a\n", "line 2:9", "not absolute"},
    {"observe 1\nread ok\n", "line 2:8", "missing field"},
    {"observe 1\nread ok /a /b\n", "line 2:12", "unexpected field"},
    {"observe 1\nread ok /a%2\n", "line 2:11", "percent-encoding"},
    {"observe 1\nread ok /a%2f\n", "line 2:11", "percent-encoding"},     /* lower-case hex */
    {"observe 1\nread ok /a%41\n", "line 2:11", "percent-encoding"},     /* needless escape */
    {"observe 1\nread ok /a%00\n", "line 2:11", "percent-encoding"},     /* NUL */
    {"observe 1\nread ok /a\tb\n", "line 2:11", "percent-encoding"},     /* raw tab */
    {"observe 1\nread ok /\xc3\xa9\n", "line 2:10", "percent-encoding"}, /* raw UTF-8 */
    {"observe 1\nunix listen /a\n", "line 2:6", "connect or bind"},
    {"observe 1\ndropped open$ x\n", "line 2:13", "unexpected character"},
    {"observe 1\nsigsys -1\n", "line 2:8", "plain decimal"},
    {"observe 1\nsigsys 007\n", "line 2:8", "plain decimal"},
    {"observe 1\nend exit 256\n", "line 2:10", "out of range"},
    {"observe 1\nend signal 0\n", "line 2:12", "out of range"},
    {"observe 1\nend quit 1\n", "line 2:5", "exit or signal"},
    {"observe 1\nend exit 0\nread ok /a\n", "line 3:1", "after the end line"},
};

TEST(malformed_reports_are_refused_with_line_and_column)
{
        for (size_t i = 0; i < sizeof(bad_reports) / sizeof(bad_reports[0]); i++) {
                struct profile_observation o = {0};

                if (parse(bad_reports[i].text, &o) >= 0)
                        TAP_FAIL("case %zu parsed", i);
                ASSERT_EQ(err.code, EINVAL);
                ASSERT_CONTAINS(err.msg, bad_reports[i].where);
                ASSERT_CONTAINS(err.msg, bad_reports[i].why);
                ASSERT_EQ(o.n_accesses, 0); /* nothing half-built is left */
        }
}

TEST(the_report_size_is_capped)
{
        struct profile_observation o = {0};

        ASSERT_EQ(profile_observation_parse("observe 1\n", PROFILE_REPORT_MAX + 1ul, &o, &err),
                  -EFBIG);
}

TEST(percent_decoding_takes_only_the_encoders_spelling)
{
        char *out = NULL;
        size_t bad = 0;

        ASSERT_OK(profile_percent_decode("/a%25%20%7F%FF", 14, &out, &bad));
        ASSERT_STREQ(out, "/a% \x7f\xff");
        free(out);
        ASSERT_EQ(profile_percent_decode("/a%2", 4, &out, &bad), -EINVAL);
        ASSERT_EQ(bad, 2);
        ASSERT_EQ(profile_percent_decode("/%", 2, &out, &bad), -EINVAL);
        ASSERT_EQ(profile_percent_decode("/%7e", 4, &out, &bad), -EINVAL);
        ASSERT_EQ(profile_percent_decode("/%7E", 4, &out, &bad), -EINVAL); /* '~' needs none */
}

TEST(egress_decisions_become_connects)
{
        struct profile_observation o = {0};
        struct run_dest denied[] = {{"example.com", "443"}, {"a.test", "80"}};
        struct run_dest blocked[] = {{"169.254.169.254", "80"}, {"example.com", "443"}};
        struct run_dest untunneled[] = {{"10.0.0.1", "53"}};
        struct run_egress e = {.denied = denied,
                               .n_denied = 2,
                               .blocked = blocked,
                               .n_blocked = 2,
                               .untunneled = untunneled,
                               .n_untunneled = 1,
                               .faults = 1,
                               .at_capacity = 2};

        ASSERT_OK(parse("observe 1\nend exit 0\n", &o));
        ASSERT_OK(profile_observation_add_egress(&o, &e, &err));
        ASSERT_EQ(o.n_connects, 3); /* example.com:443 once, sorted */
        ASSERT_STREQ(o.connects[0].host, "169.254.169.254");
        ASSERT_STREQ(o.connects[1].host, "a.test");
        ASSERT_STREQ(o.connects[2].host, "example.com");
        ASSERT_EQ(o.n_guard_blocked, 2);
        ASSERT_EQ(o.n_untunneled, 1);
        ASSERT_EQ(o.dropped_connects, 3);
        profile_observation_done(&o);
}

/* ---- interpreter guessing ---- */

static const struct {
        const char *head, *name;
        enum profile_interp_source source;
        const char *interp;
        const char *args; /* joined with '|' */
} guesses[] = {
    {"#!/bin/sh -eu\necho\n", "s", PROFILE_INTERP_SHEBANG, "/bin/sh", "-eu"},
    {"#!/bin/sh -e -u  \n", "s", PROFILE_INTERP_SHEBANG, "/bin/sh", "-e -u"}, /* ONE argument */
    {"#! /usr/bin/python3\n", "s.sh", PROFILE_INTERP_SHEBANG, "/usr/bin/python3", ""},
    {"#!/usr/bin/env python3\n", "s", PROFILE_INTERP_SHEBANG, "python3", ""},
    {"#!/usr/bin/env -S python3 -u -B\n", "s", PROFILE_INTERP_SHEBANG, "python3", "-u|-B"},
    {"#!/usr/bin/env -Spython3 -u\n", "s", PROFILE_INTERP_SHEBANG, "python3", "-u"},
    {"#!/usr/bin/env --split-string=node --x\n", "s", PROFILE_INTERP_SHEBANG, "node", "--x"},
    {"#!/usr/bin/env -u HOME -C /tmp A=1 B=2 ruby -w\n", "s", PROFILE_INTERP_SHEBANG, "ruby", "-w"},
    {"#!/usr/bin/env --unset HOME --chdir /x -i perl\n", "s", PROFILE_INTERP_SHEBANG, "perl", ""},
    {"#!/usr/bin/env -- bash -x\n", "s", PROFILE_INTERP_SHEBANG, "bash", "-x"},
    {"#!/usr/bin/env -i A=1\n", "s.py", PROFILE_INTERP_NONE, NULL, ""},
    {"#!\n", "s.py", PROFILE_INTERP_NONE, NULL, ""}, /* a script, but no guess */
    {"#!/bin/bash\r\n", "s", PROFILE_INTERP_SHEBANG, "/bin/bash", ""},
    {"print(1)\n", "dir.d/s.py", PROFILE_INTERP_EXTENSION, "python3", ""},
    {"", "s.sh", PROFILE_INTERP_EXTENSION, "bash", ""},
    {"", "s.bash", PROFILE_INTERP_EXTENSION, "bash", ""},
    {"", "s.js", PROFILE_INTERP_EXTENSION, "node", ""},
    {"", "s.rb", PROFILE_INTERP_EXTENSION, "ruby", ""},
    {"", ".py", PROFILE_INTERP_NONE, NULL, ""}, /* a dot file, no extension */
    {"", "py.d/s", PROFILE_INTERP_NONE, NULL, ""},
    {"\x7f"
     "ELF",
     "a.out", PROFILE_INTERP_NONE, NULL, ""},
};

static void join(const struct profile_interp *g, char *buf, size_t size)
{
        buf[0] = '\0';
        for (size_t i = 0; i < g->n_args; i++) {
                if (i)
                        strncat(buf, "|", size - strlen(buf) - 1);
                strncat(buf, g->args[i], size - strlen(buf) - 1);
        }
}

TEST(interpreter_guesses)
{
        for (size_t i = 0; i < sizeof(guesses) / sizeof(guesses[0]); i++) {
                struct profile_interp g = {0};
                char args[256];

                ASSERT_OK(profile_interpreter_guess(guesses[i].head, strlen(guesses[i].head),
                                                    guesses[i].name, &g, &err));
                if (g.source != guesses[i].source)
                        TAP_FAIL("case %zu: source %d, want %d", i, g.source, guesses[i].source);
                if (guesses[i].interp)
                        ASSERT_STREQ(g.interpreter, guesses[i].interp);
                else
                        ASSERT_TRUE(g.interpreter == NULL);
                join(&g, args, sizeof(args));
                ASSERT_STREQ(args, guesses[i].args);
                ASSERT_TRUE(g.args != NULL);
                profile_interp_done(&g);
        }
}

TEST(only_the_first_256_bytes_count)
{
        char head[400];
        struct profile_interp g = {0};

        memset(head, ' ', sizeof(head));
        memcpy(head, "#!/bin/sh", 9);
        memcpy(head + 300, "-x\n", 3); /* beyond the window: no argument */
        ASSERT_OK(profile_interpreter_guess(head, sizeof(head), "s", &g, &err));
        ASSERT_STREQ(g.interpreter, "/bin/sh");
        ASSERT_EQ(g.n_args, 0);
        profile_interp_done(&g);
}

TEST(interpreter_lines)
{
        struct profile_interp g = {0};
        cleanup_free char *l1 = NULL, *l2 = NULL, *l3 = NULL, *l4 = NULL;

        ASSERT_OK(profile_interpreter_guess("#!/bin/sh -eu\n", 14, "s", &g, &err));
        l1 = profile_interpreter_line(&g);
        l2 = profile_interpreter_args_line(&g);
        ASSERT_STREQ(l1, "[bento] interpreter \"/bin/sh\", from the script's shebang; "
                         "--interpreter overrides it");
        ASSERT_STREQ(l2, "[bento] the shebang passes \"-eu\" to /bin/sh; the manifest records it "
                         "as interpreter_args");
        profile_interp_done(&g);
        ASSERT_OK(profile_interpreter_guess("", 0, "probe.py", &g, &err));
        l3 = profile_interpreter_line(&g);
        ASSERT_STREQ(l3, "[bento] interpreter \"python3\", from the .py extension; --interpreter "
                         "overrides it");
        ASSERT_TRUE(profile_interpreter_args_line(&g) == NULL); /* nothing to say */
        profile_interp_done(&g);
        /* A shebang word with a control character cannot forge a line. */
        ASSERT_OK(profile_interpreter_guess("#!/bin/\x1b[2Ksh x\n", 16, "s", &g, &err));
        l4 = profile_interpreter_line(&g);
        ASSERT_TRUE(l4 && !strchr(l4, '\x1b'));
        profile_interp_done(&g);
        ASSERT_OK(profile_interpreter_guess("", 0, "a.out", &g, &err));
        ASSERT_TRUE(profile_interpreter_line(&g) == NULL);
        profile_interp_done(&g);
}

TAP_MAIN()
