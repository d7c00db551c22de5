/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe-shim.so: taking the ring and mapping the gadget, once, as
 * the library loads (shim.h).  Anything unexpected leaves the library
 * idle: every call then goes to the observer as it would without it.  The
 * descriptor in OBS_RING_ENV is believed only when it is a file of the
 * ring's size whose first page says so; a program that closed it and
 * opened something else under its number gets an idle library, never
 * records in its own file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "shim.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define SHIM_TREES_MAX 64

bool shim_ready;
const char *shim_trees[SHIM_TREES_MAX];
size_t shim_n_trees;
struct obs_ring_head *shim_ring;

static char trees_copy[OBS_RING_TREES];

/* The descriptor OBS_RING_ENV names, or -1. */
static int ring_fd(void)
{
        const char *v = getenv(OBS_RING_ENV);
        long fd = 0;

        if (!v || !*v)
                return -1;
        for (; *v; v++) {
                if (*v < '0' || *v > '9' || fd > 1 << 20)
                        return -1;
                fd = fd * 10 + (*v - '0');
        }
        return (int) fd;
}

static struct obs_ring_head *map_ring(int fd)
{
        struct obs_ring_head *h;
        struct stat st;
        long m;

        if (bento_raw_syscall(SYS_fstat, fd, (long) &st, 0, 0, 0, 0) < 0 || !S_ISREG(st.st_mode) ||
            st.st_size != OBS_RING_SIZE)
                return NULL;
        m = bento_raw_syscall(SYS_mmap, 0, OBS_RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                              0);
        if (bento_raw_failed(m))
                return NULL;
        h = (struct obs_ring_head *) m;
        if (h->magic != OBS_RING_MAGIC || h->size != OBS_RING_SIZE) {
                bento_raw_syscall(SYS_munmap, m, OBS_RING_SIZE, 0, 0, 0, 0);
                return NULL;
        }
        return h;
}

/* The trees, from a private copy: the ring's page can change under us. */
static void take_trees(const struct obs_ring_head *h)
{
        uint32_t len = h->trees_len < OBS_RING_TREES ? h->trees_len : OBS_RING_TREES - 1;
        char *p = trees_copy, *end = trees_copy + len;

        memcpy(trees_copy, h->trees, len);
        trees_copy[len] = '\0';
        while (p < end && shim_n_trees < SHIM_TREES_MAX) {
                size_t n = strlen(p);

                if (p[0] == '/')
                        shim_trees[shim_n_trees++] = p;
                p += n + 1;
        }
}

/* "endbr64; syscall; ret" at OBS_SHIM_GADGET, read and execute only. */
static bool map_gadget(void)
{
        static const unsigned char code[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x05, 0xc3};
        long m = bento_raw_syscall(SYS_mmap, (long) OBS_SHIM_GADGET, 4096, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

        if (bento_raw_failed(m))
                return false;
        if ((unsigned long) m != OBS_SHIM_GADGET) { /* a kernel that took it as a hint */
                bento_raw_syscall(SYS_munmap, m, 4096, 0, 0, 0, 0);
                return false;
        }
        memcpy((void *) m, code, sizeof(code));
        return bento_raw_syscall(SYS_mprotect, m, 4096, PROT_READ | PROT_EXEC, 0, 0, 0) == 0;
}

__attribute__((constructor)) static void shim_setup(void)
{
        int fd = ring_fd();
        struct obs_ring_head *h = fd >= 0 ? map_ring(fd) : NULL;

        if (!h)
                return;
        take_trees(h);
        if (shim_n_trees == 0 || !map_gadget()) {
                bento_raw_syscall(SYS_munmap, (long) h, OBS_RING_SIZE, 0, 0, 0, 0);
                return;
        }
        shim_ring = h;
        shim_ready = true;
}
