/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Preparing a new cgroup for limits (v1 cpusets start empty; v2 parents
 * must hand controllers down) and reading back what the kernel holds, for
 * the state record's applied.cgroup.  Values are in runtime-spec terms
 * (memory.swap is memory+swap, -1 is "unlimited"), taken from the files.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"

/* A hierarchy view whose path is the first `len` bytes of h->path. */
static int prefix_view(const struct cg_hier *h, size_t len, struct cg_hier *ret, char **buf)
{
        *buf = strndup(h->path, len ? len : 1);
        if (!*buf)
                return -ENOMEM;
        *ret = *h;
        ret->path = *buf;
        return 0;
}

int cg_cpuset_init(const struct cg_hier *h, struct bento_err *err)
{
        static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
        char parent[2][512] = {"", ""};

        /* from the hierarchy root down to the container's cgroup */
        for (const char *p = h->path;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                cleanup_free char *buf = NULL;
                struct cg_hier v;

                if (prefix_view(h, (size_t) (p - h->path), &v, &buf) < 0)
                        return bento_err_set(err, ENOMEM, "cpuset");
                for (int i = 0; i < 2; i++) {
                        char cur[512];
                        int r = cg_read(&v, files[i], cur, sizeof(cur));

                        if (r < 0)
                                return bento_err_set(err, -r, "cannot read %s of %s%s", files[i],
                                                     v.mnt, v.path);
                        if (!cur[0] && p > h->path) {
                                r = cg_write(&v, files[i], parent[i], err);
                                if (r < 0)
                                        return r;
                                memcpy(cur, parent[i], sizeof(cur));
                        }
                        memcpy(parent[i], cur, sizeof(cur));
                }
                if (!*p)
                        return 0;
        }
}

static int enable_in(const struct cg_hier *v, struct bento_err *err)
{
        static const char *const wanted[] = {"cpu", "cpuset", "io", "memory", "pids", "hugetlb"};
        char avail[512], on[512], add[128];
        size_t o = 0;

        if (cg_read(v, "cgroup.controllers", avail, sizeof(avail)) < 0 ||
            cg_read(v, "cgroup.subtree_control", on, sizeof(on)) < 0)
                return bento_err_set(err, errno, "cannot read the controllers of %s%s", v->mnt,
                                     v->path);
        for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
                char tok[32];
                snprintf(tok, sizeof(tok), " %s ", wanted[i]);
                char a[520], e[520];
                snprintf(a, sizeof(a), " %s ", avail);
                snprintf(e, sizeof(e), " %s ", on);
                if (strstr(a, tok) && !strstr(e, tok))
                        o += (size_t) snprintf(add + o, sizeof(add) - o, "%s+%s", o ? " " : "",
                                               wanted[i]);
        }
        if (o == 0 || cg_write(v, "cgroup.subtree_control", add, err) >= 0)
                return 0;
        if (err->code == EBUSY)
                return bento_err_setx(err, EBUSY,
                                      "cannot enable the %s controllers below %s%s: it holds "
                                      "processes (cgroup v2 allows limits only in leaves); give "
                                      "linux.cgroupsPath an absolute path outside the caller's "
                                      "cgroup",
                                      add, v->mnt, v->path);
        return -err->code;
}

/* Every cgroup from the hierarchy root down to the leaf's parent hands
 * the controllers down: each '/' of the path ends the prefix that is one of
 * them (the first one the root, the last one the parent). */
int cg_enable_controllers(const struct cg_hier *h, struct bento_err *err)
{
        const char *leaf = strrchr(h->path, '/');

        for (const char *p = h->path;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                cleanup_free char *buf = NULL;
                struct cg_hier v;
                int r;

                if (!leaf || p > leaf)
                        return 0;
                if (prefix_view(h, (size_t) (p - h->path), &v, &buf) < 0)
                        return bento_err_set(err, ENOMEM, "controllers");
                r = enable_in(&v, err);
                if (r < 0)
                        return r;
        }
}

static int put_num(struct bento_json *o, const char *key, const struct cg_hier *h, const char *file)
{
        int64_t v;

        if (!h || !h->path || cg_read_num(h, file, &v) < 0)
                return 0;
        return bento_json_object_set(o, key, bento_json_new_int(v));
}

static int put_str(struct bento_json *o, const char *key, const struct cg_hier *h, const char *file)
{
        char buf[1024];

        if (!h || !h->path || cg_read(h, file, buf, sizeof(buf)) < 0 || !buf[0])
                return 0;
        return bento_json_object_set(o, key, bento_json_new_string(buf));
}

/* Add o to obj under key unless it is empty. */
static int put_obj(struct bento_json *obj, const char *key, struct bento_json *o)
{
        if (!o)
                return -ENOMEM;
        if (o->u.object.n == 0) {
                bento_json_free(o);
                return 0;
        }
        return bento_json_object_set(obj, key, o);
}

