/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Landlock ruleset of the Landlock-only tier (launch.h): with no mount
 * namespace, Landlock is the whole filesystem boundary.  Read paths get
 * read and execute, write paths every right, and everything else answers
 * EACCES.  With ABI 4 TCP bind and connect are handled with no port rule
 * (all denied); with ABI 6 abstract unix sockets and signals are scoped
 * to the domain, so the target cannot signal the caller's other processes.
 * Rights the running kernel does not know are dropped (best effort), which
 * doctor's text for the tier spells out per ABI.
 *
 * Shields.  Landlock rules hold beneath a path, so a rule on ~ would make
 * ~/.ssh readable.  A read path with a hidden shield below it is
 * therefore granted entry by entry: every entry of the directory except
 * the one leading to the shield, and so on down to the shield itself,
 * which gets no rule.  That walk is of a directory the user granted, on
 * the host, as root: every entry is opened O_PATH | O_NOFOLLOW relative to
 * its parent's descriptor, and a symlink gets no rule (a rule on the link's
 * inode would do nothing, and what it points to is granted or not on its
 * own).  A shield that does not exist needs nothing: an entry made after
 * the walk is in no rule and stays unreadable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "landlock-abi.h"
#include "launch.h"
#include "manifest/path.h"

#define LL_EXECUTE        (1ULL << 0)
#define LL_WRITE_FILE     (1ULL << 1)
#define LL_READ_FILE      (1ULL << 2)
#define LL_READ_DIR       (1ULL << 3)
#define LL_IOCTL_DEV      (1ULL << 15)
#define LL_FILE_RIGHTS    (LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | (1ULL << 14) | LL_IOCTL_DEV)
#define LL_NET_TCP        ((1ULL << 0) | (1ULL << 1))
#define LL_SCOPE_ALL      ((1ULL << 0) | (1ULL << 1))
#define LAUNCH_WALK_DEPTH 64

/* Every filesystem right the ABI knows: 13 in ABI 1, refer (2),
 * truncate (3), ioctl_dev (5). */
static uint64_t fs_rights(int abi)
{
        uint64_t all = (1ULL << 13) - 1;

        if (abi >= 2)
                all |= 1ULL << 13;
        if (abi >= 3)
                all |= 1ULL << 14;
        if (abi >= 5)
                all |= LL_IOCTL_DEV;
        return all;
}

struct ll {
        int fd;
        int abi;
        uint64_t all;
        struct launch *l;
};

static int add_rule(struct ll *ll, int fd, uint64_t rights, const char *what, struct bento_err *err)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "Landlock: \"%s\"", what);
        if (S_ISLNK(st.st_mode))
                return 0;
        rights &= ll->all;
        if (!S_ISDIR(st.st_mode))
                rights &= LL_FILE_RIGHTS;
        if (bento_landlock_add_path(ll->fd, rights, fd) < 0)
                return bento_err_set(err, errno, "Landlock: a rule for \"%s\"", what);
        return 0;
}

/* The hidden shield path lies strictly beneath dir (or is it, for "at"). */
static bool hide_under(const struct launch *l, const char *dir, bool at)
{
        for (size_t i = 0; i < l->n_hide; i++)
                if (path_within(dir, l->hide[i]) && (at || strcmp(dir, l->hide[i]) != 0))
                        return true;
        return false;
}

/* path is a hidden shield: it gets no rule, and the launcher says so. */
static bool is_hidden(struct launch *l, const char *path)
{
        for (size_t i = 0; i < l->n_hide; i++)
                if (strcmp(path, l->hide[i]) == 0) {
                        l->kept[i] = true;
                        return true;
                }
        return false;
}

static int grant_tree(struct ll *ll, int fd, const char *path, uint64_t rights, unsigned depth,
                      struct bento_err *err);

/* dir (fd) holds a hidden shield below it: each entry on its own. */
static int grant_entries(struct ll *ll, int fd, const char *path, uint64_t rights, unsigned depth,
                         struct bento_err *err)
{
        int list = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_dir DIR *d = list >= 0 ? fdopendir(list) : NULL;
        struct dirent *de;
        int r = 0;

