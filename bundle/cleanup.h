/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope-bound cleanup helpers (GCC/Clang cleanup attribute).  Initialise every
 * cleanup variable where it is declared (NULL or -1) and hand ownership out
 * with TAKE_PTR / TAKE_FD.
 */
#ifndef BENTO_CLEANUP_H
#define BENTO_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_free_fn(void *p)
{
        free(*(void **) p);
}

static inline void cleanup_close_fn(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void cleanup_fclose_fn(FILE **f)
{
        if (*f)
                fclose(*f);
}

static inline void cleanup_dir_fn(DIR **d)
{
        if (*d)
                closedir(*d);
}

/* A NULL-terminated vector of heap strings. */
static inline void strv_free(char **v)
{
        if (!v)
                return;
        for (char **p = v; *p; p++)
                free(*p);
        free(v);
}

static inline void cleanup_strv_fn(char ***v)
{
        strv_free(*v);
}

#define cleanup_free   __attribute__((cleanup(cleanup_free_fn)))
#define cleanup_close  __attribute__((cleanup(cleanup_close_fn)))
#define cleanup_fclose __attribute__((cleanup(cleanup_fclose_fn)))
#define cleanup_dir    __attribute__((cleanup(cleanup_dir_fn)))
#define cleanup_strv   __attribute__((cleanup(cleanup_strv_fn)))

#define TAKE_PTR(p)                                                                                \
        ({                                                                                         \
                __typeof__(p) taken_ = (p);                                                        \
                (p) = NULL;                                                                        \
                taken_;                                                                            \
        })

#define TAKE_FD(fd)                                                                                \
        ({                                                                                         \
                int taken_ = (fd);                                                                 \
                (fd) = -1;                                                                         \
                taken_;                                                                            \
        })

#endif
