/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-systemd-scope: the one program of bento that links libsystemd.
 * bento-runtime's systemd cgroup driver (runtime/cgroup/systemd.c) runs it
 * to start a container's transient scope and to stop it, so that the
 * runtime itself loads no shared library at all (it is linked with libc
 * in it, and a static libc cannot load libsystemd).  The runtime decides
 * everything (which bus, the unit and slice names, the limits as unit
 * properties); this program only speaks D-Bus with systemd.
 *
 * Its contract: argv in; exit status 0 when done, SCOPE_EXIT_FAILED with
 * one line on stderr that the runtime shows as its own error, or
 * SCOPE_EXIT_USAGE for a command line it refuses.
 */
#ifndef BENTO_SYSTEMD_SCOPE_H
#define BENTO_SYSTEMD_SCOPE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define SCOPE_PROG        "bento-systemd-scope"
#define SCOPE_EXIT_FAILED 1
#define SCOPE_EXIT_USAGE  2
/* every property of the table in args.c at most twice */
#define SCOPE_PROPS_MAX 16

enum scope_verb { SCOPE_START, SCOPE_STOP };

/* One unit property of type "t" (uint64), as systemd names it. */
struct scope_property {
        const char *name;
        uint64_t value;
};

struct scope_args {
        enum scope_verb verb;
        bool user; /* the user's systemd (--user), else the system's (--system) */
        const char *unit, *slice, *description;
        pid_t pid;
        struct scope_property props[SCOPE_PROPS_MAX];
        size_t n_props;
};

/* argv checked into *ret (which points into argv).  -EINVAL with err
 * saying what is wrong; 1 when --help or --version was answered. */
int scope_args_parse(int argc, char **argv, struct scope_args *ret, struct bento_err *err);

/* The scope started and its job waited for (bus.c). */
int scope_start(const struct scope_args *a, struct bento_err *err);

/* The unit stopped; one that is not there is no error (bus.c). */
int scope_stop(const struct scope_args *a, struct bento_err *err);

#endif
