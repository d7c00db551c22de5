/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's cgroup (see cgroup.h): the cgroupfs driver for v1, the v1
 * "hybrid" layout and v2, and the entry points the lifecycle calls.
 *
 * Where: an absolute linux.cgroupsPath is taken from each hierarchy's root
 * (runtime-spec); a relative one, and the default "bento-<id>", are placed
 * below the cgroup the runtime itself runs in, per hierarchy, read from
 * /proc/self/cgroup — on a host whose memory hierarchy puts the caller in
 * /process_api/<vm> that keeps the container inside the caller's
 * accounting.  The default has no shared intermediate directory, so
 * concurrent creates and deletes never race for one.
 *
 * What was made is remembered per hierarchy in the record's applied.cgroup
 * ("paths", "created"), next to the limits as the kernel holds them; later
 * verbs take the paths from there and the mount points from mountinfo.
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "cleanup.h"
#include "base/log.h"
#include "base/proc.h"

static void cleanup_layout_fn(struct cg_layout *l)
{
        cg_layout_done(l);
}
#define cleanup_layout __attribute__((cleanup(cleanup_layout_fn)))

/* Poll delays: 0.1 ms first (what is waited for is usually a task that
 * is just leaving), doubling up to cap_us; adds the delay to *waited_us. */
static void backoff(long *delay_us, long cap_us, long *waited_us)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = *delay_us * 1000L};

        nanosleep(&ts, NULL);
        *waited_us += *delay_us;
        if (*delay_us < cap_us)
                *delay_us = *delay_us * 2 < cap_us ? *delay_us * 2 : cap_us;
}

/* The hierarchy whose path stands for the container in the record:
 * the unified one on v2, the freezer (pause/resume) on v1. */
static const struct cg_hier *primary(const struct cg_layout *l)
{
        const struct cg_hier *h = cg_find(l, l->mode == CG_MODE_V2 ? "memory" : "freezer");

        for (size_t i = 0; (!h || !h->path) && i < l->n; i++)
                if (l->h[i].path)
                        h = &l->h[i];
        return h && h->path ? h : NULL;
}

/* Intent first (rt_intent.cgroup): every path of the layout, with what
 * cg_make is about to count as made, recorded before the first mkdir. */
static int record_intent(const struct rt_context *ctx, struct cg_layout *l, struct bento_err *err)
{
        cleanup_bento_json struct bento_json *obj = NULL;
        const struct cg_hier *p = primary(l);
        int r;

        if (!ctx->intent || !p)
                return 0;
        for (size_t i = 0; i < l->n; i++)
                if (l->h[i].path)
                        l->h[i].made = cg_to_make(&l->h[i]);
        obj = bento_json_new_object();
        r = obj ? cg_layout_describe(l, obj) : -ENOMEM;
        /* cg_make counts for itself */
        for (size_t i = 0; i < l->n; i++)
                l->h[i].made = 0;
        if (r < 0)
                return bento_err_set(err, ENOMEM, "cgroup intent");
        return ctx->intent->cgroup(ctx->intent, obj, p->path, err);
}

/* Undo a half-made cgroup: the init (not yet running container code) goes
 * back to where the caller is, then the directories go. */
static void undo(struct cg_layout *l, pid_t pid)
{
        struct bento_err ignored;
        char buf[32];

        snprintf(buf, sizeof(buf), "%d", (int) pid);
        for (size_t i = 0; i < l->n; i++) {
                struct cg_hier back = l->h[i];
                if (!l->h[i].path)
                        continue;
                back.path = NULL;
                if (pid > 0)
                        (void) cg_write(&back, "cgroup.procs", buf, &ignored);
                (void) cg_unmake(&l->h[i], &ignored);
        }
}

/* A container may do without a cgroup that cannot be made, when nothing
 * needs it: rootless mode, and the container in a user namespace, where
 * no device node can be made, so that no device policy is lost either
 * (--rootless true as root on the host, without one, still gets it). */
static bool may_do_without(const struct rt_context *ctx, bool wants)
{
        return ctx->rootless_cgroups && ctx->in_userns && !wants && !ctx->cfg->linux_.resources;
}

/* A failure to make a cgroup, explained for a rootless runtime. */
static int rootless_hint(const struct rt_context *ctx, int r, struct bento_err *err)
{
        if (r < 0 && ctx->rootless_cgroups &&
            (err->code == EACCES || err->code == EPERM || err->code == EROFS))
                return bento_err_prefix(err,
                                        "rootless container: linux.resources needs a cgroup of "
                                        "its own, but there is no cgroup delegated to this "
                                        "user that it could be made in");
        return r;
}

