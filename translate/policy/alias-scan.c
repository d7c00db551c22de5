/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The credential-alias scan (alias-scan.h, docs/validate.md, "The credential-alias scan"), bounded:
 * every directory entry read counts against the budget, and running out
 * (or meeting something unreadable) marks the answer partial rather than
 * pretending it is complete.  Symbolic links are never followed: a link is
 * a name the shields already resolve, not a second identity.
 *
 * The write side (a writable second name for a file the shields keep
 * read-only) runs the other way round, because the shielded trees can be
 * far larger than the grants (~/.rustup, ~/.vscode-server, a pnpm store):
 * the walk of the write grants, which the credential side makes anyway
 * when a credential has a second link, keeps every linked file and every
 * mount it can write as a candidate, and only when there is one are the
 * shielded trees on the candidates' devices walked for the same identity.
 */
#include "alias-scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cleanup.h"
#include "jsonw.h"
#include "mountinfo.h"
#include "manifest/path.h"
#include "shields/shields.h"

/* Wallet key paths inside bulk stores (docs/manifest.md, "CREDENTIAL SHIELDS"): identities, not
 * shields. */
static const char *const wallet_keys[] = {
    ".bitcoin/wallets",           ".bitcoin/wallet.dat", ".config/Bitcoin/wallets",
    ".config/Bitcoin/wallet.dat", ".ethereum/keystore",  ".dashcore/wallets",
    ".dashcore/wallet.dat",
};

/* Trees a grant walk never enters: the base system and the host's own
 * pseudo-filesystems hold no user credential. */
static const char *const skip_trees[] = {"/usr", "/bin",  "/sbin", "/lib", "/lib64",
                                         "/nix", "/proc", "/sys",  "/dev"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct ident {
        dev_t dev;
        ino_t ino;
        char *name;
        bool pending; /* a store directory: dev and ino asked only when compared (settle_creds()) */
};

struct idents {
        struct ident *v;
        size_t n;
};

/* Most scans compare nothing: the grants hold no second link and no mount.
 * So what the comparisons need is asked of the host only when one is made:
 * the identity of each credential store directory (whose type the path
 * memo already knows from a listing) and the devices of the
 * write-protected rules (one lstat(2) per rule that exists).  With every
 * store present that was 430 lstat(2) calls of a translate's 1,400 system
 * calls. */
struct scan {
        const struct policy *p;
        dev_t *wp_devs; /* devices holding a write-protected (non-credential) shield */
        size_t n_wp_devs;
        bool wp_collected;  /* wp_devs is complete (collect_wp_devices()) */
        bool any_wp;        /* a write-protected rule's path exists: wp_devs is not empty */
        bool creds_pending; /* some creds are pending */
        size_t budget;
        struct alias_scan *out;
        struct idents creds;
        struct idents cands; /* writable linked files and mounts of write grants */
        int r;               /* sticky -ENOMEM */
        bool any_opted;      /* a read grant opted a store in: opted_store() can say yes */
        bool linked;         /* a credential file has more than one link */
        bool writing;        /* the grant being walked is a write grant */
        bool mount_cands;    /* some candidate is a mount point */
};

static void add_ident(struct scan *s, struct idents *set, const struct stat *st, const char *name)
{
        struct ident *v;

        if (s->r < 0)
                return;
        v = reallocarray(set->v, set->n + 1, sizeof(*v));
        if (!v) {
                s->r = -ENOMEM;
                return;
        }
        set->v = v;
        v[set->n] = (struct ident){st ? st->st_dev : 0, st ? st->st_ino : 0, strdup(name), !st};
        if (!v[set->n].name)
                s->r = -ENOMEM;
        else
                set->n++;
}

static void idents_done(struct idents *set)
{
        for (size_t i = 0; i < set->n; i++)
                free(set->v[i].name);
        free(set->v);
}

/* A pending store directory's identity, as collect_credentials() would
 * have taken it by lstat(2); false when it is gone, or is now neither a
 * directory nor a file. */
static bool settle_one(struct scan *s, struct ident *v)
{
        struct stat st;

        if (path_lstat(v->name, &st) < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        s->out->partial = true;
                return false;
        }
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) /* replaced meanwhile */
                return false;
        v->dev = st.st_dev;
        v->ino = st.st_ino;
        v->pending = false;
        return true;
}

