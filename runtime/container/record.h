/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Builds the state record of a freshly created container from what the
 * kernel reports about its init, so `state` shows what was really applied:
 * namespace inodes, id maps, the cgroup limits read back.  Not the mount
 * table: it grows with the config, and `state` reads it live instead
 * (mount/table.h).
 */
#ifndef RT_RECORD_H
#define RT_RECORD_H

#include "cgroup/cgroup.h"
#include "base/context.h"
#include "namespace/namespaces.h"
#include "state.h"

/* The parts that do not depend on the init (id, bundle, rootfs, creation
 * time, owner): `create` makes them while the init sets itself up. */
int rt_record_start(const struct rt_context *ctx, struct bento_record **ret, struct bento_err *err);

/* Intent records (bento_record.creating, see rt_intent): the cgroup
 * paths about to be made (cgroup: {"paths", "created"}, copied), and
 * the init's pid with its start time and, when the container has a pid
 * namespace of its own, that namespace (what `kill` and `delete` check
 * before they signal it). */
int rt_record_intend_cgroup(struct bento_record *rec, const struct bento_json *cgroup,
                            const char *primary, struct bento_err *err);
int rt_record_intend_pid(const struct rt_context *ctx, pid_t pid, struct bento_record *rec,
                         struct bento_err *err);

/* Intent: the container's root tree is about to be attached in a mount
 * namespace it shares (desc: rt_shared_root_describe). */
int rt_record_intend_shared_root(struct bento_record *rec, const struct bento_json *desc,
                                 struct bento_err *err);

/* The rest, from the set-up init; the record is no intent record after.  cgroup: where the init was
 * placed (its path is copied, `applied` is copied into the record's "applied" facts). */
int rt_record_finish(const struct rt_context *ctx, pid_t pid, const struct rt_cgroup_info *cgroup,
                     struct bento_record *rec, struct bento_err *err);

#endif
