/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the hook runner lands: configs with hooks are refused. */
#include "hooks.h"

#include <errno.h>
#include <stddef.h>

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

int rt_hooks_state(const struct oci_config *cfg, const char *id, const char *bundle,
                   enum bento_status status, pid_t pid, char **ret, struct bento_err *err)
{
        struct bento_oci_state st = {
                .id = id, .status = status, .pid = pid, .bundle = bundle, .cfg = cfg};
        size_t len = 0;

        return bento_oci_state_write(&st, false, ret, &len, err);
}
