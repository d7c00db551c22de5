/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shield mount points in write grants: which are missing, creating them
 * for `bento run`, the poststop hook's arguments, and removing them again
 * without following anything the sandbox could have put in their place
 * (see mount-points.h).
 */
#include "mount-points.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"

static int add_point(struct mount_points *mp, const char *path, const char *grant, bool dir)
{
        struct mount_point *v;

        for (size_t i = 0; i < mp->n; i++)
                if (strcmp(mp->v[i].path, path) == 0) {
                        mp->v[i].dir |= dir;
                        return 0;
                }
        v = reallocarray(mp->v, mp->n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        mp->v = v;
        v[mp->n] = (struct mount_point){.path = strdup(path), .grant = strdup(grant), .dir = dir};
        if (!v[mp->n].path || !v[mp->n].grant) {
                free(v[mp->n].path);
                free(v[mp->n].grant);
                return -ENOMEM;
        }
        mp->n++;
        return 0;
}

static bool is_dir_kind(enum shield_mount_kind k)
{
        return k != SHIELD_MOUNT_HIDDEN_FILE && k != SHIELD_MOUNT_READ_ONLY_FILE;
}

/* The shielded path when missing, and each missing parent up to (not
 * including) its grant. */
static int list_one(const struct policy *p, const struct shield_mount *sm, struct mount_points *mp,
                    struct bento_err *err)
{
        const char *path = sm->path, *grant;
        cleanup_free char *cur = NULL;
        mode_t type;

        if (path_type(path, &type) == 0 || errno != ENOENT)
                return 0;
        grant = policy_holding_write(p, path);
        if (!grant)
                return bento_err_setx(err, EPERM,
                                      "bento shields \"%s\", which does not exist and lies in no "
                                      "write grant, so its mount point cannot be made safely",
                                      path);
        cur = strdup(path);
        if (!cur)
                return bento_err_set(err, ENOMEM, "mount points");
        while (path_beneath(grant, cur) && path_type(cur, &type) < 0 && errno == ENOENT) {
                if (add_point(mp, cur, grant, strcmp(cur, path) != 0 || is_dir_kind(sm->kind)) < 0)
                        return bento_err_set(err, ENOMEM, "mount points");
                *strrchr(cur, '/') = '\0'; /* cur is beneath grant: it has a parent */
        }
        return 0;
}

/* By grant, then deepest first, then by name: children before parents. */
static int cmp_points(const void *a, const void *b)
{
        const struct mount_point *x = a, *y = b;
        size_t lx = strlen(x->path), ly = strlen(y->path);
        int c = strcmp(x->grant, y->grant);

        if (c)
                return c;
        return lx < ly ? 1 : lx > ly ? -1 : strcmp(x->path, y->path);
}

/* The grant's root as it is now; 0:0 when it does not exist. */
static int grant_ident(const char *grant, struct bento_ident *ret)
{
        cleanup_close int fd = bento_beneath_open_abs(grant, 0);
        struct stat st;

        *ret = (struct bento_ident){0};
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        *ret = (struct bento_ident){.dev = st.st_dev, .ino = st.st_ino};
        return 0;
}

int mount_points_list(const struct policy *p, struct mount_points *ret, struct bento_err *err)
{
        struct mount_points mp = {0};
        int r = 0;

        /* Shields in one checkout share their missing parents. */
        path_cache_begin();
        for (size_t i = 0; r >= 0 && i < p->n_shield_mounts; i++)
                r = list_one(p, &p->shield_mounts[i], &mp, err);
        path_cache_end();
        if (mp.n)
                qsort(mp.v, mp.n, sizeof(*mp.v), cmp_points);
        for (size_t i = 0; r >= 0 && i < mp.n; i++) {
                r = grant_ident(mp.v[i].grant, &mp.v[i].grant_id);
                if (r < 0)
                        r = bento_err_set(err, -r, "cannot open the write grant \"%s\"",
                                          mp.v[i].grant);
        }
        if (r < 0) {
                mount_points_done(&mp);
                return r;
        }
        *ret = mp;
        return 0;
}

static const char *rel_of(const struct mount_point *m)
{
        const char *rel = m->path + strlen(m->grant);

        return rel + strspn(rel, "/");
}

/* The grant's root, opened without a symlink, when it is still the
 * directory m was listed in: ESTALE when another took its place. */
static int open_grant(const struct mount_point *m)
{
        int fd = bento_beneath_open_abs(m->grant, 0);
        struct stat st;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || st.st_dev != m->grant_id.dev || st.st_ino != m->grant_id.ino) {
                close(fd);
                return -ESTALE;
        }
        return fd;
}

