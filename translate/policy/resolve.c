/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docs/manifest.md, "PATH RESOLUTION" path resolution and the host lookups of docs/manifest.md,
 * "PATH RESOLUTION": each manifest path gets its expanded spelling (what the manifest means) and
 * its symlink-resolved one (where it lands, and where a mount must go,
 * since a mount cannot be placed on a symlink).  The entrypoint and the
 * interpreter must exist; a grant need not (a missing read is simply
 * absent, a missing write is created later).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "internal.h"
#include "manifest/screen.h"

int policy_expand(const char *path, const char *base, const char *home, char **ret,
                  struct bento_err *err)
{
        struct screen_hit hit;

        if (path[0] == '~') {
                if (path[1] != '\0' && path[1] != '/')
                        return bento_err_set(err, EINVAL,
                                             "manifest: \"%s\" names another user's home "
                                             "directory; only \"~\" and \"~/...\" are expanded, "
                                             "so write the absolute path instead",
                                             path);
                if (!home)
                        return bento_err_set(err, ENOENT,
                                             "cannot expand \"%s\": resolving home directory: "
                                             "HOME is not set; set it or write the absolute path",
                                             path);
                if (home[0] != '/')
                        return bento_err_set(err, EINVAL,
                                             "cannot expand \"%s\": home directory \"%s\" is not "
                                             "absolute",
                                             path, home);
                if (!screen_check(home, strlen(home), &hit))
                        return bento_err_set(err, EINVAL,
                                             "cannot expand \"%s\": HOME contains %s; bento "
                                             "refuses to build paths from it",
                                             path, screen_class_name(hit.cls));
                *ret = path_join(home, path + 1);
        } else if (path[0] == '\0' || path[0] == '/')
                *ret = strdup(path);
        else
                *ret = path_join(base, path);
        if (!*ret)
                return bento_err_set(err, ENOMEM, "path resolution");
        if ((*ret)[0] == '~')
                return bento_err_set(err, EINVAL,
                                     "\"%s\" still names home with a tilde; the enforcer does not "
                                     "expand it, so resolve the manifest first",
                                     *ret);
        return 0;
}

/* Fill the expanded, real and stat fields of one path. */
static int resolve_one(struct policy_path *pp, const char *written, const char *base,
                       const char *home, struct bento_err *err)
{
        struct stat st;

        pp->written = written;
        if (policy_expand(written, base, home, &pp->expanded, err) < 0)
                return -EINVAL;
        if (path_resolve(pp->expanded, &pp->real) < 0)
                return bento_err_set(err, ENOMEM, "path resolution");
        /* real has every symlink resolved, so its last component is no
         * link; one found there now was swapped in since the resolution.
         * Following it would record the identity of what it points to for
         * a path the checks judged as something else: it counts as
         * missing instead, and creating it refuses the link. */
        if (path_lstat(pp->real, &st) < 0) {
                pp->stat_errno = errno;
                return 0;
        }
        if (S_ISLNK(st.st_mode)) {
                /* a dangling one still says why, as before */
                pp->stat_errno = path_stat(pp->real, &st) < 0 ? errno : ELOOP;
                return 0;
        }
        pp->exists = true;
        pp->is_dir = S_ISDIR(st.st_mode);
        pp->dev = st.st_dev;
        pp->ino = st.st_ino;
        return 0;
}

static int add_problem(struct policy *p, struct bento_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int add_problem(struct policy *p, struct bento_err *err, const char *fmt, ...)
{
        char **v = reallocarray(p->problems, p->n_problems + 2, sizeof(char *));
        va_list ap;
        int n;

        if (!v)
                return bento_err_set(err, ENOMEM, "path resolution");
        p->problems = v;
        va_start(ap, fmt);
        n = vasprintf(&v[p->n_problems], fmt, ap);
        va_end(ap);
        if (n < 0)
                return bento_err_set(err, ENOMEM, "path resolution");
        v[++p->n_problems] = NULL;
        return 0;
}

/* The first executable regular file called name on PATH, or NULL. */
static char *path_lookup(const char *name, const char *search)
{
        cleanup_free char *copy = strdup(search ? search : "");
        char *save = NULL;

        if (!copy)
                return NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
                cleanup_free char *cand = NULL;
                struct stat st;

                /* An empty or relative PATH entry means the current directory,
                 * which a sandbox has no business depending on. */
                if (dir[0] != '/')
                        continue;
                /* through the memo (manifest/path.h): a PATH that names a
                 * directory twice is not searched twice */
                cand = path_join(dir, name);
                if (cand && path_stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
                    path_access(cand, X_OK) == 0)
                        return TAKE_PTR(cand);
        }
        return NULL;
}

