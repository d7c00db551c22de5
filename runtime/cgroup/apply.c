/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing checked limits (limits.c) into the container's cgroup on
 * v1 and v2, and reading every one back: the kernel rounds, clamps and
 * normalises, and a value it does not hold afterwards is reported as an
 * error instead of being trusted.  Also the read-back of everything the
 * kernel holds, for the state record.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idlist.h"

#define CPULIST_BITS 4096

static int mismatch(struct bento_err *err, const char *what, const char *want, const char *held,
                    const struct cg_hier *h, const char *file)
{
        return bento_err_setx(err, ERANGE,
                              "linux.resources %s: asked for %s, but the kernel holds %s "
                              "(%s%s/%s); refusing to run with a limit that did not take",
                              what, want, held, h->mnt, h->path, file);
}

static void fmt_num(int64_t v, char *buf, size_t size)
{
        if (v < 0)
                snprintf(buf, size, "max");
        else
                snprintf(buf, size, "%" PRId64, v);
}

/* Write a number (-1 as `unlimited`) and check it, allowing the kernel's
 * rounding down to whole pages when `pages`. */
static int write_num(const struct cg_hier *h, const char *file, int64_t v, const char *unlimited,
                     bool pages, const char *what, struct bento_err *err)
{
        int64_t page = pages ? sysconf(_SC_PAGESIZE) : 1;
        int64_t want = v < 0 ? -1 : v - v % page;
        char buf[32];
        int64_t got = 0;
        int r;

        if (v < 0)
                snprintf(buf, sizeof(buf), "%s", unlimited);
        else
                snprintf(buf, sizeof(buf), "%" PRId64, v);
        r = cg_write(h, file, buf, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.resources %s", what);
        r = cg_read_num(h, file, &got);
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back %s", file);
        if (got != want || (v > 0 && want == 0)) {
                char held[32];

                fmt_num(got, held, sizeof(held));
                return mismatch(err, what, v < 0 ? "no limit" : buf, held, h, file);
        }
        return 0;
}

/* "0-2,5" → bitmap → canonical "0-2,5"; -EINVAL for anything else. */
static int cpulist_canon(const char *in, char *out, size_t size)
{
        static unsigned long bits[BENTO_IDLIST_WORDS(CPULIST_BITS)];
        size_t o = 0;

        if (bento_idlist_parse(in, bits, CPULIST_BITS, NULL) < 0)
                return -EINVAL;
        out[0] = '\0';
        for (int i = 0; i < CPULIST_BITS; i++) {
                int j = i;
                if (!bento_idlist_test(bits, (size_t) i))
                        continue;
                while (j + 1 < CPULIST_BITS && bento_idlist_test(bits, (size_t) j + 1))
                        j++;
                o += (size_t) snprintf(out + o, o < size ? size - o : 0, "%s%d", o ? "," : "", i);
                if (j > i)
                        o += (size_t) snprintf(out + o, o < size ? size - o : 0, "-%d", j);
                i = j;
        }
        return o < size ? 0 : -ENOSPC;
}

static int write_list(const struct cg_hier *h, const char *file, const char *v, const char *what,
                      struct bento_err *err)
{
        char want[1024], got[1024], held[1024];
        int r;

        if (cpulist_canon(v, want, sizeof(want)) < 0)
                return bento_err_setx(err, EINVAL, "linux.resources %s: cannot parse \"%s\"", what,
                                      v);
        r = cg_write(h, file, v, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.resources %s", what);
        r = cg_read(h, file, got, sizeof(got));
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back %s", file);
        if (cpulist_canon(got, held, sizeof(held)) < 0 || strcmp(want, held) != 0)
                return mismatch(err, what, v, got, h, file);
        return 0;
}

static int v1_memory(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        int64_t cur_sw = -1;
        bool swap_first;
        int r = 0;

        if (l->has_mem_swap && cg_read_num(h, "memory.memsw.limit_in_bytes", &cur_sw) < 0)
                return bento_err_setx(err, ENOTSUP,
                                      "linux.resources memory.swap: this kernel does not account "
                                      "swap (no memory.memsw.limit_in_bytes)");
        /* memory+swap may never be below memory: raise it first, lower it last */
        swap_first =
            l->has_mem_swap && (l->mem_swap == -1 || (cur_sw != -1 && l->mem_swap > cur_sw));
        if (swap_first)
                r = write_num(h, "memory.memsw.limit_in_bytes", l->mem_swap, "-1", true,
                              "memory.swap", err);
        if (r >= 0 && l->has_mem_limit)
                r = write_num(h, "memory.limit_in_bytes", l->mem_limit, "-1", true, "memory.limit",
                              err);
        if (r >= 0 && l->has_mem_swap && !swap_first)
                r = write_num(h, "memory.memsw.limit_in_bytes", l->mem_swap, "-1", true,
                              "memory.swap", err);
        if (r >= 0 && l->has_mem_reservation)
                r = write_num(h, "memory.soft_limit_in_bytes", l->mem_reservation, "-1", true,
                              "memory.reservation", err);
        if (r >= 0 && l->has_swappiness)
                r = write_num(h, "memory.swappiness", (int64_t) l->swappiness, "", false,
                              "memory.swappiness", err);
        if (r >= 0 && l->has_mem_kernel_tcp)
                r = write_num(h, "memory.kmem.tcp.limit_in_bytes", l->mem_kernel_tcp, "-1", true,
                              "memory.kernelTCP", err);
        if (r >= 0 && l->has_oom_disable) {
                int64_t got = -1;
                r = cg_write(h, "memory.oom_control", l->oom_disable ? "1" : "0", err);
                if (r >= 0 &&
                    (cg_read_keyed(h, "memory.oom_control", "oom_kill_disable", &got) < 0 ||
                     got != (l->oom_disable ? 1 : 0)))
                        r = mismatch(err, "memory.disableOOMKiller", l->oom_disable ? "1" : "0",
                                     "another value", h, "memory.oom_control");
        }
        return r;
}

/* A period and the time allowed within it (CFS or realtime).  The kernel
 * checks each write against the other value: a new period can be refused
 * against the old budget, and then the budget goes first. */
struct budget {
        const char *period_file, *period_what, *budget_file, *budget_what;
        bool has_period, has_budget;
        int64_t period, budget; /* budget -1: unlimited */
};

static int write_budget(const struct cg_hier *h, const struct budget *b, struct bento_err *err)
{
        struct bento_err first = {0};
        int r = 0;

        if (b->has_period &&
            write_num(h, b->period_file, b->period, "", false, b->period_what, &first) < 0) {
                if (!b->has_budget || first.code != EINVAL)
                        return bento_err_setx(err, first.code, "%s", first.msg);
                r = write_num(h, b->budget_file, b->budget, "-1", false, b->budget_what, err);
                if (r >= 0)
                        r = write_num(h, b->period_file, b->period, "", false, b->period_what, err);
                return r;
        }
        if (b->has_budget)
                r = write_num(h, b->budget_file, b->budget, "-1", false, b->budget_what, err);
        return r;
}

/* cpu.rt_*: only on kernels built with CONFIG_RT_GROUP_SCHED; without the
 * files the limit cannot be had, which is an error (as for runc). */
static int v1_rt(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        struct budget b = {.period_file = "cpu.rt_period_us",
                           .period_what = "cpu.realtimePeriod",
                           .budget_file = "cpu.rt_runtime_us",
                           .budget_what = "cpu.realtimeRuntime",
                           .has_period = l->has_rt_period,
                           .has_budget = l->has_rt_runtime,
                           .period = (int64_t) l->rt_period,
                           .budget = l->rt_runtime};
        char buf[32];

        if (cg_read(h, "cpu.rt_runtime_us", buf, sizeof(buf)) == -ENOENT)
                return bento_err_setx(err, ENOTSUP,
                                      "linux.resources %s: this kernel has no realtime group "
                                      "scheduling (no cpu.rt_runtime_us: built without "
                                      "CONFIG_RT_GROUP_SCHED); refusing to run without it",
                                      l->has_rt_runtime ? b.budget_what : b.period_what);
        return write_budget(h, &b, err);
}

static int v1_cpu(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        struct budget b = {.period_file = "cpu.cfs_period_us",
                           .period_what = "cpu.period",
                           .budget_file = "cpu.cfs_quota_us",
                           .budget_what = "cpu.quota",
                           .has_period = l->has_period,
                           .has_budget = l->has_quota,
                           .period = (int64_t) l->period,
                           .budget = l->quota};
        int r = 0;

        if (l->has_rt_period || l->has_rt_runtime)
                r = v1_rt(h, l, err);
        if (r >= 0 && l->has_shares)
                r = write_num(h, "cpu.shares", (int64_t) l->shares, "", false, "cpu.shares", err);
        return r < 0 ? r : write_budget(h, &b, err);
}

static int cpuset(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        int r = 0;

        if (l->cpus)
                r = write_list(h, "cpuset.cpus", l->cpus, "cpu.cpus", err);
        if (r >= 0 && l->mems)
                r = write_list(h, "cpuset.mems", l->mems, "cpu.mems", err);
        return r;
}

static int pids(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        return write_num(h, "pids.max", l->pids, "max", false, "pids.limit", err);
}

/* runc's and older crun's shares → weight mapping ([2, 262144] → [1, 10000]). */
static int64_t shares_to_weight(uint64_t shares)
{
        if (shares < 2 || shares > 262144)
                return 0;
        return (int64_t) (1 + ((shares - 2) * 9999) / 262142);
}

static int v2_cpu_max(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        char cur[64], want[64], got[64];
        int64_t period = 100000;
        char quota[32] = "max";
        int r;

        if (cg_read(h, "cpu.max", cur, sizeof(cur)) == 0)
                (void) sscanf(cur, "%31s %" SCNd64, quota, &period);
        if (l->has_period)
                period = (int64_t) l->period;
        if (l->has_quota)
                fmt_num(l->quota, quota, sizeof(quota));
        snprintf(want, sizeof(want), "%s %" PRId64, quota, period);
        r = cg_write(h, "cpu.max", want, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.resources cpu.quota/cpu.period");
        r = cg_read(h, "cpu.max", got, sizeof(got));
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back cpu.max");
        return strcmp(got, want) ? mismatch(err, "cpu.quota/cpu.period", want, got, h, "cpu.max")
                                 : 0;
}

static int v2_memory(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        int r = 0;

        if (l->has_mem_limit)
                r = write_num(h, "memory.max", l->mem_limit, "max", true, "memory.limit", err);
        if (r >= 0 && l->has_mem_swap) {
                int64_t swap =
                    l->mem_swap == -1 || l->mem_limit == -1 ? -1 : l->mem_swap - l->mem_limit;
                r = write_num(h, "memory.swap.max", swap, "max", true, "memory.swap", err);
        }
        if (r >= 0 && l->has_mem_reservation)
                r = write_num(h, "memory.low", l->mem_reservation, "max", true,
                              "memory.reservation", err);
        return r;
}

/* A unified memory.* file holds a byte count rounded down to whole pages
 * ("100000000" reads back "99999744"): that is the value given, taken. */
static bool same_unified_value(const char *file, const char *given, const char *held)
{
        int64_t page = sysconf(_SC_PAGESIZE);
        char *end_g, *end_h;
        long long g, hv;

        if (strcmp(given, held) == 0)
                return true;
        if (strncmp(file, "memory.", 7) != 0 || page <= 0)
                return false;
        errno = 0;
        g = strtoll(given, &end_g, 10);
        hv = strtoll(held, &end_h, 10);
        if (errno || end_g == given || *end_g || end_h == held || *end_h || g < 0)
                return false;
        return hv == g - g % page;
}

static int v2_unified(const struct cg_hier *h, const struct bento_json *u, struct bento_err *err)
{
        for (size_t i = 0; i < u->u.object.n; i++) {
                const char *k = u->u.object.keys[i];
                const char *v = u->u.object.values[i]->u.string.s;
                char got[4096], what[300];
                int r;

                snprintf(what, sizeof(what), "unified.%.256s", k);
                r = cg_write(h, k, v, err);
                if (r < 0)
                        return bento_err_prefix(err, "linux.resources %s", what);
                r = cg_read(h, k, got, sizeof(got));
                if (r < 0)
                        return bento_err_set(err, -r, "cannot read back %s", k);
                if (!same_unified_value(k, v, got))
                        return mismatch(err, what, v, got, h, k);
        }
        return 0;
}

static int apply_v2(const struct cg_hier *h, const struct cg_limits *l, struct bento_err *err)
{
        int r = v2_memory(h, l, err);

        if (r >= 0 && l->has_shares) {
                int64_t w = shares_to_weight(l->shares);
                if (w == 0)
                        return bento_err_setx(err, EINVAL,
                                              "linux.resources cpu.shares: %" PRIu64
                                              " is outside 2..262144",
                                              l->shares);
                r = write_num(h, "cpu.weight", w, "", false, "cpu.shares (as cpu.weight)", err);
        }
        if (r >= 0 && (l->has_quota || l->has_period))
                r = v2_cpu_max(h, l, err);
        if (r >= 0)
                r = cpuset(h, l, err);
        if (r >= 0 && l->has_pids)
                r = pids(h, l, err);
        if (r >= 0 && cg_blkio_any(l))
                r = cg_blkio_apply(h, l, err);
        if (r >= 0 && l->unified)
                r = v2_unified(h, l->unified, err);
        return r;
}

static int need(const struct cg_layout *l, const char *ctrl, struct cg_hier **ret,
                struct bento_err *err)
{
        *ret = cg_find(l, ctrl);
        if (*ret && (*ret)->path)
                return 0;
        return bento_err_setx(
            err, ENOTSUP, "linux.resources: the %s controller is not available on this host", ctrl);
}

int cg_apply(const struct cg_layout *l, const struct cg_limits *lim, struct bento_err *err)
{
        struct cg_hier *h = NULL;
        bool mem = lim->has_mem_limit || lim->has_mem_swap || lim->has_mem_reservation ||
                   lim->has_swappiness || lim->has_oom_disable || lim->has_mem_kernel_tcp;
        int r = 0;

        if (l->mode == CG_MODE_V2) {
                r = need(l, "memory", &h, err);
                return r < 0 ? r : apply_v2(h, lim, err);
        }
        if (mem && (r = need(l, "memory", &h, err)) >= 0)
                r = v1_memory(h, lim, err);
        if (r >= 0 &&
            (lim->has_shares || lim->has_quota || lim->has_period || lim->has_rt_runtime ||
             lim->has_rt_period) &&
            (r = need(l, "cpu", &h, err)) >= 0)
                r = v1_cpu(h, lim, err);
        if (r >= 0 && cg_blkio_any(lim) && (r = need(l, "blkio", &h, err)) >= 0)
                r = cg_blkio_apply(h, lim, err);
        if (r >= 0 && (lim->cpus || lim->mems) && (r = need(l, "cpuset", &h, err)) >= 0)
                r = cpuset(h, lim, err);
        if (r >= 0 && lim->has_pids && (r = need(l, "pids", &h, err)) >= 0)
                r = pids(h, lim, err);
        return r;
}
