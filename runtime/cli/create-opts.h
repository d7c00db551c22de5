/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by `create` and `run`. */
#ifndef RT_CREATE_OPTS_H
#define RT_CREATE_OPTS_H

#include "args.h"
#include "commands.h"
#include "container/container.h"

#define RT_RUN_DETACH (1u << 0)
#define RT_RUN_KEEP   (1u << 1)

/* What `run` takes beyond create's options. */
struct rt_run_opts {
        unsigned flags;     /* RT_RUN_* */
        const char *report; /* --report FILE, or NULL */
        int exit_fd;        /* --exit-fd N, or -1 */
        int wait_fd;        /* --wait-fd N, or -1 (run-go.h) */
};

#define RT_RUN_OPTS_INIT                                                                           \
        {                                                                                          \
                .flags = 0, .report = NULL, .exit_fd = -1, .wait_fd = -1                           \
        }

/* Parse create options; with ret_run (run) --detach, --keep, --report,
 * --exit-fd and --wait-fd are accepted too and go to *ret_run; without it
 * they are errors. */
int rt_create_opts_parse(struct bento_argv *a, struct rt_create_opts *o,
                         struct rt_run_opts *ret_run, struct bento_err *err);

#endif