/* The pending identities, in place (the order of the credentials is the
 * order of the answers), a store gone meanwhile dropped. */
static void settle_creds(struct scan *s)
{
        size_t kept = 0;

        if (!s->creds_pending)
                return;
        s->creds_pending = false;
        for (size_t i = 0; i < s->creds.n; i++) {
                struct ident *v = &s->creds.v[i];

                if (v->pending && !settle_one(s, v)) {
                        free(v->name);
                        continue;
                }
                s->creds.v[kept++] = *v;
        }
        s->creds.n = kept;
}

static const struct ident *find_ident(const struct idents *set, const struct stat *st)
{
        for (size_t i = 0; i < set->n; i++)
                if (set->v[i].dev == st->st_dev && set->v[i].ino == st->st_ino)
                        return &set->v[i];
        return NULL;
}

static void add_hit(struct scan *s, const char *path, const char *target, bool write_side)
{
        struct alias_hit *v;

        for (size_t i = 0; i < s->out->n_hits; i++)
                if (strcmp(s->out->hits[i].path, path) == 0)
                        return;
        v = reallocarray(s->out->hits, s->out->n_hits + 1, sizeof(*v));
        if (!v) {
                s->r = -ENOMEM;
                return;
        }
        s->out->hits = v;
        v[s->out->n_hits] = (struct alias_hit){strdup(path), strdup(target), write_side};
        if (!v[s->out->n_hits].path || !v[s->out->n_hits].target) {
                free(v[s->out->n_hits].path);
                free(v[s->out->n_hits].target);
                s->r = -ENOMEM;
                return;
        }
        s->out->n_hits++;
}

typedef void (*visit_fn)(struct scan *s, const char *path, const struct stat *st);
typedef bool (*enter_fn)(struct scan *s, const char *path, const struct stat *st);

static void walk(struct scan *s, const char *dir, int depth, visit_fn visit, enter_fn enter,
                 bool cached);

/* One directory of a walk, for path_list(). */
struct walk_dir {
        struct scan *s;
        const char *dir;
        int depth;
        visit_fn visit;
        enter_fn enter;
        bool cached; /* listings and lstat(2)s through the path memo */
};

/* A credential store's walk goes through the path memo: the shields looked
 * at most of its names already, and stores are small.  A granted tree's
 * walk (up to ALIAS_SCAN_RUN_BUDGET entries) asks the host directly and
 * keeps nothing. */
static int walk_entry(const char *name, mode_t type, void *userdata)
{
        const struct walk_dir *w = userdata;
        struct scan *s = w->s;
        cleanup_free char *path = NULL;
        struct stat st;

        (void) type;
        if (s->budget == 0) {
                s->out->partial = true;
                return 1;
        }
        s->budget--;
        path = path_join(w->dir, name);
        if (!path) {
                s->r = -ENOMEM;
                return 1;
        }
        if ((w->cached ? path_lstat(path, &st) : lstat(path, &st)) < 0) {
                s->out->partial = true;
                return 0;
        }
        w->visit(s, path, &st);
        if (S_ISDIR(st.st_mode) && w->enter(s, path, &st))
                walk(s, path, w->depth + 1, w->visit, w->enter, w->cached);
        return s->r < 0;
}

/* Depth-first walk of dir without following links, under the budget.  A
 * directory that cannot be read whole leaves the answer partial. */
static void walk(struct scan *s, const char *dir, int depth, visit_fn visit, enter_fn enter,
                 bool cached)
{
        struct walk_dir w = {s, dir, depth, visit, enter, cached};

        if (depth > SHIELD_WALK_DEPTH_MAX || s->r < 0)
                return;
        if ((cached ? path_list(dir, walk_entry, &w) : path_list_direct(dir, walk_entry, &w)) < 0)
                s->out->partial = true;
}

