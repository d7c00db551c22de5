/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Grant checks (§5.9) and the read opt-in (§5.10).  A grant that the
 * shields would have to contradict is refused up front with a sentence
 * that says what to change, instead of being silently narrowed: a program
 * that finds ~/.ssh empty after being granted it looks like a bug, a
 * refusal before the run does not.  Only the literal spelling of a store
 * opts it in, so a reviewer reading the manifest sees exactly which store
 * is exposed; a symlink or the resolved target never does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "shield-internal.h"

struct verdicts {
        struct shield_refusal *items;
        size_t n, cap;
};

/* One grant, in the spellings the checks need. */
struct g {
        const char *shown; /* as written, for messages */
        const char *raw;   /* §1.9-resolved */
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

int shields_opt_ins(const struct shield_set *s, const char *const *reads, size_t n_reads,
                    bool **ret, struct bento_err *err)
{
        bool *lit = calloc(s->n_rules + 1, sizeof(bool));
        bool *opted = calloc(s->n_rules + 1, sizeof(bool));

        if (!lit || !opted) {
                free(lit);
                free(opted);
                return bento_err_set(err, ENOMEM, "read opt-in");
        }
        for (size_t i = 0; i < s->n_rules; i++)
                for (size_t j = 0; j < n_reads; j++)
                        if (s->rules[i].deny == SHIELD_DENY_ALL &&
                            s->rules[i].origin != SHIELD_ORIGIN_WORKSPACE &&
                            strcmp(reads[j], s->rules[i].literal) == 0)
                                lit[i] = true;
        /* §5.8 speaks of opted-in *targets*: every DenyAll rule landing on
         * an opted-in store's resolved path is lifted with it. */
        for (size_t i = 0; i < s->n_rules; i++)
                for (size_t j = 0; j < s->n_rules && !opted[i]; j++)
                        opted[i] = lit[j] && s->rules[i].deny == SHIELD_DENY_ALL &&
                                   strcmp(s->rules[i].path, s->rules[j].path) == 0;
        free(lit);
        *ret = opted;
        return 0;
}

/* Does r cover the grant under either spelling? */
static bool hits(const struct shield_rule *r, const struct g *g)
{
        if (r->dir)
                return path_within(r->path, g->resolved) || path_within(r->literal, g->clean);
        return strcmp(r->path, g->resolved) == 0 || strcmp(r->literal, g->clean) == 0;
}

/* Does the grant strictly contain r under any spelling (§5.9 item 7 also
 * counts the literal location when the home is a symlink)? */
static bool contains(const struct shield_rule *r, const struct g *g)
{
        return path_beneath(g->resolved, r->path) || path_beneath(g->resolved, r->literal) ||
               path_beneath(g->clean, r->literal);
}

static const struct shield_rule *
find_rule(const struct shield_set *s, const bool *opted, const struct g *g, enum shield_deny deny,
          bool skip_opted, bool (*match)(const struct shield_rule *, const struct g *))
{
        for (size_t i = 0; i < s->n_rules; i++)
                if (s->rules[i].deny == deny && !(skip_opted && opted[i]) && match(&s->rules[i], g))
                        return &s->rules[i];
        return NULL;
}

static int check_shield_reads(const struct shield_set *s, const bool *opted, const struct g *g,
                              struct verdicts *v, struct bento_err *err)
{
        const struct shield_rule *r = find_rule(s, opted, g, SHIELD_DENY_ALL, true, hits);

        if (!r)
                return 0;
        return refuse(v, SHIELD_CHECK_READ_INSIDE, g, err,
                      "grant \"%s\" is inside the always-shielded path \"%s\" and cannot be "
                      "honored; granting \"%s\" itself under read: would opt that store in "
                      "(read-only, with a warning on every run), otherwise remove the grant",
                      g->shown, r->literal, r->literal);
}

static int check_shield_writes(const struct shield_set *s, const bool *opted, const struct g *g,
                               enum shield_check check, struct verdicts *v, struct bento_err *err)
{
        const struct shield_rule *r;

