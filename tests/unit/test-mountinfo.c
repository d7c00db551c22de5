/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/mountinfo.c, the one mountinfo reader: the fields
 * of a line, the kernel's octal escapes, the optional fields and the "-"
 * separator, and every malformed line (the table holds names the sandboxed
 * program chose) refused rather than read as something else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "mountinfo.h"
#include "tap.h"

/* Parse a copy of text (the parser works in place). */
static int parse(const char *text, char **copy, struct bento_mountinfo *m)
{
        *copy = strdup(text);
        if (!*copy)
                abort();
        return bento_mountinfo_parse_line(*copy, m);
}

TEST(fields_of_a_line)
{
        cleanup_free char *line = NULL;
        struct bento_mountinfo m;

        ASSERT_EQ(parse("36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root "
                        "rw,errors=continue\n",
                        &line, &m),
                  0);
        ASSERT_EQ(m.id, 36);
        ASSERT_EQ(m.parent, 35);
        ASSERT_EQ(m.major, 98);
        ASSERT_EQ(m.minor, 0);
        ASSERT_STREQ(m.root, "/mnt1");
        ASSERT_STREQ(m.mnt, "/mnt/parent");
        ASSERT_STREQ(m.opts, "rw,noatime");
        ASSERT_STREQ(m.optional, "master:1");
        ASSERT_STREQ(m.fstype, "ext3");
        ASSERT_STREQ(m.source, "/dev/root");
        ASSERT_STREQ(m.superopts, "rw,errors=continue");
}

TEST(optional_fields_none_or_several)
{
        static const struct {
                const char *line, *optional, *fstype;
        } cases[] = {
            {"22 1 0:20 / /proc rw - proc proc rw", "", "proc"},
            {"22 1 0:20 / /x rw shared:5 - tmpfs tmpfs rw,size=4k", "shared:5", "tmpfs"},
            {"22 1 0:20 / /x rw shared:5 master:2 propagate_from:1 unbindable - devpts pts ro",
             "shared:5 master:2 propagate_from:1 unbindable", "devpts"},
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_free char *line = NULL;
                struct bento_mountinfo m;

                ASSERT_EQ(parse(cases[i].line, &line, &m), 0);
                ASSERT_STREQ(m.optional, cases[i].optional);
                ASSERT_STREQ(m.fstype, cases[i].fstype);
        }
}

TEST(escapes_are_undone_in_names_only)
{
        cleanup_free char *line = NULL;
        struct bento_mountinfo m;

        /* what the kernel writes for a mount made at "/tmp/a b\c" with the
         * source "my src" and a super option holding an escaped comma */
        ASSERT_EQ(parse("40 30 0:50 /r\\040t /tmp/a\\040b\\134c rw - fuse.x\\011y my\\040src "
                        "rw,user=a\\054b",
                        &line, &m),
                  0);
        ASSERT_STREQ(m.root, "/r t");
        ASSERT_STREQ(m.mnt, "/tmp/a b\\c");
        ASSERT_STREQ(m.fstype, "fuse.x\ty");
        ASSERT_STREQ(m.source, "my src");
        /* an option list keeps its escapes: "a\054b" is one option */
        ASSERT_STREQ(m.superopts, "rw,user=a\\054b");
        ASSERT_TRUE(!bento_mount_opts_has(m.superopts, "b", 1));
}

TEST(unescape_leaves_what_is_not_an_escape)
{
        char a[] = "\\0", b[] = "\\400", c[] = "\\08x", d[] = "x\\", e[] = "\\377\\101";
        char z[] = "/a\\000b";

        ASSERT_EQ(bento_mountinfo_unescape(a), 0);
        ASSERT_STREQ(a, "\\0");
        ASSERT_EQ(bento_mountinfo_unescape(b), 0); /* above \377: not an escape */
        ASSERT_STREQ(b, "\\400");
        ASSERT_EQ(bento_mountinfo_unescape(c), 0);
        ASSERT_STREQ(c, "\\08x");
        ASSERT_EQ(bento_mountinfo_unescape(d), 0);
        ASSERT_STREQ(d, "x\\");
        ASSERT_EQ(bento_mountinfo_unescape(e), 0);
        ASSERT_STREQ(e, "\377A");
        /* a NUL would cut "/a" out of "/a\0b": refused */
        ASSERT_EQ(bento_mountinfo_unescape(z), -EINVAL);
}

