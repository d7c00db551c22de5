/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: paths judged by their spelling (pathcheck.c), for the
 * observer and its preload library alike.
 */
#ifndef BENTO_OBSERVE_PATHCHECK_H
#define BENTO_OBSERVE_PATHCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the absolute path p has no "." or ".." component, no "//" and
 * no trailing '/', so that a prefix comparison decides what it is beneath
 * (anything else is conservatively "not clean"). */
bool obs_path_clean(const char *p);

/* Whether p is clean and at or beneath one of the n trees. */
bool obs_path_under(const char *p, const char *const *trees, size_t n);

#endif
