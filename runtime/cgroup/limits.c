/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.resources checked before anything is written: every member this
 * driver applies is type- and range-checked, and every member it cannot
 * apply on this host is refused with its JSON path rather than ignored
 * (a container must not run believing it is limited when it is not).
 * Members the runtime-spec does not know are ignored, as config.json's
 * rules say.  As in runc, a limit of 0 means "not set".  The one kind of
 * member ignored on purpose is the kernel memory limits (memory.kernel,
 * memory.kernelTCP): Linux dropped them, runc ignores them, and refusing
 * would fail every engine that still sends them; each is named in a
 * warning with its value.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

struct ctx {
        enum cg_mode mode;
        const char *where;
        struct bento_err *err;
};

static const struct bento_json *member(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type != BENTO_JSON_NULL ? v : NULL;
}

static int bad(const struct ctx *c, const char *path, const char *what)
{
        return bento_err_setx(c->err, EINVAL, "%s.%s: %s", c->where, path, what);
}

static int unsupported(const struct ctx *c, const char *path, const char *why)
{
        return bento_err_setx(c->err, ENOTSUP,
                              "%s.%s: not supported by bento-runtime's cgroup driver%s%s; "
                              "refusing to run without it",
                              c->where, path, why ? " " : "", why ? why : "");
}

/* An int64 member; *has stays false when absent, null or 0. */
static int get_int(const struct ctx *c, const struct bento_json *obj, const char *key,
                   const char *path, int64_t min, bool *has, int64_t *ret)
{
        const struct bento_json *v = member(obj, key);

        if (!v)
                return 0;
        if (v->type != BENTO_JSON_NUMBER || !v->u.number.is_int || !v->u.number.fits_i64)
                return bad(c, path, "expected an integer");
        if (v->u.number.i < min)
                return bad(c, path,
                           min == -1 ? "expected -1 (unlimited) or a positive value"
                                     : "expected a positive value");
        *has = v->u.number.i != 0;
        *ret = v->u.number.i;
        return 0;
}

static int get_uint(const struct ctx *c, const struct bento_json *obj, const char *key,
                    const char *path, bool *has, uint64_t *ret)
{
        const struct bento_json *v = member(obj, key);

        if (!v)
                return 0;
        if (v->type != BENTO_JSON_NUMBER || !v->u.number.is_int || v->u.number.is_neg ||
            !v->u.number.fits_u64)
                return bad(c, path, "expected an unsigned integer");
        *has = v->u.number.u != 0;
        *ret = v->u.number.u;
        return 0;
}

/* A member whose only acceptable value is "off" (absent, null, false). */
static int only_off(const struct ctx *c, const struct bento_json *obj, const char *key,
                    const char *path, const char *why)
{
        const struct bento_json *v = member(obj, key);

        if (!v || (v->type == BENTO_JSON_BOOL && !v->u.boolean))
                return 0;
        return unsupported(c, path, why);
}

/* Something that asks for nothing: null, {}, [], or objects/arrays of those. */
static bool empty(const struct bento_json *v)
{
        if (!v || v->type == BENTO_JSON_NULL)
                return true;
        if (v->type == BENTO_JSON_ARRAY) {
                for (size_t i = 0; i < v->u.array.n; i++)
                        if (!empty(v->u.array.items[i]))
                                return false;
                return true;
        }
        if (v->type == BENTO_JSON_OBJECT) {
                for (size_t i = 0; i < v->u.object.n; i++)
                        if (!empty(v->u.object.values[i]))
                                return false;
                return true;
        }
        return false;
}

/* memory.kernel and memory.kernelTCP: checked like the other limits, then
 * dropped with a warning that names the value (see the header). */
/* memory.kernel: the kernel ignores memory.kmem.limit_in_bytes (it takes
 * the write and keeps no limit) and v2 has no such file, so it is ignored
 * with a warning, as runc does.  memory.kernelTCP still works on v1
 * (memory.kmem.tcp.limit_in_bytes) and is applied there, as crun does;
 * v2 has none: a warning. */
static int kernel_memory(const struct ctx *c, const struct bento_json *m, struct cg_limits *l)
{
        bool has = false;
        int64_t v = 0;
        int r = get_int(c, m, "kernel", "memory.kernel", -1, &has, &v);

        if (r < 0)
                return r;
        if (has)
                rt_log_warning("%s.memory.kernel: %" PRId64 " ignored: the kernel no longer "
                               "limits kernel memory (as runc, bento-runtime sets none)",
                               c->where, v);
        r = get_int(c, m, "kernelTCP", "memory.kernelTCP", -1, &l->has_mem_kernel_tcp,
                    &l->mem_kernel_tcp);
        if (r >= 0 && l->has_mem_kernel_tcp && c->mode == CG_MODE_V2) {
                rt_log_warning("%s.memory.kernelTCP: %" PRId64 " ignored: cgroup v2 has no "
                               "separate TCP buffer limit",
                               c->where, l->mem_kernel_tcp);
                l->has_mem_kernel_tcp = false;
        }
        return r;
}