/* made_early: the hierarchy rt_cgroup_prepare made already, or -1. */
static int make_all(const struct rt_context *ctx, struct cg_layout *l, int made_early, bool wants,
                    struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; i < l->n && r >= 0; i++) {
                if ((int) i != made_early)
                        r = cg_make(&l->h[i], err);
                if (r >= 0 && !l->h[i].v2 && strstr(l->h[i].key, "cpuset"))
                        r = cg_cpuset_init(&l->h[i], err);
                if (r >= 0 && l->mode == CG_MODE_V2 && wants)
                        r = cg_enable_controllers(&l->h[i], err);
        }
        return rootless_hint(ctx, r, err);
}

/* `create`: v1 hierarchies get their "tasks" file opened for the init
 * (rt_cgroup_info.self_fds), the others the init's pid, but for the one
 * the init was cloned into (skip, or -1). */
static int hand_over(const struct cg_layout *l, pid_t pid, int skip, struct rt_cgroup_info *ret,
                     struct bento_err *err)
{
        char buf[32];

        snprintf(buf, sizeof(buf), "%d", (int) pid);
        for (size_t i = 0; i < l->n; i++) {
                cleanup_free char *tasks = NULL;
                int fd;

                if (!l->h[i].path || (int) i == skip)
                        continue;
                if (l->h[i].v2 || ret->n_self_fds == RT_CGROUP_MAX_SELF) {
                        int r = cg_write(&l->h[i], "cgroup.procs", buf, err);

                        if (r < 0)
                                return bento_err_prefix(err, "cannot move the container process "
                                                             "into its cgroup");
                        continue;
                }
                tasks = cg_file(&l->h[i], "tasks");
                if (!tasks)
                        return bento_err_set(err, ENOMEM, "cgroup file");
                fd = open(tasks, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0)
                        return bento_err_set(err, errno, "cannot open %s", tasks);
                ret->self_fds[ret->n_self_fds++] = fd;
        }
        return 0;
}

static void close_self_fds(struct rt_cgroup_info *info)
{
        for (size_t i = 0; i < info->n_self_fds; i++)
                close(info->self_fds[i]);
        info->n_self_fds = 0;
}

static int move_in(const struct cg_layout *l, pid_t pid, struct bento_err *err)
{
        char buf[32];

        snprintf(buf, sizeof(buf), "%d", (int) pid);
        for (size_t i = 0; i < l->n; i++) {
                if (!l->h[i].path)
                        continue;
                int r = cg_write(&l->h[i], "cgroup.procs", buf, err);
                if (r < 0)
                        return bento_err_prefix(err, "cannot move the container process into "
                                                     "its cgroup");
        }
        return 0;
}

/* applied.cgroup: driver, cgroup version, unit, paths, then the limits. */
static struct bento_json *describe(const struct cg_layout *l, const char *unit)
{
        struct bento_json *o = bento_json_new_object();
        int r = o ? 0 : -ENOMEM;

        if (r >= 0)
                r = bento_json_object_set(o, "driver",
                                          bento_json_new_string(unit ? "systemd" : "cgroupfs"));
        if (r >= 0)
                r = bento_json_object_set(o, "version",
                                          bento_json_new_string(cg_mode_name(l->mode)));
        if (r >= 0 && unit)
                r = bento_json_object_set(o, "unit", bento_json_new_string(unit));
        if (r >= 0)
                r = cg_layout_describe(l, o);
        if (r >= 0)
                r = cg_snapshot(l, o);
        if (r < 0)
                return bento_json_free(o);
        return o;
}

/* dev: the v2 device rules (consumed), which the kernel cannot show. */
static int finish_enter(const struct cg_layout *l, const char *unit, struct bento_json *dev,
                        struct rt_cgroup_info *ret, struct bento_err *err)
{
        ret->applied = describe(l, unit);
        ret->path = strdup(primary(l)->path);
        ret->systemd = unit != NULL;
        if (ret->applied && dev && bento_json_object_set(ret->applied, "devices", dev) < 0)
                ret->applied = bento_json_free(ret->applied);
        else if (!ret->applied)
                bento_json_free(dev);
        if (!ret->applied || !ret->path) {
                rt_cgroup_info_done(ret);
                return bento_err_set(err, ENOMEM, "cgroup state");
        }
        return 0;
}

