/* SPDX-License-Identifier: Apache-2.0 */
/* A run's claim on the directories it makes, and the sweep of the claims
 * killed runs left (claim.h). */
#include "claim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "manifest/path.h"
#include "policy/point-locks.h"
#include "policy/private-dir.h"
#include "run.h"
#include "manifest/self.h"

#define CLAIM_HEADER "bento-run-claim 1\n"
#define CLAIM_SUFFIX ".claim"
#define CLAIM_MAX    (16u << 10)
#define CLAIM_TRIES  16
#define RANDOM_CHARS 6

static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Six characters of [A-Za-z0-9], as mkdtemp() would pick. */
static void random_name(char out[RANDOM_CHARS + 1])
{
        unsigned char rnd[RANDOM_CHARS];

        if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
                /* no entropy yet (early boot): the names need only be unlikely to meet */
                struct timespec ts;
                uint64_t x;

                clock_gettime(CLOCK_MONOTONIC, &ts);
                x = (uint64_t) ts.tv_nsec ^ ((uint64_t) getpid() << 32) ^ (uint64_t) ts.tv_sec;
                for (size_t i = 0; i < sizeof(rnd); i++, x = x * 6364136223846793005ULL + 1)
                        rnd[i] = (unsigned char) (x >> 56);
        }
        for (size_t i = 0; i < RANDOM_CHARS; i++)
                out[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
        out[RANDOM_CHARS] = '\0';
}

/* A name bento gives its run directories: bento-XXXXXX or
 * bento-run-XXXXXX. */
static bool run_dir_name(const char *name)
{
        const char *tail = strncmp(name, "bento-run-", 10) == 0 ? name + 10
                           : strncmp(name, "bento-", 6) == 0    ? name + 6
                                                                : NULL;

        return tail && strlen(tail) == RANDOM_CHARS && strspn(tail, alnum) == RANDOM_CHARS;
}

/* ---- the sweep ---- */

size_t run_claim_parse(const char *text, size_t len, struct run_claimed *v, size_t max)
{
        size_t hl = strlen(CLAIM_HEADER), n = 0;
        const char *p = text + hl, *end = text + len;

        if (len < hl || memcmp(text, CLAIM_HEADER, hl) != 0 || memchr(text, '\0', len))
                return 0;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t l = nl ? (size_t) (nl - p) : 0;

                if (!nl)
                        break;
                if (l > 5 && memcmp(p, "dir /", 5) == 0 && n < max) {
                        char *path = strndup(p + 4, l - 4);
                        cleanup_free char *clean = path ? path_clean(path) : NULL;
                        const char *base = path ? strrchr(path, '/') + 1 : NULL;

                        if (!clean || strcmp(clean, path) != 0 || !run_dir_name(base)) {
                                free(path);
                                break;
                        }
                        v[n++] = (struct run_claimed){.path = path};
                } else if (l > 6 && memcmp(p, "ident ", 6) == 0 && n > 0 && !v[n - 1].has_id &&
                           point_ident_parse(p + 6, l - 6, &v[n - 1].id) == 0) {
                        v[n - 1].has_id = true;
                } else {
                        break;
                }
                p = nl + 1;
        }
        return n;
}

/* Remove one claimed directory: reached without a symlink, this user's,
 * and with an identity that very object (emptied first), else only when
 * it is empty. */
static void remove_claimed(const struct run_claimed *c)
{
        cleanup_free char *parent = strndup(c->path, (size_t) (strrchr(c->path, '/') - c->path));
        const char *name = strrchr(c->path, '/') + 1;
        cleanup_close int pfd = -1;
        struct stat st;

        if (!parent)
                return;
        pfd = bento_beneath_open_abs(parent[0] ? parent : "/", 0);
        if (pfd < 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != bento_euid())
                return;
        if (c->has_id) {
                cleanup_close int fd =
                    openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != c->id.dev ||
                    st.st_ino != c->id.ino)
                        return;
                run_remove_tree_at(fd, st.st_dev);
        }
        (void) unlinkat(pfd, name, AT_REMOVEDIR);
}

/* One claim: when no run holds it, its directories and then itself. */
static void sweep_claim(int dirfd, const char *name)
{
        cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct run_claimed v[RUN_CLAIM_DIRS];
        char text[CLAIM_MAX];
        struct stat a, b;
        ssize_t len;
        size_t n;

        if (fd < 0 || fstat(fd, &a) < 0 || !S_ISREG(a.st_mode) || a.st_uid != bento_euid() ||
            flock(fd, LOCK_EX | LOCK_NB) < 0)
                return;
        /* still the file at the name: another sweeper may have removed it */
        if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
                return;
        len = pread(fd, text, sizeof(text), 0);
        n = len > 0 ? run_claim_parse(text, (size_t) len, v, RUN_CLAIM_DIRS) : 0;
        for (size_t i = 0; i < n; i++) {
                remove_claimed(&v[i]);
                free(v[i].path);
        }
        (void) unlinkat(dirfd, name, 0);
}

static bool claim_file_name(const char *name)
{
        size_t l = strlen(name), sl = strlen(CLAIM_SUFFIX);

        return l > sl && strcmp(name + l - sl, CLAIM_SUFFIX) == 0;
}

void run_claims_sweep(int dirfd)
{
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_dir DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *de;

        if (!dir) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        while ((de = readdir(dir)))
                if (claim_file_name(de->d_name))
                        sweep_claim(dirfd, de->d_name);
}

/* ---- this run's claim ---- */

/* Create, lock and verify one claim file in dirfd: 1 when taken, 0 when
 * the name was taken or swept before the lock held, -errno otherwise. */
