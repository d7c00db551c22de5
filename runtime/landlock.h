/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.landlock in the shape proposed for runtime-spec (oci.md §2.9):
 * handledAccess{handledAccessFS[], handledAccessNetwork[]},
 * rules{pathBeneath[{allowedAccess[], paths[]}], networkPort[{allowedAccess[], ports[]}]},
 * applied in the init after every other setup step, best effort across ABI
 * versions (access rights the kernel does not know are dropped from both the
 * handled and the allowed sets).
 */
#ifndef RT_LANDLOCK_H
#define RT_LANDLOCK_H

#include "err.h"
#include "json.h"

/* Check the object's shape in `create` (JSON paths in errors). */
int rt_landlock_validate(const struct bento_json *landlock, struct bento_err *err);

/* Build and enforce the ruleset on the calling thread (needs NNP). */
int rt_landlock_apply(const struct bento_json *landlock, struct bento_err *err);

/* The Landlock ABI of the running kernel, 0 when unavailable. */
int rt_landlock_abi(void);

#endif