/* Limits, then the device policy (as root: devices cgroup on v1, an eBPF
 * program on v2, whose rules land in *ret_dev), before the init moves in. */
static int apply_all(const struct rt_context *ctx, const struct cg_layout *l,
                     const struct cg_limits *lim, struct bento_json **ret_dev,
                     struct bento_err *err)
{
        const struct cg_hier *dev = cg_find(l, "devices");
        int r = cg_apply(l, lim, err);

        if (r < 0 || !dev || !dev->path || ctx->rootless)
                return r;
        r = dev->v2 ? cg_devices_bpf_apply(dev, ctx->cfg, lim->devices, ret_dev, err)
                    : cg_devices_apply(dev, ctx->cfg, lim->devices, err);
        /* root of a user namespace in a delegated cgroup: the device nodes
         * it can reach are the host's own binds, so a device policy it may
         * not set is not worth failing for (runc ignores it too) */
        if (r < 0 && ctx->rootless_cgroups && ctx->in_userns &&
            (err->code == EPERM || err->code == EACCES)) {
                rt_log_warning("linux.resources.devices: not applied: %s", err->msg);
                return 0;
        }
        return r;
}

/* A cgroupfs cgroup entered but not yet read back (rt_cgroup_enter_finish). */
struct cg_pending {
        struct cg_layout l;
        struct bento_json *dev; /* v2 device rules, as for finish_enter */
};

static void pending_free(struct cg_pending *p)
{
        if (!p)
                return;
        cg_layout_done(&p->l);
        bento_json_free(p->dev);
        free(p);
}

/* Keep the layout (taken over from *l) for the read-back later. */
static int defer_describe(struct cg_layout *l, struct bento_json *dev, struct rt_cgroup_info *ret,
                          struct bento_err *err)
{
        struct cg_pending *p = calloc(1, sizeof(*p));

        ret->path = p ? strdup(primary(l)->path) : NULL;
        if (!ret->path) {
                free(p);
                bento_json_free(dev);
                return bento_err_set(err, ENOMEM, "cgroup state");
        }
        p->l = *l;
        l->n = 0;
        p->dev = dev;
        ret->pending = p;
        return 0;
}

int rt_cgroup_enter_finish(struct rt_cgroup_info *info, struct bento_err *err)
{
        struct cg_pending *p = info->pending;
        struct bento_json *applied;

        if (!p)
                return 0;
        applied = describe(&p->l, NULL);
        if (applied && p->dev && bento_json_object_set(applied, "devices", p->dev) < 0)
                applied = bento_json_free(applied);
        /* consumed either way */
        p->dev = NULL;
        if (!applied)
                return bento_err_set(err, ENOMEM, "cgroup state");
        info->applied = applied;
        info->pending = NULL;
        pending_free(p);
        return 0;
}

static int enter_systemd(const struct rt_context *ctx, pid_t pid, struct cg_layout *l,
                         const struct cg_limits *lim, struct rt_cgroup_info *ret,
                         struct bento_err *err);

/* What rt_cgroup_prepare found, for rt_cgroup_enter. */
struct cg_prepared {
        struct cg_layout l;
        struct cg_limits lim; /* points into ctx->cfg */
        bool wants;           /* cg_limits_any */
        bool none;            /* no cgroup of the container's own */
        bool lazy;            /* nothing done yet: all of it in rt_cgroup_enter */
        int early;            /* the hierarchy (cgroup2) made before the clone, or -1 */
        int fd;               /* its directory, O_PATH, or -1 */
};

static void prepared_free(struct cg_prepared *p)
{
        if (!p)
                return;
        if (p->fd >= 0)
                close(p->fd);
        cg_layout_done(&p->l);
        free(p);
}

/* Make the container's cgroup on the cgroup2 hierarchy, if there is one,
 * and open it for CLONE_INTO_CGROUP. */
static int make_early(const struct rt_context *ctx, struct cg_prepared *p, struct bento_err *err)
{
        cleanup_free char *dir = NULL;
        struct cg_hier *h = NULL;
        int r;

        for (size_t i = 0; !h && i < p->l.n; i++)
                if (p->l.h[i].v2 && p->l.h[i].path)
                        h = &p->l.h[(p->early = (int) i)];
        if (!h)
                return 0;
        r = record_intent(ctx, &p->l, err);
        if (r < 0)
                return r;
        r = cg_make(h, err);
        if (r < 0 && may_do_without(ctx, p->wants)) {
                /* only a path was asked for: best effort, as crun */
                undo(&p->l, 0);
                p->early = -1;
                p->none = true;
                return 0;
        }
        if (r < 0)
                return rootless_hint(ctx, r, err);
        dir = cg_file(h, NULL);
        if (!dir)
                return bento_err_set(err, ENOMEM, "cgroup path");
        p->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (p->fd < 0)
                return bento_err_set(err, errno, "cannot open cgroup %s", dir);
        return 0;
}

