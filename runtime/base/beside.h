/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bento programs bento-runtime starts (bento-exec-gate, and
 * bento-systemd-scope for --systemd-cgroup) are the ones in its own
 * directory, as /proc/self/exe names it: never one found through PATH or
 * named by a bundle, so a runtime runs the helpers it was installed with.
 */
#ifndef RT_BESIDE_H
#define RT_BESIDE_H

#include "err.h"

/* "<bento-runtime's directory>/<name>" on the heap, or NULL with err set.
 * Whether it exists is the caller's to find out (and to word). */
char *rt_program_beside_self(const char *name, struct bento_err *err);

#endif
