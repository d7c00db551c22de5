/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process attributes of config.json, applied inside the container init.
 *
 *   rt_process_validate()   in `create`, before anything is made: sysctl keys
 *                           and their namespace requirements (runtime-spec config-linux.md,
 * "Sysctl"), hostname/domainname need a uts namespace, rlimit duplicates, capability names
 * (unknown: warning text in *ret_warning, not an error). rt_sysctl_apply()       after /proc is
 * mounted (after pivot). rt_hostname_apply()     hostname and domainname. rt_rlimits_apply()
 * setrlimit for each entry (soft/hard exact). rt_keyring_join()       a fresh session keyring
 * (unless --no-new-keyring). rt_identity_apply()     last step before exec: umask, additional
 * groups (set even when empty), gid, uid keeping capabilities across the switch, then all five
 *                           capability sets (libcap), then noNewPrivileges;
 *                           until_exec: capabilities held until execve on
 *                           top of the configured ones (rt_caps_apply()).
 */
#ifndef RT_PROCESS_H
#define RT_PROCESS_H

#include <stdint.h>

#include "base/context.h"

int rt_process_validate(const struct oci_config *cfg, char *ret_warning, size_t warning_size,
                        struct bento_err *err);
int rt_sysctl_apply(const struct rt_context *ctx, struct bento_err *err);
int rt_hostname_apply(const struct rt_context *ctx, struct bento_err *err);
int rt_rlimits_apply(const struct oci_process *proc, struct bento_err *err);
int rt_keyring_join(const struct rt_context *ctx, struct bento_err *err);
int rt_identity_apply(const struct oci_process *proc, uint64_t until_exec, struct bento_err *err);

#endif