static int parse_memory(const struct ctx *c, const struct bento_json *m, struct cg_limits *l)
{
        bool v2 = c->mode == CG_MODE_V2;
        int r = 0;

        if (m->type != BENTO_JSON_OBJECT)
                return bad(c, "memory", "expected an object");
        r = kernel_memory(c, m, l);
        if (r >= 0)
                r = get_int(c, m, "limit", "memory.limit", -1, &l->has_mem_limit, &l->mem_limit);
        if (r >= 0)
                r = get_int(c, m, "reservation", "memory.reservation", -1, &l->has_mem_reservation,
                            &l->mem_reservation);
        if (r >= 0)
                r = get_int(c, m, "swap", "memory.swap", -1, &l->has_mem_swap, &l->mem_swap);
        if (r >= 0 && !v2)
                r = get_uint(c, m, "swappiness", "memory.swappiness", &l->has_swappiness,
                             &l->swappiness);
        if (r >= 0 && v2 && member(m, "swappiness"))
                r = unsupported(c, "memory.swappiness", "on cgroup v2");
        if (r >= 0 && member(m, "swappiness") && l->swappiness > 100)
                r = bad(c, "memory.swappiness", "expected 0..100");
        /* 0 is a valid swappiness */
        l->has_swappiness = r >= 0 && !v2 && member(m, "swappiness");
        if (r >= 0)
                r = only_off(c, m, "useHierarchy", "memory.useHierarchy", NULL);
        if (r >= 0)
                r = only_off(c, m, "checkBeforeUpdate", "memory.checkBeforeUpdate", NULL);
        if (r >= 0 && v2)
                r = only_off(c, m, "disableOOMKiller", "memory.disableOOMKiller", "on cgroup v2");
        if (r >= 0 && !v2 && member(m, "disableOOMKiller")) {
                const struct bento_json *v = member(m, "disableOOMKiller");
                if (v->type != BENTO_JSON_BOOL)
                        return bad(c, "memory.disableOOMKiller", "expected a boolean");
                l->has_oom_disable = true;
                l->oom_disable = v->u.boolean;
        }
        if (r >= 0 && l->has_mem_swap && l->has_mem_limit && l->mem_swap != -1 &&
            (l->mem_limit == -1 || l->mem_swap < l->mem_limit))
                r = bad(c, "memory.swap", "memory+swap must be at least memory.limit");
        if (r >= 0 && v2 && l->has_mem_swap && !l->has_mem_limit && l->mem_swap != -1)
                r = bad(c, "memory.swap", "on cgroup v2 it needs memory.limit as well");
        return r;
}

static int cpu_list(const struct ctx *c, const struct bento_json *cpu, const char *key,
                    const char *path, const char **ret)
{
        const struct bento_json *v = member(cpu, key);

        if (!v)
                return 0;
        if (v->type != BENTO_JSON_STRING ||
            strspn(v->u.string.s, "0123456789,-") != v->u.string.len)
                return bad(c, path, "expected a list like \"0-2,4\"");
        *ret = v->u.string.len ? v->u.string.s : NULL;
        return 0;
}

/* cpu.realtimeRuntime/realtimePeriod: v1's RT group scheduling; cgroup v2
 * has no such files, so there they are refused (runc fails on them too). */
static int parse_rt(const struct ctx *c, const struct bento_json *cpu, struct cg_limits *l)
{
        int r = get_int(c, cpu, "realtimeRuntime", "cpu.realtimeRuntime", -1, &l->has_rt_runtime,
                        &l->rt_runtime);

        if (r >= 0)
                r = get_uint(c, cpu, "realtimePeriod", "cpu.realtimePeriod", &l->has_rt_period,
                             &l->rt_period);
        if (r >= 0 && c->mode == CG_MODE_V2 && (l->has_rt_runtime || l->has_rt_period))
                r = unsupported(c, l->has_rt_runtime ? "cpu.realtimeRuntime" : "cpu.realtimePeriod",
                                "on cgroup v2 (it has no realtime group scheduling)");
        return r;
}

static int parse_cpu(const struct ctx *c, const struct bento_json *cpu, struct cg_limits *l)
{
        static const char *const never[] = {"burst", "idle"};
        int r;

        if (cpu->type != BENTO_JSON_OBJECT)
                return bad(c, "cpu", "expected an object");
        for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
                if (member(cpu, never[i])) {
                        char path[64];
                        snprintf(path, sizeof(path), "cpu.%s", never[i]);
                        return unsupported(c, path, NULL);
                }
        r = get_uint(c, cpu, "shares", "cpu.shares", &l->has_shares, &l->shares);
        if (r >= 0)
                r = get_int(c, cpu, "quota", "cpu.quota", -1, &l->has_quota, &l->quota);
        if (r >= 0)
                r = get_uint(c, cpu, "period", "cpu.period", &l->has_period, &l->period);
        if (r >= 0)
                r = cpu_list(c, cpu, "cpus", "cpu.cpus", &l->cpus);
        if (r >= 0)
                r = cpu_list(c, cpu, "mems", "cpu.mems", &l->mems);
        if (r >= 0)
                r = parse_rt(c, cpu, l);
        return r;
}

