/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host path handling shared by the shields, path resolution (§1.9) and the
 * compiler: lexical cleaning as Go's path.Clean does it (the spec's
 * semantics are defined in those terms) and the "Existing" symlink
 * resolution of §5.6, which also works for paths that do not exist yet.
 */
#ifndef BENTO_PATH_H
#define BENTO_PATH_H

#include <stdbool.h>

/* Lexical clean (as Go's path.Clean): collapse "//", ".", "..", drop a
 * trailing slash.  Heap string, NULL only when out of memory. */
char *path_clean(const char *p);

/* clean(a + "/" + b); NULL only when out of memory. */
char *path_join(const char *a, const char *b);

/* child equals parent or lies beneath it, on component boundaries; both
 * must already be clean. */
bool path_within(const char *parent, const char *child);

/* child lies strictly beneath parent. */
bool path_beneath(const char *parent, const char *child);

/* §5.6 "Existing" resolution: follow symlinks as far as the path exists,
 * resolve a dangling link against its resolved parent, append the missing
 * rest lexically, and give a path that loops back cleaned but unresolved.
 * Returns 0 or -ENOMEM. */
int path_resolve(const char *p, char **ret);

#endif
