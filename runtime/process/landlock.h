/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.landlock in the shape proposed for the OCI runtime-spec
 * (bento-runtime(1) lists the field):
 * handledAccess{handledAccessFS[], handledAccessNetwork[]},
 * rules{pathBeneath[{allowedAccess[], paths[]}], networkPort[{allowedAccess[], ports[]}]},
 * disableBestEffort (bool, default false).  Applied in the init after every
 * other setup step but the seccomp filter, best effort across ABI versions
 * unless disableBestEffort: access rights the kernel does not know are
 * dropped from both the handled and the allowed sets (the kernel cannot
 * restrict them anyway), and rule paths that do not exist are skipped (a
 * rule can only grant, so skipping one only makes the sandbox stricter).
 */
#ifndef RT_LANDLOCK_H
#define RT_LANDLOCK_H

#include "err.h"
#include "json.h"
#include "oci-config.h"

/* Check proc->landlock in `create` (nothing to do when absent): the shape,
 * with JSON paths in errors; that noNewPrivileges is set; and, with
 * disableBestEffort, that the kernel knows every handled right.  Returns 0
 * or -EINVAL. */
int rt_landlock_validate(const struct oci_process *proc, struct bento_err *err);

/* Build and enforce the ruleset on the calling thread (needs NNP).  Paths
 * are resolved in the caller's view (the container's, after pivot_root).
 * A NULL landlock does nothing.  Returns 0 or -errno. */
int rt_landlock_apply(const struct bento_json *landlock, struct bento_err *err);

/* The Landlock ABI of the running kernel, 0 when unavailable. */
int rt_landlock_abi(void);

/* For the state record: {"requested", "abi"} and, when landlock is set,
 * "bestEffort", the handled rights this kernel enforces
 * ("handledAccessFS", "handledAccessNetwork") and the requested ones it
 * cannot ("unsupported").  Caller owns the result; NULL when out of memory. */
struct bento_json *rt_landlock_describe(const struct bento_json *landlock);

#endif
