/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-systemd-scope's command line, checked whole before the bus is
 * touched, with the parser every bento program shares (bundle/argv.h):
 *
 *   start (--system|--user) --unit UNIT --slice SLICE --pid PID
 *         [--description TEXT] [--property NAME=VALUE]...
 *   stop  (--system|--user) --unit UNIT
 *
 * Unit and slice names are systemd's to judge (its refusal is relayed);
 * what is checked here is what would otherwise be sent wrongly or not at
 * all: a pid that is not one, a property systemd would read with another
 * type, an option the verb has no use for.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "scope.h"

/* The properties the runtime's limits become; all of type "t". */
static const char *const property_names[] = {
    "MemoryMax", "MemoryLow",          "TasksMax",           "CPUWeight",
    "CPUShares", "CPUQuotaPerSecUSec", "CPUQuotaPeriodUSec",
};

/* systemd's own bound on a unit name (UNIT_NAME_MAX) */
#define UNIT_NAME_MAX 256

enum {
        OPT_SYSTEM = 0x100,
        OPT_USER,
        OPT_UNIT,
        OPT_SLICE,
        OPT_PID,
        OPT_DESCRIPTION,
        OPT_PROPERTY,
        OPT_HELP,
        OPT_VERSION,
};

static const struct bento_opt options[] = {
    {"system", 0, BENTO_OPT_FLAG, OPT_SYSTEM, NULL, NULL},
    {"user", 0, BENTO_OPT_FLAG, OPT_USER, NULL, NULL},
    {"unit", 0, BENTO_OPT_VALUE, OPT_UNIT, "UNIT", NULL},
    {"slice", 0, BENTO_OPT_VALUE, OPT_SLICE, "SLICE", NULL},
    {"pid", 0, BENTO_OPT_VALUE, OPT_PID, "PID", NULL},
    {"description", 0, BENTO_OPT_VALUE, OPT_DESCRIPTION, "TEXT", NULL},
    {"property", 0, BENTO_OPT_VALUE, OPT_PROPERTY, "NAME=VALUE", NULL},
    {"help", 'h', BENTO_OPT_FLAG, OPT_HELP, NULL, NULL},
    {"version", 'V', BENTO_OPT_FLAG, OPT_VERSION, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static void print_help(void)
{
        printf("usage: " SCOPE_PROG " start (--system|--user) --unit UNIT --slice SLICE --pid PID\n"
               "                           [--description TEXT] [--property NAME=VALUE]...\n"
               "       " SCOPE_PROG " stop (--system|--user) --unit UNIT\n"
               "\n"
               "bento-runtime's helper for --systemd-cgroup: start asks systemd (the system's,\n"
               "or the user's) for a transient scope UNIT in SLICE holding process PID, with\n"
               "Delegate=yes, accounting on and the properties given, and waits for its job;\n"
               "stop stops UNIT.  Exit status 0 when done, 1 with one line on stderr when\n"
               "systemd could not be asked or said no, 2 for a command line refused.\n"
               "\n"
               "  --property NAME=VALUE  NAME is MemoryMax, MemoryLow, TasksMax, CPUWeight,\n"
               "                         CPUShares, CPUQuotaPerSecUSec or CPUQuotaPeriodUSec;\n"
               "                         VALUE a decimal number or 'infinity'\n");
}

/* A decimal uint64 (digits only) or "infinity". */
static bool parse_u64(const char *s, uint64_t *ret)
{
        char *end = NULL;
        unsigned long long v;

        if (strcmp(s, "infinity") == 0) {
                *ret = UINT64_MAX;
                return true;
        }
        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

static int parse_property(const char *s, struct scope_args *a, struct bento_err *err)
{
        const char *eq = strchr(s, '=');

        if (a->n_props == SCOPE_PROPS_MAX)
                return bento_err_setx(err, EINVAL, "--property: more than %d", SCOPE_PROPS_MAX);
        for (size_t i = 0; eq && i < sizeof(property_names) / sizeof(property_names[0]); i++) {
                const char *name = property_names[i];

                if (strlen(name) != (size_t) (eq - s) || strncmp(s, name, strlen(name)) != 0)
                        continue;
                if (!parse_u64(eq + 1, &a->props[a->n_props].value))
                        return bento_err_setx(err, EINVAL,
                                              "--property %s: '%s' is neither a decimal number "
                                              "nor 'infinity'",
                                              name, eq + 1);
                a->props[a->n_props++].name = name;
                return 0;
        }
        return bento_err_setx(err, EINVAL,
                              "--property '%s': not NAME=VALUE with NAME one of MemoryMax, "
                              "MemoryLow, TasksMax, CPUWeight, CPUShares, CPUQuotaPerSecUSec, "
                              "CPUQuotaPeriodUSec",
                              s);
}

static int parse_pid(const char *s, pid_t *ret, struct bento_err *err)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : 0;
        if (errno || !end || *end || v < 1 || v > INT_MAX)
                return bento_err_setx(err, EINVAL, "--pid '%s': not a process id", s);
        *ret = (pid_t) v;
        return 0;
}

/* One option into *a; 1 when --help or --version was answered. */
static int take(int id, const char *value, struct scope_args *a, bool *bus_named,
                struct bento_err *err)
{
        switch (id) {
        case OPT_SYSTEM:
        case OPT_USER:
                if (*bus_named && a->user != (id == OPT_USER))
                        return bento_err_setx(err, EINVAL,
                                              "--system and --user exclude each other");
                *bus_named = true;
                a->user = id == OPT_USER;
                return 0;
        case OPT_UNIT:
                a->unit = value;
                return 0;
        case OPT_SLICE:
                a->slice = value;
                return 0;
        case OPT_PID:
                return parse_pid(value, &a->pid, err);
        case OPT_DESCRIPTION:
                a->description = value;
                return 0;
        case OPT_PROPERTY:
                return parse_property(value, a, err);
        case OPT_HELP:
                print_help();
                return 1;
        default:
                printf(SCOPE_PROG " %s (commit %s)\n", BENTO_VERSION, BENTO_COMMIT);
                return 1;
        }
}

/* What each verb needs, and nothing it has no use for. */
static int check_whole(const struct scope_args *a, bool bus_named, struct bento_err *err)
{
        if (!bus_named)
                return bento_err_setx(err, EINVAL, "--system or --user is required");
        if (!a->unit || !a->unit[0] || strchr(a->unit, '/') || strlen(a->unit) > UNIT_NAME_MAX)
                return bento_err_setx(err, EINVAL,
                                      "--unit UNIT is required: a unit name of at most %d "
                                      "characters without '/'",
                                      UNIT_NAME_MAX);
        if (a->verb == SCOPE_STOP) {
                if (a->slice || a->pid || a->description || a->n_props)
                        return bento_err_setx(err, EINVAL,
                                              "stop takes --unit and the bus only, not --slice, "
                                              "--pid, --description or --property");
                return 0;
        }
        if (!a->slice || !a->slice[0] || strchr(a->slice, '/') || strlen(a->slice) > UNIT_NAME_MAX)
                return bento_err_setx(err, EINVAL,
                                      "--slice SLICE is required: a unit name of at most %d "
                                      "characters without '/'",
                                      UNIT_NAME_MAX);
        if (!a->pid)
                return bento_err_setx(err, EINVAL, "--pid PID is required");
        return 0;
}

int scope_args_parse(int argc, char **argv, struct scope_args *ret, struct bento_err *err)
{
        struct bento_argv p = {.argc = argc - 1, .argv = argv + 1, .i = 1};
        struct bento_argv_hit h;
        bool bus_named = false;
        int r;

        *ret = (struct scope_args){.description = NULL};
        if (argc < 2)
                return bento_err_setx(err, EINVAL, "no verb: start or stop (--help)");
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
            strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
                return take(argv[1][1] == 'h' || argv[1][2] == 'h' ? OPT_HELP : OPT_VERSION, NULL,
                            ret, &bus_named, err);
        if (strcmp(argv[1], "start") == 0)
                ret->verb = SCOPE_START;
        else if (strcmp(argv[1], "stop") == 0)
                ret->verb = SCOPE_STOP;
        else
                return bento_err_setx(err, EINVAL, "unknown verb '%s': start or stop", argv[1]);
        while ((r = bento_argv_next(&p, options, &h, err)) > 0) {
                r = take(h.id, h.value, ret, &bus_named, err);
                if (r != 0)
                        return r;
        }
        if (r < 0)
                return r;
        if (p.i < p.argc)
                return bento_err_setx(err, EINVAL, "unexpected argument '%s'", p.argv[p.i]);
        return check_whole(ret, bus_named, err);
}