/* Credential side: every file and directory of a store is an identity,
 * except a VCS object store (its blobs are not the secrets). */
static void visit_cred(struct scan *s, const char *path, const struct stat *st)
{
        if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
                add_ident(s, &s->creds, st, path);
        if (S_ISREG(st->st_mode) && st->st_nlink > 1)
                s->linked = true;
}

static bool enter_cred(struct scan *s, const char *path, const struct stat *st)
{
        size_t n = strlen(path);

        (void) s;
        (void) st;
        return !(n >= 12 && strcmp(path + n - 12, "/.git/objects") == 0);
}

static bool opted_store(const struct scan *s, const char *path)
{
        const struct policy *p = s->p;

        for (size_t i = 0; s->any_opted && i < p->shields->n_rules; i++)
                if (p->opted[i] && path_within(p->shields->rules[i].path, path))
                        return true;
        return false;
}

static void add_anchor(struct scan *s, const char *path)
{
        struct stat st;
        mode_t type;

        if (!path) { /* out of memory building it: the scan cannot vouch */
                s->out->partial = true;
                return;
        }
        if (opted_store(s, path) || path_type(path, &type) < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        s->out->partial = true;
                return;
        }
        if (type == S_IFDIR) { /* its identity: settle_creds() */
                add_ident(s, &s->creds, NULL, path);
                s->creds_pending = true;
                walk(s, path, 0, visit_cred, enter_cred, true);
                return;
        }
        if (path_lstat(path, &st) < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        s->out->partial = true;
                return;
        }
        visit_cred(s, path, &st);
}

/* A rule whose files are credentials: the read side looks for second
 * names of them in every grant.  Every other rule is write-protected only
 * as far as the alias scan goes (its files may be readable, or hidden for
 * privacy, but the scan looks for their second names in write grants). */
static bool credential_rule(const struct shield_rule *r)
{
        return r->deny == SHIELD_DENY_ALL && r->origin != SHIELD_ORIGIN_WORKSPACE &&
               (!r->dir || r->holds == SHIELD_HOLDS_CREDENTIALS);
}

static void collect_credentials(struct scan *s)
{
        const struct shield_set *set = s->p->shields;

        for (size_t i = 0; i < set->n_rules; i++)
                if (credential_rule(&set->rules[i]))
                        add_anchor(s, set->rules[i].path);
        for (size_t a = 0; a < set->n_anchors; a++)
                for (size_t i = 0; i < N_OF(wallet_keys); i++) {
                        cleanup_free char *path =
                            path_join(set->resolved_anchors[a], wallet_keys[i]);

                        if (!path) {
                                s->r = -ENOMEM;
                                return;
                        }
                        add_anchor(s, path);
                }
}

/* Hidden in the sandbox: a shield (not opted in) covers it. */
static bool hidden(const struct scan *s, const char *path)
{
        const struct shield_rule *r = shields_covering(s->p->shields, path);

        return r && r->deny == SHIELD_DENY_ALL && !opted_store(s, path);
}

static bool cred_device(struct scan *s, dev_t dev)
{
        settle_creds(s);
        for (size_t i = 0; i < s->creds.n; i++)
                if (s->creds.v[i].dev == dev)
                        return true;
        return false;
}

static bool known_wp_device(const struct scan *s, dev_t dev)
{
        for (size_t i = 0; i < s->n_wp_devs; i++)
                if (s->wp_devs[i] == dev)
                        return true;
        return false;
}

/* The devices the write-protected rules live on: a hard link never leaves
 * its file system, so a write grant elsewhere cannot hold one.  Collected
 * when first asked (wp_device()). */
static void collect_wp_devices(struct scan *s)
{
        const struct shield_set *set = s->p->shields;

        s->wp_collected = true;
        for (size_t i = 0; s->r >= 0 && i < set->n_rules; i++) {
                struct stat st;
                dev_t *v;

                if (credential_rule(&set->rules[i]))
                        continue;
                if (path_lstat(set->rules[i].path, &st) < 0) {
                        if (errno != ENOENT && errno != ENOTDIR)
                                s->out->partial = true;
                        continue;
                }
                if (known_wp_device(s, st.st_dev))
                        continue;
                v = reallocarray(s->wp_devs, s->n_wp_devs + 1, sizeof(*v));
                if (!v) {
                        s->r = -ENOMEM;
                        return;
                }
                s->wp_devs = v;
                v[s->n_wp_devs++] = st.st_dev;
        }
}

