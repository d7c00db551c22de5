/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rule set (docs/manifest.md, "CREDENTIAL SHIELDS"): the single entry point through which rules
 * are added, so every origin gets the same resolution, drops and deduplication; the
 * unshieldable-relocation reports; the read-side queries (docs/manifest.md, "CREDENTIAL SHIELDS"
 * covers and strictest-wins, shieldable()); and the credential-link expansion that follows
 * dotfile-farm symlinks out of a store to where the secret really lives.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "grow.h"
#include "internal.h"

static const char *const holds_names[SHIELD_HOLDS_MAX] = {
    [SHIELD_HOLDS_NONE] = "",
    [SHIELD_HOLDS_CREDENTIALS] = "credentials",
    [SHIELD_HOLDS_PRIVATE_DATA] = "private-data",
    [SHIELD_HOLDS_HISTORY] = "history",
    [SHIELD_HOLDS_PERSISTENCE] = "persistence",
    [SHIELD_HOLDS_SERVICES] = "services",
    [SHIELD_HOLDS_UNKNOWN] = "unknown",
};

static const char *const mount_kind_names[SHIELD_MOUNT_MAX] = {
    [SHIELD_MOUNT_HIDDEN_DIR] = "hidden",   [SHIELD_MOUNT_HIDDEN_FILE] = "hidden",
    [SHIELD_MOUNT_READ_ONLY] = "read-only", [SHIELD_MOUNT_READ_ONLY_FILE] = "read-only",
    [SHIELD_MOUNT_DISCARDED] = "discarded",
};

const char *shield_holds_to_string(enum shield_holds h)
{
        return h < SHIELD_HOLDS_MAX ? holds_names[h] : "unknown";
}

const char *shield_mount_kind_to_string(enum shield_mount_kind k)
{
        return k < SHIELD_MOUNT_MAX ? mount_kind_names[k] : "hidden";
}

const char *shield_env_get(const struct shield_env *env, const char *name)
{
        if (env->getenv)
                return env->getenv(name, env->userdata);
        return getenv(name);
}

static bool shieldable_against(char *const *anchors, size_t n, const char *path)
{
        size_t len = strlen(path);

        if (strcmp(path, "/") == 0 || strcmp(path, "/dev/null") == 0)
                return false;
        /* path must not be an anchor or hold one: only a path no longer
         * than the anchor can (the home rules, all longer, skip the rest) */
        for (size_t i = 0; i < n; i++)
                if (len <= strlen(anchors[i]) && path_within(path, anchors[i]))
                        return false;
        return true;
}

bool shields_shieldable(const struct shield_set *s, const char *path)
{
        cleanup_free char *c = path_clean(path);

        return c && shieldable_against(s->resolved_anchors, s->n_anchors, c);
}

bool shield_shieldable_literal(const struct shield_set *s, const char *path)
{
        cleanup_free char *c = path_clean(path);

        return c && shieldable_against(s->anchors, s->n_anchors, c);
}

/* The one exception to dropping a rule on an anchor: a home rule that lands exactly on an anchor
 * nested inside another anchor stays, hiding that whole (inner) home. */
static bool on_nested_anchor(const struct shield_set *s, const char *path)
{
        for (size_t i = 0; i < s->n_anchors; i++) {
                if (strcmp(path, s->resolved_anchors[i]) != 0)
                        continue;
                for (size_t j = 0; j < s->n_anchors; j++)
                        if (path_beneath(s->resolved_anchors[j], path))
                                return true;
        }
        return false;
}

/* The rule table (s->hashed) keeps every rule findable by its path in
 * constant time: the duplicate check on every add and shields_covering()'s
 * lookup of each parent of a path would otherwise each cost a pass over
 * the thousand home rules plus one per write grant. */
static void hash_insert_at(uint32_t *slots, size_t cap, uint64_t h, size_t i)
{
        size_t j = h & (cap - 1);

        while (slots[j])
                j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t) (i + 1); /* hash_reserve() keeps i below UINT32_MAX */
}

static void hash_insert(uint32_t *slots, size_t cap, const struct shield_rule *rules, size_t i)
{
        hash_insert_at(slots, cap, path_hash(rules[i].path, strlen(rules[i].path)), i);
}

static void hash_catch_up(struct shield_set *s)
{
        for (; s->n_hashed < s->n_rules; s->n_hashed++)
                hash_insert(s->hashed, s->cap_hashed, s->rules, s->n_hashed);
}

/* Room for one rule more than want (the table at most half full), and
 * every rule in it.  -ENOMEM. */
