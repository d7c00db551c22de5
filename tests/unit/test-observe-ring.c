/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for hooks/observe/ring.c, the observer's side of its preload
 * library's ring: the ring it makes (the head the library checks, sealed,
 * close-on-exec), and its reading, which treats every byte as the
 * target's: records as the library writes them become the report's lines
 * (each once), and anything else a dropped access, without reading past a
 * record it cannot trust or past the ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "observe.h"
#include "ring.h"
#include "tap.h"

static const char *const trees[] = {"/usr", "/etc/passwd", "/lib"};
static const struct observe_opts opts = {
    .report_fd = -1, .no_result = {"/usr", "/etc/passwd", "/lib"}, .n_no_result = 3};

/* Append a record the way the library does, or with the given size. */
static void put(struct obs_ring_head *h, uint8_t verb, const char *path, uint32_t size)
{
        struct obs_ring_rec *r = (void *) ((char *) h + OBS_RING_HEAD + h->used);
        uint32_t len = (uint32_t) strlen(path);

        r->verb = verb;
        memcpy(r->path, path, len + 1);
        r->size = size ? size : obs_ring_rec_size(len);
        h->used += r->size;
}

/* The report of what the ring holds, as one string. */
static char *report_of(const struct obs_ring *g)
{
        static struct obs_report rep;
        static char buf[1 << 16];
        int p[2];
        ssize_t n;

        if (pipe(p) < 0)
                abort();
        obs_report_init(&rep, p[1]);
        obs_ring_report(g, &opts, &rep);
        obs_report_flush(&rep);
        obs_report_done(&rep);
        close(p[1]);
        n = read(p[0], buf, sizeof(buf) - 1);
        close(p[0]);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

static void fresh(struct obs_ring *g)
{
        ASSERT_OK(obs_ring_open(g, trees, 3));
}

/* The ring reads as want; then it is closed. */
static void reads_as(struct obs_ring *g, const char *want)
{
        ASSERT_STREQ(report_of(g), want);
        obs_ring_close(g);
}

TEST(the_ring_is_made_as_the_library_expects)
{
        struct obs_ring g;
        struct stat st;

        fresh(&g);
        ASSERT_TRUE(g.head->magic == OBS_RING_MAGIC && g.head->size == OBS_RING_SIZE);
        ASSERT_EQ(g.head->used, 0);
        ASSERT_EQ(g.head->trees_len, strlen("/usr") + strlen("/etc/passwd") + strlen("/lib") + 3);
        ASSERT_STREQ(g.head->trees, "/usr");
        ASSERT_STREQ(g.head->trees + 5, "/etc/passwd");
        ASSERT_OK(fstat(g.fd, &st));
        ASSERT_EQ(st.st_size, OBS_RING_SIZE);
        /* sealed against shrinking and growing; the target never gets it by accident */
        ASSERT_TRUE(ftruncate(g.fd, 4096) < 0 && errno == EPERM);
        ASSERT_TRUE(ftruncate(g.fd, 2 * OBS_RING_SIZE) < 0 && errno == EPERM);
        ASSERT_EQ(fcntl(g.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        reads_as(&g, "");
        ASSERT_EQ(g.fd, -1);
}

TEST(records_become_lines_once)
{
        struct obs_ring g;

        fresh(&g);
        put(g.head, OBS_RING_READ, "/usr/lib/python3.11/os.py", 0);
        put(g.head, OBS_RING_PROBE, "/usr/lib/python3.11", 0);
        put(g.head, OBS_RING_READ, "/usr/lib/python3.11/os.py", 0);
        put(g.head, OBS_RING_PROBE, "/etc/passwd", 0);
        put(g.head, OBS_RING_READ, "/usr/a b", 0);
        reads_as(&g, "read unwatched /usr/lib/python3.11/os.py\n"
                     "probe unwatched /usr/lib/python3.11\n"
                     "probe unwatched /etc/passwd\n"
                     "read unwatched /usr/a%20b\n");
}

TEST(a_record_the_library_would_not_write_is_dropped)
{
        struct obs_ring g;

        fresh(&g);
        put(g.head, OBS_RING_READ, "/home/u/.ssh/id_rsa", 0); /* outside the trees */
        put(g.head, OBS_RING_READ, "/usr/../home/u/x", 0);    /* not clean */
        put(g.head, OBS_RING_READ, "/usrx", 0);               /* a prefix is not a tree */
        put(g.head, 'w', "/usr/bin/x", 0);                    /* no such verb */
        put(g.head, OBS_RING_READ, "relative", 0);
        put(g.head, OBS_RING_READ, "/usr/ok", 0);
        reads_as(&g, "dropped shim invalid-record\n"
                     "dropped shim invalid-record\n"
                     "dropped shim invalid-record\n"
                     "dropped shim invalid-record\n"
                     "dropped shim invalid-record\n"
                     "read unwatched /usr/ok\n");
}

TEST(a_path_without_its_nul_is_dropped_not_read_past)
{
        struct obs_ring g;
        struct obs_ring_rec *r;
        uint32_t size = obs_ring_rec_size(PATH_MAX + 100);

        fresh(&g);
        r = (void *) ((char *) g.head + OBS_RING_HEAD);
        r->verb = OBS_RING_READ;
        r->path[0] = '/';
        memset(r->path + 1, 'a', size - sizeof(*r) - 1);
        r->size = size;
        g.head->used = size;
        put(g.head, OBS_RING_READ, "/usr/next", 0);
        reads_as(&g, "dropped shim invalid-record\nread unwatched /usr/next\n");
}

TEST(reading_stops_at_a_torn_or_impossible_record)
{
        struct obs_ring g;

        /* reserved, never written: what follows cannot be found; and a count
         * of reserved bytes past the ring's end, its rest zeros, reads the same */
        for (int i = 0; i < 2; i++) {
                fresh(&g);
                put(g.head, OBS_RING_READ, "/usr/a", 0);
                g.head->used = i ? UINT64_MAX : g.head->used + 16;
                if (!i)
                        put(g.head, OBS_RING_READ, "/usr/b", 0);
                reads_as(&g, "read unwatched /usr/a\ndropped shim torn-record\n");
        }
        /* sizes that are no record's: not 8-aligned, too small, past the reserved room */
        for (int i = 0; i < 3; i++) {
                uint32_t bad[] = {20, 8, 4096};

                fresh(&g);
                put(g.head, OBS_RING_READ, "/usr/x", bad[i]);
                if (i == 2)
                        g.head->used = 64;
                put(g.head, OBS_RING_READ, "/usr/y", 0);
                reads_as(&g, "dropped shim invalid-record\n");
        }
}

TEST(records_reach_the_rings_very_end)
{
        struct obs_ring g;

        fresh(&g);
        g.head->used = OBS_RING_SIZE - OBS_RING_HEAD - 16;
        put(g.head, OBS_RING_READ, "/usr/z", 16);
        ASSERT_EQ(g.head->used, OBS_RING_SIZE - OBS_RING_HEAD);
        g.head->used = OBS_RING_SIZE - OBS_RING_HEAD - 16; /* skip to it: fill the front */
        for (uint64_t at = 0; at < g.head->used; at += 4096) {
                struct obs_ring_rec *r = (void *) ((char *) g.head + OBS_RING_HEAD + at);
                uint32_t size = g.head->used - at < 4096 ? (uint32_t) (g.head->used - at) : 4096;

                r->verb = OBS_RING_READ;
                memcpy(r->path, "/usr/f", 7);
                r->size = size;
        }
        g.head->used = OBS_RING_SIZE - OBS_RING_HEAD;
        reads_as(&g, "read unwatched /usr/f\nread unwatched /usr/z\n");
}

TEST(no_ring_no_lines)
{
        struct obs_ring g = {.fd = -1, .head = NULL};

        reads_as(&g, "");
}

TAP_MAIN()
