/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Grant checks (docs/manifest.md, "GRANTS A RUN REFUSES") and the read opt-in (docs/manifest.md,
 * "CREDENTIAL SHIELDS").  A grant that the shields would have to contradict is refused up front
 * with a sentence that says what to change, instead of being silently narrowed: a program that
 * finds ~/.ssh empty after being granted it looks like a bug, a refusal before the run does not.
 * Only the literal spelling of a store opts it in, so a reviewer reading the manifest sees exactly
 * which store is exposed; a symlink or the resolved target never does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "internal.h"

struct verdicts {
        struct shield_refusal *items;
        size_t n, cap;
};

/* One grant, in the spellings the checks need. */
struct g {
        const char *shown; /* as written, for messages */
        const char *raw;   /* resolved as docs/manifest.md, "PATH RESOLUTION" says */
        char *clean;       /* raw, cleaned */
        char *resolved;    /* raw, symlink-resolved */
};

static int refuse(struct verdicts *v, enum shield_check check, const struct g *g,
                  struct bento_err *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int refuse(struct verdicts *v, enum shield_check check, const struct g *g,
                  struct bento_err *err, const char *fmt, ...)
{
        struct shield_refusal *r;
        va_list ap;
        int n;

        if (v->n == v->cap) {
                size_t cap = v->cap ? v->cap * 2 : 8;
                void *p = reallocarray(v->items, cap, sizeof(*v->items));

                if (!p)
                        return bento_err_set(err, ENOMEM, "grant checks");
                v->items = p;
                v->cap = cap;
        }
        r = &v->items[v->n];
        *r = (struct shield_refusal){.check = check, .grant = strdup(g->shown)};
        va_start(ap, fmt);
        n = vasprintf(&r->message, fmt, ap);
        va_end(ap);
        if (n < 0 || !r->grant) {
                free(r->grant);
                return bento_err_set(err, ENOMEM, "grant checks");
        }
        v->n++;
        return 1;
}

void shield_refusals_free(struct shield_refusal *r, size_t n)
{
        for (size_t i = 0; r && i < n; i++) {
                free(r[i].grant);
                free(r[i].message);
        }
        free(r);
}

/* lit[i]: a read grant string-equals DenyAll rule i's literal path. */
static int literal_opt_ins(const struct shield_set *s, const char *const *reads, size_t n_reads,
                           bool *lit)
{
        struct path_index ix;
        size_t lo, hi;

        if (path_index_init(&ix, reads, n_reads) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];

                if (r->deny != SHIELD_DENY_ALL || r->origin == SHIELD_ORIGIN_WORKSPACE)
                        continue;
                path_index_equal(&ix, r->literal, strlen(r->literal), &lo, &hi);
                lit[i] = lo < hi;
        }
        path_index_done(&ix);
        return 0;
}

int shields_opt_ins(const struct shield_set *s, const char *const *reads, size_t n_reads,
                    bool **ret, struct bento_err *err)
{
        cleanup_free bool *lit = calloc(s->n_rules + 1, sizeof(bool));
        cleanup_free size_t *named = calloc(s->n_rules + 1, sizeof(size_t));
        bool *opted = calloc(s->n_rules + 1, sizeof(bool));
        size_t n_named = 0;

        if (!lit || !named || !opted || literal_opt_ins(s, reads, n_reads, lit) < 0) {
                free(opted);
                return bento_err_set(err, ENOMEM, "read opt-in");
        }
        for (size_t j = 0; j < s->n_rules; j++)
                if (lit[j])
                        named[n_named++] = j;
        /* docs/manifest.md, "CREDENTIAL SHIELDS" speaks of opted-in *targets*: every DenyAll rule
         * landing on an opted-in store's resolved path is lifted with it. */
        for (size_t i = 0; i < s->n_rules; i++)
                for (size_t j = 0; j < n_named && !opted[i]; j++)
                        opted[i] = s->rules[i].deny == SHIELD_DENY_ALL &&
                                   strcmp(s->rules[i].path, s->rules[named[j]].path) == 0;
        *ret = opted;
        return 0;
}

/* The rules sorted by both spellings, for the per-grant queries.  lit is
 * &literal, or &path when every rule is spelled as it resolves (no
 * symlink on the way to any of them, the usual home): one index then. */
struct rules {
        const struct shield_set *s;
        const bool *opted;
        struct path_index path, literal;
        const struct path_index *lit;
};