static int resolve_entrypoint(struct policy *p, struct bento_err *err)
{
        int r = resolve_one(&p->entrypoint, p->m->entrypoint, p->base, p->home, err);

        if (r < 0)
                return r;
        if (!p->entrypoint.exists)
                return add_problem(p, err, "entrypoint \"%s\": %s", p->entrypoint.expanded,
                                   strerror(p->entrypoint.stat_errno));
        if (p->entrypoint.is_dir)
                return add_problem(p, err, "entrypoint \"%s\": is a directory, not a program",
                                   p->entrypoint.expanded);
        return 0;
}

static int resolve_interpreter(struct policy *p, const char *path_env, struct bento_err *err)
{
        const char *name = p->m->interpreter;
        struct policy_path *ip = &p->interpreter;
        cleanup_free char *found = NULL;
        struct stat st;

        ip->written = name;
        if (name[0] == '\0')
                return 0;
        if (name[0] != '~' && !strchr(name, '/')) {
                found = path_lookup(name, path_env);
                if (!found) {
                        ip->expanded = strdup(name);
                        if (!ip->expanded)
                                return bento_err_set(err, ENOMEM, "path resolution");
                        ip->stat_errno = ENOENT;
                        return add_problem(p, err,
                                           "interpreter \"%s\" not found: no executable of that "
                                           "name on PATH",
                                           name);
                }
                ip->expanded = TAKE_PTR(found);
                if (path_resolve(ip->expanded, &ip->real) < 0)
                        return bento_err_set(err, ENOMEM, "path resolution");
                if (path_stat(ip->real, &st) == 0)
                        ip->exists = true;
                return 0;
        }
        if (resolve_one(ip, name, p->base, p->home, err) < 0)
                return -EINVAL;
        if (!ip->exists)
                return add_problem(p, err, "interpreter \"%s\" not found: %s", ip->expanded,
                                   strerror(ip->stat_errno));
        return 0;
}

static int resolve_grants(struct policy *p, char *const *written, size_t n,
                          struct policy_path **ret, size_t *ret_n, struct bento_err *err)
{
        struct policy_path *v = calloc(n + 1, sizeof(*v));

        if (!v)
                return bento_err_set(err, ENOMEM, "path resolution");
        *ret = v;
        *ret_n = n;
        for (size_t i = 0; i < n; i++) {
                int r = resolve_one(&v[i], written[i], p->base, p->home, err);

                if (r < 0)
                        return r;
        }
        return 0;
}

static int manifest_base(const char *manifest_path, char **ret, struct bento_err *err)
{
        cleanup_free char *dir = strdup(manifest_path[0] ? manifest_path : ".");
        cleanup_free char *cwd = NULL;
        char *slash;

        if (!dir)
                return bento_err_set(err, ENOMEM, "path resolution");
        slash = strrchr(dir, '/');
        if (!slash) {
                /* a bare file name: dir holds at least two bytes */
                dir[0] = '.';
                dir[1] = '\0';
        } else if (slash == dir)
                dir[1] = '\0';
        else
                *slash = '\0';
        if (dir[0] == '/') {
                *ret = path_clean(dir);
        } else {
                cwd = getcwd(NULL, 0);
                if (!cwd)
                        /* cppcheck-suppress memleak ; dir is a cleanup_free variable */
                        return bento_err_set(err, errno, "cannot find the current directory");
                *ret = path_join(cwd, dir);
        }
        return *ret ? 0 : bento_err_set(err, ENOMEM, "path resolution");
}

static int index_writes(struct policy *p, struct bento_err *err)
{
        p->write_keys = calloc(p->n_writes ? p->n_writes : 1, sizeof(*p->write_keys));
        if (!p->write_keys)
                return bento_err_set(err, ENOMEM, "path resolution");
        /* "" holds no path: a grant that did not resolve holds nothing */
        for (size_t i = 0; i < p->n_writes; i++)
                p->write_keys[i] = p->writes[i].real ? p->writes[i].real : "";
        if (path_index_init(&p->write_index, p->write_keys, p->n_writes) < 0)
                return bento_err_set(err, ENOMEM, "path resolution");
        return 0;
}

int policy_resolve_paths(struct policy *p, const struct policy_host *host, struct bento_err *err)
{
        const struct shield_env *env = host ? host->shield_env : NULL;
        const char *path_env = host && host->path_env ? host->path_env : getenv("PATH");
        const char *home = env && env->home_set ? env->home : getenv("HOME");
        int r;

        if (home) {
                p->home = strdup(home);
                if (!p->home)
                        return bento_err_set(err, ENOMEM, "path resolution");
        }
        r = manifest_base(p->m->path, &p->base, err);
        if (r >= 0)
                r = resolve_entrypoint(p, err);
        if (r >= 0)
                r = resolve_interpreter(p, path_env, err);
        if (r >= 0)
                r = resolve_grants(p, p->m->read, p->m->n_read, &p->reads, &p->n_reads, err);
        if (r >= 0)
                r = resolve_grants(p, p->m->write, p->m->n_write, &p->writes, &p->n_writes, err);
        if (r >= 0)
                r = index_writes(p, err);
        return r;
}