static int parse_rule(const struct ctx *c, const struct bento_json *d, size_t i)
{
        const struct bento_json *allow = bento_json_get(d, "allow");
        const struct bento_json *type = member(d, "type");
        const struct bento_json *access = member(d, "access");
        char path[64];
        bool h = false;
        int64_t n = 0;
        int r;

        snprintf(path, sizeof(path), "devices[%zu]", i);
        if (d->type != BENTO_JSON_OBJECT)
                return bad(c, path, "expected an object");
        snprintf(path, sizeof(path), "devices[%zu].allow", i);
        if (!allow || allow->type != BENTO_JSON_BOOL)
                return bad(c, path, "expected a boolean");
        snprintf(path, sizeof(path), "devices[%zu].type", i);
        if (type && (type->type != BENTO_JSON_STRING || type->u.string.len != 1 ||
                     !strchr("acb", type->u.string.s[0])))
                return bad(c, path, "expected \"a\", \"c\" or \"b\"");
        snprintf(path, sizeof(path), "devices[%zu].access", i);
        if (access && (access->type != BENTO_JSON_STRING || access->u.string.len == 0 ||
                       strspn(access->u.string.s, "rwm") != access->u.string.len))
                return bad(c, path, "expected letters from \"rwm\"");
        snprintf(path, sizeof(path), "devices[%zu].major", i);
        r = get_int(c, d, "major", path, -1, &h, &n);
        snprintf(path, sizeof(path), "devices[%zu].minor", i);
        if (r >= 0)
                r = get_int(c, d, "minor", path, -1, &h, &n);
        return r;
}

static int parse_devices(const struct ctx *c, const struct bento_json *d, struct cg_limits *l)
{
        if (d->type != BENTO_JSON_ARRAY)
                return bad(c, "devices", "expected an array");
        for (size_t i = 0; i < d->u.array.n; i++) {
                int r = parse_rule(c, d->u.array.items[i], i);
                if (r < 0)
                        return r;
        }
        l->devices = d;
        return 0;
}

static int parse_unified(const struct ctx *c, const struct bento_json *u, struct cg_limits *l)
{
        if (u->type != BENTO_JSON_OBJECT)
                return bad(c, "unified", "expected an object");
        if (u->u.object.n == 0)
                return 0;
        if (c->mode != CG_MODE_V2)
                return unsupported(c, "unified", "on a cgroup v1 host");
        for (size_t i = 0; i < u->u.object.n; i++) {
                const char *k = u->u.object.keys[i];
                char path[300];

                snprintf(path, sizeof(path), "unified.%.256s", k);
                if (u->u.object.values[i]->type != BENTO_JSON_STRING)
                        return bad(c, path, "expected a string");
                if (!strchr(k, '.') || strchr(k, '/') || k[0] == '.' ||
                    strncmp(k, "cgroup.", 7) == 0)
                        return bad(c, path, "not a controller file name");
        }
        l->unified = u;
        return 0;
}

int cg_limits_parse(const struct bento_json *res, enum cg_mode mode, const char *where,
                    struct cg_limits *ret, struct bento_err *err)
{
        static const char *const refused[] = {"hugepageLimits", "network", "rdma"};
        struct ctx c = {.mode = mode, .where = where, .err = err};
        const struct bento_json *v;
        int r = 0;

        memset(ret, 0, sizeof(*ret));
        if (!res || res->type == BENTO_JSON_NULL)
                return 0;
        if (res->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL, "%s: expected an object", where);
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
                if (!empty(member(res, refused[i])))
                        return unsupported(&c, refused[i], NULL);
        if ((v = member(res, "memory")))
                r = parse_memory(&c, v, ret);
        if (r >= 0 && (v = member(res, "cpu")))
                r = parse_cpu(&c, v, ret);
        if (r >= 0 && (v = member(res, "pids"))) {
                if (v->type != BENTO_JSON_OBJECT)
                        r = bad(&c, "pids", "expected an object");
                else
                        r = get_int(&c, v, "limit", "pids.limit", -1, &ret->has_pids, &ret->pids);
        }
        if (r >= 0 && (v = member(res, "blockIO")))
                r = cg_blkio_parse(v, mode, where, ret, err);
        if (r >= 0 && (v = member(res, "devices")))
                r = parse_devices(&c, v, ret);
        if (r >= 0 && (v = member(res, "unified")))
                r = parse_unified(&c, v, ret);
        return r;
}

bool cg_limits_any(const struct cg_limits *l)
{
        return l->has_mem_limit || l->has_mem_reservation || l->has_mem_swap || l->has_swappiness ||
               l->has_oom_disable || l->has_shares || l->has_quota || l->has_period || l->cpus ||
               l->mems || l->has_rt_runtime || l->has_rt_period || l->has_pids || l->unified ||
               cg_blkio_any(l);
}
