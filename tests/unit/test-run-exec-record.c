/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/exec-record.c: the gate's record file read
 * back as hostile input.  Hex strings decode to the exact bytes; a file
 * without the gate's end line, with a line that is not a record, or with
 * calls only counted is incomplete; nothing after the end line counts; a
 * symlink in the record's place is not followed.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/exec-record.h"
#include "tap.h"

static char dir[64];
static char path[96];
static bool made;

/* "/bin/true" and "line\nbreak" in hex */
#define TRUE_HEX  "2f62696e2f74727565"
#define BREAK_HEX "6c696e650a627265616b"
#define EXEC_LINE                                                                                  \
        "{\"pid\":2,\"call\":\"execve\",\"exe\":\"" TRUE_HEX "\",\"argv\":[\"" BREAK_HEX "\"]}\n"
#define END_LINE "{\"end\":true,\"recorded\":1,\"omitted\":0}\n"

/* Each test leaves nothing behind. */
static void gone(void)
{
        unlink(path);
        rmdir(dir);
        made = false;
}

static void read_text(const char *text, struct run_exec_record *r)
{
        FILE *f;

        if (!made) {
                snprintf(dir, sizeof(dir), "/tmp/bento-run-exec-record-XXXXXX");
                if (!mkdtemp(dir))
                        abort();
                made = true;
        }
        snprintf(path, sizeof(path), "%s/record.jsonl", dir);
        unlink(path);
        f = fopen(path, "w");
        if (!f)
                abort();
        fputs(text, f);
        fclose(f);
        *r = (struct run_exec_record){.wanted = true, .watched = true};
        run_exec_record_read(path, true, r);
}

TEST(a_whole_record_decodes_to_the_exact_bytes)
{
        struct run_exec_record r;

        read_text(EXEC_LINE END_LINE, &r);
        ASSERT_TRUE(r.complete);
        ASSERT_TRUE(r.reason == NULL);
        ASSERT_EQ(r.n, (size_t) 1);
        ASSERT_EQ(r.runs[0].pid, 2L);
        ASSERT_STREQ(r.runs[0].exe, "/bin/true");
        ASSERT_EQ(r.runs[0].argc, (size_t) 1);
        ASSERT_STREQ(r.runs[0].argv[0], "line\nbreak");
        run_exec_record_done(&r);
        gone();
}

TEST(no_end_line_is_incomplete)
{
        struct run_exec_record r;

        read_text(EXEC_LINE, &r);
        ASSERT_TRUE(!r.complete);
        ASSERT_CONTAINS(r.reason, "did not finish its record");
        ASSERT_EQ(r.n, (size_t) 1);
        run_exec_record_done(&r);
        /* a last line cut short by a failed write: the same */
        read_text(EXEC_LINE "{\"end\":true,\"omitted\":0}", &r);
        ASSERT_TRUE(!r.complete);
        run_exec_record_done(&r);
        gone();
}

TEST(a_line_that_is_not_a_record_makes_it_incomplete)
{
        static const char *const bad[] = {
            "not json\n",
            "{\"pid\":2,\"exe\":\"zz\",\"argv\":[]}\n",            /* not hex */
            "{\"pid\":-1,\"exe\":\"" TRUE_HEX "\",\"argv\":[]}\n", /* pid out of range */
            "{\"pid\":2,\"exe\":\"" TRUE_HEX "\",\"argv\":[7]}\n", /* argv entry not a string */
            "{\"pid\":2,\"exe\":\"" TRUE_HEX "\"}\n",              /* no argv */
            "[1,2]\n",
        };
        char text[512];
        struct run_exec_record r;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                snprintf(text, sizeof(text), "%s%s%s", EXEC_LINE, bad[i], END_LINE);
                read_text(text, &r);
                ASSERT_TRUE(!r.complete);
                ASSERT_CONTAINS(r.reason, "could not read");
                ASSERT_EQ(r.n, (size_t) 1);
                run_exec_record_done(&r);
        }
        gone();
}

TEST(lines_after_the_end_line_and_counted_calls_are_incomplete)
{
        struct run_exec_record r;

        read_text(EXEC_LINE END_LINE EXEC_LINE, &r);
        ASSERT_TRUE(!r.complete);
        ASSERT_EQ(r.n, (size_t) 1);
        run_exec_record_done(&r);
        read_text(EXEC_LINE "{\"end\":true,\"recorded\":1,\"omitted\":5}\n", &r);
        ASSERT_TRUE(!r.complete);
        ASSERT_EQ(r.omitted, 5UL);
        run_exec_record_done(&r);
        gone();
}

TEST(a_symlink_in_its_place_is_not_followed)
{
        struct run_exec_record r;
        char target[128];

        read_text(EXEC_LINE END_LINE, &r);
        run_exec_record_done(&r);
        snprintf(target, sizeof(target), "%s/elsewhere", dir);
        rename(path, target);
        ASSERT_EQ(symlink(target, path), 0);
        r = (struct run_exec_record){.wanted = true, .watched = true};
        run_exec_record_read(path, true, &r);
        ASSERT_TRUE(!r.complete);
        ASSERT_EQ(r.n, (size_t) 0);
        unlink(target);
        gone();
}

TAP_MAIN()
