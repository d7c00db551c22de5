/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directory listings read ahead on a thread of their own (path-prefetch.h).
 *
 * Why: resolving a manifest walks every credential store the home holds
 * (the links walk, then the alias scan, which replays the same listings),
 * and in a home with many of them that is the largest share of the work:
 * an open, two getdents64 and a close per store, each a system call of a
 * few microseconds on a virtual machine, one after the other.  On two CPUs
 * a second thread can read half of them meanwhile.
 *
 * How the two share the list: the caller takes the directories in the
 * order it gave them, the reader takes them from the end, and each entry
 * is claimed once, by whichever gets to it first (a compare-and-swap on its
 * state).  The caller reads the entries it claimed itself, as it would
 * have without a reader; it waits only for an entry the reader is reading
 * at that moment.  The two meet in the middle.
 *
 * Why it is safe: the reader makes only open(2), getdents64(2) and
 * close(2) on the paths it was given (copied), with the flags the memo
 * opens a directory with, and writes only its own entries; it touches no
 * memo (path.c keeps one per thread) and nothing else of the caller's.  An
 * entry it read is handed over once its state says so (release/acquire).
 * The caller parses the bytes as it parses its own getdents64 buffer.
 * path_prefetch_end() joins the reader before anything is freed.
 */
#include "path-prefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

/* An entry's state: claimed by nobody yet, being read by the reader (and
 * the caller waiting for it), read by the reader, or left to the caller.
 * The reader wakes the caller only when it said it waits: most entries are
 * read long before the caller comes to them. */
enum { ENTRY_FREE, ENTRY_READING, ENTRY_READING_WAITED, ENTRY_READ, ENTRY_CALLERS };

/* The reader's getdents64 buffer: opendir(3)'s size, as path.c reads. */
#define PREFETCH_BUF 32768

struct prefetch_entry {
        char *dir;
        size_t len;
        _Atomic int state;
        int error;   /* the errno of the open or read that failed, 0 if none */
        char *bytes; /* getdents64's records, one after the other */
        size_t n_bytes;
};

struct path_prefetch {
        struct prefetch_entry *v;
        size_t n;
        size_t cursor; /* where the caller's next take is expected */
        pthread_t thread;
        bool running;
};

static void futex_wait(_Atomic int *word, int expected)
{
        (void) syscall(SYS_futex, (int *) word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word)
{
        (void) syscall(SYS_futex, (int *) word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* dir's getdents64 records in e (or its errno).  scratch is PREFETCH_BUF
 * bytes. */
static void read_entry(struct prefetch_entry *e, char *scratch)
{
        cleanup_close int fd = open(e->dir, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC);
        ssize_t got;

        if (fd < 0) {
                e->error = errno;
                return;
        }
        while ((got = getdents64(fd, scratch, PREFETCH_BUF)) > 0) {
                char *more = realloc(e->bytes, e->n_bytes + (size_t) got);

                if (!more) {
                        e->error = ENOMEM;
                        return;
                }
                memcpy(more + e->n_bytes, scratch, (size_t) got);
                e->bytes = more;
                e->n_bytes += (size_t) got;
        }
        if (got < 0)
                e->error = errno;
}

static void *reader(void *arg)
{
        struct path_prefetch *pf = arg;
        cleanup_free char *scratch = malloc(PREFETCH_BUF);

        for (size_t i = pf->n; i-- > 0;) {
                struct prefetch_entry *e = &pf->v[i];
                int expected = ENTRY_FREE;

                /* the caller has come this far: the rest are its own */
                if (!atomic_compare_exchange_strong(&e->state, &expected, ENTRY_READING))
                        break;
                if (scratch)
                        read_entry(e, scratch);
                else
                        e->error = ENOMEM;
                if (atomic_exchange_explicit(&e->state, ENTRY_READ, memory_order_acq_rel) ==
                    ENTRY_READING_WAITED)
                        futex_wake(&e->state);
        }
        return NULL;
}

static void free_entries(struct prefetch_entry *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].dir);
                free(v[i].bytes);
        }
        free(v);
}

struct path_prefetch *path_prefetch_start(const char *const *dirs, size_t n)
{
        struct path_prefetch *pf;

        /* a thread of its own pays off only for more than a few */
        if (n < PATH_PREFETCH_MIN)
                return NULL;
        pf = calloc(1, sizeof(*pf));
        if (!pf || !(pf->v = calloc(n, sizeof(*pf->v)))) {
                free(pf);
                return NULL;
        }
        pf->n = n;
        for (size_t i = 0; i < n; i++) {
                pf->v[i].len = strlen(dirs[i]);
                pf->v[i].dir = strndup(dirs[i], pf->v[i].len);
                atomic_init(&pf->v[i].state, ENTRY_FREE);
                if (!pf->v[i].dir) {
                        free_entries(pf->v, n);
                        free(pf);
                        return NULL;
                }
        }
        pf->running = pthread_create(&pf->thread, NULL, reader, pf) == 0;
        if (!pf->running) {
                free_entries(pf->v, n);
                free(pf);
                return NULL;
        }
        return pf;
}

/* dir's entry, looked for where the caller's takes are expected first. */
static struct prefetch_entry *find(struct path_prefetch *pf, const char *dir, size_t len)
{
        for (size_t k = 0; k < pf->n; k++) {
                size_t i = (pf->cursor + k) % pf->n;

                if (pf->v[i].len == len && memcmp(pf->v[i].dir, dir, len) == 0) {
                        pf->cursor = i + 1;
                        return &pf->v[i];
                }
        }
        return NULL;
}

int path_prefetch_take(struct path_prefetch *pf, const char *dir, size_t len, const char **bytes,
                       size_t *n_bytes)
{
        struct prefetch_entry *e = pf ? find(pf, dir, len) : NULL;
        int state = ENTRY_FREE;

        if (!e)
                return 0;
        if (atomic_compare_exchange_strong(&e->state, &state, ENTRY_CALLERS))
                return 0; /* not read: the caller reads it itself */
        if (state == ENTRY_CALLERS)
                return 0; /* taken before: read it again, as without a reader */
        while (state == ENTRY_READING || state == ENTRY_READING_WAITED) {
                if (state == ENTRY_READING &&
                    !atomic_compare_exchange_strong(&e->state, &state, ENTRY_READING_WAITED))
                        continue; /* it changed: look again */
                futex_wait(&e->state, ENTRY_READING_WAITED);
                state = atomic_load_explicit(&e->state, memory_order_acquire);
        }
        /* handed over once: a second take reads the directory itself */
        atomic_store_explicit(&e->state, ENTRY_CALLERS, memory_order_relaxed);
        if (e->error) {
                errno = e->error;
                return -1;
        }
        *bytes = e->bytes;
        *n_bytes = e->n_bytes;
        return 1;
}

void path_prefetch_end(struct path_prefetch *pf)
{
        if (!pf)
                return;
        if (pf->running)
                (void) pthread_join(pf->thread, NULL);
        free_entries(pf->v, pf->n);
        free(pf);
}
