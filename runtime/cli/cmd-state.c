/* SPDX-License-Identifier: Apache-2.0 */
/* The verbs state and list. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cleanup.h"
#include "commands.h"
#include "base/log.h"
#include "base/proc.h"
#include "container/snapshot.h"
#include "container/store.h"

/* The init's pid while it is there: a half-created container's too,
 * when its create got as far as recording it. */
static pid_t shown_pid(const struct rt_snapshot *s)
{
        const struct bento_record *rec = s->rec;

        if (!rec)
                return 0;
        if (s->status == BENTO_STATUS_CREATING)
                return rec->pid > 0 && rt_proc_matches(rec->pid, rec->start_time) ? rec->pid : 0;
        return s->status == BENTO_STATUS_CREATED || s->status == BENTO_STATUS_RUNNING ||
                       s->status == BENTO_STATUS_PAUSED
                   ? rec->pid
                   : 0;
}

static int print_state(const char *id, const struct rt_snapshot *s, bool verbose, FILE *out,
                       struct bento_err *err)
{
        const struct bento_record *rec = s->rec;
        struct bento_oci_state st = {
            .id = id,
            .status = s->status,
            .pid = shown_pid(s),
            .bundle = rec ? rec->bundle : "",
            .rootfs = rec ? rec->rootfs : NULL,
            .created = rec ? rec->created : NULL,
            .owner = rec ? rec->owner : NULL,
            .cfg = s->cfg,
            /* a half-created container: what its create recorded it
             * was about to make (the cgroup paths) is always shown */
            .rec = verbose || s->status == BENTO_STATUS_CREATING ? rec : NULL,
        };
        cleanup_free char *buf = NULL;
        size_t len = 0;
        int r;

        r = bento_oci_state_write(&st, true, &buf, &len, err);
        if (r < 0)
                return r;
        fwrite(buf, 1, len, out);
        return 0;
}

int cmd_state(const struct rt_global *g, int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        struct rt_snapshot s;
        const char *id;
        int r;

        if (rt_args_none(&a, &err) < 0)
                return rt_log_err(&err);
        if (argc - a.i != 1) {
                rt_log_error("state: expected a container id");
                rt_usage("state", true);
                return 1;
        }
        id = argv[a.i];
        r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = rt_snapshot_take(&store, id, true, &s, &err);
        if (r >= 0) {
                r = rt_snapshot_add_oom_kills(&s, &err);
                rt_snapshot_add_mounts(&s);
                if (r >= 0)
                        r = print_state(id, &s, true, stdout, &err);
                rt_snapshot_close(&s);
        }
        rt_store_close(&store);
        return r < 0 ? rt_log_err(&err) : 0;
}

static void list_one(struct rt_store *store, const char *id, bool json, bool quiet, bool *first)
{
        struct bento_err err = {0};
        struct rt_snapshot s;

        if (rt_snapshot_take(store, id, true, &s, &err) < 0)
                return; /* removed while listing */
        if (quiet) {
                printf("%s\n", id);
        } else if (json) {
                printf("%s", *first ? "" : ",\n");
                if (print_state(id, &s, false, stdout, &err) < 0)
                        rt_log_warning("%s", err.msg);
        } else {
                printf("%-24s %-8d %-10s %-40s %-32s %s\n", id,
                       s.rec && s.status != BENTO_STATUS_STOPPED ? (int) s.rec->pid : 0,
                       bento_status_to_string(s.status), s.rec ? s.rec->bundle : "",
                       s.rec ? s.rec->created : "", s.rec ? s.rec->owner : "");
        }
        *first = false;
        rt_snapshot_close(&s);
}

int cmd_list(const struct rt_global *g, int argc, char **argv)
{
        static const struct bento_opt opts[] = {
            {"format", 'f', BENTO_OPT_VALUE, 'f', "FORMAT", "table (default) or json"},
            {"quiet", 'q', BENTO_OPT_FLAG, 'q', NULL, "only the ids"},
            {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        const char *value = NULL;
        bool json = false, quiet = false, first = true;
        char **names = NULL;
        size_t n = 0;
        int id, r;

        while ((r = rt_args_next(&a, opts, &id, &value, &err)) > 0) {
                if (id == 'q')
                        quiet = true;
                else if (!strcmp(value, "json") || !strcmp(value, "table"))
                        json = !strcmp(value, "json");
                else
                        r = bento_err_setx(&err, EINVAL, "--format: expected table or json");
                if (r < 0)
                        break;
        }
        if (r >= 0 && a.i != argc)
                r = bento_err_setx(&err, EINVAL, "list takes no arguments");
        if (r >= 0)
                r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = rt_store_ids(&store, &names, &n, &err);
        if (r >= 0) {
                if (json)
                        printf("[");
                else if (!quiet)
                        printf("%-24s %-8s %-10s %-40s %-32s %s\n", "ID", "PID", "STATUS", "BUNDLE",
                               "CREATED", "OWNER");
                for (size_t i = 0; i < n; i++)
                        list_one(&store, names[i], json, quiet, &first);
                if (json)
                        printf("]\n");
        }
        rt_store_ids_free(names, n);
        rt_store_close(&store);
        return r < 0 ? rt_log_err(&err) : 0;
}