/* Does a write-protected rule's path exist (the memo's type, no lstat(2)
 * for a name its directory's listing holds)?  Any failure but a missing
 * name leaves the answer partial, as collect_wp_devices() would. */
static void note_wp_rules(struct scan *s)
{
        const struct shield_set *set = s->p->shields;

        for (size_t i = 0; i < set->n_rules; i++) {
                mode_t type;

                if (credential_rule(&set->rules[i]))
                        continue;
                if (path_type(set->rules[i].path, &type) == 0)
                        s->any_wp = true;
                else if (errno != ENOENT && errno != ENOTDIR)
                        s->out->partial = true;
        }
}

/* Only a write grant makes the write side ask (alias_scan()). */
static bool wp_device(struct scan *s, dev_t dev)
{
        if (!s->any_wp)
                return false;
        if (!s->wp_collected)
                collect_wp_devices(s);
        return known_wp_device(s, dev);
}

/* Writable in the sandbox, for a path inside a write grant: no shield
 * covers it (write grants land after read grants, and every shield after
 * both, so only a shield can make such a path read-only). */
static bool writable(const struct scan *s, const char *path)
{
        return !shields_covering(s->p->shields, path);
}

static void visit_grant(struct scan *s, const char *path, const struct stat *st)
{
        const struct ident *c;

        if (!S_ISREG(st->st_mode) || st->st_nlink < 2 || hidden(s, path))
                return;
        settle_creds(s);
        c = find_ident(&s->creds, st);
        if (c && strcmp(c->name, path) != 0)
                add_hit(s, path, c->name, false);
        else if (!c && s->writing && wp_device(s, st->st_dev) && writable(s, path))
                add_ident(s, &s->cands, st, path);
}

static bool enter_grant(struct scan *s, const char *path, const struct stat *st)
{
        return ((s->linked && cred_device(s, st->st_dev)) ||
                (s->writing && wp_device(s, st->st_dev))) &&
               !hidden(s, path) &&
               !(strlen(path) > 1 && path[0] == '/' &&
                 (path_within("/usr", path) || path_within("/nix", path) ||
                  path_within("/proc", path) || path_within("/sys", path)));
}

static bool skipped_tree(const char *path)
{
        for (size_t i = 0; i < N_OF(skip_trees); i++)
                if (path_within(skip_trees[i], path))
                        return true;
        return false;
}

static void walk_grant(struct scan *s, const char *root, bool writing)
{
        struct stat st;

        if (skipped_tree(root) || hidden(s, root) || path_lstat(root, &st) < 0 ||
            !S_ISDIR(st.st_mode))
                return;
        s->writing = writing;
        walk(s, root, 0, visit_grant, enter_grant, false);
        s->writing = false;
}

/* One walk per grant serves both sides: a read grant is walked only when a
 * credential has a second link; a write grant also when a write-protected
 * rule shares a device with something (the walk decides per directory). */
static void walk_grants(struct scan *s)
{
        const struct policy *p = s->p;

        for (size_t i = 0; s->r >= 0 && i < p->n_reads + p->n_writes; i++) {
                bool writing = i >= p->n_reads;
                const struct policy_path *g = writing ? &p->writes[i - p->n_reads] : &p->reads[i];

                if (g->exists && g->real && (s->linked || (writing && s->any_wp)))
                        walk_grant(s, g->real, writing);
        }
}

/* Is path inside a grant (from first, so p->n_reads: a write grant)? */
static bool granted(const struct policy *p, const char *path, size_t first)
{
        for (size_t i = first; i < p->n_reads + p->n_writes; i++) {
                const struct policy_path *g =
                    i < p->n_reads ? &p->reads[i] : &p->writes[i - p->n_reads];

                if (g->exists && g->real && path_within(g->real, path))
                        return true;
        }
        return false;
}

