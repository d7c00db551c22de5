/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The locks and records that keep one run from removing a shield mount
 * point another live run is using (see point-locks.h): the strict record
 * format, the private directory, the shared locks, and the sweep the last
 * user of a directory makes.
 */
#include "point-locks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "manifest/path.h"
#include "private-dir.h"

#define HEADER       "bento-mount-points 1\n"
#define RECORD_MAX   (256u << 10)
#define RECORDS_MAX  256
#define LOCK_RETRIES 16

static bool name_ok(const char *s, size_t len)
{
        if (len == 0 || len > NAME_MAX || memchr(s, '/', len) || memchr(s, '\n', len))
                return false;
        return !(len == 1 && s[0] == '.') && !(len == 2 && s[0] == '.' && s[1] == '.');
}

/* Decimal digits only, no leading zero: what "%ju" prints. */
static int parse_num(const char *s, size_t len, uintmax_t *ret)
{
        uintmax_t v = 0;

        if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9' || v > (UINTMAX_MAX - (uintmax_t) (s[i] - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (uintmax_t) (s[i] - '0');
        }
        *ret = v;
        return 0;
}

int point_ident_parse(const char *s, size_t len, struct bento_ident *ret)
{
        const char *colon = memchr(s, ':', len);
        uintmax_t dev, ino;

        if (!colon || parse_num(s, (size_t) (colon - s), &dev) < 0 ||
            parse_num(colon + 1, len - (size_t) (colon - s) - 1, &ino) < 0 || (dev_t) dev != dev ||
            (ino_t) ino != ino)
                return -EINVAL;
        *ret = (struct bento_ident){.dev = (dev_t) dev, .ino = (ino_t) ino};
        return 0;
}

int point_registry_add(struct point_registry *r, const char *name, const struct bento_ident *id)
{
        struct point_entry *v;

        if (!name_ok(name, strlen(name)))
                return -EINVAL;
        for (size_t i = 0; i < r->n; i++)
                if (strcmp(r->v[i].name, name) == 0 && r->v[i].id.dev == id->dev &&
                    r->v[i].id.ino == id->ino)
                        return 0;
        if (r->n >= POINT_REGISTRY_MAX)
                return -E2BIG;
        v = reallocarray(r->v, r->n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        r->v = v;
        v[r->n] = (struct point_entry){.name = strdup(name), .id = *id};
        if (!v[r->n].name)
                return -ENOMEM;
        r->n++;
        return 0;
}

/* "point DEV:INO NAME" without its newline. */
static int parse_point(const char *s, size_t len, struct point_registry *r)
{
        const char *sp;
        struct bento_ident id;
        char name[NAME_MAX + 1];

        if (len < 6 || memcmp(s, "point ", 6) != 0)
                return -EINVAL;
        s += 6, len -= 6;
        sp = memchr(s, ' ', len);
        if (!sp || point_ident_parse(s, (size_t) (sp - s), &id) < 0 ||
            !name_ok(sp + 1, len - (size_t) (sp - s) - 1))
                return -EINVAL;
        memcpy(name, sp + 1, len - (size_t) (sp - s) - 1);
        name[len - (size_t) (sp - s) - 1] = '\0';
        return point_registry_add(r, name, &id);
}

/* "dir PATH" without its newline: absolute and clean. */
static int parse_dir(const char *s, size_t len, struct point_registry *r)
{
        cleanup_free char *clean = NULL;

        if (len < 5 || memcmp(s, "dir /", 5) != 0)
                return -EINVAL;
        r->dir = strndup(s + 4, len - 4);
        if (!r->dir)
                return -ENOMEM;
        clean = path_clean(r->dir);
        return clean && strcmp(clean, r->dir) == 0 ? 0 : -EINVAL;
}

int point_registry_parse(const char *text, size_t len, struct point_registry *ret,
                         struct bento_err *err)
{
        struct point_registry r = {0};
        size_t hl = strlen(HEADER), line = 1;
        const char *p = text + hl, *end = text + len;
        int e = 0;

        if (len < hl || memcmp(text, HEADER, hl) != 0 || memchr(text, '\0', len) ||
            text[len - 1] != '\n')
                e = -EINVAL;
        while (e == 0 && p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));

                line++;
                e = line == 2 ? parse_dir(p, (size_t) (nl - p), &r)
                              : parse_point(p, (size_t) (nl - p), &r);
                p = nl + 1;
        }
        if (e == 0 && !r.dir)
                e = -EINVAL;
        if (e < 0) {
                point_registry_done(&r);
                return e == -ENOMEM ? bento_err_set(err, ENOMEM, "mount point record")
                                    : bento_err_setx(err, EINVAL,
                                                     "not a mount point record (line %zu)", line);
        }
        *ret = r;
        return 0;
}

