/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OCI hooks: each entry of one kind run in order, with the container state
 * JSON on stdin, its own args and env (the runtime's environment when env is
 * absent), the bundle as cwd, and `timeout` enforced (SIGKILL, then treated
 * as failure, with the hook's whole process group).  Hook stdout/stderr go
 * to /dev/null, or to the files named by the annotations
 * run.oci.hooks.stdout / run.oci.hooks.stderr.  Usable from the container
 * init as well: no global state, and the hook inherits no fd but 0-2.
 */
#ifndef RT_HOOKS_H
#define RT_HOOKS_H

#include <stdbool.h>

#include "err.h"
#include "oci-config.h"
#include "state.h"

/* Run every hook of `kind`.  With warn NULL, stops at the first failure;
 * with a warn buffer (poststop), every hook runs and failures become warning
 * lines in warn.  state_json is the container state to hand over on stdin.
 * Errors name the hook: "hooks.createRuntime[1] (/path): exited with status
 * 3", "...: timed out after 5 s", "...: killed by signal 9 (SIGKILL)".
 * Returns 0 (always, with warn) or -errno. */
int rt_hooks_run(const struct oci_config *cfg, enum oci_hook_kind kind, const char *bundle,
                 const char *state_json, char *warn, size_t warn_size, struct bento_err *err);

/* The container state handed to hooks on stdin (compact JSON: ociVersion,
 * id, status, pid, bundle, annotations). */
int rt_hooks_state(const struct oci_config *cfg, const char *id, const char *bundle,
                   enum bento_status status, pid_t pid, char **ret, struct bento_err *err);

#endif