static int make_one(struct mount_point *m, struct bento_err *err)
{
        cleanup_close int root = open_grant(m);
        int r = root;

        if (root >= 0)
                r = bento_beneath_make(root, rel_of(m), m->dir, m->dir ? 0755 : 0644, 0, &m->id);
        if (r == 0)
                m->state = MOUNT_POINT_MADE;
        /* There now, so not bento's: the shield mounts over it, and it stays. */
        if (r == 0 || r == -EEXIST)
                return 0;
        return bento_err_set(err, -r,
                             "cannot create the shield mount point \"%s\" inside the write grant "
                             "\"%s\" without following a symlink",
                             m->path, m->grant);
}

int mount_points_make(struct mount_points *mp, struct bento_err *err)
{
        /* Deepest first within a grant: backwards, a parent comes first. */
        for (size_t i = mp->n; i-- > 0;) {
                int r = make_one(&mp->v[i], err);

                if (r < 0)
                        return r;
        }
        return 0;
}

static void remove_one(struct mount_point *m)
{
        cleanup_close int root = open_grant(m);
        int r = root;

        if (root >= 0)
                r = bento_beneath_remove(root, rel_of(m),
                                         m->state == MOUNT_POINT_MADE ? &m->id : NULL, 0);
        m->state = MOUNT_POINT_DONE;
        /* Gone already, or something was put into it: nothing to say.
         * Anything else means the name no longer leads to what was made. */
        if (r == 0 || r == -ENOENT || r == -ENOTEMPTY)
                return;
        fprintf(stderr,
                "[bento] note: the shield mount point \"%s\" was left in place: %s since it was "
                "made (%s)\n",
                m->path, r == -ESTALE ? "it or its grant was replaced" : "its path changed",
                strerror(-r));
}

void mount_points_remove(struct mount_points *mp)
{
        for (size_t i = 0; i < mp->n; i++)
                if (mp->v[i].state == MOUNT_POINT_MADE || mp->v[i].state == MOUNT_POINT_UNKNOWN)
                        remove_one(&mp->v[i]);
}

void mount_points_format_id(const struct bento_ident *id, char buf[48])
{
        snprintf(buf, 48, "%ju:%ju", (uintmax_t) id->dev, (uintmax_t) id->ino);
}

static int parse_id(const char *s, struct bento_ident *ret)
{
        uintmax_t dev, ino;
        int end = 0;

        if (sscanf(s, "%ju:%ju%n", &dev, &ino, &end) != 2 || s[end] != '\0' || (dev_t) dev != dev ||
            (ino_t) ino != ino)
                return -EINVAL;
        *ret = (struct bento_ident){.dev = (dev_t) dev, .ino = (ino_t) ino};
        return 0;
}

static bool clean_abs(const char *path)
{
        cleanup_free char *clean = path[0] == '/' ? path_clean(path) : NULL;

        return clean && strcmp(clean, path) == 0;
}

/* One path of the group opened by grant (NULL: no group yet). */
static int parse_path(struct mount_points *mp, const char *grant, const struct bento_ident *id,
                      const char *path, struct bento_err *err)
{
        if (!grant || !clean_abs(path) || !path_beneath(grant, path))
                return bento_err_setx(err, EINVAL,
                                      "\"%s\" is not a clean absolute path beneath a %s grant",
                                      path, MOUNT_POINTS_BENEATH);
        if (add_point(mp, path, grant, false) < 0)
                return bento_err_set(err, ENOMEM, "mount points");
        mp->v[mp->n - 1].state = MOUNT_POINT_UNKNOWN;
        mp->v[mp->n - 1].grant_id = *id;
        return 0;
}

int mount_points_parse(const char *const *argv, size_t n, struct mount_points *ret,
                       struct bento_err *err)
{
        struct mount_points mp = {0};
        struct bento_ident id = {0};
        const char *grant = NULL;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (strcmp(argv[i], MOUNT_POINTS_BENEATH) != 0) {
                        r = parse_path(&mp, grant, &id, argv[i], err);
                        continue;
                }
                if (i + 2 >= n || !clean_abs(argv[i + 1]) || parse_id(argv[i + 2], &id) < 0) {
                        r = bento_err_setx(err, EINVAL,
                                           "%s wants a clean absolute grant and its DEV:INO",
                                           MOUNT_POINTS_BENEATH);
                        break;
                }
                grant = argv[i + 1];
                i += 2;
        }
        if (r < 0) {
                mount_points_done(&mp);
                return r;
        }
        *ret = mp;
        return 0;
}

void mount_points_done(struct mount_points *mp)
{
        for (size_t i = 0; i < mp->n; i++) {
                free(mp->v[i].path);
                free(mp->v[i].grant);
        }
        free(mp->v);
        *mp = (struct mount_points){0};
}