char *point_registry_format(const struct point_registry *r)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        fprintf(f, "%sdir %s\n", HEADER, r->dir);
        for (size_t i = 0; i < r->n; i++)
                fprintf(f, "point %ju:%ju %s\n", (uintmax_t) r->v[i].id.dev,
                        (uintmax_t) r->v[i].id.ino, r->v[i].name);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

void point_registry_done(struct point_registry *r)
{
        for (size_t i = 0; i < r->n; i++)
                free(r->v[i].name);
        free(r->v);
        free(r->dir);
        *r = (struct point_registry){0};
}

/* /run/bento/mount-points as root; $XDG_RUNTIME_DIR/bento/mount-points or
 * /tmp/bento-UID/mount-points otherwise. */
static int open_private(struct point_locks *l, struct bento_err *err)
{
        cleanup_close int dir =
            bento_private_dir("mount-points", "who removes shield mount points", err);

        return dir < 0 ? dir : point_locks_open_at(l, dir, err);
}

int point_locks_open_at(struct point_locks *l, int dirfd, struct bento_err *err)
{
        unsigned long long rnd = 0;

        l->dirfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (l->dirfd < 0)
                return bento_err_set(err, errno, "mount point locks");
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd))
                rnd = (unsigned long long) (uintptr_t) l ^ (unsigned long long) getppid();
        snprintf(l->tag, sizeof(l->tag), "%d-%016llx", (int) getpid(), rnd);
        return 0;
}

static void key_name(const struct bento_ident *k, const char *suffix, char *buf, size_t size)
{
        snprintf(buf, size, "%ju-%ju.%s", (uintmax_t) k->dev, (uintmax_t) k->ino, suffix);
}

/* This run's record for the key: KEY.TAG.points. */
static void record_name(const struct point_locks *l, const struct point_lock *lk, char *buf,
                        size_t size)
{
        snprintf(buf, size, "%ju-%ju.%s.points", (uintmax_t) lk->key.dev, (uintmax_t) lk->key.ino,
                 l->tag);
}

/* Open the key's lock file and take how on it.  The last user removes the
 * file as it leaves: a lock on a file no longer at the name is no lock,
 * so that is tried again. */
static int open_lock(int dirfd, const char *name, int how)
{
        for (int tries = 0; tries < LOCK_RETRIES; tries++) {
                cleanup_close int fd = openat(
                    dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
                struct stat a, b;

                if (fd < 0)
                        return -errno;
                if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode))
                        return -EINVAL;
                while (flock(fd, how) < 0)
                        if (errno != EINTR)
                                return -errno;
                if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
                    a.st_ino == b.st_ino)
                        return TAKE_FD(fd);
        }
        return -EAGAIN;
}

static struct point_lock *find(struct point_locks *l, const struct bento_ident *k)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].key.dev == k->dev && l->v[i].key.ino == k->ino)
                        return &l->v[i];
        return NULL;
}

static int key_of(int dfd, struct bento_ident *k)
{
        struct stat st;

        if (fstat(dfd, &st) < 0)
                return -errno;
        *k = (struct bento_ident){.dev = st.st_dev, .ino = st.st_ino};
        return 0;
}

/* Each directory holding shield mount points costs a descriptor (and
 * another while bento-runtime's copies are made): say which limit it was. */
static int too_many_locks(const struct point_locks *l, const char *path, struct bento_err *err)
{
        struct rlimit rl = {0};

        getrlimit(RLIMIT_NOFILE, &rl);
        return bento_err_setx(err, EMFILE,
                              "cannot lock the shield mount points in \"%s\": %zu directories "
                              "hold them already, one open file each, and the open file limit "
                              "(RLIMIT_NOFILE) is %llu; raise it (ulimit -n) or grant fewer "
                              "directories",
                              path, l->n, (unsigned long long) rl.rlim_cur);
}

