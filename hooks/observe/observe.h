/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the tracer of `bento profile` (docs/hooks/bento-observe.md,
 * docs/profile.md).  main.c reads the command line; spawn.c starts the
 * target under ptrace and the seccomp filter (filter.h); trace.c follows
 * every thread and child and decodes their system calls (decode.c) into
 * the report (report.h).
 */
#ifndef BENTO_OBSERVE_H
#define BENTO_OBSERVE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "pathcheck.h"
#include "report.h"
#include "ring.h"

/* Exit statuses of the observer itself; otherwise it exits with the
 * target's status, 128+N when the target was killed by signal N. */
#define OBS_EXIT_USAGE  2
#define OBS_EXIT_FAILED 125

/* A path as the tracer builds it: an anchor of up to PATH_MAX and a
 * relative path of up to PATH_MAX, joined by '/'. */
#define OBS_PATH_BUF (2 * PATH_MAX + 2)

/* How many --no-result-under trees the command line may name. */
#define OBS_NO_RESULT_MAX 64

struct observe_opts {
        int report_fd;  /* where the report goes */
        char **command; /* the target argv */
        /* trees whose reads and probes are reported at the seccomp stop,
         * without a second stop for the result (docs/profile.md) */
        const char *no_result[OBS_NO_RESULT_MAX];
        size_t n_no_result;
        bool ptrace_only; /* --ptrace-only: SECCOMP_RET_TRACE stops, no listener */
        const char *shim; /* --shim: the preload library's path in the target, or NULL */
};

/* ring.c: the preload library's ring (ring.h), as the observer holds it. */
struct obs_ring {
        int fd;                     /* the memfd (close-on-exec here), or -1 */
        struct obs_ring_head *head; /* mapped, or NULL */
};

/* Make the ring, naming trees (n of them) as the ones the library may
 * record in.  Returns 0, or -errno (the target then runs without the
 * library). */
int obs_ring_open(struct obs_ring *g, const char *const *trees, size_t n);

/* Write what the ring holds to the report (once the target has ended). */
void obs_ring_report(const struct obs_ring *g, const struct observe_opts *o, struct obs_report *r);

void obs_ring_close(struct obs_ring *g);

/* Start the target, trace it to the end, write the report.  Returns the
 * exit status for the observer. */
int observe_run(const struct observe_opts *o);

/* spawn.c: fork the target, let it install the filter, seize it with the
 * tracing options and let it exec o->command.  The filter is the
 * notification one unless o->ptrace_only or the kernel refuses a listener
 * (an outer filter has one, or the kernel is older than 5.19); *listener
 * is then its descriptor, else -1 (SECCOMP_RET_TRACE).  With ring_fd (not
 * -1) the target inherits it and loads o->shim, and the filter lets the
 * library's gadget by.  Returns the pid or -errno. */
pid_t obs_spawn(const struct observe_opts *o, int ring_fd, int *listener);

/* decode.c: read a NUL-terminated string of the tracee at addr into buf
 * (PATH_MAX bytes).  Returns its length, or -1 when it is unreadable or
 * longer than PATH_MAX - 1. */
int obs_read_path(pid_t pid, unsigned long long addr, char *buf);

/* decode.c: read len bytes of the tracee at addr.  Returns 0 or -1. */
int obs_read_mem(pid_t pid, unsigned long long addr, void *buf, size_t len);

/* decode.c: make rel absolute as the tracee sees it: unchanged when it
 * starts with '/', else joined to the tracee's cwd (dirfd AT_FDCWD or
 * no dirfd) or to the directory dirfd names, both read with readlink of
 * /proc/<pid>/cwd or /proc/<pid>/fd/<dirfd>.  An empty rel names the
 * anchor itself.  Returns 0 with out (OBS_PATH_BUF bytes) set, or -1 when
 * the anchor is not a path (a socket, a deleted directory...). */
int obs_anchor(pid_t pid, long long dirfd, bool has_dirfd, const char *rel, char *out);

#endif
