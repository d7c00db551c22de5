/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directory listings read ahead on a thread of their own, for path.c's
 * walks of the credential stores (path_list_ahead() in path.h).
 */
#ifndef BENTO_PATH_PREFETCH_H
#define BENTO_PATH_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>

/* Fewer directories than this are read by the caller alone. */
#define PATH_PREFETCH_MIN 8

struct path_prefetch;

/* A thread starts reading the directories dirs[0..n) (absolute paths,
 * copied), from the last; NULL when there are too few or no thread could be
 * made (the caller then reads them all itself). */
struct path_prefetch *path_prefetch_start(const char *const *dirs, size_t n);

/* dir[0..len)'s getdents64(2) records as the thread read them: 1 with
 * *bytes and *n_bytes (pf's, until path_prefetch_end()); -1 with errno when
 * opening or reading it failed; 0 when dir is not one of them or the
 * caller is to read it itself (the thread had not come to it, or it was
 * taken before).  Waits only while the thread is reading that very
 * directory. */
int path_prefetch_take(struct path_prefetch *pf, const char *dir, size_t len, const char **bytes,
                       size_t *n_bytes);

/* Joins the thread and frees pf (NULL is fine). */
void path_prefetch_end(struct path_prefetch *pf);

#endif
