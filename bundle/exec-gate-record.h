/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record mode of the gate (`--record FILE`, docs/exec-gate.md, "Record
 * mode"): every exec call of the container is let through, and what it
 * asked to run is written to FILE first, one JSON object per line.  The
 * executable's name and argv are read from the caller's memory while it
 * waits in the kernel, with process_vm_readv: the gate never opens, stats
 * or reads a host path the caller names.  The caller is hostile and owns
 * that memory, so every read is bounded (argument count, bytes per
 * argument, bytes per call, bytes per file) and a read that fails is
 * recorded as unreadable, never retried.
 *
 * The record says what was asked, not what ran: an exec of a missing file
 * is listed although the kernel then fails it, and a thread of the caller
 * can change the memory after it was read.  It is an account, not an
 * enforcement.
 *
 * Strings go into the file as hex (bundle/hex.h): argv may hold any bytes.
 * The last line, {"end":true,...}, is written only when the gate finished
 * serving normally; a file without it is incomplete.
 */
#ifndef BENTO_GATE_RECORD_H
#define BENTO_GATE_RECORD_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

#define GATE_RECORD_ARGS_MAX   256         /* argv entries kept per exec */
#define GATE_RECORD_ARG_BYTES  4096        /* bytes kept per string */
#define GATE_RECORD_CALL_BYTES (16u << 10) /* argv bytes kept per exec */
#define GATE_RECORD_FILE_BYTES (8u << 20)  /* then execs are only counted */

/* What one exec call asked for, as far as it could be read. */
struct gate_exec {
        pid_t pid; /* the calling process in the container's pid namespace, 0 unknown */
        char *exe; /* the path argument, NULL when unreadable */
        size_t exe_len;
        bool exe_truncated;
        int dirfd; /* execveat's directory fd when the path is relative to one */
        bool has_dirfd;
        char **argv; /* argc strings (may hold any bytes but NUL) */
        size_t *argv_len;
        size_t argc;
        bool argv_truncated;  /* more entries or bytes than kept */
        bool argv_unreadable; /* the array or a string could not be read */
};

/* Read the exec's arguments from the memory of pid (a host pid) as the
 * notification data says.  Never fails: what cannot be read is marked. */
void gate_exec_read(pid_t pid, const struct seccomp_data *data, bool execveat,
                    struct gate_exec *ret);
void gate_exec_done(struct gate_exec *e);

struct gate_record {
        int fd;                /* the record file, -1 when not recording */
        size_t written;        /* bytes so far */
        unsigned long n;       /* execs written */
        unsigned long omitted; /* execs only counted: the file reached its cap */
        bool lost;             /* a write failed: the file is incomplete */
};

/* Create path (it must not exist; never through a symlink), mode 0600. */
int gate_record_open(struct gate_record *r, const char *path, struct bento_err *err);
/* One line for e (call: "execve" or "execveat"). */
void gate_record_write(struct gate_record *r, const char *call, const struct gate_exec *e);
/* Write the end line (when finished is true: the gate served to the end)
 * and close.  Safe when not recording. */
void gate_record_close(struct gate_record *r, bool finished);

#endif
