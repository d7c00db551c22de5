/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Counting OOM kills while a container runs in the foreground.
 *
 * rt_cgroup_oom_kills() reads the count from the container's cgroup, which
 * works as long as the cgroup is there.  A systemd scope is not: systemd
 * stops the scope and removes its cgroup as soon as the last process in it
 * has exited, which for `run` is the moment the init ends, before anyone
 * could read memory.events.  So on cgroup v2 `run` watches memory.events
 * with inotify (the kernel signals a change of it) and reads the count each
 * time it changes, while the container's processes keep the cgroup alive:
 * an OOM kill is counted while the killed process's init is still there.
 */
#ifndef RT_CGROUP_OOM_WATCH_H
#define RT_CGROUP_OOM_WATCH_H

#include "state.h"

struct rt_oom_watch {
        int fd;     /* inotify descriptor, -1: nothing watched */
        char *path; /* memory.events of the container's cgroup */
        long kills; /* the highest count read so far */
};

#define RT_OOM_WATCH_INIT                                                                          \
        {                                                                                          \
                .fd = -1, .path = NULL, .kills = 0                                                 \
        }

/* Start watching the container's memory.events (cgroup v2); a container
 * without a memory cgroup, or on v1, is left unwatched (fd -1). */
void rt_oom_watch_start(const struct bento_record *rec, struct rt_oom_watch *w);

/* Drain the pending notices and read the count again (a cgroup that is
 * already gone keeps the last count). */
void rt_oom_watch_update(struct rt_oom_watch *w);

void rt_oom_watch_close(struct rt_oom_watch *w);

#endif
