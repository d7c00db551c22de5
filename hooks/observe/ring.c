/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the observer's side of the preload library's ring
 * (ring.h): making it before the target starts, and reading it into the
 * report after the target's last process ended.  Everything in it was
 * written by the target, so each record is copied out before it is
 * looked at, and is reported only as what the library may record: a
 * read or probe of a clean path in one of the observer's own
 * --no-result-under trees, as the notification would have reported it.
 * Anything else is a dropped access of the report ("dropped shim ..."), so
 * that a target scribbling on the ring shows rather than steers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "observe.h"
#include "ring.h"
#include "tracee.h"

#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

int obs_ring_open(struct obs_ring *g, const char *const *trees, size_t n)
{
        struct obs_ring_head *h;
        size_t at = 0;
        int fd;

        g->fd = -1;
        g->head = NULL;
        fd = memfd_create("bento-observe-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        /* sealed: the target holds the descriptor, and a ring it could shrink
         * would fault the observer's reads (SIGBUS) */
        if (ftruncate(fd, OBS_RING_SIZE) < 0 || fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
                int e = errno;
                close(fd);
                return -e;
        }
        h = mmap(NULL, OBS_RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (h == MAP_FAILED) {
                int e = errno;
                close(fd);
                return -e;
        }
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(trees[i]) + 1;

                if (at + len > sizeof(h->trees))
                        break; /* the rest are reported by notification */
                memcpy(h->trees + at, trees[i], len);
                at += len;
        }
        h->trees_len = (uint32_t) at;
        h->size = OBS_RING_SIZE;
        h->magic = OBS_RING_MAGIC;
        g->fd = fd;
        g->head = h;
        return 0;
}

void obs_ring_close(struct obs_ring *g)
{
        if (g->head)
                munmap(g->head, OBS_RING_SIZE);
        if (g->fd >= 0)
                close(g->fd);
        g->head = NULL;
        g->fd = -1;
}

/* One record at offset at (end: where the reserved room ends), into the
 * report.  Returns its size, or 0 when the reading must stop there. */
static uint32_t read_record(const struct obs_ring *g, uint64_t at, uint64_t end,
                            const struct observe_opts *o, struct obs_report *r)
{
        const unsigned char *base = (const unsigned char *) g->head;
        struct obs_ring_rec rec;
        char path[PATH_MAX];
        size_t room;

        memcpy(&rec, base + at, sizeof(rec));
        if (rec.size == 0) { /* reserved, never written: the writer died */
                obs_report_line(r, "dropped", "shim", "torn-record");
                return 0;
        }
        if (rec.size % 8 || rec.size < obs_ring_rec_size(1) || rec.size > end - at) {
                obs_report_line(r, "dropped", "shim", "invalid-record");
                return 0;
        }
        room = rec.size - sizeof(rec) < sizeof(path) ? rec.size - sizeof(rec) : sizeof(path);
        memcpy(path, base + at + sizeof(rec), room);
        if (!memchr(path, '\0', room) ||
            (rec.verb != OBS_RING_READ && rec.verb != OBS_RING_PROBE) ||
            !obs_path_under(path, o->no_result, o->n_no_result))
                obs_report_line(r, "dropped", "shim", "invalid-record");
        else
                obs_report_line_once(r, rec.verb == OBS_RING_READ ? "read" : "probe",
                                     OBS_RESULT_UNWATCHED, path);
        return rec.size;
}

void obs_ring_report(const struct obs_ring *g, const struct observe_opts *o, struct obs_report *r)
{
        uint64_t used, at = OBS_RING_HEAD, end;
        uint32_t size;

        if (!g->head)
                return;
        used = __atomic_load_n(&g->head->used, __ATOMIC_ACQUIRE);
        end = OBS_RING_HEAD +
              (used < OBS_RING_SIZE - OBS_RING_HEAD ? used : OBS_RING_SIZE - OBS_RING_HEAD);
        while (end - at >= sizeof(struct obs_ring_rec) && (size = read_record(g, at, end, o, r)))
                at += size;
}