TEST(malformed_lines_are_refused)
{
        static const char *const bad[] = {
            "",
            "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 ext3 /dev/root rw", /* no "-" */
            "36 35 98:0 /mnt1 /mnt/parent rw -",                           /* nothing after "-" */
            "36 35 98:0 /mnt1 /mnt/parent rw - ext3",                      /* no source */
            "36 35 98:0 /mnt1 /mnt/parent rw - ext3 /dev/root",            /* no super options */
            "36 35 98:0 /mnt1 /mnt/parent rw - ext3 /dev/root rw extra",   /* more after them */
            "36 35 98:0 /mnt1 /mnt/parent - ext3 /dev/root rw",            /* five fields */
            "36 35 98:0 /mnt1 - ext3 /dev/root rw",                        /* four */
            "36 35 98 / /m rw - ext3 /dev/root rw",                        /* no minor */
            "36 35 98: / /m rw - ext3 /dev/root rw",                       /* empty minor */
            "36 35 :0 / /m rw - ext3 /dev/root rw",                        /* empty major */
            "-36 35 98:0 / /m rw - ext3 /dev/root rw",                     /* a sign */
            "36 +35 98:0 / /m rw - ext3 /dev/root rw",                     /* a sign */
            "36 35 98:0x / /m rw - ext3 /dev/root rw",                     /* trailing garbage */
            "99999999999999999999999 35 98:0 / /m rw - ext3 /dev/root rw", /* overflow */
            "36 35 4294967296:0 / /m rw - ext3 /dev/root rw",              /* major above 32 bits */
            "36  35 98:0 / /m rw - ext3 /dev/root rw",                     /* an empty field */
            "36 35 98:0 / /m rw - ext3 /dev/root rw\n36",                  /* two lines */
            "36 35 98:0 / /a\\000b rw - ext3 /dev/root rw",                /* a NUL in a name */
            "36 35 98:0 / /m rw -  /dev/root rw",                          /* empty type */
            "36 35 98:0 / /m rw - ext3 /dev/root ",                        /* empty super options */
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cleanup_free char *line = NULL;
                struct bento_mountinfo m;

                if (parse(bad[i], &line, &m) != -EINVAL)
                        TAP_FAIL("accepted: \"%s\"", bad[i]);
        }
}

TEST(an_empty_source_is_kept)
{
        cleanup_free char *line = NULL;
        struct bento_mountinfo m;

        ASSERT_EQ(parse("36 35 0:40 / /m rw - tmpfs  rw", &line, &m), 0);
        ASSERT_STREQ(m.source, "");
        ASSERT_STREQ(m.superopts, "rw");
}

TEST(a_name_cannot_fake_the_separator)
{
        cleanup_free char *line = NULL;
        struct bento_mountinfo m;

        /* a mount point "/x - cgroup2 none rw" as the kernel escapes it */
        ASSERT_EQ(parse("36 35 0:40 / /x\\040-\\040cgroup2\\040none\\040rw rw - tmpfs tmpfs rw",
                        &line, &m),
                  0);
        ASSERT_STREQ(m.mnt, "/x - cgroup2 none rw");
        ASSERT_STREQ(m.fstype, "tmpfs");
}

TEST(very_long_lines)
{
        size_t n = 1 << 20;
        cleanup_free char *line = malloc(n + 64);
        struct bento_mountinfo m;
        char *p;

        ASSERT_TRUE(line != NULL);
        p = line + sprintf(line, "1 2 3:4 / /");
        memset(p, 'a', n);
        strcpy(p + n, " rw - tmpfs tmpfs rw");
        ASSERT_EQ(bento_mountinfo_parse_line(line, &m), 0);
        ASSERT_EQ(strlen(m.mnt), n + 1);
        ASSERT_STREQ(m.fstype, "tmpfs");
}

