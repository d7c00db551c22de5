/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The clamps of docs/profile.md, "From observation to proposal": what the
 * shields hide or keep read-only is never proposed (no opt-in is ever
 * drafted), nor are floored system trees, directories too broad to review,
 * or grants `run` itself would refuse; what stays but deserves a second
 * look is flagged.  The shield set and run's refusals come from
 * translate/shields/ and translate/policy/, so the proposal can never
 * disagree with what validate and run will later say about it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "internal.h"
#include "manifest/path.h"
#include "policy/policy.h"

#define RUN_REFUSAL_ROUNDS 64

static const char *const home_containers[] = {"/home", "/var/home", "/export/home", "/Users", NULL};

/* Write floors: trees no profiled program gets write access to, whatever
 * it tried (an anchor's own home excepted). */
static const char *const write_floors[] = {"/etc", "/var", "/boot", "/opt", "/srv", "/root", NULL};

static bool in_anchor(const struct shield_set *s, const char *p)
{
        for (size_t i = 0; s && i < s->n_anchors; i++)
                if (path_within(s->anchors[i], p) || path_within(s->resolved_anchors[i], p))
                        return true;
        return false;
}

bool profile_broad(const struct shield_set *s, const char *path)
{
        if (strcmp(path, "/") == 0 || !strchr(path + 1, '/'))
                return true;
        for (size_t i = 0; home_containers[i]; i++)
                if (strcmp(home_containers[i], path) == 0)
                        return true;
        for (size_t i = 0; s && i < s->n_anchors; i++)
                if (path_within(path, s->anchors[i]) || path_within(path, s->resolved_anchors[i]))
                        return true;
        return false;
}

/* The home directory p lies in when it is not one of this user's: the
 * first component under a home container, or /root. */
static char *foreign_home(const struct shield_set *s, const char *p)
{
        for (size_t i = 0; home_containers[i]; i++) {
                size_t n = strlen(home_containers[i]);
                const char *end;

                if (!path_beneath(home_containers[i], p))
                        continue;
                end = strchr(p + n + 1, '/');
                char *home = end ? strndup(p, end - p) : strdup(p);

                if (home && in_anchor(s, home)) {
                        free(home);
                        return NULL;
                }
                return home;
        }
        if (path_within("/root", p) && !in_anchor(s, "/root"))
                return strdup("/root");
        return NULL;
}

static bool floored_write(const struct proposer *pr, const char *dir)
{
        cleanup_free char *foreign = NULL;

        if (in_anchor(pr->shields, dir) && strcmp(dir, "/") != 0)
                return false;
        for (size_t i = 0; write_floors[i]; i++)
                if (path_within(write_floors[i], dir))
                        return true;
        for (size_t i = 0; home_containers[i]; i++)
                if (strcmp(home_containers[i], dir) == 0)
                        return true;
        foreign = foreign_home(pr->shields, dir);
        return strcmp(dir, "/") == 0 || foreign != NULL;
}

/* Does a shield rule of a home that is not an anchor lie inside p, or p
 * inside it?  (Profiling as root, a read of /home/u/.ssh.) */
static bool reaches_foreign_shield(const struct shield_set *s, const char *p)
{
        cleanup_free char *home = foreign_home(s, p);

        if (!home)
                return false;
        for (size_t i = 0; i < shield_home_rules_n; i++) {
                cleanup_free char *rule = path_join(home, shield_home_rules[i].rel);

                if (rule && (path_within(rule, p) || path_within(p, rule)))
                        return true;
        }
        return false;
}

/* The strictest shield over p, spelled as observed or resolved. */
static const struct shield_rule *shield_over(const struct proposer *pr, const char *p)
{
        const struct shield_rule *r = shields_covering(pr->shields, p);
        cleanup_free char *real = NULL;

        if (r && r->deny == SHIELD_DENY_ALL)
                return r;
        if (path_resolve(p, &real) == 0 && real && strcmp(real, p) != 0) {
                const struct shield_rule *rr = shields_covering(pr->shields, real);

                if (rr && (!r || rr->deny == SHIELD_DENY_ALL))
                        return rr;
        }
        return r;
}

static int withhold(struct proposer *pr, struct cand *k, enum profile_item_kind kind,
                    enum profile_reason reason, enum shield_holds holds)
{
        k->dropped = true;
        return proposer_item(pr, kind, k->path, reason, holds, !k->any_ok, NULL);
}