static int hash_reserve(struct shield_set *s, size_t want)
{
        if (want >= UINT32_MAX)
                return -ENOMEM;
        if ((want + 1) * 2 > s->cap_hashed) {
                size_t cap = s->cap_hashed ? s->cap_hashed : 256;
                uint32_t *slots;

                while ((want + 1) * 2 > cap)
                        cap *= 2;
                slots = calloc(cap, sizeof(*slots));
                if (!slots)
                        return -ENOMEM;
                free(s->hashed);
                s->hashed = slots;
                s->cap_hashed = cap;
                s->n_hashed = 0;
        }
        hash_catch_up(s);
        return 0;
}

/* Is rule i better than rule best (SIZE_MAX: none yet) for the query? */
typedef bool (*rule_better_fn)(const struct shield_set *s, size_t i, size_t best,
                               const void *query);

/* The best of best and the hashed rules whose path is p[0..n) (h its hash),
 * by better(); SIZE_MAX when none is. */
static size_t best_at(const struct shield_set *s, const char *p, size_t n, uint64_t h,
                      rule_better_fn better, const void *query, size_t best)
{
        if (!s->cap_hashed)
                return best;
        for (size_t j = h & (s->cap_hashed - 1); s->hashed[j]; j = (j + 1) & (s->cap_hashed - 1)) {
                size_t i = s->hashed[j] - 1;
                const char *path = s->rules[i].path;

                if (strncmp(path, p, n) == 0 && path[n] == '\0' && better(s, i, best, query))
                        best = i;
        }
        return best;
}

struct equal_query {
        enum shield_deny deny;
        bool dir;
};

/* The first rule in set order of the same kind. */
static bool equal_better(const struct shield_set *s, size_t i, size_t best, const void *query)
{
        const struct equal_query *q = query;

        return s->rules[i].deny == q->deny && s->rules[i].dir == q->dir && i < best;
}

/* An equal rule is merged: a default claim (no source) wins over a
 * relocation's, since the source is diagnostic only.  -ENOMEM, 0 no
 * equal rule, 1 merged. */
static int merge_duplicate(struct shield_set *s, const char *path, uint64_t h,
                           enum shield_deny deny, bool dir, const char *source,
                           enum shield_origin origin)
{
        struct shield_rule *r;
        size_t i;

        if (hash_reserve(s, s->n_rules) < 0)
                return -ENOMEM;
        i = best_at(s, path, strlen(path), h, equal_better, &(struct equal_query){deny, dir},
                    SIZE_MAX);
        if (i == SIZE_MAX)
                return 0;
        r = &s->rules[i];
        if (r->source && !source) {
                r->source = NULL;
                r->origin = origin;
        }
        return 1;
}

int shield_set_reserve(struct shield_set *s, size_t more)
{
        size_t want = s->n_rules + more;

        if (want > s->cap_rules) {
                struct shield_rule *rules = reallocarray(s->rules, want, sizeof(*s->rules));

                if (!rules)
                        return -ENOMEM;
                s->rules = rules;
                s->cap_rules = want;
        }
        return hash_reserve(s, want);
}

/* cppcheck 2.10 ignores __attribute__((cleanup)), so it reports g, which
 * cleanup_free releases on every early return, as leaked there. */
int shield_set_add(struct shield_set *s, const char *literal, const struct shield_rule_spec *spec,
                   struct bento_err *err)
{
        char *lit = path_clean(literal);

        if (!lit)
                return bento_err_set(err, ENOMEM, "shield rule \"%s\"", literal);
        return shield_set_take(s, lit, spec, err);
}

int shield_set_take(struct shield_set *s, char *clean_literal, const struct shield_rule_spec *spec,
                    struct bento_err *err)
{
        /* path: where lit resolves, NULL when to itself (almost always: one
         * string then serves both) */
        cleanup_free char *lit = clean_literal, *path = NULL, *g = NULL;
        const char *where;
        struct shield_rule *r;
        uint64_t h;
        int dup;

