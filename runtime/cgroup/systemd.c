/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver (--systemd-cgroup): the container init is put
 * into a transient scope unit through systemd's D-Bus API (libsystemd's
 * sd-bus), with Delegate=yes and the limits as unit properties, the way
 * crun does.  cgroup.c then writes and reads back the same
 * limits in the scope's files, which stay authoritative, found from where
 * systemd put the init (cg_systemd_paths_of_pid).
 *
 * linux.cgroupsPath is "slice:prefix:name" (unit "prefix-name.scope" in
 * "slice"); without it the unit is "bento-<id>.scope" in system.slice
 * (user.slice for a rootless runtime, on the user's bus: also uid 0 of a
 * user namespace, rootless podman's runtime, whose system bus would see
 * the unprivileged user anyway).  Without a
 * running systemd this is a clear error, never a silent fallback.
 *
 * libsystemd is loaded with dlopen() on the first use, not linked: every
 * other invocation would otherwise pay for loading it and its own
 * dependencies (libgcrypt, liblzma, libzstd, liblz4) at start.  The sd-bus
 * header still supplies the types; each sd_bus_* call goes through the
 * table `sd`, filled once by load_sd().
 */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "base/rootless.h"

#define SD_DEST  "org.freedesktop.systemd1"
#define SD_PATH  "/org/freedesktop/systemd1"
#define SD_IFACE "org.freedesktop.systemd1.Manager"
#define SD_LIB   "libsystemd.so.0"

/* The sd-bus functions this file calls, resolved from SD_LIB. */
struct sd_api {
        __typeof__(sd_bus_open_system) *open_system;
        __typeof__(sd_bus_open_user) *open_user;
        __typeof__(sd_bus_flush_close_unref) *flush_close_unref;
        __typeof__(sd_bus_message_unref) *message_unref;
        __typeof__(sd_bus_slot_unref) *slot_unref;
        __typeof__(sd_bus_message_new_method_call) *message_new_method_call;
        __typeof__(sd_bus_message_append) *message_append;
        __typeof__(sd_bus_message_open_container) *message_open_container;
        __typeof__(sd_bus_message_close_container) *message_close_container;
        __typeof__(sd_bus_message_read) *message_read;
        __typeof__(sd_bus_match_signal) *match_signal;
        __typeof__(sd_bus_call) *call;
        __typeof__(sd_bus_call_method) *call_method;
        __typeof__(sd_bus_process) *process;
        __typeof__(sd_bus_wait) *wait;
        __typeof__(sd_bus_error_free) *error_free;
        __typeof__(sd_bus_error_has_name) *error_has_name;
};

static struct sd_api sd;
static bool sd_loaded;

static const struct {
        const char *name;
        size_t off;
} sd_syms[] = {
    {"sd_bus_open_system", offsetof(struct sd_api, open_system)},
    {"sd_bus_open_user", offsetof(struct sd_api, open_user)},
    {"sd_bus_flush_close_unref", offsetof(struct sd_api, flush_close_unref)},
    {"sd_bus_message_unref", offsetof(struct sd_api, message_unref)},
    {"sd_bus_slot_unref", offsetof(struct sd_api, slot_unref)},
    {"sd_bus_message_new_method_call", offsetof(struct sd_api, message_new_method_call)},
    {"sd_bus_message_append", offsetof(struct sd_api, message_append)},
    {"sd_bus_message_open_container", offsetof(struct sd_api, message_open_container)},
    {"sd_bus_message_close_container", offsetof(struct sd_api, message_close_container)},
    {"sd_bus_message_read", offsetof(struct sd_api, message_read)},
    {"sd_bus_match_signal", offsetof(struct sd_api, match_signal)},
    {"sd_bus_call", offsetof(struct sd_api, call)},
    {"sd_bus_call_method", offsetof(struct sd_api, call_method)},
    {"sd_bus_process", offsetof(struct sd_api, process)},
    {"sd_bus_wait", offsetof(struct sd_api, wait)},
    {"sd_bus_error_free", offsetof(struct sd_api, error_free)},
    {"sd_bus_error_has_name", offsetof(struct sd_api, error_has_name)},
};