static int rules_init(struct rules *rs, const struct shield_set *s, const bool *opted)
{
        cleanup_free const char **paths = calloc(s->n_rules + 1, sizeof(char *));
        cleanup_free const char **literals = calloc(s->n_rules + 1, sizeof(char *));

        bool same = true;

        *rs = (struct rules){.s = s, .opted = opted};
        rs->lit = &rs->literal;
        if (!paths || !literals)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_rules; i++) {
                paths[i] = s->rules[i].path;
                literals[i] = s->rules[i].literal;
                same = same && strcmp(paths[i], literals[i]) == 0;
        }
        if (path_index_init(&rs->path, paths, s->n_rules) < 0)
                return -ENOMEM;
        if (same)
                rs->lit = &rs->path;
        else if (path_index_init(&rs->literal, literals, s->n_rules) < 0)
                return -ENOMEM;
        return 0;
}

static void rules_done(struct rules *rs)
{
        path_index_done(&rs->path);
        path_index_done(&rs->literal); /* empty when lit is &path */
}

/* What a query asks of a rule besides where it lies. */
struct want {
        enum shield_deny deny;
        bool skip_opted;
};

static bool wanted(const struct rules *rs, const struct want *w, size_t id)
{
        return rs->s->rules[id].deny == w->deny && !(w->skip_opted && rs->opted[id]);
}

/* The lowest wanted id in [lo, hi) of ix, files only when whole; *best
 * keeps the lowest seen so far (SIZE_MAX: none). */
static void lowest(const struct rules *rs, const struct want *w, const struct path_index *ix,
                   size_t lo, size_t hi, bool whole, size_t *best)
{
        for (size_t i = lo; i < hi; i++) {
                size_t id = ix->e[i].id;

                if (id < *best && (whole || rs->s->rules[id].dir) && wanted(rs, w, id))
                        *best = id;
        }
}

/* What covering() hands path_index_within()'s callback. */
struct cover {
        const struct rules *rs;
        const struct want *w;
        const struct path_index *ix;
        size_t *best;
};

static void cover_run(size_t lo, size_t hi, bool whole, void *userdata)
{
        const struct cover *c = userdata;

        lowest(c->rs, c->w, c->ix, lo, hi, whole, c->best);
}

/* Rules whose key (in ix) covers p: a dir rule at p or above it, a file
 * rule exactly at p (docs/manifest.md, "CREDENTIAL SHIELDS"). */
static void covering(const struct rules *rs, const struct want *w, const struct path_index *ix,
                     const char *p, size_t *best)
{
        struct cover c = {rs, w, ix, best};

        path_index_within(ix, p, cover_run, &c);
}

static const struct shield_rule *pick(const struct rules *rs, size_t best)
{
        return best == SIZE_MAX ? NULL : &rs->s->rules[best];
}

/* The first rule (in set order) that covers the grant under either
 * spelling: its path the resolved grant, its literal the clean one. */
static const struct shield_rule *find_hit(const struct rules *rs, const struct g *g,
                                          enum shield_deny deny, bool skip_opted)
{
        const struct want w = {deny, skip_opted};
        size_t best = SIZE_MAX;

        covering(rs, &w, &rs->path, g->resolved, &best);
        covering(rs, &w, rs->lit, g->clean, &best);
        return pick(rs, best);
}

/* The first DenyAll rule the grant strictly contains under any spelling
 * (docs/manifest.md, "GRANTS A RUN REFUSES" also counts the literal location when the home is a
 * symlink). */
static const struct shield_rule *find_contained(const struct rules *rs, const struct g *g)
{
        const struct want w = {SHIELD_DENY_ALL, false};
        size_t best = SIZE_MAX, lo, hi;

        path_index_beneath(&rs->path, g->resolved, &lo, &hi);
        lowest(rs, &w, &rs->path, lo, hi, true, &best);
        path_index_beneath(rs->lit, g->resolved, &lo, &hi);
        lowest(rs, &w, rs->lit, lo, hi, true, &best);
        path_index_beneath(rs->lit, g->clean, &lo, &hi);
        lowest(rs, &w, rs->lit, lo, hi, true, &best);
        return pick(rs, best);
}

static int check_shield_reads(const struct rules *rs, const struct g *g, struct verdicts *v,
                              struct bento_err *err)
{
        const struct shield_rule *r = find_hit(rs, g, SHIELD_DENY_ALL, true);

