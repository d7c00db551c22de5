/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One look at a container as `state` shows it: its directory (locked
 * shared while the snapshot is held), its record, its config copy and its
 * status.  `state` and `list` print snapshots; `run --report` takes one
 * just before it deletes its container, so its report carries exactly the
 * "bento" object `state` would have printed then.
 */
#ifndef RT_SNAPSHOT_H
#define RT_SNAPSHOT_H

#include <stdbool.h>

#include "err.h"
#include "oci-config.h"
#include "state.h"
#include "store.h"

struct rt_snapshot {
        struct rt_container_dir dir;
        struct bento_record *rec; /* NULL while the container is still being created */
        struct oci_config *cfg;   /* NULL without the record, or when not asked for */
        enum bento_status status;
};

/* Open id and load what there is.  A container whose record is not written
 * yet is `creating`, without rec or cfg.  with_config: load the config copy
 * too (annotations).  On failure nothing is held and *s is zeroed. */
int rt_snapshot_take(struct rt_store *store, const char *id, bool with_config,
                     struct rt_snapshot *s, struct bento_err *err);
void rt_snapshot_close(struct rt_snapshot *s);

/* Put oomKills (the OOM kills counted in the container's cgroup) into the
 * record's applied facts, when there are such facts and the count can be
 * read: a caller that sees SIGKILL can then tell a memory limit from a
 * kill(1).  Returns 0, or -ENOMEM with err. */
int rt_snapshot_add_oom_kills(struct rt_snapshot *s, struct bento_err *err);

/* Put the init's mount table, as it is now (mount/table.h), into the
 * record for `state` while the container is created, running or paused;
 * a stopped container shows none.  A table that cannot be read is not
 * `state`'s failure (engines poll it): it is left out with a warning. */
void rt_snapshot_add_mounts(struct rt_snapshot *s);

/* The same for a record loaded otherwise (start, before it tears down a
 * container whose init failed after its release); NULL does nothing. */
int rt_record_add_oom_kills(struct bento_record *rec, struct bento_err *err);

#endif