/* --cgroup-manager disabled: the container stays in our cgroup, as with
 * crun; every limit the config asks for is then not enforced, and each is
 * named in a warning rather than dropped in silence. */
static void warn_not_enforced(const struct rt_context *ctx)
{
        const struct bento_json *res = ctx->cfg->linux_.resources;

        for (size_t i = 0; res && res->type == BENTO_JSON_OBJECT && i < res->u.object.n; i++)
                if (res->u.object.values[i]->type != BENTO_JSON_NULL)
                        rt_log_warning("linux.resources.%s: not enforced: --cgroup-manager "
                                       "disabled gives the container no cgroup",
                                       res->u.object.keys[i]);
        if (ctx->cfg->linux_.cgroups_path)
                rt_log_warning("linux.cgroupsPath: ignored: --cgroup-manager disabled gives "
                               "the container no cgroup");
}

/* With --cgroup-manager disabled and no linux.resources, the layout
 * would only be loaded to parse nothing against it: the limits are empty
 * on every layout (cg_limits_parse), and no cgroup is made. */
static bool nothing_to_plan(const struct rt_context *ctx)
{
        const struct bento_json *res = ctx->cfg->linux_.resources;

        return ctx->no_cgroup && (!res || res->type == BENTO_JSON_NULL);
}

/* The layout, the limits, and where the container goes. */
static int plan(const struct rt_context *ctx, struct cg_prepared *p, struct bento_err *err)
{
        int r;

        if (nothing_to_plan(ctx)) {
                warn_not_enforced(ctx);
                p->none = true;
                return 0;
        }
        r = cg_layout_load(&p->l, false, err);

        if (r >= 0)
                r = cg_limits_parse(ctx->cfg->linux_.resources, p->l.mode, "linux.resources",
                                    &p->lim, err);
        if (r >= 0 && ctx->no_cgroup) {
                warn_not_enforced(ctx);
                p->none = true;
                return 0;
        }
        if (r < 0 || ctx->systemd_cgroup)
                return r;
        p->wants = cg_limits_any(&p->lim);
        /* rootless without limits or a path asked for: stay where we are */
        p->none =
            ctx->rootless_cgroups && ctx->in_userns && !p->wants && !ctx->cfg->linux_.cgroups_path;
        if (p->none)
                return 0;
        return cg_layout_choose_paths(&p->l, ctx->cfg->linux_.cgroups_path, ctx->id, err);
}