/* The handle stays open for the life of the process: the table points
 * into it.  A failed attempt leaves the table empty and may be retried. */
static int load_sd(struct bento_err *err)
{
        struct sd_api api;
        void *lib;

        if (sd_loaded)
                return 0;
        lib = dlopen(SD_LIB, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
                return bento_err_setx(err, ENOTSUP,
                                      "--systemd-cgroup: libsystemd is not available (%s), so "
                                      "there is no way to ask systemd for the container's scope; "
                                      "run without --systemd-cgroup to use the cgroupfs driver",
                                      dlerror());
        for (size_t i = 0; i < sizeof(sd_syms) / sizeof(sd_syms[0]); i++) {
                void *f = dlsym(lib, sd_syms[i].name);

                if (!f) {
                        bento_err_setx(err, ENOTSUP,
                                       "--systemd-cgroup: %s has no %s, so it cannot be used; "
                                       "run without --systemd-cgroup to use the cgroupfs driver",
                                       SD_LIB, sd_syms[i].name);
                        (void) dlclose(lib);
                        return -err->code;
                }
                /* POSIX: a function pointer has the size and form of a void * */
                memcpy((char *) &api + sd_syms[i].off, &f, sizeof(f));
        }
        sd = api;
        sd_loaded = true;
        return 0;
}

/* Cleanup helpers through the table; the handles are NULL until open_bus()
 * (which loads the table) has succeeded. */
static void bus_closep(sd_bus **b)
{
        if (*b)
                (void) sd.flush_close_unref(*b);
}

static void msg_unrefp(sd_bus_message **m)
{
        if (*m)
                (void) sd.message_unref(*m);
}

static void slot_unrefp(sd_bus_slot **s)
{
        if (*s)
                (void) sd.slot_unref(*s);
}

#define cleanup_sd_bus      __attribute__((cleanup(bus_closep)))
#define cleanup_sd_bus_msg  __attribute__((cleanup(msg_unrefp)))
#define cleanup_sd_bus_slot __attribute__((cleanup(slot_unrefp)))

/* The user's own systemd, not the system's: not root on the host (as
 * base/rootless.h decides for the state root, USER=root aside). */
static bool user_manager(void)
{
        return geteuid() != 0 || !rt_in_initial_userns();
}

static int open_bus(sd_bus **ret, struct bento_err *err)
{
        int r;

        if (access("/run/systemd/system", F_OK) < 0)
                return bento_err_setx(err, ENOTSUP,
                                      "--systemd-cgroup: systemd is not running on this host (no "
                                      "/run/systemd/system), so there is no systemd to make the "
                                      "container's scope; run without --systemd-cgroup to use "
                                      "the cgroupfs driver");
        r = load_sd(err);
        if (r < 0)
                return r;
        r = user_manager() ? sd.open_user(ret) : sd.open_system(ret);
        if (r < 0)
                return bento_err_set(err, -r,
                                     "--systemd-cgroup: cannot connect to systemd's %s bus",
                                     user_manager() ? "user" : "system");
        return 0;
}

/* "slice:prefix:name" → slice and unit. */
static int unit_names(const char *cgroups_path, const char *id, char **ret_slice, char **ret_unit,
                      struct bento_err *err)
{
        const char *def_slice = user_manager() ? "user.slice" : "system.slice";
        const char *c1, *c2;
        int r;

        if (!cgroups_path || !cgroups_path[0]) {
                *ret_slice = strdup(def_slice);
                r = asprintf(ret_unit, "bento-%s.scope", id);
                return r < 0 || !*ret_slice ? bento_err_set(err, ENOMEM, "unit name") : 0;
        }
        c1 = strchr(cgroups_path, ':');
        c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || strchr(c2 + 1, ':') || strchr(cgroups_path, '/') || !c2[1])
                return bento_err_setx(err, EINVAL,
                                      "linux.cgroupsPath \"%s\": with --systemd-cgroup it must "
                                      "be \"slice:prefix:name\"",
                                      cgroups_path);
        if (c1 == cgroups_path)
                *ret_slice = strdup(def_slice);
        else
                *ret_slice = strndup(cgroups_path, (size_t) (c1 - cgroups_path));
        if (c2 == c1 + 1)
                r = asprintf(ret_unit, "%s.scope", c2 + 1);
        else
                r = asprintf(ret_unit, "%.*s-%s.scope", (int) (c2 - c1 - 1), c1 + 1, c2 + 1);
        return r < 0 || !*ret_slice ? bento_err_set(err, ENOMEM, "unit name") : 0;
}

