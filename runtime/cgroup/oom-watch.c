/* SPDX-License-Identifier: Apache-2.0 */
/* Counting OOM kills while a container runs (see oom-watch.h). */
#include "oom-watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"

void rt_oom_watch_start(const struct bento_record *rec, struct rt_oom_watch *w)
{
        *w = (struct rt_oom_watch) RT_OOM_WATCH_INIT;
        w->path = rt_cgroup_memory_events_path(rec);
        if (!w->path)
                return;
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd >= 0 && inotify_add_watch(w->fd, w->path, IN_MODIFY) < 0) {
                close(w->fd);
                w->fd = -1;
        }
        rt_oom_watch_update(w);
}

/* "oom_kill N" of memory.events; -1 when unreadable. */
static long read_count(const char *path)
{
        char buf[1024];
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
        const char *p;

        if (n <= 0)
                return -1;
        buf[n] = '\0';
        for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, "oom_kill ", 9) == 0)
                        return strtol(p + 9, NULL, 10);
        return -1;
}

void rt_oom_watch_update(struct rt_oom_watch *w)
{
        char events[4096];
        long n;

        if (!w->path)
                return;
        while (w->fd >= 0 && read(w->fd, events, sizeof(events)) > 0)
                ;
        n = read_count(w->path);
        if (n > w->kills)
                w->kills = n;
}

void rt_oom_watch_close(struct rt_oom_watch *w)
{
        if (w->fd >= 0)
                close(w->fd);
        free(w->path);
        *w = (struct rt_oom_watch) RT_OOM_WATCH_INIT;
}
