/* SPDX-License-Identifier: Apache-2.0 */
/* bento's private directory (private-dir.h). */
#include "private-dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "manifest/self.h"

/* name beneath parent: made 0700 if missing, then it must be a directory
 * of this user's with no access for anyone else. */
static int private_component(int parent, const char *name, const char *what, struct bento_err *err)
{
        int r = bento_beneath_make(parent, name, true, 0700, 0, NULL);
        struct stat st;
        int fd;

        if (r < 0 && r != -EEXIST)
                return bento_err_set(err, -r, "cannot create bento's directory \"%s\"", name);
        fd = bento_beneath_open(parent, name, 0);
        if (fd < 0)
                return bento_err_set(err, -fd, "cannot open bento's directory \"%s\"", name);
        if (fstat(fd, &st) < 0 || st.st_uid != bento_euid() || (st.st_mode & 077)) {
                close(fd);
                return bento_err_setx(err, EPERM,
                                      "\"%s\" is not bento's own private directory, so runs "
                                      "cannot agree on %s",
                                      name, what);
        }
        return fd;
}

int bento_private_dir(const char *sub, const char *what, struct bento_err *err)
{
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        const char *base = bento_euid() == 0 ? "/run" : xdg && xdg[0] == '/' ? xdg : "/tmp";
        char own[32] = "bento";
        cleanup_close int top = bento_beneath_open_abs(base, 0);
        cleanup_close int mid = -1, dir = -1;
        int fd;

        /* /tmp is everyone's: the name is this user's, and checked so. */
        if (strcmp(base, "/tmp") == 0)
                snprintf(own, sizeof(own), "bento-%u", (unsigned) bento_euid());
        if (top < 0)
                return bento_err_set(err, -top, "cannot open \"%s\" without a symlink", base);
        mid = private_component(top, own, what, err);
        if (mid < 0)
                return mid;
        dir = private_component(mid, sub, what, err);
        if (dir < 0)
                return dir;
        /* the components are O_PATH: listing and locking need a real open */
        fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "cannot open bento's directory \"%s\"", sub);
        return fd;
}