/* Accounting on, the limits as properties (the files are written too). */
static int add_limits(sd_bus_message *m, const struct cg_limits *l, enum cg_mode mode)
{
        bool v2 = mode == CG_MODE_V2;
        int r = 0;

        if (l->has_mem_limit)
                r = sd.message_append(m, "(sv)", "MemoryMax", "t",
                                      l->mem_limit < 0 ? UINT64_MAX : (uint64_t) l->mem_limit);
        if (r >= 0 && l->has_mem_reservation && l->mem_reservation > 0)
                r = sd.message_append(m, "(sv)", "MemoryLow", "t", (uint64_t) l->mem_reservation);
        if (r >= 0 && l->has_pids)
                r = sd.message_append(m, "(sv)", "TasksMax", "t",
                                      l->pids < 0 ? UINT64_MAX : (uint64_t) l->pids);
        if (r >= 0 && l->has_shares)
                r = sd.message_append(m, "(sv)", v2 ? "CPUWeight" : "CPUShares", "t",
                                      v2 ? 1 + ((l->shares - 2) * 9999) / 262142 : l->shares);
        if (r >= 0 && l->has_quota && l->quota > 0) {
                uint64_t period = l->has_period ? l->period : 100000;
                /* systemd wants µs per second, in steps of 10 ms */
                uint64_t persec = ((uint64_t) l->quota * 1000000 / period + 9999) / 10000 * 10000;
                r = sd.message_append(m, "(sv)", "CPUQuotaPerSecUSec", "t", persec);
                if (r >= 0)
                        r = sd.message_append(m, "(sv)", "CPUQuotaPeriodUSec", "t", period);
        }
        return r;
}

struct scope_req {
        const char *unit, *slice, *id;
        pid_t pid;
};

static int build_request(sd_bus *bus, const struct scope_req *q, const struct cg_limits *l,
                         enum cg_mode mode, sd_bus_message **ret)
{
        cleanup_sd_bus_msg sd_bus_message *m = NULL;
        char desc[300];
        int r;

        snprintf(desc, sizeof(desc), "bento-runtime container %.256s", q->id);
        r = sd.message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_IFACE, "StartTransientUnit");
        if (r >= 0)
                r = sd.message_append(m, "ss", q->unit, "fail");
        if (r >= 0)
                r = sd.message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd.message_append(m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "Description", "s",
                                      desc, "Slice", "s", q->slice, "PIDs", "au", 1,
                                      (uint32_t) q->pid, "Delegate", "b", 1, "DefaultDependencies",
                                      "b", 0, "CPUAccounting", "b", 1, "MemoryAccounting", "b", 1,
                                      "TasksAccounting", "b", 1);
        if (r >= 0)
                r = add_limits(m, l, mode);
        if (r >= 0)
                r = sd.message_close_container(m);
        if (r >= 0)
                r = sd.message_append(m, "a(sa(sv))", 0);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

struct job_wait {
        const char *job;
        bool done;
        char result[64];
};

static int on_job_removed(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
        struct job_wait *w = data;
        const char *path = NULL, *unit = NULL, *result = NULL;
        uint32_t id;

        (void) ret_error;
        if (sd.message_read(m, "uoss", &id, &path, &unit, &result) < 0 || !w->job ||
            strcmp(path, w->job) != 0)
                return 0;
        w->done = true;
        snprintf(w->result, sizeof(w->result), "%s", result);
        return 0;
}

