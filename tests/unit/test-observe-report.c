/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for hooks/observe/report.c and the result words of
 * record.c: a path is always one field of the report (every byte <= 0x20,
 * >= 0x7f and '%' percent-encoded, upper-case hex), lines are whole, and a
 * result is ok, absent (ENOENT; ENOTDIR only for a probe) or error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "report.h"
#include "tap.h"
#include "tracee.h"

static const char *enc(const char *s, size_t n)
{
        static char out[3 * 64 + 1];

        obs_pct_encode(s, n, out);
        return out;
}

TEST(plain_bytes_stay)
{
        ASSERT_STREQ(enc("/usr/lib/x.so", 13), "/usr/lib/x.so");
        ASSERT_STREQ(enc("a-b_c.d~e+f=g@h", 15), "a-b_c.d~e+f=g@h");
}

TEST(space_percent_and_controls_are_encoded)
{
        ASSERT_STREQ(enc("/a b", 4), "/a%20b");
        ASSERT_STREQ(enc("/100%", 5), "/100%25");
        ASSERT_STREQ(enc("/x\ny\t", 5), "/x%0Ay%09");
        ASSERT_STREQ(enc("\x7f", 1), "%7F");
        ASSERT_STREQ(enc("!", 1), "!"); /* 0x21 is the first byte kept */
}

TEST(invalid_utf8_and_high_bytes_are_encoded_upper_case)
{
        ASSERT_STREQ(enc("/\xff\xfe\xc3", 4), "/%FF%FE%C3");
        ASSERT_STREQ(enc("\xab", 1), "%AB");
}

TEST(a_nul_inside_the_length_is_encoded_not_cut)
{
        ASSERT_STREQ(enc("a\0b", 3), "a%00b");
}

TEST(the_length_is_returned)
{
        char out[16];

        ASSERT_EQ(obs_pct_encode("a b", 3, out), 5);
        ASSERT_EQ(obs_pct_encode("", 0, out), 0);
        ASSERT_STREQ(out, "");
}

/* A report writing into a new pipe p. */
static void report_on_pipe(struct obs_report *r, int p[2])
{
        ASSERT_OK(pipe(p));
        obs_report_init(r, p[1]);
}

/* Lines through a pipe, read back. */
static void read_back(struct obs_report *r, int rd, char *buf, size_t size)
{
        ssize_t n;

        obs_report_flush(r);
        n = read(rd, buf, size - 1);
        buf[n > 0 ? n : 0] = '\0';
}

TEST(lines_have_their_words_and_the_encoded_path_last)
{
        static struct obs_report r;
        int p[2];
        char buf[512];

        report_on_pipe(&r, p);
        obs_report_line(&r, "observe", OBS_REPORT_VERSION, NULL);
        obs_report_line(&r, "read", "ok", "/data/in put");
        obs_report_line(&r, "unix", "connect", "/run/s.sock");
        obs_report_line(&r, "end", "exit", "0");
        read_back(&r, p[0], buf, sizeof(buf));
        ASSERT_STREQ(buf, "observe 1\nread ok /data/in%20put\nunix connect /run/s.sock\n"
                          "end exit 0\n");
        close(p[0]);
        close(p[1]);
}

TEST(a_long_path_is_written_whole)
{
        static struct obs_report r;
        static char path[PATH_MAX], buf[4 * PATH_MAX];
        int p[2];

        memset(path, 'a', sizeof(path) - 1);
        path[0] = '/';
        path[sizeof(path) - 1] = '\0';
        ASSERT_OK(pipe(p));
        ASSERT_OK(fcntl(p[1], F_SETPIPE_SZ, 1 << 20));
        obs_report_init(&r, p[1]);
        for (int i = 0; i < 40; i++) /* more than the buffer holds: flushed on the way */
                obs_report_line(&r, "write", "ok", path);
        obs_report_flush(&r);
        for (int i = 0; i < 40; i++) {
                ssize_t want = (ssize_t) strlen("write ok ") + PATH_MAX - 1 + 1;

                ASSERT_EQ(read(p[0], buf, (size_t) want), want);
                ASSERT_EQ(buf[want - 1], '\n');
                ASSERT_TRUE(strncmp(buf, "write ok /aaa", 13) == 0);
        }
        close(p[0]);
        close(p[1]);
}

TEST(a_reader_gone_is_not_fatal)
{
        static struct obs_report r;
        int p[2];

        ASSERT_OK(pipe(p));
        close(p[0]);
        signal(SIGPIPE, SIG_IGN);
        obs_report_init(&r, p[1]);
        obs_report_line(&r, "read", "ok", "/x");
        ASSERT_TRUE(!obs_report_flush(&r));
        obs_report_line(&r, "read", "ok", "/y"); /* dropped, no crash */
        ASSERT_TRUE(!obs_report_flush(&r));
        close(p[1]);
}