/* One mount point: a credential (or a directory of one) shown under
 * another name, or a writable mount that the write side must compare. */
static void visit_mount(struct scan *s, const char *mp, dev_t dev)
{
        const struct policy *p = s->p;
        /* granted() first: the device checks settle what they compare */
        bool cred = granted(p, mp, 0) && cred_device(s, dev);
        bool wp = granted(p, mp, p->n_reads) && wp_device(s, dev) && writable(s, mp);
        const struct ident *c = NULL;
        struct stat st;

        if ((!cred && !wp) || hidden(s, mp) || stat(mp, &st) < 0)
                return;
        if (cred)
                c = find_ident(&s->creds, &st); /* cred_device() settled them */
        if (c && strcmp(c->name, mp) != 0)
                add_hit(s, mp, c->name, false);
        else if (!c && wp) {
                add_ident(s, &s->cands, &st, mp);
                s->mount_cands = true;
        }
}

/* Bind aliases, from /proc/self/mountinfo (an unreadable table makes the
 * answer partial; a line that does not parse is passed over). */
static void scan_mounts(struct scan *s)
{
        cleanup_free char *data = NULL;
        struct bento_err err = {0};
        struct bento_mountinfo mi;
        char *pos;
        int r;

        if (bento_mountinfo_read("/proc/self/mountinfo", &data, &err) < 0) {
                s->out->partial = true;
                return;
        }
        pos = data;
        while (s->r >= 0 && (r = bento_mountinfo_next(&pos, &mi)) != 0)
                if (r > 0)
                        visit_mount(s, mi.mnt, makedev(mi.major, mi.minor));
}

static int cmp_ident(const void *a, const void *b)
{
        const struct ident *x = a, *y = b;

        if (x->dev != y->dev)
                return x->dev < y->dev ? -1 : 1;
        if (x->ino != y->ino)
                return x->ino < y->ino ? -1 : 1;
        return 0;
}