        if (path_resolve_changed(lit, &path) < 0 || (spec->grant && !(g = strdup(spec->grant))))
                return bento_err_set(err, ENOMEM, "shield rule \"%s\"", lit);
        where = path ? path : lit; /* clean: resolved */
        if (strcmp(where, "/") == 0)
                return 1; /* cppcheck-suppress memleak */
        if (!shieldable_against(s->resolved_anchors, s->n_anchors, where) &&
            !(spec->origin == SHIELD_ORIGIN_HOME && on_nested_anchor(s, where)))
                return 1; /* cppcheck-suppress memleak */
        h = path_hash(where, strlen(where));
        dup = merge_duplicate(s, where, h, spec->deny, spec->dir, spec->source, spec->origin);
        if (dup > 0)
                return 0; /* cppcheck-suppress memleak */
        if (dup < 0 ||
            bento_grow((void **) &s->rules, &s->cap_rules, s->n_rules, sizeof(*s->rules)) < 0)
                /* cppcheck-suppress memleak */
                return bento_err_set(err, ENOMEM, "shield rule \"%s\"", lit);
        if (path && spec->origin == SHIELD_ORIGIN_WORKSPACE)
                s->n_redirected_workspace++;
        r = &s->rules[s->n_rules++];
        *r = (struct shield_rule){
            .literal = TAKE_PTR(lit),
            .deny = spec->deny,
            .dir = spec->dir,
            .holds = spec->holds,
            .source = spec->source,
            .origin = spec->origin,
            .grant = TAKE_PTR(g),
            .reads_as_dot = spec->reads_as_dot,
        };
        r->path = path ? TAKE_PTR(path) : r->literal;
        /* merge_duplicate() made the room and hashed every rule before */
        hash_insert_at(s->hashed, s->cap_hashed, h, s->n_hashed++);
        return 0;
}

int shield_set_report(struct shield_set *s, const char *variable, const char *value,
                      struct bento_err *err)
{
        struct shield_unshieldable *u;

        for (size_t i = 0; i < s->n_unshieldable; i++)
                if (strcmp(s->unshieldable[i].variable, variable) == 0 &&
                    strcmp(s->unshieldable[i].value, value) == 0)
                        return 0;
        if (bento_grow((void **) &s->unshieldable, &s->cap_unshieldable, s->n_unshieldable,
                       sizeof(*s->unshieldable)) < 0)
                return bento_err_set(err, ENOMEM, "unshieldable %s", variable);
        u = &s->unshieldable[s->n_unshieldable];
        u->variable = variable;
        u->value = strdup(value);
        if (!u->value)
                return bento_err_set(err, ENOMEM, "unshieldable %s", variable);
        s->n_unshieldable++;
        return 0;
}

struct shield_set *shield_set_free(struct shield_set *s)
{
        if (!s)
                return NULL;
        strv_free(s->anchors);
        strv_free(s->resolved_anchors);
        free(s->runtime_dir);
        for (size_t i = 0; i < s->n_rules; i++) {
                if (s->rules[i].literal != s->rules[i].path)
                        free(s->rules[i].literal);
                free(s->rules[i].path);
                free(s->rules[i].grant);
        }
        free(s->rules);
        free(s->hashed);
        for (size_t i = 0; i < s->n_unshieldable; i++)
                free(s->unshieldable[i].value);
        free(s->unshieldable);
        free(s);
        return NULL;
}

bool shield_rule_covers(const struct shield_rule *r, const char *path)
{
        cleanup_free char *c = path_clean(path);

        if (!c)
                return false;
        return r->dir ? path_within(r->path, c) : strcmp(r->path, c) == 0;
}

/* Lower is stricter: DenyAll before DenyWrite, a dir before a file. */
static int strictness(const struct shield_rule *r)
{
        return (r->deny == SHIELD_DENY_ALL ? 0 : 2) + (r->dir ? 0 : 1);
}

/* Covering rule i stricter than best, or as strict and earlier in set order?
 * query: whether the path asked about is rule i's path itself (a file rule
 * covers only that). */
static bool covering_better(const struct shield_set *s, size_t i, size_t best, const void *query)
{
        const struct shield_rule *r = &s->rules[i];

        if (!*(const bool *) query && !r->dir)
                return false;
        if (best == SIZE_MAX)
                return true;
        return strictness(r) < strictness(&s->rules[best]) ||
               (strictness(r) == strictness(&s->rules[best]) && i < best);
}

const struct shield_rule *shields_covering(const struct shield_set *s, const char *path)
{
        cleanup_free char *c = path_clean(path); /* once, not once per rule */
        uint64_t h = PATH_HASH_SEED;
        size_t best = SIZE_MAX;

        if (!c)
                return NULL;
        /* The rules at the path and at each of its parents, through the
         * table; a set built by hand (tests) has rules the table never saw. */
        for (size_t k = 0;; k++) {
                bool whole = c[k] == '\0';

                if (whole || path_parent_len(c, k))
                        best = best_at(s, c, k, h, covering_better, &whole, best);
                if (whole)
                        break;
                h = path_hash_step(h, c[k]);
        }
        for (size_t i = s->n_hashed; i < s->n_rules; i++) {
                bool whole = strcmp(s->rules[i].path, c) == 0;

                if ((whole || path_beneath(s->rules[i].path, c)) &&
                    covering_better(s, i, best, &whole))
                        best = i;
        }
        return best == SIZE_MAX ? NULL : &s->rules[best];
}