TEST(a_line_once_is_written_once)
{
        static struct obs_report r;
        int p[2];
        char buf[512];

        report_on_pipe(&r, p);
        obs_report_line_once(&r, "probe", "unwatched", "/usr/lib/a");
        obs_report_line_once(&r, "probe", "unwatched", "/usr/lib/a");
        obs_report_line_once(&r, "read", "unwatched", "/usr/lib/a"); /* another verb */
        obs_report_line_once(&r, "probe", "unwatched", "/usr/lib/a b");
        obs_report_line_once(&r, "probe", "unwatched", "/usr/lib/a");
        obs_report_line(&r, "read", "ok", "/x"); /* a plain line is always written */
        obs_report_line(&r, "read", "ok", "/x");
        read_back(&r, p[0], buf, sizeof(buf));
        ASSERT_STREQ(buf, "probe unwatched /usr/lib/a\nread unwatched /usr/lib/a\n"
                          "probe unwatched /usr/lib/a%20b\nread ok /x\nread ok /x\n");
        obs_report_done(&r);
        close(p[0]);
        close(p[1]);
}

/* The longest path the tracer builds (two PATH_MAX parts joined) is still
 * remembered; one longer than any it builds is written every time; a
 * missing word or path is a line of its own. */
TEST(a_line_once_at_the_length_bounds)
{
        static struct obs_report r;
        static char longest[2 * PATH_MAX + 2], too_long[3 * PATH_MAX];
        int fd = open("/dev/null", O_WRONLY);
        size_t before;

        ASSERT_TRUE(fd >= 0);
        memset(longest, 'a', sizeof(longest) - 1);
        longest[0] = '/';
        memset(too_long, 'b', sizeof(too_long) - 1);
        too_long[0] = '/';
        obs_report_init(&r, fd);
        for (int i = 0; i < 2; i++) {
                obs_report_flush(&r);
                obs_report_line_once(&r, "probe", "unwatched", longest);
                ASSERT_EQ(r.len > 0, i == 0);
        }
        for (int i = 0; i < 2; i++) {
                obs_report_flush(&r);
                obs_report_line_once(&r, "probe", "unwatched", too_long);
                ASSERT_TRUE(r.len > 2 * PATH_MAX); /* written, cut as every line is */
        }
        obs_report_flush(&r);
        obs_report_line_once(&r, "probe", NULL, NULL);
        before = r.len;
        obs_report_line_once(&r, "probe", NULL, NULL);
        obs_report_line_once(&r, "probe", "", NULL); /* the same line as the set keeps it */
        ASSERT_EQ(r.len, before);
        obs_report_line_once(&r, "probe", "x", NULL);
        ASSERT_TRUE(r.len > before);
        ASSERT_EQ(r.n_once, (size_t) 3);
        obs_report_done(&r);
        close(fd);
}

/* Many lines: the set grows; past OBS_ONCE_MAX every line is written. */
TEST(the_once_set_grows_and_is_bounded)
{
        static struct obs_report r;
        char path[64];
        int fd = open("/dev/null", O_WRONLY);
        size_t written = 0;

        ASSERT_TRUE(fd >= 0);
        obs_report_init(&r, fd);
        for (int round = 0; round < 2; round++)
                for (int i = 0; i < OBS_ONCE_MAX + 100; i++) {
                        size_t before = r.len;

                        snprintf(path, sizeof(path), "/usr/share/f%d", i);
                        if (r.len + 200 > sizeof(r.buf))
                                obs_report_flush(&r), before = 0;
                        obs_report_line_once(&r, "probe", "unwatched", path);
                        written += r.len != before;
                }
        ASSERT_EQ(r.n_once, (size_t) OBS_ONCE_MAX);
        /* the remembered ones once, the 100 beyond the bound both times */
        ASSERT_EQ(written, (size_t) OBS_ONCE_MAX + 200);
        obs_report_done(&r);
        close(fd);
}

TEST(result_words)
{
        ASSERT_STREQ(obs_result_word(false, 3, false), "ok");
        ASSERT_STREQ(obs_result_word(false, 0, true), "ok");
        ASSERT_STREQ(obs_result_word(true, -ENOENT, false), "absent");
        ASSERT_STREQ(obs_result_word(true, -ENOENT, true), "absent");
        ASSERT_STREQ(obs_result_word(true, -ENOTDIR, true), "absent");
        ASSERT_STREQ(obs_result_word(true, -ENOTDIR, false), "error");
        ASSERT_STREQ(obs_result_word(true, -EACCES, false), "error");
        ASSERT_STREQ(obs_result_word(true, -EACCES, true), "error");
}

TAP_MAIN()