        if (!r)
                return 0;
        return refuse(v, SHIELD_CHECK_READ_INSIDE, g, err,
                      "grant \"%s\" is inside the always-shielded path \"%s\" and cannot be "
                      "honored; granting \"%s\" itself under read: would opt that store in "
                      "(read-only, with a warning on every run), otherwise remove the grant",
                      g->shown, r->literal, r->literal);
}

static int check_shield_writes(const struct rules *rs, const struct g *g, enum shield_check check,
                               struct verdicts *v, struct bento_err *err)
{
        const struct shield_rule *r;

        if (check == SHIELD_CHECK_WRITE_INSIDE_DENY_ALL &&
            (r = find_hit(rs, g, SHIELD_DENY_ALL, false)))
                return refuse(v, check, g, err,
                              "write grant \"%s\" is inside the always-shielded path \"%s\" and "
                              "cannot be honored; there is no opt-in for a write, so remove the "
                              "grant or write somewhere else",
                              g->shown, r->literal);
        if (check == SHIELD_CHECK_WRITE_DENY_WRITE &&
            (r = find_hit(rs, g, SHIELD_DENY_WRITE, false)))
                return refuse(v, check, g, err,
                              "write grant \"%s\" is at or inside the write-shielded path \"%s\" "
                              "and cannot be honored - the shield is read-only and there is no "
                              "opt-in, so remove the grant or write somewhere else",
                              g->shown, r->literal);
        if (check == SHIELD_CHECK_WRITE_CONTAINS && (r = find_contained(rs, g)))
                return refuse(v, check, g, err,
                              "write grant \"%s\" contains the always-shielded path \"%s\", so its "
                              "parent would be writable and the store could be replaced; grant a "
                              "narrower directory instead",
                              g->shown, r->literal);
        return 0;
}

/* The path with its last component's letters case-swapped, or NULL when
 * that changes nothing (no letters). */
static char *flip_basename(const char *path)
{
        char *f = strdup(path), *base;
        bool changed = false;

        if (!f)
                return NULL;
        base = strrchr(f, '/') + 1;
        for (char *c = base; *c; c++) {
                if (isalpha((unsigned char) *c)) {
                        *c = (char) (islower((unsigned char) *c) ? toupper((unsigned char) *c)
                                                                 : tolower((unsigned char) *c));
                        changed = true;
                }
        }
        if (!changed) {
                free(f);
                return NULL;
        }
        return f;
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": on a case-insensitive filesystem the shield's other
 * spelling is a second, unshielded name for the same store. */
static bool case_alias(const struct shield_rule *r)
{
        cleanup_free char *flipped = NULL;
        struct stat a, b;

        if (path_lstat(r->path, &a) < 0)
                return false;
        flipped = flip_basename(r->path);
        return flipped && path_lstat(flipped, &b) == 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
}

static int id_cmp(const void *a, const void *b)
{
        size_t x = *(const size_t *) a, y = *(const size_t *) b;

        return x < y ? -1 : x > y;
}

/* The first DenyAll rule (not opted in) strictly inside the grant that has
 * a case-folded alias; -ENOMEM, 0 none, 1 found (*ret). */
static int find_case_alias(const struct rules *rs, const struct g *g,
                           const struct shield_rule **ret)
{
        const struct want w = {SHIELD_DENY_ALL, true};
        cleanup_free size_t *ids = NULL;
        size_t lo, hi, n = 0;

        path_index_beneath(&rs->path, g->resolved, &lo, &hi);
        if (lo == hi)
                return 0;
        ids = calloc(hi - lo, sizeof(*ids));
        if (!ids)
                return -ENOMEM;
        for (size_t i = lo; i < hi; i++)
                if (wanted(rs, &w, rs->path.e[i].id))
                        ids[n++] = rs->path.e[i].id;
        if (n)
                qsort(ids, n, sizeof(*ids), id_cmp);
        for (size_t i = 0; i < n; i++)
                if (case_alias(&rs->s->rules[ids[i]])) {
                        *ret = &rs->s->rules[ids[i]];
                        return 1;
                }
        return 0;
}

static int check_case(const struct rules *rs, const struct g *g, struct verdicts *v,
                      struct bento_err *err)
{
        const struct shield_rule *r = NULL;
        int found = find_case_alias(rs, g, &r);

        if (found < 0)
                return bento_err_set(err, ENOMEM, "grant checks");
        if (!found)
                return 0;
        return refuse(v, SHIELD_CHECK_CASE_FOLDED, g, err,
                      "grant \"%s\" contains the always-shielded path \"%s\" on a "
                      "case-insensitive filesystem, where another spelling of it would stay "
                      "readable; grant a narrower path that does not contain it",
                      g->shown, r->literal);
}

static int check_redirect(const struct shield_set *s, const struct g *g, struct verdicts *v,
                          struct bento_err *err)
{
        for (size_t i = 0; s->n_redirected_workspace > 0 && i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];

                if (r->origin != SHIELD_ORIGIN_WORKSPACE || !r->grant ||
                    strcmp(r->grant, g->resolved) != 0 || strcmp(r->literal, r->path) == 0)
                        continue;
                return refuse(v, SHIELD_CHECK_WORKSPACE_REDIRECT, g, err,
                              "write grant \"%s\" shields \"%s\", but a symlinked directory "
                              "component redirects it to \"%s\": the shield cannot be placed "
                              "reliably; replace the symlink with a real directory or narrow "
                              "the grant",
                              g->shown, r->literal, r->path);
        }
        return 0;
}

