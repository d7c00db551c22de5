/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which shields need a mount, and of what kind (docs/manifest.md, "CREDENTIAL SHIELDS").  Mounting
 * every one of the ~1,100 rules would be slow and would create mount points all over the host; a
 * rule only matters where the sandbox can see it (an exposed path reaches it) and where it would
 * make a difference (a hidden store that exists or could be created through a write grant; a write
 * shield under a write grant, since a read-only grant already forbids writes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "internal.h"

/* Does an exposed path reach path: hold it, or lie inside it? */
static bool reaches(const struct path_index *ix, const char *path)
{
        size_t lo, hi;

        if (path_index_holds(ix, path))
                return true;
        path_index_beneath(ix, path, &lo, &hi);
        return lo < hi;
}

/* One index as seen from inside one anchor's tree, asked once for all the
 * rules there (most rules are): a path strictly inside the anchor is
 * reached when a key holds the anchor, or when a key inside the anchor
 * holds the path or lies beneath it (a key that holds the path but not the
 * anchor lies inside the anchor, and so does every key beneath the path).
 * Only kept when the keys inside are few: with many (hundreds of grants
 * in a home) the index itself answers faster. */
#define ANCHOR_VIEW_KEYS_MAX 8

struct anchor_view {
        const char *anchor;
        size_t len;
        bool held;     /* a key equals the anchor or holds it */
        size_t lo, hi; /* the keys inside the anchor, in ix->e */
        bool usable;   /* hi - lo <= ANCHOR_VIEW_KEYS_MAX */
};

static void anchor_view_init(struct anchor_view *v, const struct path_index *ix, const char *anchor)
{
        v->anchor = anchor;
        v->len = strlen(anchor);
        v->held = path_index_holds(ix, anchor);
        path_index_beneath(ix, anchor, &v->lo, &v->hi);
        v->usable = v->hi - v->lo <= ANCHOR_VIEW_KEYS_MAX && strcmp(anchor, "/") != 0;
}

/* reaches() for a path strictly inside v's anchor. */
static bool anchor_view_reaches(const struct anchor_view *v, const struct path_index *ix,
                                const char *path)
{
        if (v->held)
                return true;
        for (size_t i = v->lo; i < v->hi; i++)
                if (path_within(ix->e[i].key, path) || path_beneath(path, ix->e[i].key))
                        return true;
        return false;
}

/* The views of one index from each anchor. */
struct anchor_views {
        const struct path_index *ix;
        struct anchor_view *v;
        size_t n;
};

static int anchor_views_init(struct anchor_views *av, const struct path_index *ix,
                             char *const *anchors, size_t n)
{
        av->ix = ix;
        av->n = n;
        av->v = calloc(n + 1, sizeof(*av->v));
        if (!av->v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                anchor_view_init(&av->v[i], ix, anchors[i]);
        return 0;
}

/* Does an exposed path (a key of av's index) reach path? */
static bool reaches_from(const struct anchor_views *av, const char *path)
{
        for (size_t i = 0; i < av->n; i++) {
                const struct anchor_view *v = &av->v[i];

                if (v->usable && strncmp(path, v->anchor, v->len) == 0 && path[v->len] == '/' &&
                    path[v->len + 1] != '\0')
                        return anchor_view_reaches(v, av->ix, path);
        }
        return reaches(av->ix, path);
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
static bool needed(const struct shield_rule *r, bool exists, const struct anchor_views *exposed,
                   const struct anchor_views *writes)
{
        if (!reaches_from(exposed, r->path))
                return false;
        if (r->deny == SHIELD_DENY_ALL && exists)
                return true;
        return reaches_from(writes, r->path);
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
        c = strcmp(x->path, y->path);
        return c ? c : (int) x->kind - (int) y->kind;
}

/* The cleaned write grants, indexed; the index borrows the strings. */
struct write_index {
        char **paths;
        struct path_index ix;
};

static void write_index_done(struct write_index *w)
{
        path_index_done(&w->ix);
        strv_free(w->paths);
}

static int write_index_init(struct write_index *w, const struct shield_exposure *x)
{
        *w = (struct write_index){0};
        w->paths = clean_all(x->writes, x->n_writes);
        if (!w->paths || path_index_init(&w->ix, (const char *const *) w->paths, x->n_writes) < 0)
                return -ENOMEM;
        return 0;
}

/* The first pass (docs/manifest.md, "CREDENTIAL SHIELDS"): which rules an exposed path reaches, and
 * whether each exists (and is a directory) on the host. */
static int decide(const struct shield_set *s, const struct shield_exposure *x,
                  const struct write_index *wr, bool *need, bool *exists, bool *is_dir)
{
        cleanup_strv char **exposed = clean_all(x->exposed, x->n_exposed);
        struct path_index ex = {0};
        struct anchor_views ex_views = {0}, wr_views = {0};
        int r = -ENOMEM;

        if (exposed && path_index_init(&ex, (const char *const *) exposed, x->n_exposed) >= 0 &&
            anchor_views_init(&ex_views, &ex, s->resolved_anchors, s->n_anchors) >= 0 &&
            anchor_views_init(&wr_views, &wr->ix, s->resolved_anchors, s->n_anchors) >= 0) {
                for (size_t i = 0; i < s->n_rules; i++) {
                        const struct shield_rule *rule = &s->rules[i];
                        mode_t type = 0;

                        exists[i] = path_follow_type(rule->path, &type) == 0;
                        is_dir[i] = exists[i] && type == S_IFDIR;
                        if (rule->deny == SHIELD_DENY_ALL && x->opted && x->opted[i])
                                continue;
                        need[i] = needed(rule, exists[i], &ex_views, &wr_views);
                }
                r = 0;
        }
        free(ex_views.v);
        free(wr_views.v);
        path_index_done(&ex);
        return r;
}

/* Is dir a write grant itself, or outside every write grant? */
static bool grant_boundary(const struct write_index *wr, const char *dir)
{
        size_t lo, hi;

        path_index_equal(&wr->ix, dir, strlen(dir), &lo, &hi);
        return lo < hi || !path_index_holds(&wr->ix, dir);
}

/* Where the shield for a missing rule path goes: the path itself while its
 * parent exists, else the topmost missing directory below the write grant
 * that holds it.  Writes the mount point into out (strlen(path) + 1 bytes)
 * and returns whether it moved up. */
static bool lift(const struct write_index *wr, const char *path, char *out)
{
        size_t len = strlen(path);
        mode_t type;

        memcpy(out, path, len + 1);
        for (;;) {
                char *slash = strrchr(out, '/');

                if (!slash || slash == out)
                        break;
                *slash = '\0';
                if (grant_boundary(wr, out) || path_type(out, &type) == 0) {
                        *slash = '/';
                        break;
                }
        }
        return strlen(out) != len;
}

/* Two rules lifted to one directory (.cargo/config and .cargo/config.toml
 * both to .cargo) share one mount, in the place of the first mount there:
 * the stricter kind stays.  A mount at the rule's own path is never merged
 * into an earlier one.  Drops the merged mounts from m[0..*n), keeping the
 * order; -ENOMEM. */
static int merge_lifted(struct shield_mount *m, size_t *n)
{
        cleanup_free const char **keys = calloc(*n + 1, sizeof(char *));
        cleanup_free bool *merged = calloc(*n + 1, sizeof(bool));
        struct path_index ix;
        size_t kept = 0;

        if (!keys || !merged)
                return -ENOMEM;
        for (size_t i = 0; i < *n; i++)
                keys[i] = m[i].path;
        if (path_index_init(&ix, keys, *n) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < *n; i++) {
                size_t first;

                if (!m[i].lifted)
                        continue;
                first = path_index_first(&ix, m[i].path);
                if (first == i)
                        continue;
                if (m[i].kind == SHIELD_MOUNT_HIDDEN_DIR)
                        m[first] = m[i];
                merged[i] = true;
        }
        path_index_done(&ix);
        for (size_t i = 0; i < *n; i++)
                if (!merged[i])
                        m[kept++] = m[i];
        *n = kept;
        return 0;
}

static size_t paths_size(const struct shield_set *s)
{
        size_t total = 0;

        for (size_t i = 0; i < s->n_rules; i++)
                total += strlen(s->rules[i].path) + 1;
        return total;
}

/* The mounts of the needed rules, their paths (lifted to the highest missing
 * parent, which becomes the scratch directory, docs/manifest.md, "CREDENTIAL SHIELDS") copied into
 * the buffer after the array. */
static size_t place(const struct shield_set *s, const struct write_index *wr, const bool *need,
                    const bool *exists, const bool *is_dir, struct shield_mount *m, char *buf)
{
        size_t n = 0;

        for (size_t i = 0; i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];
                bool lifted;

                if (!need[i])
                        continue;
                if (exists[i])
                        memcpy(buf, r->path, strlen(r->path) + 1);
                lifted = !exists[i] && lift(wr, r->path, buf);
                m[n++] = (struct shield_mount){
                    .rule = r,
                    .kind = lifted ? kind_of(&(struct shield_rule){.deny = r->deny, .dir = true},
                                             false, true)
                                   : kind_of(r, exists[i], is_dir[i]),
                    .path = buf,
                    .lifted = lifted};
                buf += strlen(buf) + 1;
        }
        return n;
}

/* The second pass: a hidden store inside a needed read-only tree.  It only
 * ever marks DenyAll rules, so the needed DenyWrite dirs are known before
 * it starts. */
static void force_inside_read_only(const struct shield_set *s, const bool *opted, bool *need,
                                   const bool *exists, size_t *dirs)
{
        size_t n_dirs = 0;

        for (size_t j = 0; j < s->n_rules; j++)
                if (need[j] && exists[j] && s->rules[j].deny == SHIELD_DENY_WRITE &&
                    s->rules[j].dir)
                        dirs[n_dirs++] = j;
        for (size_t i = 0; i < s->n_rules; i++)
                if (!need[i] && s->rules[i].deny == SHIELD_DENY_ALL && exists[i] &&
                    !(opted && opted[i]))
                        need[i] = inside_needed_write_dir(s, dirs, n_dirs, &s->rules[i]);
}

int shields_needed(const struct shield_set *s, const struct shield_exposure *x,
                   struct shield_mount **ret, size_t *ret_n, struct bento_err *err)
{
        cleanup_free bool *need = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free bool *exists = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free bool *is_dir = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free size_t *dirs = calloc(s->n_rules + 1, sizeof(size_t));
        size_t array = (s->n_rules + 1) * sizeof(struct shield_mount);
        /* Room for a mount per rule, of which a handful are used: not
         * calloc(), whose clearing would touch every page of it (a page
         * fault is ~11 us on a VM; place() writes whole entries and each
         * path before anything reads them). */
        cleanup_free struct shield_mount *m = malloc(array + paths_size(s) + 1);
        struct write_index wr = {0};
        size_t n;

        if (!need || !exists || !is_dir || !m || !dirs || write_index_init(&wr, x) < 0 ||
            decide(s, x, &wr, need, exists, is_dir) < 0) {
                write_index_done(&wr);
                return bento_err_set(err, ENOMEM, "shield mounts");
        }
        force_inside_read_only(s, x->opted, need, exists, dirs);
        n = place(s, &wr, need, exists, is_dir, m, (char *) m + array);
        write_index_done(&wr);
        if (merge_lifted(m, &n) < 0)
                return bento_err_set(err, ENOMEM, "shield mounts");
        qsort(m, n, sizeof(*m), mount_cmp);
        *ret = TAKE_PTR(m);
        *ret_n = n;
        return 0;
}
