/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run --record-exec (docs/cli/bento-run.md, "EXEC RECORD"): the exec
 * gate, in record mode, writes what every exec of the run asked to run to
 * a file in the run directory (docs/exec-gate.md, "Record mode"); this
 * reads it back after the run and tells it in both outputs.
 */
#ifndef BENTO_RUN_EXEC_RECORD_H
#define BENTO_RUN_EXEC_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "host/probe.h"
#include "jsonw.h"
#include "manifest/manifest.h"

/* One exec as the gate read it from the caller's memory. */
struct run_exec {
        long pid;  /* in the sandbox's pid namespace, 0 unknown */
        char *exe; /* the path it named, NULL when unreadable */
        bool exe_truncated;
        bool has_dirfd; /* execveat relative to a directory fd */
        int dirfd;
        char **argv; /* argc strings */
        size_t argc;
        bool argv_truncated, argv_unreadable;
};

struct run_exec_record {
        bool wanted;        /* --record-exec was given */
        bool watched;       /* the gate recorded this run */
        const char *reason; /* why not watched, or why incomplete; NULL */
        bool complete;      /* every exec of the run is in runs */
        struct run_exec *runs;
        size_t n;
        unsigned long omitted; /* execs the gate counted but did not write */
        char reason_buf[640];  /* reason, when it is built from the host report */
};

/* Before the run: whether --record-exec (wanted) can watch this run.  It
 * does under exec: all when the host can run the exec gate (the exec-block
 * layer of report is enforced); otherwise the record is reported unwatched
 * with the reason, and the run goes on as without the flag. */
void run_exec_record_plan(struct run_exec_record *r, bool wanted, enum manifest_exec exec,
                          const struct host_report *report);

/* Read the gate's record file (written by a program that read hostile
 * memory: size-capped, line by line, unknown or malformed lines make the
 * record incomplete).  A file without the gate's end line is incomplete. */
void run_exec_record_read(const char *path, bool started, struct run_exec_record *r);
void run_exec_record_done(struct run_exec_record *r);

/* The human block after the run, on stderr (nothing unless wanted). */
void run_exec_record_human(const struct run_exec_record *r);
/* "exec_record": {...} into the verdict (nothing unless wanted). */
void run_exec_record_json(struct bento_jsonw *w, const struct run_exec_record *r);

#endif
