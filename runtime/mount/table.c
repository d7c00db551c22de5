/* SPDX-License-Identifier: Apache-2.0 */
/* The live mount table of a container's init (see table.h). */
#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "mountinfo.h"
#include "utf8.h"
#include "base/proc.h"

/* One entry of the table, copied out of the buffer it was parsed in. */
static int copy_entry(const struct bento_mountinfo *mi, struct bento_applied_mount *m)
{
        /* The container names its own mount points: a name that is not
         * UTF-8 could not be written as JSON and must not fail `state`. */
        const char *const names[] = {mi->mnt, mi->fstype, mi->source, mi->opts};

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (!bento_utf8_valid(names[i], strlen(names[i])))
                        return -EILSEQ;
        m->destination = strdup(mi->mnt);
        m->type = strdup(mi->fstype);
        m->source = strdup(mi->source);
        m->options = strdup(mi->opts);
        return m->destination && m->type && m->source && m->options ? 0 : -ENOMEM;
}

static int parse_table(char *data, const char *path, struct bento_record *rec,
                       struct bento_err *err)
{
        struct bento_mountinfo mi;
        char *pos = data;
        size_t cap = 0;
        int r;

        while ((r = bento_mountinfo_next(&pos, &mi)) != 0) {
                if (rec->n_mounts == cap) {
                        void *p = reallocarray(rec->mounts, cap = cap ? cap * 2 : 32,
                                               sizeof(*rec->mounts));
                        if (!p)
                                return bento_err_set(err, ENOMEM, "mount table");
                        rec->mounts = p;
                }
                memset(&rec->mounts[rec->n_mounts], 0, sizeof(rec->mounts[0]));
                if (r > 0)
                        r = copy_entry(&mi, &rec->mounts[rec->n_mounts]);
                rec->n_mounts++;
                if (r == -EILSEQ)
                        return bento_err_setx(err, EILSEQ,
                                              "%s names a mount that is not UTF-8 "
                                              "(made inside the container)",
                                              path);
                if (r < 0)
                        return bento_err_set(err, -r, "cannot parse %s", path);
        }
        return 0;
}

/* A table that failed half way is not shown at all. */
static void drop_table(struct bento_record *rec)
{
        for (size_t i = 0; i < rec->n_mounts; i++) {
                free(rec->mounts[i].destination);
                free(rec->mounts[i].type);
                free(rec->mounts[i].source);
                free(rec->mounts[i].options);
        }
        free(rec->mounts);
        rec->mounts = NULL;
        rec->n_mounts = 0;
}

int rt_mount_table_read(struct bento_record *rec, struct bento_err *err)
{
        struct bento_err gone = {0};
        cleanup_close int pidfd = rt_pidfd_open_checked(rec->pid, rec->start_time, &gone);
        cleanup_free char *data = NULL;
        char path[64];
        int r;

        if (pidfd == -ESRCH)
                return 0;
        if (pidfd < 0) {
                *err = gone;
                return pidfd;
        }
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int) rec->pid);
        r = bento_mountinfo_read(path, &data, err);
        /* the process ended during the read: its namespace may be gone */
        if (rt_pidfd_signal(pidfd, 0, &gone) < 0)
                return 0;
        if (r < 0)
                return r;
        r = parse_table(data, path, rec, err);
        if (r < 0)
                drop_table(rec);
        return r < 0 ? r : 1;
}
