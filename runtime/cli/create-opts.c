/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by `create` and `run` (see create-opts.h). */
#include "create-opts.h"

#include <errno.h>
#include <unistd.h>

#include "process/env.h"

enum {
        OPT_BUNDLE,
        OPT_PID_FILE,
        OPT_CONSOLE_SOCKET,
        OPT_NO_PIVOT,
        OPT_NO_NEW_KEYRING,
        OPT_PRESERVE_FDS,
        OPT_CONFIG,
        OPT_NO_SUBREAPER,
        OPT_DETACH,
        OPT_KEEP,
        OPT_REPORT,
        OPT_EXIT_FD,
        OPT_WAIT_FD,
};

/* run's own options first: create parses the same table from
 * create_opts, past them, so `create --detach` is an unknown option */
#define N_RUN_ONLY 5
static const struct bento_opt run_opts[] = {
    {"detach", 'd', BENTO_OPT_FLAG, OPT_DETACH, NULL,
     "return once the container runs; do not wait"},
    {"keep", 0, BENTO_OPT_FLAG, OPT_KEEP, NULL, "do not delete the container after it ended"},
    {"report", 0, BENTO_OPT_VALUE, OPT_REPORT, "FILE",
     "write what the exit status cannot say to FILE (foreground only)"},
    {"exit-fd", 0, BENTO_OPT_VALUE, OPT_EXIT_FD, "N",
     "write the wait status to descriptor N as soon as the init is reaped"},
    {"wait-fd", 0, BENTO_OPT_VALUE, OPT_WAIT_FD, "N",
     "before reading the bundle, wait for the caller's go on the unix socket N "
     "(foreground only); end-of-file instead ends the run having made nothing"},
    {"bundle", 'b', BENTO_OPT_VALUE, OPT_BUNDLE, "DIR",
     "the bundle (default: the current directory)"},
    {"config", 'f', BENTO_OPT_VALUE, OPT_CONFIG, "FILE",
     "read the config from FILE (relative to the current directory) instead of the "
     "bundle's config.json; root.path and the like still start at the bundle"},
    {"pid-file", 0, BENTO_OPT_VALUE, OPT_PID_FILE, "FILE", "write the init's pid to FILE"},
    {"console-socket", 0, BENTO_OPT_VALUE, OPT_CONSOLE_SOCKET, "PATH",
     "send the terminal's master to this unix socket (process.terminal)"},
    {"no-pivot", 0, BENTO_OPT_FLAG, OPT_NO_PIVOT, NULL, "move the root instead of pivot_root"},
    {"no-new-keyring", 0, BENTO_OPT_FLAG, OPT_NO_NEW_KEYRING, NULL,
     "keep the caller's session keyring"},
    {"no-subreaper", 0, BENTO_OPT_FLAG, OPT_NO_SUBREAPER, NULL,
     "a foreground run does not make itself a subreaper (runc and crun's flag)"},
    {"preserve-fds", 0, BENTO_OPT_VALUE, OPT_PRESERVE_FDS, "N",
     "pass descriptors 3 to 3+N-1 to the container"},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};
static const struct bento_opt *const create_opts = run_opts + N_RUN_ONLY;

int rt_create_opts_parse(struct bento_argv *a, struct rt_create_opts *o,
                         struct rt_run_opts *ret_run, struct bento_err *err)
{
        struct rt_run_opts run = RT_RUN_OPTS_INIT;
        const char *value = NULL;
        int id, r;

        while ((r = rt_args_next(a, ret_run ? run_opts : create_opts, &id, &value, err)) > 0) {
                switch (id) {
                case OPT_BUNDLE:
                        o->bundle = value;
                        break;
                case OPT_PID_FILE:
                        o->pid_file = value;
                        break;
                case OPT_CONSOLE_SOCKET:
                        o->console_socket = value;
                        break;
                case OPT_NO_PIVOT:
                        o->no_pivot = true;
                        break;
                case OPT_NO_NEW_KEYRING:
                        o->no_new_keyring = true;
                        break;
                case OPT_CONFIG:
                        o->config = value;
                        break;
                case OPT_NO_SUBREAPER:
                        o->no_subreaper = true;
                        break;
                case OPT_PRESERVE_FDS:
                        r = rt_args_parse_uint(value, "--preserve-fds", &o->preserve_fds, err);
                        if (r < 0)
                                return r;
                        break;
                default:
                        if (id == OPT_REPORT) {
                                run.report = value;
                        } else if (id == OPT_EXIT_FD || id == OPT_WAIT_FD) {
                                r = rt_args_parse_uint(
                                    value, id == OPT_EXIT_FD ? "--exit-fd" : "--wait-fd",
                                    id == OPT_EXIT_FD ? &run.exit_fd : &run.wait_fd, err);
                                if (r < 0)
                                        return r;
                        } else {
                                run.flags |= 1u << (id - OPT_DETACH);
                        }
                        break;
                }
        }
        if (r >= 0) {
                /* socket activation, as crun and runc: the descriptors
                 * follow the --preserve-fds ones */
                int open = 0;

                o->listen_fds = rt_listen_fds(o->preserve_fds, &open);
                o->preserve_fds += open;
        }
        if (r >= 0 && ret_run)
                *ret_run = run;
        return r;
}
