/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PATH shadow note (docs/cli/bento-run.md, "OUTPUT").  When the manifest
 * passes PATH through, a directory on it that the box does not carry (not
 * in the base image, not granted, not the interpreter's prefix) is simply
 * absent inside, so a command the host finds there resolves to another
 * copy further down PATH in the box, or to nothing.  Only the first case
 * changes behaviour silently, so that is what is reported: each name in
 * an uncarried directory that also exists, as a non-directory, in a
 * carried directory later on PATH.  A directory bento cannot list is
 * reported as a whole.  Names are host-enumerated, so they are printed
 * quoted; the scan is bounded per directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "run.h"

#define SHADOW_DIR_ENTRIES_MAX 4096 /* entries looked at per directory */
#define SHADOW_NAMES_MAX       32   /* names reported per directory */

static const char *const base_image[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64"};

const char *run_passed_value(const struct manifest *m, const struct run_opts *o, const char *name)
{
        size_t len = strlen(name);
        bool listed = false;

        for (size_t i = 0; i < m->n_env; i++)
                listed |= strcmp(m->env[i], name) == 0;
        if (!listed)
                return NULL;
        for (size_t i = o->n_env; i > 0; i--)
                if (strncmp(o->env[i - 1], name, len) == 0 && o->env[i - 1][len] == '=')
                        return o->env[i - 1] + len + 1;
        return getenv(name);
}

static bool within_any(const char *d, char *const *roots, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (roots[i] && path_within(roots[i], d))
                        return true;
        return false;
}

static bool granted(const struct policy_path *g, size_t n, const char *d)
{
        for (size_t i = 0; i < n; i++)
                if ((g[i].expanded && path_within(g[i].expanded, d)) ||
                    (g[i].real && path_within(g[i].real, d)))
                        return true;
        return false;
}

/* d (clean, absolute) is visible in the box: base image, a system path
 * (which holds the interpreter's prefix), or a grant. */
static bool carried_as(const struct policy *p, const char *d)
{
        for (size_t i = 0; i < sizeof(base_image) / sizeof(base_image[0]); i++)
                if (path_within(base_image[i], d))
                        return true;
        return within_any(d, p->system_paths, p->n_system_paths) ||
               granted(p->reads, p->n_reads, d) || granted(p->writes, p->n_writes, d);
}

/* As spelled and symlink-resolved: either being carried is enough. */
static bool carried(const struct policy *p, const char *d)
{
        cleanup_free char *real = realpath(d, NULL);

        return carried_as(p, d) || (real && carried_as(p, real));
}

static bool is_file_in(const char *dir, const char *name)
{
        cleanup_free char *path = path_join(dir, name);
        struct stat st;

        return path && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int add(struct run_shadows *s, const char *dir, const char *name, const char *carried_dir)
{
        struct run_shadow *v = reallocarray(s->v, s->n + 1, sizeof(*v));

        if (!v)
                return -ENOMEM;
        s->v = v;
        v[s->n] = (struct run_shadow){strdup(dir), name ? strdup(name) : NULL,
                                      carried_dir ? strdup(carried_dir) : NULL};
        s->n++;
        if (!v[s->n - 1].dir || (name && !v[s->n - 1].name) ||
            (carried_dir && !v[s->n - 1].carried))
                return -ENOMEM;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The non-directory names of dir (sorted, bounded); -errno when it cannot
 * be listed. */
static int list_names(const char *dir, char ***ret, size_t *ret_n)
{
        cleanup_dir DIR *d = opendir(dir);
        cleanup_strv char **v = NULL;
        struct dirent *de;
        size_t n = 0, seen = 0;

        if (!d)
                return -errno;
        while ((de = readdir(d)) && seen++ < SHADOW_DIR_ENTRIES_MAX) {
                struct stat st;
                char **nv;

                if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
                    S_ISDIR(st.st_mode))
                        continue;
                nv = reallocarray(v, n + 2, sizeof(char *));
                if (!nv)
                        return -ENOMEM;
                v = nv;
                v[n] = strdup(de->d_name);
                v[++n] = NULL;
                if (!v[n - 1])
                        return -ENOMEM;
        }
        if (n)
                qsort(v, n, sizeof(char *), cmp_str);
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

/* The names of the uncarried dirs[i] that a carried directory later on
 * PATH also has. */
static int scan_dir(const struct policy *p, char **dirs, size_t n, size_t i, struct run_shadows *s)
{
        cleanup_strv char **names = NULL;
        size_t n_names = 0, reported = 0;
        int r = list_names(dirs[i], &names, &n_names);

        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return add(s, dirs[i], NULL, NULL);
        for (size_t k = 0; k < n_names && reported < SHADOW_NAMES_MAX; k++)
                for (size_t j = i + 1; j < n; j++) {
                        if (!carried(p, dirs[j]) || !is_file_in(dirs[j], names[k]))
                                continue;
                        r = add(s, dirs[i], names[k], dirs[j]);
                        if (r < 0)
                                return r;
                        reported++;
                        break;
                }
        return 0;
}

/* PATH's absolute entries, cleaned, first occurrence only. */
static int split_path(const char *path, char ***ret, size_t *ret_n)
{
        cleanup_free char *copy = strdup(path);
        cleanup_strv char **v = NULL;
        size_t n = 0;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
                char *c;
                char **nv;
                bool dup = false;

                if (t[0] != '/')
                        continue;
                c = path_clean(t);
                if (!c)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        dup |= strcmp(v[i], c) == 0;
                if (dup) {
                        free(c);
                        continue;
                }
                nv = reallocarray(v, n + 2, sizeof(char *));
                if (!nv) {
                        free(c);
                        return -ENOMEM;
                }
                v = nv;
                v[n++] = c;
                v[n] = NULL;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int run_path_shadows(const struct policy *p, const char *path, struct run_shadows *ret,
                     struct bento_err *err)
{
        cleanup_strv char **dirs = NULL;
        size_t n = 0;
        int r;

        *ret = (struct run_shadows){0};
        if (!path)
                return 0;
        r = split_path(path, &dirs, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                struct stat st;

                if (stat(dirs[i], &st) < 0 || !S_ISDIR(st.st_mode) || carried(p, dirs[i]))
                        continue;
                r = scan_dir(p, dirs, n, i, ret);
        }
        if (r < 0) {
                run_shadows_done(ret);
                return bento_err_set(err, -r, "PATH");
        }
        return 0;
}

void run_shadows_done(struct run_shadows *s)
{
        for (size_t i = 0; i < s->n; i++) {
                free(s->v[i].dir);
                free(s->v[i].name);
                free(s->v[i].carried);
        }
        free(s->v);
        *s = (struct run_shadows){0};
}

bool run_view_shadows(const struct run_view *v, struct run_shadows *ret)
{
        struct bento_err ignored = {0};

        if (run_path_shadows(v->p, run_passed_value(v->p->m, v->o, "PATH"), ret, &ignored) < 0)
                return false;
        if (ret->n > 0)
                return true;
        run_shadows_done(ret);
        return false;
}

bool run_shadow_new_dir(const struct run_shadows *s, size_t i)
{
        return i == 0 || strcmp(s->v[i - 1].dir, s->v[i].dir) != 0;
}
