/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver (--systemd-cgroup): the container init is put
 * into a transient scope unit through systemd's D-Bus API, with
 * Delegate=yes and the limits as unit properties, the way crun does.
 * cgroup.c then writes and reads back the same limits in the scope's
 * files, which stay authoritative, found from where systemd put the init
 * (cg_systemd_paths_of_pid).
 *
 * linux.cgroupsPath is "slice:prefix:name" (unit "prefix-name.scope" in
 * "slice"); without it the unit is "bento-<id>.scope" in system.slice
 * (user.slice for a rootless runtime, on the user's bus: also uid 0 of a
 * user namespace, rootless podman's runtime, whose system bus would see
 * the unprivileged user anyway).  Without a running systemd this is a
 * clear error, never a silent fallback.
 *
 * The runtime decides all of that here; the D-Bus talk itself is
 * bento-systemd-scope's (runtime/cgroup/systemd-scope/, run by
 * scope-helper.c), the one program linked with libsystemd.  So
 * bento-runtime loads no shared library at all and is linked with libc
 * in it: its start, on every container operation, maps nothing.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "base/rootless.h"

/* The limits become at most this many --property NAME=VALUE. */
#define SCOPE_PROPS 7
#define PROP_SIZE   64

/* The user's own systemd, not the system's: not root on the host (as
 * base/rootless.h decides for the state root, USER=root aside). */
static bool user_manager(void)
{
        return geteuid() != 0 || !rt_in_initial_userns();
}

static const char *bus_option(void)
{
        return user_manager() ? "--user" : "--system";
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

struct scope_props {
        char text[SCOPE_PROPS][PROP_SIZE];
        size_t n;
};

static void prop(struct scope_props *p, const char *name, uint64_t v)
{
        if (v == UINT64_MAX)
                snprintf(p->text[p->n++], PROP_SIZE, "%s=infinity", name);
        else
                snprintf(p->text[p->n++], PROP_SIZE, "%s=%" PRIu64, name, v);
}

/* The limits as unit properties (the files are written too). */
static void limit_props(const struct cg_limits *l, enum cg_mode mode, struct scope_props *p)
{
        bool v2 = mode == CG_MODE_V2;

        p->n = 0;
        if (l->has_mem_limit)
                prop(p, "MemoryMax", l->mem_limit < 0 ? UINT64_MAX : (uint64_t) l->mem_limit);
        if (l->has_mem_reservation && l->mem_reservation > 0)
                prop(p, "MemoryLow", (uint64_t) l->mem_reservation);
        if (l->has_pids)
                prop(p, "TasksMax", l->pids < 0 ? UINT64_MAX : (uint64_t) l->pids);
        if (l->has_shares)
                prop(p, v2 ? "CPUWeight" : "CPUShares",
                     v2 ? 1 + ((l->shares - 2) * 9999) / 262142 : l->shares);
        if (l->has_quota && l->quota > 0) {
                uint64_t period = l->has_period ? l->period : 100000;
                /* systemd wants µs per second, in steps of 10 ms */
                uint64_t persec = ((uint64_t) l->quota * 1000000 / period + 9999) / 10000 * 10000;
                prop(p, "CPUQuotaPerSecUSec", persec);
                prop(p, "CPUQuotaPeriodUSec", period);
        }
}

int cg_systemd_start(const char *cgroups_path, const char *id, pid_t pid,
                     const struct cg_limits *lim, enum cg_mode mode, char **ret_unit,
                     struct bento_err *err)
{
        cleanup_free char *slice = NULL, *unit = NULL;
        char pid_text[16], desc[300];
        struct scope_props props;
        /* argv[0], the verb, the bus, 4 options with values, the
         * properties, NULL */
        char *argv[3 + 2 * 4 + 2 * SCOPE_PROPS + 1];
        size_t n = 0;
        int r = unit_names(cgroups_path, id, &slice, &unit, err);

        if (r < 0)
                return r;
        snprintf(pid_text, sizeof(pid_text), "%d", (int) pid);
        snprintf(desc, sizeof(desc), "bento-runtime container %.256s", id);
        limit_props(lim, mode, &props);
        argv[n++] = NULL; /* the program's name, set by cg_scope_helper_run */
        argv[n++] = (char *) "start";
        argv[n++] = (char *) bus_option();
        argv[n++] = (char *) "--unit";
        argv[n++] = unit;
        argv[n++] = (char *) "--slice";
        argv[n++] = slice;
        argv[n++] = (char *) "--pid";
        argv[n++] = pid_text;
        argv[n++] = (char *) "--description";
        argv[n++] = desc;
        for (size_t i = 0; i < props.n; i++) {
                argv[n++] = (char *) "--property";
                argv[n++] = props.text[i];
        }
        argv[n] = NULL;
        r = cg_scope_helper_run(argv, err);
        if (r < 0)
                return r;
        *ret_unit = TAKE_PTR(unit);
        return 0;
}

int cg_systemd_stop(const char *unit, struct bento_err *err)
{
        char *argv[] = {
            NULL, (char *) "stop", (char *) bus_option(), (char *) "--unit", (char *) unit, NULL};

        return cg_scope_helper_run(argv, err);
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