        if (!d) {
                if (list >= 0)
                        close(list);
                return bento_err_set(err, errno,
                                     "cannot list \"%s\" to keep the shield below it hidden", path);
        }
        if (depth > LAUNCH_WALK_DEPTH)
                return bento_err_setx(err, ELOOP, "\"%s\" is nested too deep", path);
        while (r >= 0 && (de = readdir(d))) {
                cleanup_free char *child = NULL;
                cleanup_close int cfd = -1;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                child = path_join(path, de->d_name);
                if (!child)
                        return bento_err_set(err, ENOMEM, "Landlock");
                if (is_hidden(ll->l, child))
                        continue;
                cfd = openat(fd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (cfd < 0 && errno == ENOENT)
                        continue; /* gone meanwhile: nothing to grant */
                if (cfd < 0)
                        return bento_err_set(err, errno, "Landlock: \"%s\"", child);
                r = grant_tree(ll, cfd, child, rights, depth + 1, err);
        }
        return r;
}

static int grant_tree(struct ll *ll, int fd, const char *path, uint64_t rights, unsigned depth,
                      struct bento_err *err)
{
        struct stat st;

        if (!hide_under(ll->l, path, false))
                return add_rule(ll, fd, rights, path, err);
        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "Landlock: \"%s\"", path);
        if (!S_ISDIR(st.st_mode))
                return add_rule(ll, fd, rights, path, err);
        return grant_entries(ll, fd, path, rights, depth, err);
}

/* One path of a set; a path that does not exist is skipped (a read grant
 * that names nothing yet), as in the full tier's backstop. */
static int grant_path(struct ll *ll, const char *path, uint64_t rights, struct bento_err *err)
{
        cleanup_close int fd = -1;

        if (is_hidden(ll->l, path))
                return 0;
        fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
                return 0;
        if (fd < 0)
                return bento_err_set(err, errno, "Landlock: \"%s\"", path);
        return grant_tree(ll, fd, path, rights, 0, err);
}

static int make_ruleset(struct ll *ll, struct bento_err *err)
{
        struct bento_ll_ruleset_attr attr = {.handled_access_fs = ll->all};
        size_t size = BENTO_LL_RULESET_SIZE_NET;
        int fd;

        if (ll->abi >= 4)
                attr.handled_access_net = LL_NET_TCP;
        if (ll->abi >= 6) {
                attr.scoped = LL_SCOPE_ALL;
                size = BENTO_LL_RULESET_SIZE_SCOPE;
        }
        fd = bento_landlock_create(&attr, size);
        if (fd < 0)
                return bento_err_set(err, errno, "cannot create the Landlock ruleset");
        ll->fd = fd;
        return 0;
}

int launch_landlock(struct launch *l, struct bento_err *err)
{
        struct ll ll = {.fd = -1, .l = l};
        uint64_t read = LL_READ_FILE | LL_READ_DIR | LL_EXECUTE;
        long abi = bento_landlock_query(BENTO_LL_CREATE_RULESET_VERSION);
        int r;

        if (abi <= 0)
                return bento_err_setx(err, EOPNOTSUPP, "this kernel has no Landlock");
        ll.abi = (int) abi;
        ll.all = fs_rights(ll.abi);
        r = make_ruleset(&ll, err);
        for (size_t i = 0; r >= 0 && i < l->n_ro; i++)
                r = grant_path(&ll, l->ro[i], read, err);
        for (size_t i = 0; r >= 0 && i < l->n_rw; i++)
                r = grant_path(&ll, l->rw[i], ll.all, err);
        if (r >= 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                r = bento_err_set(err, errno, "no_new_privs");
        if (r >= 0 && bento_landlock_restrict(ll.fd) < 0)
                r = bento_err_set(err, errno, "cannot enforce the Landlock ruleset");
        if (ll.fd >= 0)
                close(ll.fd);
        return r < 0 ? r : ll.abi;
}