int point_locks_hold(struct point_locks *l, int dfd, const char *path, struct bento_err *err)
{
        struct bento_ident k = {0};
        struct point_lock *v;
        char name[64];
        int fd, r = key_of(dfd, &k);

        if (r < 0)
                return bento_err_set(err, -r, "\"%s\"", path);
        if (find(l, &k))
                return 0;
        if (!l->tag[0] && (r = open_private(l, err)) < 0)
                return r;
        v = reallocarray(l->v, l->n + 1, sizeof(*v));
        if (!v)
                return bento_err_set(err, ENOMEM, "mount point locks");
        l->v = v;
        key_name(&k, "lock", name, sizeof(name));
        fd = open_lock(l->dirfd, name, LOCK_SH);
        if (fd == -EMFILE)
                return too_many_locks(l, path, err);
        if (fd < 0)
                return bento_err_set(err, -fd, "cannot lock the shield mount points in \"%s\"",
                                     path);
        v[l->n] = (struct point_lock){.key = k, .fd = fd, .mine = {.dir = strdup(path)}};
        if (!v[l->n].mine.dir) {
                close(fd);
                return bento_err_set(err, ENOMEM, "mount point locks");
        }
        l->n++;
        return 0;
}

static int write_record(struct point_locks *l, const struct point_lock *lk,
                        const struct point_registry *r, struct bento_err *err)
{
        cleanup_free char *text = point_registry_format(r);
        char name[128];

        record_name(l, lk, name, sizeof(name));
        if (!text)
                return bento_err_set(err, ENOMEM, "mount point record");
        return bento_write_file_atomic_at(l->dirfd, name, text, strlen(text), 0600, err);
}

int point_locks_register(struct point_locks *l, int dfd, const char *name,
                         const struct bento_ident *id, struct bento_err *err)
{
        struct bento_ident k = {0};
        struct point_lock *lk;
        int r = key_of(dfd, &k);

        lk = r < 0 ? NULL : find(l, &k);
        if (!lk)
                return bento_err_setx(err, EINVAL, "\"%s\" is in no directory bento holds", name);
        r = point_registry_add(&lk->mine, name, id);
        if (r < 0)
                return bento_err_set(err, -r, "cannot record the mount point \"%s/%s\"",
                                     lk->mine.dir, name);
        return write_record(l, lk, &lk->mine, err);
}

size_t point_locks_fds(const struct point_locks *l, int *fds, size_t max)
{
        size_t n = 0;

        for (size_t i = 0; i < l->n && n < max; i++)
                fds[n++] = l->v[i].fd;
        return n;
}

/* Is name one of key's records: KEY.TAG.points, TAG digits, '-' and hex? */
static bool is_record(const char *name, const char *prefix)
{
        size_t pl = strlen(prefix), len = strlen(name), sl = strlen(".points");

        if (len <= pl + sl || strncmp(name, prefix, pl) != 0 ||
            strcmp(name + len - sl, ".points") != 0)
                return false;
        return strspn(name + pl, "0123456789abcdef-") == len - pl - sl;
}

/* The names of key's records in the private directory (at most
 * RECORDS_MAX: the rest wait for the next sweep). */
