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

#include "report.h"

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
};

/* Start the target, trace it to the end, write the report.  Returns the
 * exit status for the observer. */
int observe_run(const struct observe_opts *o);

/* spawn.c: fork the target, let it install the filter, seize it with the
 * tracing options and let it exec command.  The filter is the notification
 * one unless ptrace_only or the kernel refuses a listener (an outer filter
 * has one, or the kernel is older than 5.19); *listener is then its
 * descriptor, else -1 (SECCOMP_RET_TRACE).  Returns the pid or -errno. */
pid_t obs_spawn(char **command, int report_fd, bool ptrace_only, int *listener);

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

/* decode.c: whether the absolute path p has no "." or ".." component, no
 * "//" and no trailing '/', so that a prefix comparison decides what it
 * is beneath (anything else is conservatively "not clean"). */
bool obs_path_clean(const char *p);

/* decode.c: whether p is clean and at or beneath one of the trees. */
bool obs_path_under(const char *p, const char *const *trees, size_t n);

#endif
