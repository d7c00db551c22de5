/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `run --report FILE` (a bento-runtime extension): what a caller of a
 * foreground `run` cannot tell from its exit status, written once, when
 * `run` ends, as one JSON object:
 *
 *   {"created": bool, "started": bool,
 *    "status": {"exited": N} | {"signaled": N}   (started and waited for),
 *    "bento": {...}}                              (created)
 *
 * "bento" is the object `state` would have printed for the container just
 * before it was deleted (oomKills included).  With it, bento drives one
 * `run` instead of create, start, state and delete.
 */
#ifndef RT_RUN_REPORT_H
#define RT_RUN_REPORT_H

#include <stdbool.h>

#include "err.h"
#include "state.h"
#include "container/store.h"

struct rt_run_report {
        bool created, started;
        int status;               /* the init's raw wait status; < 0: not waited for */
        struct bento_record *rec; /* owned: the "bento" object's source, or NULL */
};

#define RT_RUN_REPORT_INIT                                                                         \
        {                                                                                          \
                .created = false, .started = false, .status = -1, .rec = NULL                      \
        }

/* Take the container's "bento" facts into r->rec (replacing any), as
 * `state` shows them, while the container still exists.  Best effort: a
 * container that cannot be read leaves r->rec as it was. */
void rt_run_report_take(struct rt_store *store, const char *id, struct rt_run_report *r);

/* Raise r's oomKills to n: what a watch counted while the container ran,
 * for a cgroup that was gone by the time rt_run_report_take read it. */
void rt_run_report_note_oom_kills(struct rt_run_report *r, long n);

/* Write r to path atomically, mode 0600. */
int rt_run_report_write(const char *path, const struct rt_run_report *r, struct bento_err *err);

void rt_run_report_done(struct rt_run_report *r);

#endif
