/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the table of the x86_64 system calls the tracer stops at,
 * and for each one which argument is the path, the directory fd it is
 * relative to, the flags that decide read or write, and the kind of record
 * it makes (docs/profile.md, "The report").  Pure data and lookups: the
 * seccomp filter is built from it and the tracer decodes with it.
 */
#ifndef BENTO_OBSERVE_SYSTAB_H
#define BENTO_OBSERVE_SYSTAB_H

#include <stdbool.h>
#include <stddef.h>

enum obs_kind {
        OBS_OPEN,      /* open/openat: read or write by the open flags */
        OBS_OPEN_HOW,  /* openat2: the flags are in the struct open_how */
        OBS_READ,      /* always a read */
        OBS_WRITE,     /* always a write (creat, the mutations) */
        OBS_PROBE,     /* an existence probe (stat family, access, xattr reads) */
        OBS_CHDIR,     /* chdir */
        OBS_FCHDIR,    /* fchdir: the directory is the fd itself */
        OBS_EXEC,      /* execve/execveat: read and exec records */
        OBS_LINK,      /* link/linkat: source read, destination write */
        OBS_RENAME,    /* rename*: both names written */
        OBS_CONNECT,   /* connect: an AF_UNIX path is read */
        OBS_BIND,      /* bind: an AF_UNIX path is written */
        OBS_PTRACE,    /* the target's own ptrace: refused */
        OBS_SECCOMP,   /* seccomp(): a user-notification listener is refused */
        OBS_UNHANDLED, /* names a path the decoder does not follow: dropped */
};

#define OBS_NO_ARG (-1)

struct obs_syscall {
        int nr;
        const char *name;
        enum obs_kind kind;
        signed char path;   /* argument index of the (first) path, or OBS_NO_ARG */
        signed char dirfd;  /* argument index of its directory fd, or OBS_NO_ARG */
        signed char flags;  /* open flags (OBS_OPEN), open_how (OBS_OPEN_HOW), or AT_* flags */
        signed char path2;  /* second path (link, rename), or OBS_NO_ARG */
        signed char dirfd2; /* its directory fd, or OBS_NO_ARG */
        bool fd_if_null;    /* a NULL path means the dirfd itself (utimensat) */
};

/* The entry for system call nr (x86_64 numbering), or NULL when the tracer
 * does not decode it. */
const struct obs_syscall *obs_syscall_find(int nr);

/* The whole table, in ascending nr order, for the filter. */
const struct obs_syscall *obs_syscall_table(size_t *n);

/* The open flags that ask for write access (O_TMPFILE needs O_WRONLY or
 * O_RDWR); the includer brings the O_ constants. */
#define OBS_OPEN_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* Whether open flags ask for write access: any of O_WRONLY, O_RDWR,
 * O_CREAT, O_TRUNC, O_APPEND (O_TMPFILE implies O_WRONLY or O_RDWR). */
bool obs_open_flags_write(unsigned long long flags);

#endif