/* Index of the first candidate not below (dev, ino); candidates sorted. */
static size_t cand_lower(const struct scan *s, dev_t dev, ino_t ino)
{
        struct ident key = {dev, ino, NULL};
        size_t lo = 0, hi = s->cands.n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (cmp_ident(&s->cands.v[mid], &key) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static bool cand_device(const struct scan *s, dev_t dev)
{
        size_t i = cand_lower(s, dev, 0);

        return i < s->cands.n && s->cands.v[i].dev == dev;
}

/* Every candidate that is another name for the write-protected path. */
static void match_cands(struct scan *s, const char *path, const struct stat *st)
{
        for (size_t i = cand_lower(s, st->st_dev, st->st_ino);
             i < s->cands.n && s->cands.v[i].dev == st->st_dev && s->cands.v[i].ino == st->st_ino;
             i++)
                if (strcmp(s->cands.v[i].name, path) != 0)
                        add_hit(s, s->cands.v[i].name, path, true);
}

/* Write side: a file of a write-protected rule (one link is enough for a
 * bind mount's match), or a directory of one. */
static void visit_wp(struct scan *s, const char *path, const struct stat *st)
{
        if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
                match_cands(s, path, st);
}

static bool enter_wp(struct scan *s, const char *path, const struct stat *st)
{
        (void) path;
        return cand_device(s, st->st_dev);
}

/* A writable mount of a directory above a write-protected rule (the home,
 * ~/.config, a checkout) shows the rule's files under new, unshielded
 * names.  Only looked at when some candidate is a mount. */
static void match_ancestors(struct scan *s, const char *path)
{
        cleanup_free char *dir = strdup(path);
        char *slash;

        if (!dir) {
                s->r = -ENOMEM;
                return;
        }
        while (s->r >= 0 && (slash = strrchr(dir, '/'))) {
                struct stat st;
                bool top = slash == dir;

                slash[top ? 1 : 0] = '\0';
                if (path_lstat(dir, &st) == 0 && cand_device(s, st.st_dev))
                        visit_wp(s, dir, &st);
                if (top)
                        break;
        }
}

/* The shielded side of the write check, run only when the write grants
 * held a candidate: each non-credential rule on a candidate's device, its
 * tree, and (for mounts) its ancestors, compared with the candidates. */
static void match_write_protected(struct scan *s)
{
        const struct shield_set *set = s->p->shields;

        if (s->r < 0 || s->cands.n == 0)
                return;
        qsort(s->cands.v, s->cands.n, sizeof(*s->cands.v), cmp_ident);
        for (size_t i = 0; s->r >= 0 && i < set->n_rules; i++) {
                const char *path = set->rules[i].path;
                struct stat st;

                if (credential_rule(&set->rules[i]))
                        continue;
                if (s->mount_cands)
                        match_ancestors(s, path);
                if (path_lstat(path, &st) < 0 || !cand_device(s, st.st_dev))
                        continue;
                visit_wp(s, path, &st);
                if (S_ISDIR(st.st_mode))
                        walk(s, path, 0, visit_wp, enter_wp, false);
        }
}

int alias_scan(const struct policy *p, size_t budget, struct alias_scan *ret, struct bento_err *err)
{
        struct alias_scan out = {0};
        struct scan s = {.p = p, .budget = budget, .out = &out};

        for (size_t i = 0; p->opted && p->shields && i < p->shields->n_rules; i++)
                s.any_opted |= p->opted[i];

        if (p->shields) {
                collect_credentials(&s);
                if (s.r >= 0 && p->n_writes > 0) /* the write side needs a write grant */
                        note_wp_rules(&s);
                walk_grants(&s);
                if (s.r >= 0 && (s.creds.n > 0 || s.any_wp))
                        scan_mounts(&s);
                match_write_protected(&s);
        }
        idents_done(&s.creds);
        idents_done(&s.cands);
        free(s.wp_devs);
        if (s.r < 0) {
                alias_scan_done(&out);
                return bento_err_set(err, ENOMEM, "credential-alias scan");
        }
        *ret = out;
        return 0;
}

void alias_scan_done(struct alias_scan *s)
{
        for (size_t i = 0; i < s->n_hits; i++) {
                free(s->hits[i].path);
                free(s->hits[i].target);
        }
        free(s->hits);
        *s = (struct alias_scan){0};
}

void alias_hit_json(struct bento_jsonw *w, const struct alias_hit *h)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "path", h->path);
        bento_jsonw_kstring(w, h->write_side ? "protected" : "credential", h->target);
        bento_jsonw_close_object(w);
}

/* A tree the user acknowledged must not hold (or be inside) a credential
 * store itself: accepting it would accept the credential's own name. */
static const char *tree_holds_credential(const struct policy *p, const char *tree)
{
        for (size_t i = 0; i < p->shields->n_rules; i++) {
                const struct shield_rule *r = &p->shields->rules[i];

                if (r->deny == SHIELD_DENY_ALL &&
                    (path_within(tree, r->path) || path_within(r->path, tree)))
                        return r->path;
        }
        return NULL;
}

static bool accepted_tree(char *const *trees, size_t n, const char *path)
{
        for (size_t i = 0; i < n; i++)
                if (path_within(trees[i], path))
                        return true;
        return false;
}

/* The read or write grant holding path, when acknowledging it would not
 * acknowledge a credential too: what the refusal offers to paste. */
static const char *suggest_tree(const struct policy *p, const char *path)
{
        for (size_t i = 0; i < p->n_reads + p->n_writes; i++) {
                const struct policy_path *g =
                    i < p->n_reads ? &p->reads[i] : &p->writes[i - p->n_reads];

                if (g->exists && path_within(g->real, path) && !tree_holds_credential(p, g->real))
                        return g->real;
        }
        return NULL;
}

/* The refused aliases of one side (credential or write-protected), under
 * its heading; *tree gets the first tree worth offering to acknowledge. */
