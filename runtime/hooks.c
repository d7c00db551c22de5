/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the hook runner lands: configs with hooks are refused. */
#include "hooks.h"

#include <errno.h>

int rt_hooks_run(const struct oci_config *cfg, enum oci_hook_kind kind, const char *bundle,
                 const char *state_json, bool keep_going, char *warn, size_t warn_size,
                 struct bento_err *err)
{
        (void) bundle;
        (void) state_json;
        (void) keep_going;
        (void) warn;
        (void) warn_size;
        if (cfg->n_hooks[kind])
                return bento_err_setx(err, ENOTSUP, "hooks.%s: hooks are not supported yet",
                                      oci_hook_kind_to_string(kind));
        return 0;
}
