/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which shields need a mount, and of what kind (§5.8).  Mounting every one
 * of the ~1,100 rules would be slow and would create mount points all over
 * the host; a rule only matters where the sandbox can see it (an exposed
 * path reaches it) and where it would make a difference (a hidden store
 * that exists or could be created through a write grant; a write shield
 * under a write grant, since a read-only grant already forbids writes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "shield-internal.h"

/* Does an exposed path reach path: hold it, or lie inside it? */
static bool reaches(const struct path_index *ix, const char *path)
{
        size_t lo, hi;

        if (path_index_holds(ix, path))
                return true;
        path_index_beneath(ix, path, &lo, &hi);
        return lo < hi;
}

/* The paths cleaned once, not once per rule (a large manifest has hundreds
 * of grants and the shields a thousand rules).  NULL when out of memory. */
static char **clean_all(const char *const *paths, size_t n)
{
        cleanup_strv char **v = calloc(n + 1, sizeof(char *));

        for (size_t i = 0; v && i < n; i++) {
                v[i] = path_clean(paths[i]);
                if (!v[i])
                        return NULL;
        }
        return TAKE_PTR(v);
}

/* One decision per rule: 0 not needed, 1 needed. */
static bool needed(const struct shield_rule *r, bool exists, const struct path_index *exposed,
                   const struct path_index *writes)
{
        if (!reaches(exposed, r->path))
                return false;
        if (r->deny == SHIELD_DENY_ALL && exists)
                return true;
        return reaches(writes, r->path);
}

static enum shield_mount_kind kind_of(const struct shield_rule *r, bool exists, bool is_dir)
{
        bool dir = exists ? is_dir : r->dir;

        if (r->deny == SHIELD_DENY_ALL)
                return dir ? SHIELD_MOUNT_HIDDEN_DIR : SHIELD_MOUNT_HIDDEN_FILE;
        if (exists)
                return SHIELD_MOUNT_READ_ONLY;
        return dir ? SHIELD_MOUNT_DISCARDED : SHIELD_MOUNT_READ_ONLY_FILE;
}

/* A hidden path inside a readable-but-read-only tree must be mounted even
 * when nothing else asks for it: the parent's rebind would show it.  dirs
 * lists the needed DenyWrite dirs that exist. */
static bool inside_needed_write_dir(const struct shield_set *s, const size_t *dirs, size_t n_dirs,
                                    const struct shield_rule *r)
{
        for (size_t j = 0; j < n_dirs; j++)
                if (path_beneath(s->rules[dirs[j]].path, r->path))
                        return true;
        return false;
}

static int mount_cmp(const void *a, const void *b)
{
        const struct shield_mount *x = a, *y = b;
        int c;

        /* DenyWrite mounts first so a hidden child lands after its parent. */
        if (x->rule->deny != y->rule->deny)
                return x->rule->deny == SHIELD_DENY_WRITE ? -1 : 1;
        c = strcmp(x->rule->path, y->rule->path);
        return c ? c : (int) x->kind - (int) y->kind;
}

/* §5.8's first pass: which rules an exposed path reaches, and whether
 * each exists (and is a directory) on the host. */
static int decide(const struct shield_set *s, const struct shield_exposure *x, bool *need,
                  bool *exists, bool *is_dir)
{
        cleanup_strv char **exposed = clean_all(x->exposed, x->n_exposed);
        cleanup_strv char **writes = clean_all(x->writes, x->n_writes);
        struct path_index ex = {0}, wr = {0};
        int r = -ENOMEM;

        if (exposed && writes &&
            path_index_init(&ex, (const char *const *) exposed, x->n_exposed) >= 0 &&
            path_index_init(&wr, (const char *const *) writes, x->n_writes) >= 0) {
                for (size_t i = 0; i < s->n_rules; i++) {
                        const struct shield_rule *rule = &s->rules[i];
                        mode_t type = 0;

                        exists[i] = path_follow_type(rule->path, &type) == 0;
                        is_dir[i] = exists[i] && type == S_IFDIR;
                        if (rule->deny == SHIELD_DENY_ALL && x->opted && x->opted[i])
                                continue;
                        need[i] = needed(rule, exists[i], &ex, &wr);
                }
                r = 0;
        }
        path_index_done(&ex);
        path_index_done(&wr);
        return r;
}

int shields_needed(const struct shield_set *s, const struct shield_exposure *x,
                   struct shield_mount **ret, size_t *ret_n, struct bento_err *err)
{
        const bool *opted = x->opted;
        cleanup_free bool *need = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free bool *exists = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free bool *is_dir = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free struct shield_mount *m = calloc(s->n_rules + 1, sizeof(*m));
        cleanup_free size_t *dirs = calloc(s->n_rules + 1, sizeof(size_t));
        size_t n = 0, n_dirs = 0;

        if (!need || !exists || !is_dir || !m || !dirs || decide(s, x, need, exists, is_dir) < 0)
                return bento_err_set(err, ENOMEM, "shield mounts");
        /* The second pass only ever marks DenyAll rules, so the needed
         * DenyWrite dirs are known before it starts. */
        for (size_t j = 0; j < s->n_rules; j++)
                if (need[j] && exists[j] && s->rules[j].deny == SHIELD_DENY_WRITE &&
                    s->rules[j].dir)
                        dirs[n_dirs++] = j;
        for (size_t i = 0; i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];

                if (!need[i] && r->deny == SHIELD_DENY_ALL && exists[i] && !(opted && opted[i]))
                        need[i] = inside_needed_write_dir(s, dirs, n_dirs, r);
                if (need[i])
                        m[n++] = (struct shield_mount){r, kind_of(r, exists[i], is_dir[i])};
        }
        qsort(m, n, sizeof(*m), mount_cmp);
        *ret = TAKE_PTR(m);
        *ret_n = n;
        return 0;
}