static char **list_records(struct point_locks *l, const struct point_lock *lk)
{
        char prefix[64];
        int fd = openat(l->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_dir DIR *d = fd < 0 ? NULL : fdopendir(fd);
        cleanup_strv char **v = calloc(RECORDS_MAX + 1, sizeof(char *));
        struct dirent *e;
        size_t n = 0;

        if (!d || !v) {
                if (fd >= 0 && !d)
                        close(fd);
                return NULL;
        }
        key_name(&lk->key, "", prefix, sizeof(prefix));
        while (n < RECORDS_MAX && (e = readdir(d)))
                if (is_record(e->d_name, prefix) && !(v[n++] = strdup(e->d_name)))
                        return NULL;
        return TAKE_PTR(v);
}

/* The directory of the key, reached by one of the paths the runs knew it
 * by, and still that directory. */
static int open_key_dir(const struct point_lock *lk, const struct point_registry *recs, size_t n)
{
        for (size_t i = 0; i <= n; i++) {
                const char *path = i == 0 ? lk->mine.dir : recs[i - 1].dir;
                int fd = path ? bento_beneath_open_abs(path, 0) : -EINVAL;
                struct bento_ident k = {0};

                if (fd >= 0 && key_of(fd, &k) == 0 && k.dev == lk->key.dev && k.ino == lk->key.ino)
                        return fd;
                if (fd >= 0)
                        close(fd);
        }
        return -ESTALE;
}

/* Remove one registered point; what must wait (not empty, busy) goes to
 * kept. */
static void sweep_entry(int dfd, const char *dir, const struct point_entry *e,
                        struct point_registry *kept)
{
        int r = bento_beneath_remove(dfd, e->name, &e->id, 0);

        if (r == 0 || r == -ENOENT)
                return;
        if (r == -ENOTEMPTY || r == -EBUSY) {
                (void) point_registry_add(kept, e->name, &e->id);
                return;
        }
        fprintf(stderr,
                "[bento] note: the shield mount point \"%s/%s\" was left in place: %s since it "
                "was made (%s)\n",
                dir, e->name, r == -ESTALE ? "it was replaced" : "its path changed", strerror(-r));
}

static void read_records(struct point_locks *l, char **names, struct point_registry *recs)
{
        for (size_t i = 0; names[i]; i++) {
                cleanup_free char *text = NULL;
                struct bento_err err = {0};
                size_t len;

                if (bento_read_file_at(l->dirfd, names[i], RECORD_MAX, &text, &len, &err) < 0 ||
                    point_registry_parse(text, len, &recs[i], &err) < 0)
                        fprintf(stderr, "[bento] note: dropping the record \"%s\": %s\n", names[i],
                                err.msg);
        }
}

/* Holding LOCK_EX: no other run uses the directory.  Every record of it
 * is merged into this run's, what can go is removed, the rest is kept in
 * this run's record for the next sweep.  Returns whether nothing is left. */
static bool sweep(struct point_locks *l, struct point_lock *lk)
{
        cleanup_strv char **names = list_records(l, lk);
        size_t n = 0;
        struct point_registry *recs, kept = {0};
        cleanup_close int dfd = -1;
        struct bento_err err = {0};
        char mine[128];
        bool empty;

        while (names && names[n])
                n++;
        recs = calloc(n + 1, sizeof(*recs));
        if (!names || !recs || !(kept.dir = strdup(lk->mine.dir))) {
                free(recs);
                point_registry_done(&kept);
                return false; /* out of memory: the records stay for the next sweep */
        }
        read_records(l, names, recs);
        dfd = open_key_dir(lk, recs, n);
        /* This run's own record is among them: it was written as each
         * point was made. */
        for (size_t i = 0; dfd >= 0 && i < n; i++)
                for (size_t j = 0; j < recs[i].n; j++)
                        sweep_entry(dfd, kept.dir, &recs[i].v[j], &kept);
        record_name(l, lk, mine, sizeof(mine));
        empty = kept.n == 0;
        if (empty || write_record(l, lk, &kept, &err) < 0)
                (void) unlinkat(l->dirfd, mine, 0);
        for (size_t i = 0; i < n; i++) {
                if (strcmp(names[i], mine) != 0)
                        (void) unlinkat(l->dirfd, names[i], 0);
                point_registry_done(&recs[i]);
        }
        free(recs);
        point_registry_done(&kept);
        return empty;
}

/* Deepest directory first: a point inside another goes before it. */
static int cmp_depth(const void *a, const void *b)
{
        size_t x = strlen(((const struct point_lock *) a)->mine.dir);
        size_t y = strlen(((const struct point_lock *) b)->mine.dir);

        return x < y ? 1 : x > y ? -1 : 0;
}

void point_locks_release(struct point_locks *l)
{
        if (l->n)
                qsort(l->v, l->n, sizeof(*l->v), cmp_depth);
        for (size_t i = 0; i < l->n; i++) {
                struct point_lock *lk = &l->v[i];

                /* A failed conversion drops the shared lock too: this run
                 * is done with the directory either way. */
                if (flock(lk->fd, LOCK_EX | LOCK_NB) == 0) {
                        char name[64];

                        key_name(&lk->key, "lock", name, sizeof(name));
                        if (sweep(l, lk))
                                (void) unlinkat(l->dirfd, name, 0);
                        /* The runtime shares the descriptor: let go now. */
                        (void) flock(lk->fd, LOCK_UN);
                }
                close(lk->fd);
                point_registry_done(&lk->mine);
        }
        free(l->v);
        if (l->tag[0])
                close(l->dirfd);
        *l = (struct point_locks){0};
}
