/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verbs that act on a container's cgroup: pause and resume (the
 * freezer), ps (the processes in the cgroup), update (new limits, applied,
 * read back and stored in the record so `state` shows what the kernel
 * holds).  podman sends `update --resources=FILE ID`, containerd
 * `update --resources - ID` with the JSON on stdin; the crun/runc flags
 * (--memory, --cpu-quota, ...) override members of that document, and are
 * spelled as both of them spell them (runc's --cpu-share is --cpu-shares).
 * The kernel memory flags fill memory.kernel/kernelTCP, which the cgroup
 * driver ignores with a warning, as runc and crun do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cgroup/cgroup.h"
#include "cleanup.h"
#include "commands.h"
#include "fileio.h"
#include "base/log.h"
#include "container/store.h"

#define RESOURCES_MAX ((size_t) 1024 * 1024)

struct opened {
        struct rt_container_dir dir;
        struct bento_record *rec;
        enum bento_status status;
};

static void opened_close(struct opened *o)
{
        o->rec = bento_record_free(o->rec);
        rt_container_dir_close(&o->dir);
}

/* Open and lock a container that has a record; its status must be one of
 * `allowed` (a bit per enum bento_status). */
static int open_container(struct rt_store *store, const char *id, bool exclusive, unsigned allowed,
                          const char *verb, struct opened *o, struct bento_err *err)
{
        int r;

        *o = (struct opened){.dir = {.path = NULL, .fd = -1}};
        r = rt_container_dir_open(store, id, exclusive, &o->dir, err);
        if (r < 0)
                return r;
        r = rt_container_record_load(&o->dir, &o->rec, err);
        o->status = r >= 0 ? rt_container_status(&o->dir, o->rec) : BENTO_STATUS_CREATING;
        if (r == -ENOENT || (r >= 0 && !(allowed & (1u << o->status))))
                r = bento_err_setx(err, o->status == BENTO_STATUS_STOPPED ? ESRCH : EINVAL,
                                   "cannot %s container %s: it is %s%s", verb, id,
                                   bento_status_to_string(o->status),
                                   o->status == BENTO_STATUS_STOPPED ? " (container not running)"
                                                                     : "");
        if (r < 0)
                opened_close(o);
        return r;
}

static int need_id(const char *verb, const struct bento_argv *a, const char **ret)
{
        if (a->argc - a->i != 1) {
                rt_log_error("%s: expected a container id%s", verb,
                             a->argc - a->i > 1 ? " and nothing after it" : "");
                rt_usage(verb, true);
                return -EINVAL;
        }
        *ret = a->argv[a->i];
        return 0;
}

static int freeze_verb(const struct rt_global *g, int argc, char **argv, bool freeze)
{
        const char *verb = freeze ? "pause" : "resume";
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        struct opened o;
        const char *id;
        int r;

        if (rt_args_none(&a, &err) < 0)
                return rt_log_err(&err);
        if (need_id(verb, &a, &id) < 0)
                return 1;
        r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = open_container(&store, id, true,
                                   1u << (freeze ? BENTO_STATUS_RUNNING : BENTO_STATUS_PAUSED),
                                   verb, &o, &err);
        if (r >= 0) {
                r = rt_cgroup_freeze(o.rec, freeze, &err);
                opened_close(&o);
        }
        rt_store_close(&store);
        return r < 0 ? rt_log_err(&err) : 0;
}

int cmd_pause(const struct rt_global *g, int argc, char **argv)
{
        return freeze_verb(g, argc, argv, true);
}

int cmd_resume(const struct rt_global *g, int argc, char **argv)
{
        return freeze_verb(g, argc, argv, false);
}

static void print_pids(const pid_t *pids, size_t n, bool json)
{
        if (json) {
                printf("[");
                for (size_t i = 0; i < n; i++)
                        printf("%s%d", i ? "," : "", (int) pids[i]);
                printf("]\n");
                return;
        }
        printf("PID     CMD\n");
        for (size_t i = 0; i < n; i++) {
                char path[64], comm[64] = "?";
                FILE *f;

                snprintf(path, sizeof(path), "/proc/%d/comm", (int) pids[i]);
                if ((f = fopen(path, "re"))) {
                        if (fgets(comm, sizeof(comm), f))
                                comm[strcspn(comm, "\n")] = '\0';
                        fclose(f);
                }
                printf("%-7d %s\n", (int) pids[i], comm);
        }
}

int cmd_ps(const struct rt_global *g, int argc, char **argv)
{
        static const struct bento_opt opts[] = {
            {"format", 'f', BENTO_OPT_VALUE, 'f', "FORMAT", "table or json"},
            {NULL, 0, BENTO_OPT_FLAG, 0}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        cleanup_free pid_t *pids = NULL;
        const char *value = NULL, *id;
        bool json = false;
        size_t n = 0;
        struct opened o;
        int opt, r;

        while ((r = rt_args_next(&a, opts, &opt, &value, &err)) > 0) {
                if (strcmp(value, "json") != 0 && strcmp(value, "table") != 0) {
                        bento_err_setx(&err, EINVAL, "ps: --format: expected table or json");
                        return rt_log_err(&err);
                }
                json = !strcmp(value, "json");
        }
        if (r < 0)
                return rt_log_err(&err);
        if (need_id("ps", &a, &id) < 0)
                return 1;
        r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = open_container(&store, id, false,
                                   1u << BENTO_STATUS_CREATED | 1u << BENTO_STATUS_RUNNING |
                                       1u << BENTO_STATUS_PAUSED | 1u << BENTO_STATUS_STOPPED,
                                   "list the processes of", &o, &err);
        if (r >= 0) {
                r = rt_cgroup_pids(o.rec, &pids, &n, &err);
                opened_close(&o);
        }
        rt_store_close(&store);
        if (r < 0)
                return rt_log_err(&err);
        print_pids(pids, n, json);
        return 0;
}

/* ---- update ---- */

enum {
        U_RESOURCES,
        U_MEMORY,
        U_SWAP,
        U_RESERVATION,
        U_QUOTA,
        U_PERIOD,
        U_SHARES,
        U_CPUS,
        U_MEMS,
        U_PIDS,
        U_BLKIO_WEIGHT,
        U_RT_PERIOD,
        U_RT_RUNTIME,
        U_KERNEL,
        U_KERNEL_TCP,
        U_N,
};

/* flag → member of the resources document */
static const struct {
        const char *flag, *object, *key;
        bool is_string;
} flag_members[] = {
    [U_MEMORY] = {"memory", "memory", "limit", false},
    [U_SWAP] = {"memory-swap", "memory", "swap", false},
    [U_RESERVATION] = {"memory-reservation", "memory", "reservation", false},
    [U_QUOTA] = {"cpu-quota", "cpu", "quota", false},
    [U_PERIOD] = {"cpu-period", "cpu", "period", false},
    [U_SHARES] = {"cpu-shares", "cpu", "shares", false},
    [U_CPUS] = {"cpuset-cpus", "cpu", "cpus", true},
    [U_MEMS] = {"cpuset-mems", "cpu", "mems", true},
    [U_PIDS] = {"pids-limit", "pids", "limit", false},
    [U_BLKIO_WEIGHT] = {"blkio-weight", "blockIO", "weight", false},
    [U_RT_PERIOD] = {"cpu-rt-period", "cpu", "realtimePeriod", false},
    [U_RT_RUNTIME] = {"cpu-rt-runtime", "cpu", "realtimeRuntime", false},
    [U_KERNEL] = {"kernel-memory", "memory", "kernel", false},
    [U_KERNEL_TCP] = {"kernel-memory-tcp", "memory", "kernelTCP", false},
};

static const struct bento_opt update_opts[] = {
    {"resources", 'r', BENTO_OPT_VALUE, U_RESOURCES, "FILE",
     "linux.resources as JSON (- reads stdin)"},
    {"memory", 'm', BENTO_OPT_VALUE, U_MEMORY, "BYTES", "memory.limit"},
    {"memory-swap", 0, BENTO_OPT_VALUE, U_SWAP, "BYTES", "memory.swap (memory plus swap)"},
    {"memory-reservation", 0, BENTO_OPT_VALUE, U_RESERVATION, "BYTES", "memory.reservation"},
    {"cpu-quota", 0, BENTO_OPT_VALUE, U_QUOTA, "USEC", "cpu.quota per period"},
    {"cpu-period", 0, BENTO_OPT_VALUE, U_PERIOD, "USEC", "cpu.period"},
    {"cpu-shares", 0, BENTO_OPT_VALUE, U_SHARES, "N", "cpu.shares"},
    {"cpu-share", 0, BENTO_OPT_VALUE, U_SHARES, "N", "the same, as runc and crun spell it"},
    {"cpuset-cpus", 0, BENTO_OPT_VALUE, U_CPUS, "LIST", "cpu.cpus"},
    {"cpuset-mems", 0, BENTO_OPT_VALUE, U_MEMS, "LIST", "cpu.mems"},
    {"pids-limit", 0, BENTO_OPT_VALUE, U_PIDS, "N", "pids.limit"},
    {"blkio-weight", 0, BENTO_OPT_VALUE, U_BLKIO_WEIGHT, "N", "blockIO.weight (10-1000)"},
    {"cpu-rt-period", 0, BENTO_OPT_VALUE, U_RT_PERIOD, "USEC", "cpu.realtimePeriod"},
    {"cpu-rt-runtime", 0, BENTO_OPT_VALUE, U_RT_RUNTIME, "USEC", "cpu.realtimeRuntime"},
    {"kernel-memory", 0, BENTO_OPT_VALUE, U_KERNEL, "BYTES", "accepted and ignored with a warning"},
    {"kernel-memory-tcp", 0, BENTO_OPT_VALUE, U_KERNEL_TCP, "BYTES",
     "accepted and ignored with a warning"},
    {NULL, 0, BENTO_OPT_FLAG, 0},
};

static int load_resources(const char *path, struct bento_json **ret, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        if (!path) {
                *ret = bento_json_new_object();
                return *ret ? 0 : bento_err_set(err, ENOMEM, "resources");
        }
        r = strcmp(path, "-") == 0 ? bento_read_fd(0, "stdin", RESOURCES_MAX, &data, &len, err)
                                   : bento_read_file(path, RESOURCES_MAX, &data, &len, err);
        if (r >= 0)
                r = bento_json_parse(data, len, RESOURCES_MAX, ret, err);
        if (r >= 0 && (*ret)->type != BENTO_JSON_OBJECT) {
                *ret = bento_json_free(*ret);
                r = bento_err_setx(err, EINVAL, "--resources: expected a JSON object");
        }
        return r < 0 ? bento_err_prefix(err, "--resources %s", path) : 0;
}

static int set_flag(struct bento_json *res, int which, const char *value, struct bento_err *err)
{
        struct bento_json *obj = bento_json_get(res, flag_members[which].object);
        struct bento_json *v;
        char *end = NULL;

        if (!obj || obj->type != BENTO_JSON_OBJECT) {
                if (bento_json_object_set(res, flag_members[which].object,
                                          bento_json_new_object()) < 0)
                        return bento_err_set(err, ENOMEM, "resources");
                obj = bento_json_get(res, flag_members[which].object);
        }
        if (flag_members[which].is_string) {
                v = bento_json_new_string(value);
        } else {
                long long n;

                errno = 0;
                n = strtoll(value, &end, 10);
                if (errno || end == value || *end)
                        return bento_err_setx(err, EINVAL, "--%s: expected an integer, got '%s'",
                                              flag_members[which].flag, value);
                v = bento_json_new_int(n);
        }
        if (bento_json_object_set(obj, flag_members[which].key, v) < 0)
                return bento_err_set(err, ENOMEM, "resources");
        return 0;
}

static int parse_update(struct bento_argv *a, struct bento_json **ret, struct bento_err *err)
{
        const char *values[U_N] = {NULL};
        const char *value = NULL;
        int opt, r;

        while ((r = rt_args_next(a, update_opts, &opt, &value, err)) > 0)
                values[opt] = value;
        if (r >= 0)
                r = load_resources(values[U_RESOURCES], ret, err);
        for (int i = U_MEMORY; r >= 0 && i < U_N; i++)
                if (values[i])
                        r = set_flag(*ret, i, values[i], err);
        if (r < 0)
                *ret = bento_json_free(*ret);
        return r;
}

/* Apply, then keep what the kernel holds in the record. */
static int update_record(struct opened *o, const struct bento_json *res, struct bento_err *err)
{
        struct bento_json *applied = NULL;
        int r = rt_cgroup_update(o->rec, res, &applied, err);

        if (r < 0)
                return r;
        if (!o->rec->extra)
                o->rec->extra = bento_json_new_object();
        if (!o->rec->extra || bento_json_object_set(o->rec->extra, "cgroup", applied) < 0)
                return bento_err_set(err, ENOMEM, "state record");
        return rt_container_record_save(&o->dir, o->rec, err);
}

int cmd_update(const struct rt_global *g, int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        cleanup_bento_json struct bento_json *res = NULL;
        const char *id;
        struct opened o;
        int r;

        if (parse_update(&a, &res, &err) < 0)
                return rt_log_err(&err);
        if (need_id("update", &a, &id) < 0)
                return 1;
        r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = open_container(&store, id, true,
                                   1u << BENTO_STATUS_CREATED | 1u << BENTO_STATUS_RUNNING |
                                       1u << BENTO_STATUS_PAUSED,
                                   "update", &o, &err);
        if (r >= 0) {
                r = update_record(&o, res, &err);
                opened_close(&o);
        }
        rt_store_close(&store);
        return r < 0 ? rt_log_err(&err) : 0;
}