/* A cgroup2 mount at one of its usual places (pure v2, or hybrid's). */
static bool cgroup2_likely(void)
{
        struct statfs sf;

        return (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) ||
               (statfs("/sys/fs/cgroup/unified", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC);
}

int rt_cgroup_prepare(const struct rt_context *ctx, bool into_v2, struct rt_cgroup_info *ret,
                      struct bento_err *err)
{
        struct cg_prepared *p = calloc(1, sizeof(*p));
        int r;

        memset(ret, 0, sizeof(*ret));
        if (!p)
                return bento_err_set(err, ENOMEM, "cgroup state");
        p->early = -1;
        p->fd = -1;
        /* without a cgroup2 hierarchy to clone into, all of it waits for
         * rt_cgroup_enter, which runs while the init sets itself up */
        p->lazy = !into_v2 || ctx->systemd_cgroup || (!nothing_to_plan(ctx) && !cgroup2_likely());
        r = p->lazy ? 0 : plan(ctx, p, err);
        if (r >= 0 && !p->lazy && !p->none)
                r = make_early(ctx, p, err);
        if (r < 0) {
                if (p->early >= 0)
                        undo(&p->l, 0);
                prepared_free(p);
                return r;
        }
        ret->prepared = p;
        return 0;
}

int rt_cgroup_clone_fd(const struct rt_cgroup_info *info)
{
        return info->prepared ? info->prepared->fd : -1;
}

static void cleanup_prepared_fn(struct cg_prepared **p)
{
        prepared_free(*p);
}
#define cleanup_prepared __attribute__((cleanup(cleanup_prepared_fn)))

int rt_cgroup_enter(const struct rt_context *ctx, pid_t pid, struct rt_cgroup_info *info,
                    struct bento_err *err)
{
        cleanup_prepared struct cg_prepared *p = TAKE_PTR(info->prepared);
        cleanup_bento_json struct bento_json *dev = NULL;
        int into, r;

        if (!p)
                return bento_err_setx(err, EINVAL, "cgroup: rt_cgroup_prepare was not called");
        r = p->lazy ? plan(ctx, p, err) : 0;
        if (r < 0 || p->none)
                return r;
        if (ctx->systemd_cgroup)
                return enter_systemd(ctx, pid, &p->l, &p->lim, info, err);
        into = info->cloned_into ? p->early : -1;
        /* (with a cgroup2 directory made early, make_early recorded it all) */
        r = p->early < 0 ? record_intent(ctx, &p->l, err) : 0;
        if (r >= 0)
                r = make_all(ctx, &p->l, p->early, p->wants, err);
        if (r < 0 && may_do_without(ctx, p->wants)) {
                /* only a path was asked for: best effort, as crun */
                undo(&p->l, into >= 0 ? pid : 0);
                return 0;
        }
        if (r >= 0)
                r = apply_all(ctx, &p->l, &p->lim, &dev, err);
        if (r >= 0)
                r = hand_over(&p->l, pid, into, info, err);
        /* takes the layout over */
        if (r >= 0)
                r = defer_describe(&p->l, TAKE_PTR(dev), info, err);
        if (r < 0) {
                close_self_fds(info);
                undo(&p->l, pid);
        }
        return r;
}

void rt_cgroup_info_done(struct rt_cgroup_info *info)
{
        close_self_fds(info);
        prepared_free(info->prepared);
        info->prepared = NULL;
        free(info->path);
        info->path = NULL;
        info->applied = bento_json_free(info->applied);
        pending_free(info->pending);
        info->pending = NULL;
}

/* The layout with the container's paths, from a record (or from a fresh
 * rt_cgroup_info).  -ENOENT when the container has no cgroup. */
static int open_applied(const char *path, const struct bento_json *applied, struct cg_layout *l,
                        struct bento_err *err)
{
        int r;

        if (!path)
                return -ENOENT;
        if (!applied)
                return bento_err_setx(err, EINVAL, "state record: cgroup %s without applied.cgroup",
                                      path);
        r = cg_layout_load(l, false, err);
        if (r >= 0)
                r = cg_layout_set_paths(l, applied, err);
        /* a hierarchy the record names but that was not at its usual place
         * (a record from a runtime that looked elsewhere): look everywhere */
        if (r > 0 && !l->from_mountinfo) {
                cg_layout_done(l);
                r = cg_layout_load(l, true, err);
                if (r >= 0)
                        r = cg_layout_set_paths(l, applied, err);
        }
        return r < 0 ? r : 0;
}

static int open_rec(const struct bento_record *rec, struct cg_layout *l, struct bento_err *err)
{
        return open_applied(rec->cgroup_path, bento_json_get(rec->extra, "cgroup"), l, err);
}

/* open_rec for a verb that needs the container's own cgroup: without one
 * (rootless, nothing delegated) it is ENOTSUP, said so. */
static int open_own(const struct bento_record *rec, struct cg_layout *l, struct bento_err *err)
{
        int r = open_rec(rec, l, err);

        if (r == -ENOENT)
                return bento_err_setx(err, ENOTSUP, "container %s has no cgroup of its own",
                                      rec->id ? rec->id : "?");
        return r;
}

static const char *unit_of(const struct bento_json *applied)
{
        const struct bento_json *u = bento_json_get(applied, "unit");

        return u && u->type == BENTO_JSON_STRING ? u->u.string.s : NULL;
}

static int kill_procs(const struct cg_layout *l, int sig, pid_t spare, int spare_pidfd,
                      struct bento_err *err);

/* kill: SIGKILL whatever is still in the cgroup first. */
static int remove_layout(struct cg_layout *l, const char *unit, bool kill, struct bento_err *err)
{
        struct bento_err ignored;
        int r = 0;

        /* whatever outlived the init (no pid namespace of its own) goes too */
        if (kill)
                (void) kill_procs(l, SIGKILL, 0, -1, &ignored);
        if (unit)
                (void) cg_systemd_stop(unit, &ignored);
        for (size_t i = 0; i < l->n && r >= 0; i++)
                if (l->h[i].path)
                        r = cg_unmake(&l->h[i], err);
        return r;
}

static long oom_kills_in(const struct cg_layout *l)
{
        const struct cg_hier *m = cg_find(l, "memory");
        int64_t v = 0;
        int r;

        if (!m || !m->path)
                return 0;
        r = cg_read_keyed(m, m->v2 ? "memory.events" : "memory.oom_control", "oom_kill", &v);
        return r == -ENOENT ? 0 : r < 0 ? r : (long) v;
}

static int remove_applied(const char *path, const struct bento_json *applied, bool kill,
                          long *ret_oom, struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        int r = open_applied(path, applied, &l, err);

        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (ret_oom)
                *ret_oom = oom_kills_in(&l);
        return remove_layout(&l, unit_of(applied), kill, err);
}

int rt_cgroup_remove(const struct bento_record *rec, long *ret_oom_kills, struct bento_err *err)
{
        /* An intent record names cgroups that may not be the container's
         * yet (or at all, if forged): they are removed only if empty, and
         * nothing in them is signalled.  Its init, the one process such a
         * cgroup can hold, was killed first after its identity checks. */
        return remove_applied(rec->cgroup_path, bento_json_get(rec->extra, "cgroup"),
                              !rec->creating, ret_oom_kills, err);
}

int rt_cgroup_info_remove(const struct rt_cgroup_info *info, struct bento_err *err)
{
        struct cg_prepared *p = info->prepared;

        /* not entered: only the cgroup2 directory can have been made */
        if (p)
                return p->early >= 0 ? cg_unmake(&p->l.h[p->early], err) : 0;
        /* (pending: the systemd driver never defers, so there is no unit) */
        if (info->pending)
                return remove_layout(&info->pending->l, NULL, true, err);
        return remove_applied(info->path, info->applied, true, NULL, err);
}

static int frozen_in(const struct cg_layout *l)
{
        const struct cg_hier *f = cg_find(l, "freezer");
        int64_t v = 0;

        if (f && f->path && !f->v2) {
                char buf[32];
                int r = cg_read(f, "freezer.state", buf, sizeof(buf));

                return r < 0 ? r : strcmp(buf, "FROZEN") == 0;
        }
        f = primary(l);
        if (!f || !f->v2)
                return 0;
        return cg_read_keyed(f, "cgroup.events", "frozen", &v) < 0 ? 0 : v == 1;
}

int rt_cgroup_is_frozen(const struct bento_record *rec)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        struct bento_err ignored;
        int r = open_rec(rec, &l, &ignored);

        return r < 0 ? (r == -ENOENT ? 0 : r) : frozen_in(&l);
}

