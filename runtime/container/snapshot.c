/* SPDX-License-Identifier: Apache-2.0 */
/* A container as `state` shows it (see snapshot.h). */
#include "snapshot.h"

#include <errno.h>

#include "cgroup/cgroup.h"
#include "json.h"
#include "base/log.h"
#include "mount/table.h"

void rt_snapshot_close(struct rt_snapshot *s)
{
        bento_record_free(s->rec);
        oci_config_free(s->cfg);
        rt_container_dir_close(&s->dir);
        *s = (struct rt_snapshot){.dir = {.path = NULL, .fd = -1}};
}

int rt_snapshot_take(struct rt_store *store, const char *id, bool with_config,
                     struct rt_snapshot *s, struct bento_err *err)
{
        int r;

        *s = (struct rt_snapshot){.dir = {.path = NULL, .fd = -1}};
        r = rt_container_dir_open(store, id, false, &s->dir, err);
        if (r < 0)
                return r;
        r = rt_container_record_load(&s->dir, &s->rec, err);
        if (r == -ENOENT) {
                s->status = BENTO_STATUS_CREATING;
                return 0;
        }
        if (r >= 0 && with_config)
                r = rt_container_config_load(&s->dir, &s->cfg, err);
        /* a create killed before it saved its copy of the config */
        if (r == -ENOENT && s->rec && s->rec->creating)
                r = 0;
        if (r < 0) {
                rt_snapshot_close(s);
                return r;
        }
        s->status = rt_container_status(&s->dir, s->rec);
        return 0;
}

int rt_record_add_oom_kills(struct bento_record *rec, struct bento_err *err)
{
        long n;

        if (!rec || !rec->extra)
                return 0;
        n = rt_cgroup_oom_kills(rec);
        if (n < 0)
                return 0;
        if (bento_json_object_set(rec->extra, "oomKills", bento_json_new_int(n)) < 0)
                return bento_err_set(err, ENOMEM, "state");
        return 0;
}

int rt_snapshot_add_oom_kills(struct rt_snapshot *s, struct bento_err *err)
{
        return rt_record_add_oom_kills(s->rec, err);
}

void rt_snapshot_add_mounts(struct rt_snapshot *s)
{
        struct bento_err err = {0};

        if (!s->rec || (s->status != BENTO_STATUS_CREATED && s->status != BENTO_STATUS_RUNNING &&
                        s->status != BENTO_STATUS_PAUSED))
                return;
        if (rt_mount_table_read(s->rec, &err) < 0)
                rt_log_warning("the mount table of %s is left out: %s", s->rec->id, err.msg);
}
