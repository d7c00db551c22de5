/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-systemd-scope's talk with systemd over D-Bus (libsystemd's sd-bus),
 * the way crun does it: StartTransientUnit for a scope holding the
 * container's init, with Delegate=yes, accounting on and the limits as
 * properties, then the JobRemoved signal of its job; StopUnit to end it.
 * Without a running systemd this is a clear error, never a fallback.
 * The error texts are the runtime's own (it shows them as they are).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "cleanup.h"
#include "scope.h"

#define SD_DEST  "org.freedesktop.systemd1"
#define SD_PATH  "/org/freedesktop/systemd1"
#define SD_IFACE "org.freedesktop.systemd1.Manager"
/* how long the job that starts the scope may take: 1000 waits of 10 ms */
#define JOB_WAITS   1000
#define JOB_WAIT_US 10000

static void bus_closep(sd_bus **b)
{
        if (*b)
                (void) sd_bus_flush_close_unref(*b);
}

static void msg_unrefp(sd_bus_message **m)
{
        if (*m)
                (void) sd_bus_message_unref(*m);
}

static void slot_unrefp(sd_bus_slot **s)
{
        if (*s)
                (void) sd_bus_slot_unref(*s);
}

#define cleanup_sd_bus      __attribute__((cleanup(bus_closep)))
#define cleanup_sd_bus_msg  __attribute__((cleanup(msg_unrefp)))
#define cleanup_sd_bus_slot __attribute__((cleanup(slot_unrefp)))

static int open_bus(bool user, sd_bus **ret, struct bento_err *err)
{
        int r;

        if (access("/run/systemd/system", F_OK) < 0)
                return bento_err_setx(err, ENOTSUP,
                                      "--systemd-cgroup: systemd is not running on this host (no "
                                      "/run/systemd/system), so there is no systemd to make the "
                                      "container's scope; run without --systemd-cgroup to use "
                                      "the cgroupfs driver");
        r = user ? sd_bus_open_user(ret) : sd_bus_open_system(ret);
        if (r < 0)
                return bento_err_set(err, -r,
                                     "--systemd-cgroup: cannot connect to systemd's %s bus",
                                     user ? "user" : "system");
        return 0;
}

static int build_request(sd_bus *bus, const struct scope_args *a, sd_bus_message **ret)
{
        cleanup_sd_bus_msg sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_IFACE,
                                           "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", a->unit, "fail");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(
                    m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "Description", "s",
                    a->description ? a->description : "", "Slice", "s", a->slice, "PIDs", "au", 1,
                    (uint32_t) a->pid, "Delegate", "b", 1, "DefaultDependencies", "b", 0,
                    "CPUAccounting", "b", 1, "MemoryAccounting", "b", 1, "TasksAccounting", "b", 1);
        for (size_t i = 0; r >= 0 && i < a->n_props; i++)
                r = sd_bus_message_append(m, "(sv)", a->props[i].name, "t", a->props[i].value);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
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
        if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0 || !w->job ||
            strcmp(path, w->job) != 0)
                return 0;
        w->done = true;
        snprintf(w->result, sizeof(w->result), "%s", result);
        return 0;
}

/* Until the job that starts the scope is over (at most 10 s). */
static int wait_job(sd_bus *bus, struct job_wait *w, const char *unit, struct bento_err *err)
{
        for (int i = 0; i < JOB_WAITS && !w->done; i++) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return bento_err_set(err, -r, "--systemd-cgroup: systemd bus");
                if (r == 0)
                        (void) sd_bus_wait(bus, JOB_WAIT_US);
        }
        if (!w->done)
                return bento_err_setx(
                    err, ETIMEDOUT, "--systemd-cgroup: systemd did not start %s within 10 s", unit);
        if (strcmp(w->result, "done") != 0)
                return bento_err_setx(err, EIO, "--systemd-cgroup: starting %s failed (%s)", unit,
                                      w->result);
        return 0;
}

int scope_start(const struct scope_args *a, struct bento_err *err)
{
        cleanup_sd_bus sd_bus *bus = NULL;
        cleanup_sd_bus_msg sd_bus_message *req = NULL, *reply = NULL;
        cleanup_sd_bus_slot sd_bus_slot *slot = NULL;
        cleanup_free char *job = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct job_wait w = {.done = false};
        const char *path = NULL;
        int r = open_bus(a->user, &bus, err);

        if (r < 0)
                return r;
        r = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_IFACE, "JobRemoved",
                                on_job_removed, &w);
        if (r >= 0)
                r = build_request(bus, a, &req);
        if (r < 0)
                return bento_err_set(err, -r, "--systemd-cgroup: cannot ask systemd for %s",
                                     a->unit);
        r = sd_bus_call(bus, req, 0, &e, &reply);
        if (r < 0) {
                bento_err_setx(err, -r, "--systemd-cgroup: systemd refused to start %s: %s",
                               a->unit, e.message ? e.message : strerror(-r));
                sd_bus_error_free(&e);
                return -err->code;
        }
        if (sd_bus_message_read(reply, "o", &path) < 0 || !(job = strdup(path)))
                return bento_err_setx(err, EIO, "--systemd-cgroup: no job for %s", a->unit);
        w.job = job;
        return wait_job(bus, &w, a->unit, err);
}

int scope_stop(const struct scope_args *a, struct bento_err *err)
{
        cleanup_sd_bus sd_bus *bus = NULL;
        cleanup_sd_bus_msg sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = open_bus(a->user, &bus, err);

        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_IFACE, "StopUnit", &e, &reply, "ss",
                               a->unit, "replace");
        if (r < 0 && !sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit"))
                bento_err_setx(err, -r, "--systemd-cgroup: cannot stop %s: %s", a->unit,
                               e.message ? e.message : strerror(-r));
        else
                r = 0;
        sd_bus_error_free(&e);
        return r;
}