/* Ask, then wait (bounded) until the kernel reports the state reached. */
static int set_frozen(const struct cg_layout *l, bool freeze, struct bento_err *err)
{
        const struct cg_hier *f = cg_find(l, "freezer");
        bool v1 = f && f->path && !f->v2;
        int r;

        if (!v1 && (!(f = primary(l)) || !f->v2))
                return bento_err_setx(err, ENOTSUP, "no freezer for the container's cgroup");
        for (long i = 0, d = 100, waited = 0; waited < 5000000; i++) {
                /* a v1 cgroup can stay FREEZING while tasks are busy: ask again */
                if (i % 10 == 0) {
                        r = v1 ? cg_write(f, "freezer.state", freeze ? "FROZEN" : "THAWED", err)
                               : cg_write(f, "cgroup.freeze", freeze ? "1" : "0", err);
                        if (r < 0)
                                return r;
                }
                if (frozen_in(l) == (freeze ? 1 : 0))
                        return 0;
                backoff(&d, 10000, &waited);
        }
        if (freeze)
                (void) set_frozen(l, false, err);
        return bento_err_setx(err, ETIMEDOUT, "the container's cgroup did not %s within 5 s",
                              freeze ? "freeze" : "thaw");
}

int rt_cgroup_freeze(const struct bento_record *rec, bool freeze, struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        int r = open_rec(rec, &l, err);

        if (r == -ENOENT)
                return bento_err_setx(err, ENOTSUP,
                                      "container %s has no cgroup of its own (rootless without a "
                                      "delegated cgroup), so it cannot be %s",
                                      rec->id ? rec->id : "?", freeze ? "paused" : "resumed");
        return r < 0 ? r : set_frozen(&l, freeze, err);
}

int rt_cgroup_pids(const struct bento_record *rec, pid_t **ret, size_t *ret_n,
                   struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        int r = open_own(rec, &l, err);

        return r < 0 ? r : cg_procs(primary(&l), ret, ret_n, err);
}

