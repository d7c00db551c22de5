/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's mount table as its init sees it now, for `state`.  It is
 * read from the kernel on every call instead of being kept in state.json:
 * a config can list tens of thousands of mounts, and every later verb
 * reads the record, so the record must not grow with them.
 */
#ifndef RT_MOUNT_TABLE_H
#define RT_MOUNT_TABLE_H

#include "err.h"
#include "state.h"

/* Fill rec->mounts from /proc/<rec->pid>/mountinfo (mount points relative
 * to the init's root, octal escapes undone) when rec->pid is still the
 * process with rec->start_time: the pid is pinned by a pidfd, checked
 * after opening and again after the read, so a recycled pid is never read.
 * Returns 1 when filled, 0 when the init is gone (nothing filled), or a
 * negative errno with err (unreadable, over BENTO_MOUNTINFO_MAX_BYTES, or a
 * line that does not parse). */
int rt_mount_table_read(struct bento_record *rec, struct bento_err *err);

#endif
