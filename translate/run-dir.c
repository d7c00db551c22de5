/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run directory and the host paths a run creates (§4.5 steps 4 and 7,
 * §5.8).  The directory is private (0700) and holds the bundle, the
 * runtime's state and the hooks' reports; it goes away after the run,
 * also after Ctrl-C.  Shield mount points the runtime creates on the host
 * (a shielded path inside a write grant that did not exist yet) are noted
 * before the run and removed after it, but only while they are still what
 * a mount point is: an empty directory or an empty file.  Removal never
 * follows a symlink and never leaves the run directory's file system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"
#include "run.h"

int run_dir_make(struct run_dir *d, struct bento_err *err)
{
        const char *tmp = getenv("TMPDIR");
        cleanup_free char *tmpl = NULL;

        if (!tmp || tmp[0] != '/')
                tmp = "/tmp";
        tmpl = path_join(tmp, "bento-run-XXXXXX");
        if (!tmpl)
                return bento_err_set(err, ENOMEM, "run directory");
        if (!mkdtemp(tmpl))
                return bento_err_set(err, errno, "cannot create a run directory in \"%s\"", tmp);
        d->path = TAKE_PTR(tmpl);
        d->bundle = path_join(d->path, "bundle");
        d->state = path_join(d->path, "state");
        d->gate_socket = d->bundle ? path_join(d->bundle, "exec-gate.sock") : NULL;
        d->egress_log = path_join(d->path, "egress.jsonl");
        d->runtime_log = path_join(d->path, "runtime.log");
        if (!d->bundle || !d->state || !d->gate_socket || !d->egress_log || !d->runtime_log)
                return bento_err_set(err, ENOMEM, "run directory");
        return 0;
}

static int note(struct run_dir *d, const char *path, struct bento_err *err)
{
        char **v;

        for (size_t i = 0; i < d->n_created; i++)
                if (strcmp(d->created[i], path) == 0)
                        return 0;
        v = reallocarray(d->created, d->n_created + 1, sizeof(char *));
        if (!v)
                return bento_err_set(err, ENOMEM, "run directory");
        d->created = v;
        v[d->n_created] = strdup(path);
        if (!v[d->n_created])
                return bento_err_set(err, ENOMEM, "run directory");
        d->n_created++;
        return 0;
}

/* The missing path and each missing ancestor, deepest first. */
static int note_missing(struct run_dir *d, const char *path, struct bento_err *err)
{
        cleanup_free char *cur = strdup(path);
        struct stat st;

        if (!cur)
                return bento_err_set(err, ENOMEM, "run directory");
        while (strcmp(cur, "/") != 0 && lstat(cur, &st) < 0 && errno == ENOENT) {
                char *slash = strrchr(cur, '/');
                int r = note(d, cur, err);

                if (r < 0)
                        return r;
                *(slash == cur ? slash + 1 : slash) = '\0';
        }
        return 0;
}

int run_dir_note_mount_points(struct run_dir *d, const struct policy *p, struct bento_err *err)
{
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                int r = note_missing(d, p->shield_mounts[i].rule->path, err);

                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_depth(const void *a, const void *b)
{
        const char *x = *(const char *const *) a, *y = *(const char *const *) b;
        size_t lx = strlen(x), ly = strlen(y);

        return lx < ly ? 1 : lx > ly ? -1 : strcmp(x, y);
}

/* Deepest first, so a created parent is empty by the time it is tried. */
static void remove_created(struct run_dir *d)
{
        if (d->n_created)
                qsort(d->created, d->n_created, sizeof(char *), cmp_depth);
        for (size_t i = 0; i < d->n_created; i++) {
                struct stat st;

                if (lstat(d->created[i], &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode))
                        (void) rmdir(d->created[i]); /* fails, rightly, when not empty */
                else if (S_ISREG(st.st_mode) && st.st_size == 0)
                        (void) unlink(d->created[i]);
        }
}

/* rm -r below dirfd, staying on dev and never following a symlink. */
static void remove_tree_at(int dirfd, dev_t dev, unsigned depth)
{
        cleanup_dir DIR *dir = NULL;
        struct dirent *de;
        int fd = dup(dirfd);

        if (fd < 0)
                return;
        dir = fdopendir(fd);
        if (!dir) {
                close(fd);
                return;
        }
        while ((de = readdir(dir))) {
                struct stat st;
                int sub;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (!S_ISDIR(st.st_mode)) {
                        (void) unlinkat(dirfd, de->d_name, 0);
                        continue;
                }
                /* A directory on another device is a mount that outlived the
                 * sandbox: leave it (and say nothing) rather than empty it. */
                if (st.st_dev != dev || depth > 64)
                        continue;
                sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0) {
                        remove_tree_at(sub, dev, depth + 1);
                        close(sub);
                }
                (void) unlinkat(dirfd, de->d_name, AT_REMOVEDIR);
        }
}

void run_dir_cleanup(struct run_dir *d)
{
        remove_created(d);
        if (d->path) {
                cleanup_close int fd =
                    open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;

                if (fd >= 0 && fstat(fd, &st) == 0)
                        remove_tree_at(fd, st.st_dev, 0);
                (void) rmdir(d->path);
        }
        for (size_t i = 0; i < d->n_created; i++)
                free(d->created[i]);
        free(d->created);
        free(d->path);
        free(d->bundle);
        free(d->state);
        free(d->gate_socket);
        free(d->egress_log);
        free(d->runtime_log);
        *d = (struct run_dir){0};
}