/* pid is in the container's cgroup, or below it, in every hierarchy of l
 * that has a path (in `only` alone when it is not NULL).  When it is not,
 * *ret_miss (may be NULL) gets the first hierarchy where it is not, and
 * *ret_at (may be NULL; to free) where pid is there; both stay NULL when
 * /proc/<pid>/cgroup could not be read (pid gone). */
static bool is_member(const struct cg_layout *l, const struct cg_hier *only, pid_t pid,
                      const struct cg_hier **ret_miss, char **ret_at)
{
        char *at[CG_MAX_HIER];
        struct bento_err ignored;
        bool in = true;

        if (cg_pid_paths(l, pid, at, &ignored) < 0)
                return false;
        for (size_t i = 0; i < l->n; i++) {
                const struct cg_hier *h = &l->h[i];

                if (in && h->path && (!only || h == only) &&
                    !(at[i] && cg_path_within(at[i], h->path))) {
                        in = false;
                        if (ret_miss)
                                *ret_miss = h;
                        if (ret_at)
                                *ret_at = TAKE_PTR(at[i]);
                }
                free(at[i]);
        }
        return in;
}

/* Signal every process in the cgroup but `spare`; *ret_n: how many.  Each
 * is pinned by a pidfd and found in the cgroup again before the signal:
 * a process listed a moment ago may have exited since, and its number
 * gone to a process of the host. */
static int signal_pids(const struct cg_layout *l, const struct cg_hier *h, int sig, pid_t spare,
                       size_t *ret_n, struct bento_err *err)
{
        cleanup_free pid_t *pids = NULL;
        size_t n = 0, done = 0;
        int r = cg_procs(h, &pids, &n, err);

        for (size_t i = 0; r >= 0 && i < n; i++) {
                struct bento_err ignored;
                cleanup_close int fd = -1;

                if (pids[i] == spare || (fd = rt_pidfd_open(pids[i])) < 0)
                        continue;
                if (is_member(l, h, pids[i], NULL, NULL) && rt_pidfd_signal(fd, sig, &ignored) == 0)
                        done++;
        }
        *ret_n = done;
        return r;
}

static bool procs_empty(const struct cg_hier *h)
{
        char buf[16] = "";

        return cg_read(h, "cgroup.procs", buf, sizeof(buf)) == 0 && buf[0] == '\0';
}

/* spare: the init, skipped in the pid walk and signalled through
 * spare_pidfd before the thaw; 0 for none, which lets SIGKILL use
 * cgroup.kill. */
static int kill_procs(const struct cg_layout *l, int sig, pid_t spare, int spare_pidfd,
                      struct bento_err *err)
{
        const struct cg_hier *h = primary(l);
        int was = frozen_in(l);
        bool froze = false;
        size_t n = 0;
        int r;

        if (!h || procs_empty(h))
                return 0;
        if (sig == SIGKILL && !spare && h->v2 && cg_write(h, "cgroup.kill", "1", err) >= 0)
                return 0;
        /* frozen, nothing can fork a new process past the list */
        if (was == 0)
                froze = set_frozen(l, true, err) >= 0;
        r = signal_pids(l, h, sig, spare, &n, err);
        /* without a freezer, go round until no process is left to find */
        for (long d = 100, waited = 0;
             r >= 0 && !froze && was != 1 && n > 0 && sig == SIGKILL && waited < 100000;) {
                backoff(&d, 5000, &waited);
                r = signal_pids(l, h, sig, spare, &n, err);
        }
        if (r >= 0 && spare_pidfd >= 0 &&
            syscall(SYS_pidfd_send_signal, spare_pidfd, sig, NULL, 0) < 0 && errno != ESRCH)
                r = bento_err_set(err, errno, "cannot signal the container's init");
        if (froze)
                (void) set_frozen(l, false, err);
        return r;
}

int rt_cgroup_signal_all(const struct bento_record *rec, int sig, int init_pidfd,
                         struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        int r = open_own(rec, &l, err);

        return r < 0 ? r : kill_procs(&l, sig, rec->pid, init_pidfd, err);
}

