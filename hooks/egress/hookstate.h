/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI container state a runtime writes to a hook's stdin: we need the
 * init's pid (to find its network namespace and to watch it), the id (for
 * --report-dir) and, with --rules-annotation, one annotation.
 */
#ifndef BENTO_EGRESS_HOOKSTATE_H
#define BENTO_EGRESS_HOOKSTATE_H

#include <sys/types.h>

#include "err.h"

struct egress_hook_state {
        pid_t pid;
        char *id;         /* heap */
        char *annotation; /* heap; NULL when absent or not asked for */
};

/* Parse the state JSON (hostile: size-capped, strict).  annotation: the
 * name to fetch, or NULL.  Returns 0 or -errno with err filled. */
int egress_hook_state_parse(const char *data, size_t len, const char *annotation,
                            struct egress_hook_state *ret, struct bento_err *err);

void egress_hook_state_done(struct egress_hook_state *st);

#endif