/* Until the job that starts the scope is over (at most 10 s). */
static int wait_job(sd_bus *bus, struct job_wait *w, const char *unit, struct bento_err *err)
{
        for (int i = 0; i < 1000 && !w->done; i++) {
                int r = sd.process(bus, NULL);
                if (r < 0)
                        return bento_err_set(err, -r, "--systemd-cgroup: systemd bus");
                if (r == 0)
                        (void) sd.wait(bus, 10000);
        }
        if (!w->done)
                return bento_err_setx(
                    err, ETIMEDOUT, "--systemd-cgroup: systemd did not start %s within 10 s", unit);
        if (strcmp(w->result, "done") != 0)
                return bento_err_setx(err, EIO, "--systemd-cgroup: starting %s failed (%s)", unit,
                                      w->result);
        return 0;
}

int cg_systemd_start(const char *cgroups_path, const char *id, pid_t pid,
                     const struct cg_limits *lim, enum cg_mode mode, char **ret_unit,
                     struct bento_err *err)
{
        cleanup_sd_bus sd_bus *bus = NULL;
        cleanup_sd_bus_msg sd_bus_message *req = NULL, *reply = NULL;
        cleanup_sd_bus_slot sd_bus_slot *slot = NULL;
        cleanup_free char *slice = NULL, *unit = NULL, *job = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct job_wait w = {.done = false};
        const char *path = NULL;
        int r;

        r = unit_names(cgroups_path, id, &slice, &unit, err);
        if (r >= 0)
                r = open_bus(&bus, err);
        if (r < 0)
                return r;
        r = sd.match_signal(bus, &slot, SD_DEST, SD_PATH, SD_IFACE, "JobRemoved", on_job_removed,
                            &w);
        if (r >= 0)
                r = build_request(
                    bus, &(struct scope_req){.unit = unit, .slice = slice, .id = id, .pid = pid},
                    lim, mode, &req);
        if (r < 0)
                return bento_err_set(err, -r, "--systemd-cgroup: cannot ask systemd for %s", unit);
        r = sd.call(bus, req, 0, &e, &reply);
        if (r < 0) {
                bento_err_setx(err, -r, "--systemd-cgroup: systemd refused to start %s: %s", unit,
                               e.message ? e.message : strerror(-r));
                sd.error_free(&e);
                return -err->code;
        }
        if (sd.message_read(reply, "o", &path) < 0 || !(job = strdup(path)))
                return bento_err_setx(err, EIO, "--systemd-cgroup: no job for %s", unit);
        w.job = job;
        r = wait_job(bus, &w, unit, err);
        if (r < 0)
                return r;
        *ret_unit = TAKE_PTR(unit);
        return 0;
}

int cg_systemd_stop(const char *unit, struct bento_err *err)
{
        cleanup_sd_bus sd_bus *bus = NULL;
        cleanup_sd_bus_msg sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = open_bus(&bus, err);

        if (r < 0)
                return r;
        r = sd.call_method(bus, SD_DEST, SD_PATH, SD_IFACE, "StopUnit", &e, &reply, "ss", unit,
                           "replace");
        if (r < 0 && !sd.error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit"))
                bento_err_setx(err, -r, "--systemd-cgroup: cannot stop %s: %s", unit,
                               e.message ? e.message : strerror(-r));
        else
                r = 0;
        sd.error_free(&e);
        return r;
}

int cg_systemd_paths_of_pid(struct cg_layout *l, pid_t pid, struct bento_err *err)
{
        char *paths[CG_MAX_HIER];
        int r = cg_pid_paths(l, pid, paths, err);

        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n; i++) {
                if (!paths[i])
                        continue;
                free(l->h[i].path);
                l->h[i].path = paths[i];
                l->h[i].made = 0;
                if (strcmp(l->h[i].path, l->h[i].base) == 0)
                        l->h[i].path = (free(l->h[i].path), NULL);
        }
        return 0;
}