TEST(iteration_skips_empty_lines_and_reports_bad_ones)
{
        char data[] = "1 0 0:1 / / rw - ext4 /dev/sda rw\n"
                      "\n"
                      "garbage\n"
                      "2 1 0:2 / /proc rw shared:3 - proc proc rw"; /* no final newline */
        struct bento_mountinfo m;
        char *pos = data;

        ASSERT_EQ(bento_mountinfo_next(&pos, &m), 1);
        ASSERT_STREQ(m.mnt, "/");
        ASSERT_EQ(bento_mountinfo_next(&pos, &m), -EINVAL);
        ASSERT_EQ(bento_mountinfo_next(&pos, &m), 1);
        ASSERT_STREQ(m.mnt, "/proc");
        ASSERT_STREQ(m.optional, "shared:3");
        ASSERT_EQ(bento_mountinfo_next(&pos, &m), 0);
        ASSERT_EQ(bento_mountinfo_next(&pos, &m), 0);
}

TEST(parse_all_keeps_the_good_lines_in_order)
{
        char data[] = "1 0 0:1 / / rw - ext4 /dev/sda rw\n"
                      "1 0 0:1 / /bad rw ext4 /dev/sda rw\n"
                      "3 1 0:3 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
        cleanup_free struct bento_mountinfo *v = NULL;
        size_t n = 0;

        ASSERT_EQ(bento_mountinfo_parse_all(data, &v, &n), 0);
        ASSERT_EQ(n, 2);
        ASSERT_STREQ(v[0].mnt, "/");
        ASSERT_STREQ(v[1].mnt, "/sys/fs/cgroup");
        ASSERT_EQ(v[1].id, 3);
}

TEST(option_lists)
{
        ASSERT_TRUE(bento_mount_opts_has("rw,cpu,cpuacct", "cpu", 3));
        ASSERT_TRUE(!bento_mount_opts_has("rw,cpuacct", "cpu", 3));
        ASSERT_TRUE(!bento_mount_opts_has("", "cpu", 3));
        ASSERT_TRUE(bento_mount_opts_all_in("cpu,cpuacct", "rw,cpuacct,cpu"));
        ASSERT_TRUE(bento_mount_opts_all_in("name=systemd", "rw,xattr,name=systemd"));
        ASSERT_TRUE(!bento_mount_opts_all_in("cpu,memory", "rw,cpu"));
        ASSERT_TRUE(bento_mount_opts_all_in(",,", "rw"));
}

/* Read a file of size bytes (text, then a hole) through the reader; the
 * file is gone again before the caller asserts anything. */
static int read_sized(const char *text, off_t size, char **ret, struct bento_err *err)
{
        char path[] = "/tmp/bento-test-mountinfo-XXXXXX";
        int fd = mkstemp(path), r = -EIO;

        if (fd < 0)
                return -errno;
        if (write(fd, text, strlen(text)) == (ssize_t) strlen(text) && ftruncate(fd, size) == 0)
                r = bento_mountinfo_read(path, ret, err);
        unlink(path);
        close(fd);
        return r;
}

TEST(the_read_is_capped)
{
        const char *line = "1 0 0:1 / / rw - ext4 /dev/sda rw\n";
        cleanup_free char *small = NULL, *big = NULL;
        struct bento_err err = {0};

        ASSERT_EQ(read_sized(line, (off_t) strlen(line), &small, &err), 0);
        ASSERT_STREQ(small, line);
        /* sparse: one byte over the cap costs no disk */
        ASSERT_EQ(read_sized(line, (off_t) BENTO_MOUNTINFO_MAX_BYTES + 1, &big, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "64 MiB");
        ASSERT_TRUE(big == NULL);
}

TAP_MAIN()
