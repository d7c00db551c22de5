/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The steps of policy_resolve(), one file each: paths (resolve.c),
 * what the sandbox shows besides the grants (system.c), the
 * shields with the refusals they imply (apply-shields.c), and the
 * approval journal kept out of the write grants (journal-guard.c).
 */
#ifndef BENTO_POLICY_INTERNAL_H
#define BENTO_POLICY_INTERNAL_H

#include "policy.h"

int policy_resolve_paths(struct policy *p, const struct policy_host *host, struct bento_err *err);
int policy_system_paths(struct policy *p, struct bento_err *err);
int policy_shields(struct policy *p, const struct policy_host *host, struct bento_err *err);
int policy_shield_mounts(struct policy *p, struct bento_err *err);
int policy_check_journal(struct policy *p, struct bento_err *err);

/* Append one refusal (message taken over).  Returns 0 or -ENOMEM. */
int policy_refuse(struct policy *p, enum shield_check check, const char *grant, char *message,
                  struct bento_err *err);

#endif