static int snap_memory_v1(const struct cg_hier *h, struct bento_json *m)
{
        int64_t v;
        int r = put_num(m, "limit", h, "memory.limit_in_bytes");

        if (r >= 0)
                r = put_num(m, "reservation", h, "memory.soft_limit_in_bytes");
        if (r >= 0)
                r = put_num(m, "swap", h, "memory.memsw.limit_in_bytes");
        if (r >= 0)
                r = put_num(m, "swappiness", h, "memory.swappiness");
        if (r >= 0 && h && h->path &&
            cg_read_keyed(h, "memory.oom_control", "oom_kill_disable", &v) >= 0)
                r = bento_json_object_set(m, "disableOOMKiller", bento_json_new_bool(v == 1));
        return r;
}

static int snap_memory_v2(const struct cg_hier *h, struct bento_json *m)
{
        int64_t lim, swap;
        int r = put_num(m, "limit", h, "memory.max");

        if (r >= 0)
                r = put_num(m, "reservation", h, "memory.low");
        if (r >= 0 && cg_read_num(h, "memory.max", &lim) >= 0 &&
            cg_read_num(h, "memory.swap.max", &swap) >= 0)
                r = bento_json_object_set(
                    m, "swap", bento_json_new_int(lim < 0 || swap < 0 ? -1 : lim + swap));
        return r;
}

static int snap_cpu_v2(const struct cg_hier *h, struct bento_json *c)
{
        char buf[64], quota[32];
        int64_t period;
        int r = put_num(c, "weight", h, "cpu.weight");

        if (r >= 0 && cg_read(h, "cpu.max", buf, sizeof(buf)) >= 0 &&
            sscanf(buf, "%31s %" SCNd64, quota, &period) == 2) {
                r = bento_json_object_set(
                    c, "quota", bento_json_new_int(strcmp(quota, "max") ? atoll(quota) : -1));
                if (r >= 0)
                        r = bento_json_object_set(c, "period", bento_json_new_int(period));
        }
        return r;
}

static int snap_devices(const struct cg_hier *h, struct bento_json *obj)
{
        char buf[8192];
        struct bento_json *list;
        char *save = NULL;
        int r = 0;

        if (!h || !h->path || cg_read(h, "devices.list", buf, sizeof(buf)) < 0)
                return 0;
        list = bento_json_new_array();
        if (!list)
                return -ENOMEM;
        for (char *t = strtok_r(buf, "\n", &save); t && r >= 0; t = strtok_r(NULL, "\n", &save))
                r = bento_json_array_append(list, bento_json_new_string(t));
        if (r < 0) {
                bento_json_free(list);
                return r;
        }
        return bento_json_object_set(obj, "devices", list);
}

int cg_snapshot(const struct cg_layout *l, struct bento_json *obj)
{
        bool v2 = l->mode == CG_MODE_V2;
        const struct cg_hier *mem = cg_find(l, "memory"), *cpu = cg_find(l, "cpu");
        const struct cg_hier *cs = cg_find(l, "cpuset");
        struct bento_json *m = bento_json_new_object(), *c = bento_json_new_object();
        struct bento_json *p = bento_json_new_object();
        int r = m && c && p ? 0 : -ENOMEM;

        if (r >= 0 && mem && mem->path)
                r = v2 ? snap_memory_v2(mem, m) : snap_memory_v1(mem, m);
        if (r >= 0 && !v2)
                r = put_num(c, "shares", cpu, "cpu.shares");
        if (r >= 0 && !v2)
                r = put_num(c, "quota", cpu, "cpu.cfs_quota_us");
        if (r >= 0 && !v2)
                r = put_num(c, "period", cpu, "cpu.cfs_period_us");
        if (r >= 0 && !v2)
                r = put_num(c, "realtimeRuntime", cpu, "cpu.rt_runtime_us");
        if (r >= 0 && !v2)
                r = put_num(c, "realtimePeriod", cpu, "cpu.rt_period_us");
        if (r >= 0 && v2 && cpu && cpu->path)
                r = snap_cpu_v2(cpu, c);
        if (r >= 0)
                r = put_str(c, "cpus", cs, "cpuset.cpus");
        if (r >= 0)
                r = put_str(c, "mems", cs, "cpuset.mems");
        if (r >= 0)
                r = put_num(p, "limit", cg_find(l, "pids"), "pids.max");
        if (r >= 0 && !v2)
                r = snap_devices(cg_find(l, "devices"), obj);
        if (r >= 0)
                r = cg_blkio_snapshot(cg_find(l, v2 ? "io" : "blkio"), obj);
        if (r >= 0) {
                r = put_obj(obj, "memory", TAKE_PTR(m));
                if (r >= 0)
                        r = put_obj(obj, "cpu", TAKE_PTR(c));
                if (r >= 0)
                        r = put_obj(obj, "pids", TAKE_PTR(p));
        }
        bento_json_free(m);
        bento_json_free(c);
        bento_json_free(p);
        return r;
}
