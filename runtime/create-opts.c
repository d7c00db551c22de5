/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by `create` and `run` (see create-opts.h). */
#include "create-opts.h"

#include <errno.h>
#include <unistd.h>

#include "process-env.h"

enum {
        OPT_BUNDLE,
        OPT_PID_FILE,
        OPT_CONSOLE_SOCKET,
        OPT_NO_PIVOT,
        OPT_NO_NEW_KEYRING,
        OPT_PRESERVE_FDS,
        OPT_DETACH,
        OPT_KEEP,
        OPT_REPORT,
        OPT_EXIT_FD,
};

static const struct rt_opt create_opts[] = {
    {"bundle", 'b', true, OPT_BUNDLE},
    {"pid-file", 0, true, OPT_PID_FILE},
    {"console-socket", 0, true, OPT_CONSOLE_SOCKET},
    {"no-pivot", 0, false, OPT_NO_PIVOT},
    {"no-new-keyring", 0, false, OPT_NO_NEW_KEYRING},
    {"preserve-fds", 0, true, OPT_PRESERVE_FDS},
    {"detach", 'd', false, OPT_DETACH},
    {"keep", 0, false, OPT_KEEP},
    {"report", 0, true, OPT_REPORT},
    {"exit-fd", 0, true, OPT_EXIT_FD},
    {NULL, 0, false, 0},
};

int rt_create_opts_parse(struct rt_args *a, struct rt_create_opts *o, struct rt_run_opts *ret_run,
                         struct bento_err *err)
{
        struct rt_run_opts run = RT_RUN_OPTS_INIT;
        const char *value = NULL;
        int id, r;

        while ((r = rt_args_next(a, create_opts, &id, &value, err)) > 0) {
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
                case OPT_PRESERVE_FDS:
                        r = rt_args_parse_uint(value, "--preserve-fds", &o->preserve_fds, err);
                        if (r < 0)
                                return r;
                        break;
                default:
                        if (!ret_run)
                                return bento_err_setx(err, EINVAL,
                                                      "option '%s' is only "
                                                      "valid for run",
                                                      a->argv[a->i - 1]);
                        if (id == OPT_REPORT) {
                                run.report = value;
                        } else if (id == OPT_EXIT_FD) {
                                r = rt_args_parse_uint(value, "--exit-fd", &run.exit_fd, err);
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
