/* SPDX-License-Identifier: Apache-2.0 */
/*
 * git's glob for paths (git-wildmatch.c), as includeIf's gitdir: and
 * onbranch: conditions and hasconfig:remote.*.url: use it: "*" and "?"
 * stop at "/", "**" bounded by slashes (or the ends) crosses them and
 * "** /" may match no directory at all, [...] classes with ranges, "!" or
 * "^" and [:name:], "\" quotes the next character.
 */
#ifndef BENTO_RUN_GIT_WILDMATCH_H
#define BENTO_RUN_GIT_WILDMATCH_H

#include <stdbool.h>

enum git_wild { GIT_WILD_NO, GIT_WILD_YES, GIT_WILD_TOO_HARD };

/* Match text against pattern; fold case (ASCII) when casefold.  *budget
 * is the number of steps left to spend (a hostile pattern backtracks a
 * lot): when it runs out the answer is GIT_WILD_TOO_HARD. */
enum git_wild git_wildmatch(const char *pattern, const char *text, bool casefold,
                            unsigned long *budget);

#endif
