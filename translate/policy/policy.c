/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy_resolve() in order: paths, shields and grant checks, the system
 * paths (the interpreter's prefix rule needs the home anchors), the
 * shield mounts (which need every exposed path), then the approval
 * journal's distance from the write grants.  And the one step that
 * changes the host: creating missing write grants after every check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "manifest/path.h"
#include "internal.h"

static void path_done(struct policy_path *pp)
{
        free(pp->expanded);
        free(pp->real);
}

struct policy *policy_free(struct policy *p)
{
        if (!p)
                return NULL;
        free(p->base);
        free(p->home);
        path_done(&p->entrypoint);
        path_done(&p->interpreter);
        for (size_t i = 0; i < p->n_reads; i++)
                path_done(&p->reads[i]);
        free(p->reads);
        for (size_t i = 0; i < p->n_writes; i++)
                path_done(&p->writes[i]);
        free(p->writes);
        path_index_done(&p->write_index);
        free(p->write_keys);
        for (size_t i = 0; i < p->n_problems; i++)
                free(p->problems[i]);
        free(p->problems);
        for (size_t i = 0; i < p->n_system_paths; i++)
                free(p->system_paths[i]);
        free(p->system_paths);
        free(p->shield_mounts);
        free(p->opted);
        shield_refusals_free(p->refusals, p->n_refusals);
        shield_set_free(p->shields);
        free(p->shields_error);
        free(p);
        return NULL;
}

int policy_resolve(const struct manifest *m, const struct policy_host *host, struct policy **ret,
                   struct bento_err *err)
{
        cleanup_policy struct policy *p = calloc(1, sizeof(*p));
        int r;

        if (!p)
                return bento_err_set(err, ENOMEM, "path resolution");
        p->m = m;
        if (host) {
                p->host = *host;
                p->host_given = true;
        }
        /* Nothing below changes the host, and every step asks it about the
         * same paths again (manifest/path.h): answer each question once. */
        path_cache_begin();
        r = policy_resolve_paths(p, host, err);
        if (r >= 0)
                r = policy_shields(p, host, err);
        if (r >= 0)
                r = policy_system_paths(p, err);
        if (r >= 0)
                r = policy_shield_mounts(p, err);
        if (r >= 0)
                r = policy_check_journal(p, err);
        path_cache_end();
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

struct deepest {
        const struct path_index *ix;
        const char *best;
};

static void take_deepest(size_t lo, size_t hi, bool whole, void *userdata)
{
        struct deepest *d = userdata;
        const char *key = d->ix->e[lo].key;

        (void) hi;
        if (!whole && key[0] && (!d->best || strlen(key) > strlen(d->best)))
                d->best = key;
}

const char *policy_holding_write(const struct policy *p, const char *path)
{
        struct deepest d = {&p->write_index, NULL};

        if (!p->write_keys) /* not resolved (yet) */
                return NULL;
        path_index_within(&p->write_index, path, take_deepest, &d);
        return d.best;
}

char *policy_refusal(const struct policy *p)
{
        char *msg = NULL;

        if (p->n_problems > 0)
                return strdup(p->problems[0]);
        if (!p->shields) {
                if (asprintf(&msg,
                             "cannot anchor the credential shields on this host: %s; bento "
                             "refuses to run without them",
                             p->shields_error ? p->shields_error : "no home directory") < 0)
                        return NULL;
                return msg;
        }
        if (p->n_refusals > 0)
                return strdup(p->refusals[0].message);
        return NULL;
}

/* mkdir -p with mode 0700 for what is missing, walked from "/" without
 * following a symlink: path is resolved, so a symlink on the way is one
 * that appeared since, and a directory that appears while it is being made
 * is not taken for one's own (a sandbox of another run may share the
 * parent). */
static int mkdir_parents(const char *path, struct bento_err *err)
{
        cleanup_close int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *rel = NULL;
        int r = 0;

        if (root < 0)
                return bento_err_set(err, errno, "cannot create the write grant \"%s\"", path);
        rel = strdup(path + strspn(path, "/"));
        if (!rel)
                return bento_err_set(err, ENOMEM, "write grants");
        for (char *s = rel; r >= 0 && *rel; s++) {
                bool end = *s == '\0';
                int fd;

                if (*s != '/' && !end)
                        continue;
                *s = '\0';
                fd = bento_beneath_open(root, rel, 0);
                if (fd >= 0)
                        close(fd);
                else if (fd == -ENOENT)
                        r = bento_beneath_make(root, rel, true, 0700, 0, NULL);
                else
                        r = fd;
                if (end)
                        break;
                *s = '/';
        }
        if (r == -EEXIST)
                return bento_err_setx(err, EEXIST,
                                      "cannot create the write grant \"%s\": something else "
                                      "created a part of it at the same time",
                                      path);
        return r < 0 ? bento_err_set(err, -r, "cannot create the write grant \"%s\"", path) : 0;
}

int policy_prepare_writes(struct policy **p, struct bento_err *err)
{
        struct policy *fresh = NULL;
        cleanup_free char *refusal = NULL;
        bool created = false;

        /* What the resolution found existing was checked as it is; anything
         * else is made now, and the policy resolved again.  Not a second
         * look by name: a stat() that followed a symlink swapped in since
         * would call the grant existing and leave it to be bound, unchecked,
         * wherever the link leads. */
        for (size_t i = 0; i < (*p)->n_writes; i++) {
                int r;

                if ((*p)->writes[i].exists)
                        continue;
                r = mkdir_parents((*p)->writes[i].real, err);
                if (r < 0)
                        return r;
                created = true;
        }
        if (!created)
                return 0;
        /* The host changed: nothing it said before may be replayed. */
        path_cache_reset();
        if (policy_resolve((*p)->m, (*p)->host_given ? &(*p)->host : NULL, &fresh, err) < 0 ||
            !fresh)
                return err->code ? -err->code : -EINVAL;
        policy_free(*p);
        *p = fresh;
        refusal = policy_refusal(fresh);
        if (refusal)
                return bento_err_setx(err, EPERM, "%s", refusal);
        return 1;
}