        if (check == SHIELD_CHECK_WRITE_INSIDE_DENY_ALL &&
            (r = find_rule(s, opted, g, SHIELD_DENY_ALL, false, hits)))
                return refuse(v, check, g, err,
                              "write grant \"%s\" is inside the always-shielded path \"%s\" and "
                              "cannot be honored; there is no opt-in for a write, so remove the "
                              "grant or write somewhere else",
                              g->shown, r->literal);
        if (check == SHIELD_CHECK_WRITE_DENY_WRITE &&
            (r = find_rule(s, opted, g, SHIELD_DENY_WRITE, false, hits)))
                return refuse(v, check, g, err,
                              "write grant \"%s\" is at or inside the write-shielded path \"%s\" "
                              "and cannot be honored - the shield is read-only and there is no "
                              "opt-in, so remove the grant or write somewhere else",
                              g->shown, r->literal);
        if (check == SHIELD_CHECK_WRITE_CONTAINS &&
            (r = find_rule(s, opted, g, SHIELD_DENY_ALL, false, contains)))
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

/* §5.6: on a case-insensitive filesystem the shield's other spelling is a
 * second, unshielded name for the same store. */
static bool case_alias(const struct shield_rule *r, const struct g *g)
{
        cleanup_free char *flipped = NULL;
        struct stat a, b;

        if (!path_beneath(g->resolved, r->path) || lstat(r->path, &a) < 0)
                return false;
        flipped = flip_basename(r->path);
        return flipped && lstat(flipped, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int check_case(const struct shield_set *s, const bool *opted, const struct g *g,
                      struct verdicts *v, struct bento_err *err)
{
        const struct shield_rule *r = find_rule(s, opted, g, SHIELD_DENY_ALL, true, case_alias);

        if (!r)
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
        for (size_t i = 0; i < s->n_rules; i++) {
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

        if (check == SHIELD_CHECK_PROC_PID && is_proc_pid(g->resolved) &&
            lstat(g->resolved, &st) == 0)
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
        if (check == SHIELD_CHECK_LOOP && stat(g->raw, &st) < 0 && errno == ELOOP)
                return refuse(v, check, g, err,
                              "grant \"%s\" loops through itself on the host; fix the link or "
                              "drop the grant",
                              g->shown);
        return 0;
}

static int check_write_dir(const struct g *g, struct verdicts *v, struct bento_err *err)
{
        struct stat st;

        if (stat(g->raw, &st) == 0)
                return S_ISDIR(st.st_mode)
                           ? 0
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

static int check_one(const struct shield_set *s, const bool *opted, enum shield_check c,
                     const struct g *g, bool write, struct verdicts *v, struct bento_err *err)
{
        switch (c) {
        case SHIELD_CHECK_WRITE_ROOT:
                if (write && (strcmp(g->shown, "/") == 0 || strcmp(g->resolved, "/") == 0))
                        return refuse(v, c, g, err,
                                      "write grant \"/\" would make the entire host root "
                                      "writable; grant a specific directory");
                return 0;
        case SHIELD_CHECK_READ_INSIDE:
                return write ? 0 : check_shield_reads(s, opted, g, v, err);
        case SHIELD_CHECK_WRITE_INSIDE_DENY_ALL:
        case SHIELD_CHECK_WRITE_DENY_WRITE:
        case SHIELD_CHECK_WRITE_CONTAINS:
                return write ? check_shield_writes(s, opted, g, c, v, err) : 0;
        case SHIELD_CHECK_CASE_FOLDED:
                return check_case(s, opted, g, v, err);
        case SHIELD_CHECK_WORKSPACE_REDIRECT:
                return write ? check_redirect(s, g, v, err) : 0;
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
static int run_checks(const struct shield_set *s, const bool *opted, struct g *gs, size_t n_reads,
                      size_t n, struct verdicts *v, struct bento_err *err)
{
        cleanup_free bool *done = calloc(n + 1, sizeof(bool));

        if (!done)
                return bento_err_set(err, ENOMEM, "grant checks");
        for (int c = SHIELD_CHECK_WRITE_ROOT; c < SHIELD_CHECK_MAX; c++) {
                for (size_t i = 0; i < n; i++) {
                        int r;

                        if (done[i])
                                continue;
                        r = check_one(s, opted, (enum shield_check) c, &gs[i], i >= n_reads, v,
                                      err);
                        if (r < 0)
                                return r;
                        done[i] = r > 0;
                }
        }
        return 0;
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
