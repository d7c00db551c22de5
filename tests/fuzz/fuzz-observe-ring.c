/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for hooks/observe/ring.c's reader: the ring the
 * observer's preload library writes lives in the profiled program's
 * memory, so every byte of it is the program's.  The input is the ring's
 * record area; its first 8 bytes are the count of reserved bytes the head
 * says.  Besides "no crash, no leak, no undefined behaviour": every line
 * the reader writes is a whole line of the report's grammar, a read or
 * probe "unwatched" of a path in the observer's trees, or a dropped
 * access of the library's.
 */
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "observe.h"
#include "ring.h"

static const char *const trees[] = {"/usr", "/etc/passwd"};
static const struct observe_opts opts = {
    .report_fd = -1, .no_result = {"/usr", "/etc/passwd"}, .n_no_result = 2};

static void check_lines(const char *text, size_t n)
{
        const char *p = text, *end = text + n;

        must(n == 0 || text[n - 1] == '\n', "whole lines");
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));

                must(nl != NULL, "a line ends");
                must(strncmp(p, "read unwatched /usr", 19) == 0 ||
                         strncmp(p, "probe unwatched /usr", 20) == 0 ||
                         strncmp(p, "read unwatched /etc/passwd", 26) == 0 ||
                         strncmp(p, "probe unwatched /etc/passwd", 27) == 0 ||
                         strncmp(p, "dropped shim invalid-record\n", 28) == 0 ||
                         strncmp(p, "dropped shim torn-record\n", 25) == 0,
                     "a line the library's ring may give");
                p = nl + 1;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct obs_ring g = {.fd = -1};
        static struct obs_report rep;
        static char out[1 << 20];
        uint64_t used = 0;
        int p[2];
        ssize_t n;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        if (!g.head && obs_ring_open(&g, trees, 2) < 0)
                abort();
        memset((char *) g.head + OBS_RING_HEAD, 0, FUZZ_MAX_BYTES + 8);
        if (size >= 8) {
                memcpy(&used, data, 8);
                memcpy((char *) g.head + OBS_RING_HEAD, data + 8, size - 8);
        }
        g.head->used = used;
        if (pipe(p) < 0)
                abort();
        obs_report_init(&rep, p[1]);
        obs_ring_report(&g, &opts, &rep);
        obs_report_flush(&rep);
        obs_report_done(&rep);
        close(p[1]);
        n = read(p[0], out, sizeof(out));
        close(p[0]);
        check_lines(out, n < 0 ? 0 : (size_t) n);
        return 0;
}