int rt_cgroup_check_member(const struct bento_record *rec, pid_t pid, struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        cleanup_free char *at = NULL;
        const struct cg_hier *miss = NULL;
        const char *id = rec->id ? rec->id : "?";
        int r = open_rec(rec, &l, err);

        if (r < 0)
                return r;
        /* a record naming no hierarchy of this host would pass vacuously */
        if (!primary(&l))
                return bento_err_setx(err, EPERM,
                                      "container %s: its state record names cgroup %s in no "
                                      "hierarchy of this host: refusing to signal pid %d; the "
                                      "state directory may have been tampered with",
                                      id, rec->cgroup_path, (int) pid);
        if (is_member(&l, NULL, pid, &miss, &at))
                return 0;
        return bento_err_setx(err, EPERM,
                              "pid %d recorded for container %s is not in its cgroup %s (%s "
                              "hierarchy%s%s): refusing to signal it; the state directory may "
                              "have been tampered with",
                              (int) pid, id, miss ? miss->path : rec->cgroup_path,
                              miss ? miss->key : primary(&l)->key, at ? ", where it is in " : "",
                              at ? at : "");
}

int rt_cgroup_attach(const struct bento_record *rec, pid_t pid, struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        int r = open_rec(rec, &l, err);

        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : move_in(&l, pid, err);
}

long rt_cgroup_oom_kills(const struct bento_record *rec)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        struct bento_err ignored;
        int r = open_rec(rec, &l, &ignored);

        if (r < 0)
                return r == -ENOENT ? 0 : r;
        return oom_kills_in(&l);
}

char *rt_cgroup_memory_events_path(const struct bento_record *rec)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        struct bento_err ignored;
        const struct cg_hier *m;

        if (open_rec(rec, &l, &ignored) < 0)
                return NULL;
        m = cg_find(&l, "memory");
        return m && m->path && m->v2 ? cg_file(m, "memory.events") : NULL;
}

int rt_cgroup_update(const struct bento_record *rec, const struct bento_json *resources,
                     struct bento_json **ret_applied, struct bento_err *err)
{
        cleanup_layout struct cg_layout l = {.n = 0};
        const struct bento_json *old = bento_json_get(rec->extra, "cgroup");
        struct cg_limits lim;
        struct bento_json *applied;
        int r = open_rec(rec, &l, err);

        if (r == -ENOENT)
                return bento_err_setx(err, ENOTSUP,
                                      "container %s has no cgroup of its own to update",
                                      rec->id ? rec->id : "?");
        if (r >= 0)
                r = cg_limits_parse(resources, l.mode, "resources", &lim, err);
        if (r >= 0 && lim.devices && lim.devices->u.array.n > 0)
                r = bento_err_setx(err, ENOTSUP,
                                   "resources.devices: the device policy is fixed at create and "
                                   "cannot be changed by update");
        for (size_t i = 0; r >= 0 && l.mode == CG_MODE_V2 && i < l.n; i++)
                if (l.h[i].path && cg_limits_any(&lim))
                        r = cg_enable_controllers(&l.h[i], err);
        if (r >= 0)
                r = cg_apply(&l, &lim, err);
        if (r < 0)
                return r;
        applied = describe(&l, unit_of(old));
        /* v2 device rules are fixed at create and only the record has them */
        if (applied && l.mode == CG_MODE_V2 && bento_json_get(old, "devices") &&
            bento_json_object_set(applied, "devices",
                                  bento_json_dup(bento_json_get(old, "devices"))) < 0)
                applied = bento_json_free(applied);
        if (!applied)
                return bento_err_set(err, ENOMEM, "cgroup state");
        *ret_applied = applied;
        return 0;
}

/* ---- the systemd driver's part that is plain cgroupfs ---- */

static int enter_systemd(const struct rt_context *ctx, pid_t pid, struct cg_layout *l,
                         const struct cg_limits *lim, struct rt_cgroup_info *ret,
                         struct bento_err *err)
{
        cleanup_free char *unit = NULL;
        cleanup_bento_json struct bento_json *dev = NULL;
        struct bento_err ignored;
        int r;

        r = cg_systemd_start(ctx->cfg->linux_.cgroups_path, ctx->id, pid, lim, l->mode, &unit, err);
        if (r < 0)
                return r;
        /* the files are authoritative: the limits are written (and read
         * back) there as well, as with cgroupfs */
        r = cg_systemd_paths_of_pid(l, pid, err);
        if (r >= 0 && !primary(l))
                r = bento_err_setx(err, EIO, "systemd did not move the container into its scope");
        if (r >= 0)
                r = apply_all(ctx, l, lim, &dev, err);
        if (r >= 0)
                r = finish_enter(l, unit, TAKE_PTR(dev), ret, err);
        if (r < 0)
                (void) cg_systemd_stop(unit, &ignored);
        return r;
}