static bool is_proc_pid(const char *p)
{
        size_t n;

        if (strncmp(p, "/proc/", 6) != 0)
                return false;
        n = strspn(p + 6, "0123456789");
        return n > 0 && (p[6 + n] == '\0' || p[6 + n] == '/');
}

/* Checks 8–10: what the grant is on the host. */
static int check_host(const struct g *g, enum shield_check check, struct verdicts *v,
                      struct bento_err *err)
{
        static const char *const managed[] = {"/proc", "/dev", "/dev/shm", "/dev/pts", "/tmp"};
        struct stat st;
        mode_t type;

        if (check == SHIELD_CHECK_PROC_PID && is_proc_pid(g->resolved) &&
            path_lstat(g->resolved, &st) == 0)
                return refuse(v, check, g, err,
                              "grant \"%s\" resolves to \"%s\", a host process's directory in "
                              "/proc; remove it, the sandbox always has its own /proc",
                              g->shown, g->resolved);
        for (size_t i = 0; check == SHIELD_CHECK_MANAGED_MOUNT && i < 5; i++)
                if (strcmp(g->resolved, managed[i]) == 0)
                        return refuse(v, check, g, err,
                                      "grant \"%s\" resolves to \"%s\", a pseudo-filesystem the "
                                      "sandbox mounts fresh; grant a specific path inside it",
                                      g->shown, g->resolved);
        if (check == SHIELD_CHECK_LOOP && path_follow_type(g->raw, &type) < 0 && errno == ELOOP)
                return refuse(v, check, g, err,
                              "grant \"%s\" loops through itself on the host; fix the link or "
                              "drop the grant",
                              g->shown);
        return 0;
}

static int check_write_dir(const struct g *g, struct verdicts *v, struct bento_err *err)
{
        mode_t type;

        if (path_follow_type(g->raw, &type) == 0)
                return type == S_IFDIR ? 0
                                       : refuse(v, SHIELD_CHECK_WRITE_NOT_DIR, g, err,
                                                "write grant \"%s\" is a file; grant its parent "
                                                "directory instead",
                                                g->shown);
        if (errno == ENOENT || errno == ELOOP)
                return 0;
        return refuse(v, SHIELD_CHECK_WRITE_NOT_DIR, g, err,
                      "write grant \"%s\" cannot be checked on this host: %s; fix the path or "
                      "its permissions, or drop the grant",
                      g->shown, strerror(errno));
}

static int check_one(const struct rules *rs, enum shield_check c, const struct g *g, bool write,
                     struct verdicts *v, struct bento_err *err)
{
        switch (c) {
        case SHIELD_CHECK_WRITE_ROOT:
                if (write && (strcmp(g->shown, "/") == 0 || strcmp(g->resolved, "/") == 0))
                        return refuse(v, c, g, err,
                                      "write grant \"/\" would make the entire host root "
                                      "writable; grant a specific directory");
                return 0;
        case SHIELD_CHECK_READ_INSIDE:
                return write ? 0 : check_shield_reads(rs, g, v, err);
        case SHIELD_CHECK_WRITE_INSIDE_DENY_ALL:
        case SHIELD_CHECK_WRITE_DENY_WRITE:
        case SHIELD_CHECK_WRITE_CONTAINS:
                return write ? check_shield_writes(rs, g, c, v, err) : 0;
        case SHIELD_CHECK_CASE_FOLDED:
                return check_case(rs, g, v, err);
        case SHIELD_CHECK_WORKSPACE_REDIRECT:
                return write ? check_redirect(rs->s, g, v, err) : 0;
        case SHIELD_CHECK_PROC_PID:
        case SHIELD_CHECK_MANAGED_MOUNT:
        case SHIELD_CHECK_LOOP:
                return check_host(g, c, v, err);
        case SHIELD_CHECK_WRITE_NOT_DIR:
                return write ? check_write_dir(g, v, err) : 0;
        default:
                return 0;
        }
}