static int clamp_one(struct proposer *pr, struct cand *k, enum profile_item_kind kind)
{
        const struct shield_rule *r;

        if (k->dropped)
                return 0;
        if (kind == PROFILE_ITEM_WRITE && floored_write(pr, k->path))
                return withhold(pr, k, kind, PROFILE_WITHHELD_SYSTEM_TREE, SHIELD_HOLDS_NONE);
        r = shield_over(pr, k->path);
        if (r && r->deny == SHIELD_DENY_ALL)
                return withhold(pr, k, kind, PROFILE_WITHHELD_READ_SHIELDED, r->holds);
        if (r && kind == PROFILE_ITEM_WRITE)
                return withhold(pr, k, kind, PROFILE_WITHHELD_WRITE_SHIELDED, SHIELD_HOLDS_NONE);
        if (profile_broad(pr->shields, k->path))
                return withhold(pr, k, kind, PROFILE_WITHHELD_TOO_BROAD, SHIELD_HOLDS_NONE);
        return 0;
}

/* Reads a proposed write directory already covers need no grant. */
static void drop_covered_reads(struct proposer *pr)
{
        for (size_t i = 0; i < pr->reads.n; i++)
                for (size_t j = 0; j < pr->writes.n && !pr->reads.v[i].dropped; j++)
                        if (!pr->writes.v[j].dropped &&
                            path_within(pr->writes.v[j].path, pr->reads.v[i].path))
                                pr->reads.v[i].dropped = true;
}

/* A home rule kept read-only inside dir.  Not a workspace rule: every write directory
 * gets those for itself (.git/hooks, .vscode, ...), and they never count against their
 * own grant (docs/manifest.md, "CREDENTIAL SHIELDS"), so flagging them would flag every
 * write directory. */
static bool contains_deny_write(const struct proposer *pr, const char *dir)
{
        for (size_t i = 0; i < pr->shields->n_rules; i++) {
                const struct shield_rule *r = &pr->shields->rules[i];

                if (r->deny == SHIELD_DENY_WRITE && r->origin != SHIELD_ORIGIN_WORKSPACE &&
                    (path_beneath(dir, r->path) || path_beneath(dir, r->literal)))
                        return true;
        }
        return false;
}

static bool steerable_tmp(const struct proposer *pr, const char *p)
{
        if (!path_beneath("/tmp", p))
                return false;
        /* The script's own directory under /tmp is where the user put it. */
        return !(path_beneath("/tmp", pr->script_dir) && path_within(pr->script_dir, p));
}

static int flag_one(struct proposer *pr, const struct cand *k, enum profile_item_kind kind)
{
        const char *p = k->path;
        int r = 0;

        if (k->dropped)
                return 0;
        if (kind == PROFILE_ITEM_WRITE && contains_deny_write(pr, p))
                r = proposer_item(pr, kind, p, PROFILE_FLAG_ABOVE_WRITE_SHIELD, SHIELD_HOLDS_NONE,
                                  false, NULL);
        if (r >= 0 && reaches_foreign_shield(pr->shields, p))
                r = proposer_item(pr, kind, p, PROFILE_FLAG_FOREIGN_HOME_SHIELD, SHIELD_HOLDS_NONE,
                                  !k->any_ok, NULL);
        if (r >= 0 && steerable_tmp(pr, p))
                r = proposer_item(pr, kind, p, PROFILE_FLAG_TARGET_STEERABLE_TMP, SHIELD_HOLDS_NONE,
                                  !k->any_ok, NULL);
        if (r >= 0 && strcmp(p, pr->script_dir) == 0)
                r = proposer_item(pr, kind, p, PROFILE_FLAG_WHOLE_WORKDIR, SHIELD_HOLDS_NONE, false,
                                  NULL);
        return r;
}

/* The workspace shields of the proposed write directories (a .git/hooks
 * inside one) are part of what a run would mount. */
static int add_workspace(struct proposer *pr, struct bento_err *err)
{
        cleanup_free const char **w = calloc(pr->writes.n + 1, sizeof(char *));
        size_t n = 0;

        if (!w)
                return bento_err_set(err, ENOMEM, "the proposal");
        for (size_t i = 0; i < pr->writes.n; i++)
                if (!pr->writes.v[i].dropped)
                        w[n++] = pr->writes.v[i].path;
        return shields_add_workspace(pr->shields, w, n, err);
}

