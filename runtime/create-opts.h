/* SPDX-License-Identifier: Apache-2.0 */
/* Options shared by `create` and `run`. */
#ifndef RT_CREATE_OPTS_H
#define RT_CREATE_OPTS_H

#include "args.h"
#include "commands.h"
#include "container.h"

#define RT_RUN_DETACH (1u << 0)
#define RT_RUN_KEEP   (1u << 1)

/* Parse create options; with ret_extra_ids (run) --detach and --keep are
 * accepted too and reported as RT_RUN_* bits; without it they are errors. */
int rt_create_opts_parse(struct rt_args *a, struct rt_create_opts *o, unsigned *ret_extra_ids,
                         struct bento_err *err);

#endif
