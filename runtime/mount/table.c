/* SPDX-License-Identifier: Apache-2.0 */
/* The live mount table of a container's init (see table.h). */
#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "json.h"
#include "utf8.h"
#include "base/proc.h"

void rt_mountinfo_unescape(char *s)
{
        char *w = s;

        for (char *r = s; *r; r++, w++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
                    r[3] >= '0' && r[3] <= '7') {
                        *w = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        r += 3;
                } else {
                        *w = *r;
                }
        }
        *w = '\0';
}

/* One mountinfo line: "id parent maj:min root mountpoint opts [tags] - type src superopts" */
static int parse_line(char *line, struct bento_applied_mount *m)
{
        char *fields[6] = {0};
        char *sep = strstr(line, " - ");
        char *save = NULL;
        char *tok;
        int n = 0;

        if (!sep)
                return -EINVAL;
        *sep = '\0';
        for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
                fields[n++] = tok;
        if (n < 6)
                return -EINVAL;
        char *type = strtok_r(sep + 3, " \n", &save);
        char *source = strtok_r(NULL, " \n", &save);
        if (!type || !source)
                return -EINVAL;
        rt_mountinfo_unescape(fields[4]);
        rt_mountinfo_unescape(source);
        /* The container names its own mount points: a name that is not
         * UTF-8 could not be written as JSON and must not fail `state`. */
        for (const char *const *f = (const char *const[]){fields[4], type, source, fields[5], NULL};
             *f; f++)
                if (!bento_utf8_valid(*f, strlen(*f)))
                        return -EILSEQ;
        m->destination = strdup(fields[4]);
        m->type = strdup(type);
        m->source = strdup(source);
        m->options = strdup(fields[5]);
        return m->destination && m->type && m->source && m->options ? 0 : -ENOMEM;
}

static int parse_table(char *data, const char *path, struct bento_record *rec,
                       struct bento_err *err)
{
        size_t cap = 0;
        char *save = NULL;

        for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                int r;

                if (rec->n_mounts == cap) {
                        void *p = reallocarray(rec->mounts, cap = cap ? cap * 2 : 32,
                                               sizeof(*rec->mounts));
                        if (!p)
                                return bento_err_set(err, ENOMEM, "mount table");
                        rec->mounts = p;
                }
                memset(&rec->mounts[rec->n_mounts], 0, sizeof(rec->mounts[0]));
                r = parse_line(line, &rec->mounts[rec->n_mounts]);
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
        size_t len = 0;
        int r;

        if (pidfd == -ESRCH)
                return 0;
        if (pidfd < 0) {
                *err = gone;
                return pidfd;
        }
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int) rec->pid);
        r = bento_read_file(path, RT_MOUNTINFO_MAX_BYTES, &data, &len, err);
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
