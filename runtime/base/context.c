/* SPDX-License-Identifier: Apache-2.0 */
/* Questions about the setup context that both sides of the handshake ask. */
#include "context.h"

bool rt_context_has_runtime_hooks(const struct rt_context *ctx)
{
        return ctx->cfg->n_hooks[OCI_HOOK_PRESTART] > 0 ||
               ctx->cfg->n_hooks[OCI_HOOK_CREATE_RUNTIME] > 0;
}
