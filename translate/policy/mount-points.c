/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shield mount points in write grants: which are missing, creating them
 * for `bento run`, the poststop hook's arguments, and removing them again
 * without following anything the sandbox could have put in their place
 * (see mount-points.h).
 */
#include "mount-points.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "argv.h"
#include "cleanup.h"
#include "manifest/path.h"

/* Points are collected with repeats (shields in one checkout share their missing
 * parents; the hook's arguments are a bundle's) and folded once: a search per point
 * made 10,000 write grants, each with its workspace shields' points, quadratic. */
static int add_point(struct mount_points *mp, const char *path, const char *grant, bool dir)
{
        struct mount_point *v;

        if (mp->n == mp->cap) {
                size_t cap = mp->cap ? mp->cap * 2 : 16;

                v = reallocarray(mp->v, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                mp->v = v;
                mp->cap = cap;
        }
        v = &mp->v[mp->n];
        *v = (struct mount_point){.path = strdup(path), .grant = strdup(grant), .dir = dir};
        if (!v->path || !v->grant) {
                free(v->path);
                free(v->grant);
                return -ENOMEM;
        }
        v->found = mp->n;
        mp->n++;
        return 0;
}

static int cmp_path_then_order(const void *a, const void *b)
{
        const struct mount_point *x = *(const struct mount_point *const *) a;
        const struct mount_point *y = *(const struct mount_point *const *) b;
        int c = strcmp(x->path, y->path);

        return c ? c : x->found < y->found ? -1 : x->found > y->found;
}

/* One point per path, in the order they came: the first finding (its grant),
 * a directory when any finding was. */
static int fold_points(struct mount_points *mp)
{
        cleanup_free struct mount_point **by_path = NULL;
        cleanup_free bool *repeat = NULL;
        size_t o = 0;

        if (mp->n < 2)
                return 0;
        by_path = calloc(mp->n, sizeof(*by_path));
        repeat = calloc(mp->n, sizeof(*repeat));
        if (!by_path || !repeat)
                return -ENOMEM;
        for (size_t i = 0; i < mp->n; i++)
                by_path[i] = &mp->v[i];
        qsort(by_path, mp->n, sizeof(*by_path), cmp_path_then_order);
        for (size_t i = 1, first = 0; i < mp->n; i++) {
                if (strcmp(by_path[first]->path, by_path[i]->path) != 0) {
                        first = i;
                        continue;
                }
                by_path[first]->dir |= by_path[i]->dir;
                repeat[by_path[i] - mp->v] = true;
        }
        for (size_t i = 0; i < mp->n; i++) {
                if (!repeat[i]) {
                        mp->v[o++] = mp->v[i];
                        continue;
                }
                free(mp->v[i].path);
                free(mp->v[i].grant);
        }
        mp->n = o;
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

/* The grant's root as it is now, reached from root ("/", opened once for
 * every grant) without a symlink; 0:0 when it does not exist. */
static int grant_ident(int root, const char *grant, struct bento_ident *ret)
{
        cleanup_close int fd = bento_beneath_open_abs_at(root, grant, 0);
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
        cleanup_close int root = -1;
        int r = 0;

        /* Shields in one checkout share their missing parents. */
        path_cache_begin();
        for (size_t i = 0; r >= 0 && i < p->n_shield_mounts; i++)
                r = list_one(p, &p->shield_mounts[i], &mp, err);
        path_cache_end();
        if (r >= 0 && fold_points(&mp) < 0)
                r = bento_err_set(err, ENOMEM, "mount points");
        if (mp.n)
                qsort(mp.v, mp.n, sizeof(*mp.v), cmp_points);
        for (size_t i = 0; r >= 0 && i < mp.n; i++) {
                /* sorted by grant: a grant's points are opened once */
                if (i > 0 && strcmp(mp.v[i].grant, mp.v[i - 1].grant) == 0) {
                        mp.v[i].grant_id = mp.v[i - 1].grant_id;
                        continue;
                }
                if (root < 0 && (root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                        r = -errno;
                else
                        r = grant_ident(root, mp.v[i].grant, &mp.v[i].grant_id);
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

/* The directory holding path, reached from root without a symlink and
 * held (point-locks.h) before anything in it is looked at or made.  A
 * failure to lock fills err; one to reach the directory does not.  It is
 * root itself for a name right in root; one opened is in *own too, for the
 * caller to close. */
static int open_held_dir(int root, const char *grant, const char *path, struct point_locks *l,
                         char name[NAME_MAX + 1], int *own, struct bento_err *err)
{
        const char *rel = path + strlen(grant);
        cleanup_free char *dir = strndup(path, (size_t) (strrchr(path, '/') - path));
        char parent[PATH_MAX];
        int fd, r = bento_beneath_split(rel + strspn(rel, "/"), parent, name);

        *own = -1;
        if (r < 0)
                return r;
        /* A point right in the grant's root is made in root itself:
         * opening its "." again would only give the same directory. */
        fd = parent[0] ? (*own = bento_beneath_open(root, parent, 0)) : root;
        if (fd < 0)
                return fd;
        r = dir ? point_locks_hold(l, fd, dir[0] ? dir : "/", err)
                : bento_err_set(err, ENOMEM, "mount points");
        return r < 0 ? r : fd;
}

/* m made in its grant's root (open_grant(), or its failure). */
static int make_one(struct mount_point *m, int root, struct point_locks *l, struct bento_err *err)
{
        cleanup_close int own = -1;
        char name[NAME_MAX + 1];
        int dir = root >= 0 ? open_held_dir(root, m->grant, m->path, l, name, &own, err) : root;
        int r = dir;

        if (r < 0 && err->code)
                return r; /* the lock's failure, already said */
        if (r >= 0)
                r = bento_beneath_make(dir, name, m->dir, m->dir ? 0755 : 0644, 0, &m->id);
        if (r == 0) {
                m->state = MOUNT_POINT_MADE;
                return point_locks_register(l, dir, name, &m->id, err);
        }
        /* There now, so not bento's: the shield mounts over it, and it stays. */
        if (r == -EEXIST)
                return 0;
        return bento_err_set(err, -r,
                             "cannot create the shield mount point \"%s\" inside the write grant "
                             "\"%s\" without following a symlink",
                             m->path, m->grant);
}

int mount_points_make(struct mount_points *mp, struct point_locks *l, struct bento_err *err)
{
        cleanup_close int root = -1;

        /* Deepest first within a grant: backwards, a parent comes first.
         * Sorted by grant, a grant's points are made one after another:
         * its root is opened, and found to be the directory they were
         * listed in, once for all of them (it was four system calls a
         * point). */
        for (size_t i = mp->n; i-- > 0;) {
                int r;

                if (i + 1 == mp->n || strcmp(mp->v[i].grant, mp->v[i + 1].grant) != 0) {
                        if (root >= 0)
                                close(root);
                        root = open_grant(&mp->v[i]);
                }
                r = make_one(&mp->v[i], root, l, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* One pass over the shield targets: "/" and the root of the grant the
 * last target was in, each opened once for the targets that share it
 * (all of a grant's are in a row), and whether that root is held yet. */
struct hold_pass {
        int root;          /* "/", or -1 */
        const char *grant; /* whose root gfd is, NULL before the first */
        int gfd;           /* that root, or -errno */
        bool held;         /* gfd is held (point-locks.h) */
};

static void hold_pass_done(struct hold_pass *hp)
{
        if (hp->root >= 0)
                close(hp->root);
        if (hp->gfd >= 0)
                close(hp->gfd);
}

/* grant's root, reached from "/" without a symlink when the last target
 * was in another grant, else the one opened for it. */
static int pass_grant(struct hold_pass *hp, const char *grant)
{
        if (hp->grant && strcmp(hp->grant, grant) == 0)
                return hp->gfd;
        if (hp->gfd >= 0)
                close(hp->gfd);
        hp->grant = grant;
        hp->held = false;
        if (hp->root < 0 && (hp->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                hp->gfd = -errno;
        else
                hp->gfd = bento_beneath_open_abs_at(hp->root, grant, 0);
        return hp->gfd;
}

/* Hold every directory from the grant's root down to the one holding
 * path, as far as they exist: a shield mounts on path, and those between
 * are pinned (bound onto themselves, compile/mounts.c), so a name in each
 * is a mount point of this run.  Returns the deepest one reached or
 * -errno (err filled when a lock failed); *whole: it holds path; *owned:
 * the caller closes it (not when it is the pass's grant root). */
static int hold_chain(struct hold_pass *hp, const char *grant, const char *path,
                      struct point_locks *l, bool *whole, bool *owned, struct bento_err *err)
{
        cleanup_free char *cur = NULL;
        size_t len = strlen(grant);
        int fd = pass_grant(hp, grant);

        *whole = *owned = false;
        cur = strdup(path);
        while (fd >= 0) {
                const char *next = path + len + strspn(path + len, "/");
                size_t n = strcspn(next, "/");
                char name[NAME_MAX + 1];
                int r = 0, sub;

                if (!cur)
                        r = bento_err_set(err, ENOMEM, "mount points");
                else if (*owned || !hp->held) {
                        cur[len] = '\0';
                        r = point_locks_hold(l, fd, cur[0] ? cur : "/", err);
                        cur[len] = path[len];
                        hp->held |= r >= 0 && !*owned;
                }
                if (r < 0 || next[n] == '\0' || n > NAME_MAX) {
                        *whole = r >= 0 && next[n] == '\0';
                        if ((r < 0 || n > NAME_MAX) && *owned)
                                close(fd);
                        return r < 0 ? r : n > NAME_MAX ? -ENAMETOOLONG : fd;
                }
                memcpy(name, next, n);
                name[n] = '\0';
                sub = bento_beneath_open(fd, name, 0);
                if (*owned)
                        close(fd);
                fd = sub;
                *owned = true;
                len = (size_t) (next - path) + n;
        }
        return fd;
}

/* One shield mount in a write grant: its directories held; with
 * must_exist, the mount point must be there (it was, or bento made it). */
static int hold_target(struct hold_pass *hp, const char *grant, const char *path,
                       struct point_locks *l, bool must_exist, struct bento_err *err)
{
        bool whole, owned;
        int dir = hold_chain(hp, grant, path, l, &whole, &owned, err);
        cleanup_close int mine = owned ? dir : -1;
        struct stat st;

        if (dir < 0 && err->code)
                return dir;
        /* Reached through a symlink: nothing of bento's can be there, and
         * the runtime's own checks say what is wrong. */
        if (!must_exist || dir == -ELOOP || dir == -ENOTDIR)
                return 0;
        if (dir < 0 || !whole || fstatat(dir, strrchr(path, '/') + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return bento_err_setx(err, ESTALE,
                                      "the shield mount point \"%s\" went away while the run was "
                                      "being prepared",
                                      path);
        return 0;
}

int mount_points_hold(const struct policy *p, struct point_locks *l, bool must_exist,
                      struct bento_err *err)
{
        /* "/" and each grant's root opened, and that root held, once a
         * pass rather than once a target (the typical run's four
         * workspace shields share one grant) */
        __attribute__((cleanup(hold_pass_done))) struct hold_pass hp = {.root = -1, .gfd = -1};

        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const char *path = p->shield_mounts[i].path;
                const char *grant = policy_holding_write(p, path);
                int r = grant && path_beneath(grant, path)
                            ? hold_target(&hp, grant, path, l, must_exist, err)
                            : 0;

                if (r < 0)
                        return r;
        }
        return 0;
}

/* The hook's point: whatever empty-able object is at the name now is
 * recorded, for whichever run is the last in its directory. */
static void hand_over_one(const struct mount_point *m, struct point_locks *l)
{
        cleanup_close int root = open_grant(m);
        cleanup_close int own = -1;
        struct bento_err err = {0};
        char name[NAME_MAX + 1];
        struct stat st;
        int dir = root >= 0 ? open_held_dir(root, m->grant, m->path, l, name, &own, &err) : root;

        if (dir < 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (err.code)
                        fprintf(stderr, "[bento] note: \"%s\" was left in place: %s\n", m->path,
                                err.msg);
                return;
        }
        if ((S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
            point_locks_register(l, dir, name, &(struct bento_ident){st.st_dev, st.st_ino}, &err) <
                0)
                fprintf(stderr, "[bento] note: \"%s\" was left in place: %s\n", m->path, err.msg);
}

void mount_points_hand_over(const struct mount_points *mp, struct point_locks *l)
{
        for (size_t i = 0; i < mp->n; i++)
                hand_over_one(&mp->v[i], l);
}

void mount_points_format_id(const struct bento_ident *id, char buf[48])
{
        snprintf(buf, 48, "%ju:%ju", (uintmax_t) id->dev, (uintmax_t) id->ino);
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

enum { HOOK_BENEATH = 1 };

/* The hook's one option; its arguments are data a bundle carries, so
 * they are read by the parser every verb uses, without a --help. */
static const struct bento_opt hook_opts[] = {
    {"beneath", 0, BENTO_OPT_VALUE, HOOK_BENEATH, "GRANT", NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int group_refused(struct bento_err *err)
{
        return bento_err_setx(err, EINVAL, "%s wants a clean absolute grant and its DEV:INO",
                              MOUNT_POINTS_BENEATH);
}

/* After "--beneath GRANT": the grant's DEV:INO, the next word. */
static int parse_group(struct bento_argv *a, const char *grant, struct bento_ident *id,
                       struct bento_err *err)
{
        struct bento_argv_hit h;

        if (!clean_abs(grant) || bento_argv_next(a, hook_opts, &h, err) <= 0 ||
            h.id != BENTO_ARGV_OPERAND || point_ident_parse(h.value, strlen(h.value), id) < 0)
                return group_refused(err);
        return 0;
}

int mount_points_parse(const char *const *argv, size_t n, struct mount_points *ret,
                       struct bento_err *err)
{
        struct mount_points mp = {0};
        struct bento_ident id = {0};
        struct bento_argv a;
        struct bento_argv_hit h;
        const char *grant = NULL;
        int r;

        if (n >= INT_MAX)
                return bento_err_setx(err, E2BIG, "too many mount point arguments");
        /* argv[-1] (the verb) is never read: parsing starts at index 1 */
        a = (struct bento_argv){
            .argc = (int) n + 1, .argv = (char **) (argv - 1), .i = 1, .mixed = true};
        while ((r = bento_argv_next(&a, hook_opts, &h, err)) > 0) {
                if (h.id == HOOK_BENEATH) {
                        grant = h.value;
                        r = parse_group(&a, grant, &id, err);
                } else {
                        r = parse_path(&mp, grant, &id, h.value, err);
                }
                if (r < 0)
                        break;
        }
        if (r < 0 && a.fault == BENTO_ARGV_NEEDS_VALUE)
                r = group_refused(err);
        else if (r < 0 && a.fault != BENTO_ARGV_OK)
                r = bento_err_setx(err, EINVAL,
                                   "\"%s\" is not a clean absolute path beneath a %s grant",
                                   a.bad ? a.bad : "", MOUNT_POINTS_BENEATH);
        if (r >= 0 && fold_points(&mp) < 0)
                r = bento_err_set(err, ENOMEM, "mount points");
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