static bool inside_anchor(const struct shield_set *s, const char *path)
{
        for (size_t i = 0; i < s->n_anchors; i++)
                if (path_within(s->anchors[i], path) || path_within(s->resolved_anchors[i], path))
                        return true;
        return false;
}

/* The part of a store rule a link walk needs; copied because adding rules
 * may move s->rules. */
struct link_walk {
        struct shield_set *s;
        enum shield_holds holds;
        const char *source;
};

static int walk_links(const struct link_walk *w, const char *dir, bool is_dir, unsigned depth,
                      struct bento_err *err);

/* A symlink entry inside a store: shield its target where it lives. */
static int link_entry(const struct link_walk *w, const char *full, struct bento_err *err)
{
        cleanup_free char *target = NULL;
        struct stat st;
        int r;

        if (path_resolve(full, &target) < 0)
                return bento_err_set(err, ENOMEM, "credential link \"%s\"", full);
        if (strcmp(target, full) == 0 || !inside_anchor(w->s, target))
                return 0;
        r = shield_set_add(w->s, target,
                           &(struct shield_rule_spec){
                               .deny = SHIELD_DENY_ALL,
                               .dir = path_stat(target, &st) == 0 && S_ISDIR(st.st_mode),
                               .holds = w->holds,
                               .source = w->source,
                               .origin = SHIELD_ORIGIN_LINK,
                           },
                           err);
        return r < 0 ? r : 0;
}

/* type is the S_IF* type the directory listed; 0 asks lstat(2). */
static int walk_entry(const struct link_walk *w, const char *dir, const char *name, mode_t type,
                      unsigned depth, struct bento_err *err)
{
        cleanup_free char *full = path_join(dir, name);

        if (!full)
                return bento_err_set(err, ENOMEM, "credential links");
        if (type == 0 && path_type(full, &type) < 0)
                return 0;
        if (type == S_IFLNK)
                return link_entry(w, full, err);
        if (type == S_IFDIR && depth < SHIELD_WALK_DEPTH_MAX)
                return walk_links(w, full, true, depth + 1, err);
        return 0;
}

/* Could dir be opened as a directory?  False only when the host already
 * said it is missing or neither a directory nor a link. */
static bool may_open(const char *dir)
{
        mode_t type;

        if (path_type(dir, &type) < 0)
                return errno != ENOENT && errno != ENOTDIR;
        return type == S_IFDIR || type == S_IFLNK;
}

/* One directory of a link walk, for path_list(). */
struct link_dir {
        const struct link_walk *w;
        const char *dir;
        unsigned depth;
        struct bento_err *err;
        int r;
};

static int link_dir_entry(const char *name, mode_t type, void *userdata)
{
        struct link_dir *ld = userdata;

        ld->r = walk_entry(ld->w, ld->dir, name, type, ld->depth, ld->err);
        return ld->r < 0;
}

/* is_dir: the walk already knows dir is a directory.  One that cannot be
 * listed is passed over: the walk cannot see links in it. */
static int walk_links(const struct link_walk *w, const char *dir, bool is_dir, unsigned depth,
                      struct bento_err *err)
{
        struct link_dir ld = {w, dir, depth, err, 0};

        if (is_dir || may_open(dir))
                (void) path_list(dir, link_dir_entry, &ld);
        return ld.r < 0 ? ld.r : 0;
}

int shields_expand_links(struct shield_set *s, struct bento_err *err)
{
        size_t n = s->n_rules;

        for (size_t i = 0; i < n; i++) {
                struct link_walk w = {s, s->rules[i].holds, s->rules[i].source};
                cleanup_free char *dir = NULL;
                int r;

                if (s->rules[i].deny != SHIELD_DENY_ALL || !s->rules[i].dir ||
                    (w.holds != SHIELD_HOLDS_CREDENTIALS && w.holds != SHIELD_HOLDS_HISTORY &&
                     w.holds != SHIELD_HOLDS_PERSISTENCE))
                        continue;
                dir = strdup(s->rules[i].path);
                if (!dir)
                        return bento_err_set(err, ENOMEM, "credential links");
                r = walk_links(&w, dir, false, 1, err);
                if (r < 0)
                        return r;
        }
        return 0;
}