int proposer_clamp(struct proposer *pr, struct bento_err *err)
{
        int r = 0;

        path_cache_begin();
        for (size_t i = 0; r >= 0 && i < pr->writes.n; i++)
                if (!pr->writes.v[i].dropped && floored_write(pr, pr->writes.v[i].path))
                        r = withhold(pr, &pr->writes.v[i], PROFILE_ITEM_WRITE,
                                     PROFILE_WITHHELD_SYSTEM_TREE, SHIELD_HOLDS_NONE);
        if (r >= 0)
                r = add_workspace(pr, err) < 0 ? -err->code : 0;
        for (size_t i = 0; r >= 0 && i < pr->writes.n; i++)
                r = clamp_one(pr, &pr->writes.v[i], PROFILE_ITEM_WRITE);
        for (size_t i = 0; r >= 0 && i < pr->reads.n; i++)
                r = clamp_one(pr, &pr->reads.v[i], PROFILE_ITEM_READ);
        if (r >= 0)
                drop_covered_reads(pr);
        for (size_t i = 0; r >= 0 && i < pr->writes.n; i++)
                r = flag_one(pr, &pr->writes.v[i], PROFILE_ITEM_WRITE);
        for (size_t i = 0; r >= 0 && i < pr->reads.n; i++)
                r = flag_one(pr, &pr->reads.v[i], PROFILE_ITEM_READ);
        path_cache_end();
        if (r == -ENOMEM && !err->code)
                return bento_err_set(err, ENOMEM, "the proposal");
        return r < 0 ? -err->code : 0;
}

/* Remove grant g from the manifest's read or write list; the kind it had. */
static int remove_grant(struct manifest *m, const char *g, enum profile_item_kind *kind)
{
        char **lists[] = {m->read, m->write};
        size_t *ns[] = {&m->n_read, &m->n_write};

        for (size_t l = 0; l < 2; l++)
                for (size_t i = 0; i < *ns[l]; i++) {
                        if (strcmp(lists[l][i], g) != 0)
                                continue;
                        free(lists[l][i]);
                        memmove(&lists[l][i], &lists[l][i + 1],
                                (*ns[l] - i) * sizeof(char *)); /* keeps the NULL */
                        (*ns[l])--;
                        *kind = l ? PROFILE_ITEM_WRITE : PROFILE_ITEM_READ;
                        return 1;
                }
        return 0;
}

int proposer_run_refusals(struct proposer *pr, struct bento_err *err)
{
        struct policy_host host = {.shield_env = pr->c->shield_env,
                                   .path_env = pr->c->path_env,
                                   .shields = pr->c->shields};

        for (int round = 0; round < RUN_REFUSAL_ROUNDS; round++) {
                cleanup_policy struct policy *p = NULL;
                size_t removed = 0;

                if (policy_resolve(pr->out->m, &host, &p, err) < 0)
                        return -err->code;
                for (size_t i = 0; i < p->n_refusals; i++) {
                        const struct shield_refusal *f = &p->refusals[i];
                        enum profile_item_kind kind = PROFILE_ITEM_READ;

                        /* A refusal that is not about a grant (the
                         * entrypoint, the interpreter) is run's to report. */
                        if (!remove_grant(pr->out->m, f->grant, &kind))
                                continue;
                        removed++;
                        if (proposer_item(pr, kind, f->grant, PROFILE_WITHHELD_RUN_REFUSED,
                                          SHIELD_HOLDS_NONE, false, f->message) < 0)
                                return bento_err_set(err, ENOMEM, "the proposal");
                }
                /* Removing a write can change the shields of the rest, so
                 * resolve again until nothing more is refused. */
                if (removed == 0)
                        return 0;
        }
        return 0;
}

int profile_foreign_shield_check(const struct profile_context *c, char *const *paths, size_t n,
                                 bool *ret, struct bento_err *err)
{
        struct shield_env own = {.uid = getuid()};
        cleanup_shield_set struct shield_set *built = NULL;
        const struct shield_set *s = c->shields;

        if (!s) {
                int r = shields_build(c->shield_env ? c->shield_env : &own, &built, err);

                if (r < 0)
                        return r;
                s = built;
        }
        for (size_t i = 0; i < n; i++)
                ret[i] = reaches_foreign_shield(s, paths[i]);
        return 0;
}
