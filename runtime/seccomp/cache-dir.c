/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finding (and making) the directory the compiled seccomp programs are kept
 * in (seccomp.h, rt_seccomp_cache_open).
 *
 * A program read from there is loaded into a container as its filter, with
 * no second look at what it does: whoever can write the directory decides
 * the filter of the next container with the same profile.  So it is used
 * only when it is ours alone: reached from "/" without a symlink on the
 * way, owned by this user and writable by nobody else.  Components that are
 * missing are made 0700 one at a time from their parent's descriptor, so a
 * symlink planted above cannot send the mkdir elsewhere.  An existing
 * directory that fails a check is left as it is and no cache is used.
 */
#include "seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"

/* Make every missing directory of abs, 0700, each from its parent reached
 * from "/" without a symlink (bento_beneath_make): a link planted on the
 * way fails the call instead of steering the mkdir.  Only on a first run,
 * so a lookup per prefix is fine. */
static int make_dirs(const char *abs)
{
        cleanup_close int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        const char *rel = abs + strspn(abs, "/");
        char prefix[PATH_MAX];
        size_t len = strlen(rel);

        if (root < 0)
                return -errno;
        if (len >= sizeof(prefix))
                return -ENAMETOOLONG;
        for (size_t i = 1; i <= len; i++) {
                int r;

                if (i < len && rel[i] != '/')
                        continue;
                memcpy(prefix, rel, i);
                prefix[i] = '\0';
                r = bento_beneath_make(root, prefix, true, 0700, 0, NULL);
                if (r < 0 && r != -EEXIST)
                        return r;
        }
        return 0;
}

int rt_seccomp_cache_open(const char *dir)
{
        cleanup_close int path_fd = -1;
        struct stat st;
        int fd;

        if (!dir || dir[0] != '/')
                return -1;
        /* it exists after the first run: one lookup then */
        path_fd = bento_beneath_open_abs(dir, 0);
        if (path_fd == -ENOENT && make_dirs(dir) == 0)
                path_fd = bento_beneath_open_abs(dir, 0);
        if (path_fd < 0)
                return -1;
        /* readable, for the listing that eviction makes */
        fd = openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        /* anyone else who can write here could plant a program */
        if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 0022)) {
                close(fd);
                return -1;
        }
        return fd;
}