static void write_hits(FILE *f, const struct policy *p, const struct alias_scan *s,
                       char *const *trees, size_t n_trees, bool write_side, const char **tree)
{
        bool any = false;

        for (size_t i = 0; i < s->n_hits; i++) {
                if (s->hits[i].write_side != write_side ||
                    accepted_tree(trees, n_trees, s->hits[i].path))
                        continue;
                if (!any)
                        fputs(write_side ? "a writable path is a second name for a file the "
                                           "shields keep read-only, which the shields (placed "
                                           "on the file's own name) would not protect; the "
                                           "sandbox could change it through this name:\n"
                                         : "a readable path is a second name for a shielded "
                                           "credential, which the shields (placed on the "
                                           "credential's own name) would not hide:\n",
                              f);
                any = true;
                fprintf(f, "  \"%s\" aliases \"%s\"\n", s->hits[i].path, s->hits[i].target);
                if (!*tree)
                        *tree = suggest_tree(p, s->hits[i].path);
        }
}

static void write_refusal(FILE *f, const struct policy *p, const struct alias_scan *s,
                          char *const *trees, size_t n_trees)
{
        const char *tree = NULL;

        write_hits(f, p, s, trees, n_trees, false, &tree);
        write_hits(f, p, s, trees, n_trees, true, &tree);
        fputs("Remove the alias (a hard link or a bind mount; a copy made with cp is no alias), "
              "or narrow the grant so it no longer covers it (a write-protected file's alias "
              "is harmless inside a read grant).",
              f);
        if (tree)
                fprintf(f,
                        " If the tree is a known snapshot or backup, acknowledge its aliases "
                        "for this run with:\n  --accept-alias %s",
                        tree);
}

char *alias_scan_refusal(const struct policy *p, char *const *accept, size_t n_accept,
                         struct alias_scan *accepted, struct bento_err *err)
{
        struct alias_scan s = {0};
        cleanup_strv char **trees = NULL;
        size_t refused = 0;
        char *msg = NULL;
        size_t len = 0;
        FILE *f;

        if (!p->shields)
                return NULL; /* policy_refusal() already refuses a run without shields */
        trees = calloc(n_accept + 1, sizeof(char *));
        if (!trees)
                return bento_err_set(err, ENOMEM, "alias scan"), NULL;
        for (size_t i = 0; i < n_accept; i++) {
                const char *holds;

                /* accept[i] is absolute (the caller made it so). */
                if (path_resolve(accept[i], &trees[i]) < 0)
                        return bento_err_set(err, ENOMEM, "alias scan"), NULL;
                holds = tree_holds_credential(p, trees[i]);
                if (!holds)
                        continue;
                if (asprintf(&msg,
                             "--accept-alias %s would accept every alias of a credential it "
                             "contains or is inside (\"%s\"); name a tree that holds only the "
                             "snapshot or backup",
                             accept[i], holds) < 0)
                        return bento_err_set(err, ENOMEM, "alias scan"), NULL;
                return msg;
        }
        if (alias_scan(p, ALIAS_SCAN_RUN_BUDGET, &s, err) < 0)
                return NULL;
        for (size_t i = 0; i < s.n_hits; i++)
                refused += !accepted_tree(trees, n_accept, s.hits[i].path);
        if (refused == 0 && !s.partial) {
                /* Only acknowledged aliases (or none): the caller lists them. */
                if (accepted)
                        *accepted = s;
                else
                        alias_scan_done(&s);
                return NULL;
        }
        f = open_memstream(&msg, &len);
        if (!f) {
                alias_scan_done(&s);
                bento_err_set(err, ENOMEM, "alias scan");
                return NULL;
        }
        if (refused > 0)
                write_refusal(f, p, &s, trees, n_accept);
        else
                fputs("bento could not finish checking the granted trees for second names of "
                      "shielded credentials and write-protected files (a directory could not be "
                      "read, or there were too many entries); it refuses rather than risk "
                      "exposing one. Narrow the grants or make them readable.",
                      f);
        alias_scan_done(&s);
        if (fclose(f) != 0) {
                free(msg);
                bento_err_set(err, ENOMEM, "alias scan");
                return NULL;
        }
        return msg;
}