static int claim_try(struct run_claim *c, int dirfd)
{
        char rnd[RANDOM_CHARS + 1];
        cleanup_close int fd = -1;
        struct stat a, b;

        random_name(rnd);
        snprintf(c->name, sizeof(c->name), "%d-%s%s", (int) getpid(), rnd, CLAIM_SUFFIX);
        fd = openat(dirfd, c->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return errno == EEXIST ? 0 : -errno;
        while (flock(fd, LOCK_SH) < 0)
                if (errno != EINTR)
                        return -errno;
        /* a sweep may have taken the still empty claim for a dead run's */
        if (fstat(fd, &a) < 0 || fstatat(dirfd, c->name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
            a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                return 0;
        if (pwrite(fd, CLAIM_HEADER, strlen(CLAIM_HEADER), 0) != (ssize_t) strlen(CLAIM_HEADER))
                return errno ? -errno : -EIO;
        c->len = (off_t) strlen(CLAIM_HEADER);
        c->fd = TAKE_FD(fd);
        return 1;
}

int run_claim_take_at(struct run_claim *c, int dirfd, struct bento_err *err)
{
        cleanup_close int own = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (own < 0)
                return bento_err_set(err, errno, "cannot open bento's private directory");
        run_claims_sweep(own);
        for (int tries = 0; tries < CLAIM_TRIES; tries++) {
                int r = claim_try(c, own);

                if (r < 0)
                        return bento_err_set(err, -r,
                                             "cannot take the run's claim in bento's "
                                             "private directory");
                if (r > 0) {
                        c->dirfd = TAKE_FD(own);
                        c->held = true;
                        return 0;
                }
        }
        return bento_err_setx(err, EAGAIN, "cannot take a claim for the run's directories");
}

int run_claim_take(struct run_claim *c, struct bento_err *err)
{
        cleanup_close int dirfd =
            bento_private_dir("runs", "which run directories a killed run left", err);

        return dirfd < 0 ? dirfd : run_claim_take_at(c, dirfd, err);
}

static int claim_append(struct run_claim *c, const char *line)
{
        size_t l = strlen(line);

        if (c->len + (off_t) l > (off_t) CLAIM_MAX)
                return -E2BIG;
        if (pwrite(c->fd, line, l, c->len) != (ssize_t) l)
                return errno ? -errno : -EIO;
        c->len += (off_t) l;
        return 0;
}

int run_claim_mkdir(struct run_claim *c, const char *parent, const char *prefix, char **ret,
                    struct bento_err *err)
{
        cleanup_free char *real = NULL;

        /* the sweep reaches it without a symlink: the claim names it so */
        if (path_resolve(parent, &real) < 0)
                return bento_err_set(err, ENOMEM, "run directory");
        for (int tries = 0; tries < CLAIM_TRIES; tries++) {
                char rnd[RANDOM_CHARS + 1], line[PATH_MAX + 64];
                cleanup_free char *path = NULL, *claimed = NULL;
                cleanup_close int fd = -1;
                off_t before = c->len;
                struct stat st;
                int r;

                random_name(rnd);
                if (asprintf(&path, "%s/%s%s", parent, prefix, rnd) < 0)
                        path = NULL;
                if (asprintf(&claimed, "%s/%s%s", strcmp(real, "/") == 0 ? "" : real, prefix, rnd) <
                    0)
                        claimed = NULL;
                if (!path || !claimed)
                        return bento_err_set(err, ENOMEM, "run directory");
                snprintf(line, sizeof(line), "dir %s\n", claimed);
                r = claim_append(c, line);
                if (r < 0)
                        return bento_err_set(err, -r, "cannot write the run's claim");
                if (mkdir(path, 0700) < 0) {
                        int e = errno;

                        c->len = before;
                        if (ftruncate(c->fd, before) < 0)
                                return bento_err_set(err, errno, "cannot write the run's claim");
                        if (e == EEXIST)
                                continue;
                        return bento_err_set(err, e, "cannot create a directory in \"%s\"", parent);
                }
                fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || fstat(fd, &st) < 0)
                        return bento_err_set(err, errno, "cannot open \"%s\"", path);
                snprintf(line, sizeof(line), "ident %ju:%ju\n", (uintmax_t) st.st_dev,
                         (uintmax_t) st.st_ino);
                r = claim_append(c, line);
                if (r < 0)
                        return bento_err_set(err, -r, "cannot write the run's claim");
                *ret = TAKE_PTR(path);
                return 0;
        }
        return bento_err_setx(err, EEXIST,
                              "cannot create a directory in \"%s\": every name "
                              "tried was taken",
                              parent);
}

int run_claim_fd(const struct run_claim *c)
{
        return c->held ? c->fd : -1;
}

int run_claim_reader(const struct run_claim *c, int min)
{
        cleanup_close int fd = -1;
        struct stat a, b;
        int moved;

        if (!c->held)
                return -EBADF;
        fd = openat(c->dirfd, c->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* its own open file: its own LOCK_SH, which no sweep can break */
        if (fstat(fd, &a) < 0 || fstat(c->fd, &b) < 0)
                return -errno;
        if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                return -ESTALE;
        if (flock(fd, LOCK_SH | LOCK_NB) < 0)
                return -errno;
        moved = fcntl(fd, F_DUPFD_CLOEXEC, min);
        return moved < 0 ? -errno : moved;
}

void run_claim_drop(struct run_claim *c)
{
        if (c->held) {
                (void) unlinkat(c->dirfd, c->name, 0);
                close(c->fd);
                close(c->dirfd);
        }
        *c = (struct run_claim){0};
}