static void grants_free(struct g *gs, size_t n)
{
        for (size_t i = 0; gs && i < n; i++) {
                free(gs[i].clean);
                free(gs[i].resolved);
        }
        free(gs);
}

/* NULL when out of memory (the only failure). */
static struct g *grants_prepare(const struct shield_grant *in, size_t n)
{
        struct g *gs = calloc(n + 1, sizeof(*gs));

        if (!gs)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                gs[i].raw = in[i].path;
                gs[i].shown = in[i].as_written ? in[i].as_written : in[i].path;
                gs[i].clean = path_clean(in[i].path);
                if (!gs[i].clean || path_resolve(in[i].path, &gs[i].resolved) < 0) {
                        grants_free(gs, n);
                        return NULL;
                }
        }
        return gs;
}

/* Checks in spec order over reads then writes; a grant refused once is not
 * checked again, so each grant yields at most its first refusal. */
static int run_all(const struct rules *rs, struct g *gs, size_t n_reads, size_t n, bool *done,
                   struct verdicts *v, struct bento_err *err)
{
        for (int c = SHIELD_CHECK_WRITE_ROOT; c < SHIELD_CHECK_MAX; c++) {
                for (size_t i = 0; i < n; i++) {
                        int r;

                        if (done[i])
                                continue;
                        r = check_one(rs, (enum shield_check) c, &gs[i], i >= n_reads, v, err);
                        if (r < 0)
                                return r;
                        done[i] = r > 0;
                }
        }
        return 0;
}

static int run_checks(const struct shield_set *s, const bool *opted, struct g *gs, size_t n_reads,
                      size_t n, struct verdicts *v, struct bento_err *err)
{
        cleanup_free bool *done = calloc(n + 1, sizeof(bool));
        struct rules rs;
        int r = rules_init(&rs, s, opted);

        if (!done || r < 0) {
                rules_done(&rs);
                return bento_err_set(err, ENOMEM, "grant checks");
        }
        r = run_all(&rs, gs, n_reads, n, done, v, err);
        rules_done(&rs);
        return r;
}

int shields_check_grants(const struct shield_set *s, const struct shield_grants *in,
                         struct shield_refusal **ret, size_t *ret_n, struct bento_err *err)
{
        const struct shield_grant *reads = in->reads, *writes = in->writes;
        size_t n_reads = in->n_reads, n_writes = in->n_writes;
        const bool *opted = in->opted;
        cleanup_free struct shield_grant *all = calloc(n_reads + n_writes + 1, sizeof(*all));
        cleanup_free const char **paths = calloc(n_reads + 1, sizeof(char *));
        cleanup_free bool *own_opted = NULL;
        struct verdicts v = {0};
        struct g *gs = NULL;
        int r;

        if (!all || !paths)
                return bento_err_set(err, ENOMEM, "grant checks");
        for (size_t i = 0; i < n_reads; i++)
                paths[i] = reads[i].path;
        if (!opted) {
                r = shields_opt_ins(s, paths, n_reads, &own_opted, err);
                if (r < 0)
                        return r;
                opted = own_opted;
        }
        if (n_reads)
                memcpy(all, reads, n_reads * sizeof(*all));
        if (n_writes)
                memcpy(all + n_reads, writes, n_writes * sizeof(*all));
        gs = grants_prepare(all, n_reads + n_writes);
        if (!gs)
                return bento_err_set(err, ENOMEM, "grant checks");
        r = run_checks(s, opted, gs, n_reads, n_reads + n_writes, &v, err);
        grants_free(gs, n_reads + n_writes);
        if (r < 0) {
                shield_refusals_free(v.items, v.n);
                return r;
        }
        *ret = v.items;
        *ret_n = v.n;
        return 0;
}
