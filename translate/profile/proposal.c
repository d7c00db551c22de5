/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proposal (docs/profile.md, "From observation to proposal"): the
 * manifest drafted from one observation, with every entry it left out or
 * wants a reviewer to look at, each with its reason, and the warnings that
 * say when the observation itself is not to be trusted as complete.
 * Collecting and clamping the paths is proposal-paths.c and
 * proposal-clamps.c; this file puts the result together.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "hostname.h"
#include "internal.h"
#include "jsonr.h"
#include "manifest/netrule.h"
#include "manifest/path.h"
#include "report/text.h"
#include "report/validate.h"

static const char *const reason_names[_PROFILE_REASON_MAX] = {
    [PROFILE_WITHHELD_SYSTEM_TREE] = "system-tree",
    [PROFILE_WITHHELD_SANDBOX_SCRATCH] = "sandbox-scratch",
    [PROFILE_WITHHELD_UNIX_SOCKET] = "unix-socket",
    [PROFILE_WITHHELD_UNREPRESENTABLE] = "unrepresentable",
    [PROFILE_WITHHELD_NOT_TUNNELED] = "not-tunneled",
    [PROFILE_WITHHELD_READ_SHIELDED] = "read-shielded",
    [PROFILE_WITHHELD_WRITE_SHIELDED] = "write-shielded",
    [PROFILE_WITHHELD_TOO_BROAD] = "too-broad",
    [PROFILE_WITHHELD_RUN_REFUSED] = "run-refused",
    [PROFILE_FLAG_ABOVE_WRITE_SHIELD] = "above-write-shield",
    [PROFILE_FLAG_FOREIGN_HOME_SHIELD] = "foreign-home-shield",
    [PROFILE_FLAG_TARGET_STEERABLE_TMP] = "target-steerable-tmp",
    [PROFILE_FLAG_WHOLE_WORKDIR] = "whole-workdir",
};

/* Why, in words, after "not proposing <kind> <path> - " or "proposing ... - ". */
static const char *const reason_words[_PROFILE_REASON_MAX] = {
    [PROFILE_WITHHELD_SYSTEM_TREE] = "it is a system tree or another user's home, which a "
                                     "profiled program is never given write access to",
    [PROFILE_WITHHELD_SANDBOX_SCRATCH] = "it is the sandbox's own /tmp scratch, which does not "
                                         "exist outside the run",
    [PROFILE_WITHHELD_UNIX_SOCKET] = "it is a unix socket; a socket reaches a service outside "
                                     "the sandbox, so grant it by hand only if you mean to",
    [PROFILE_WITHHELD_UNREPRESENTABLE] = "it cannot be written in a manifest (a character the "
                                         "manifest screen refuses, or not a concrete rule)",
    [PROFILE_WITHHELD_NOT_TUNNELED] = "the connection did not go through the egress proxy, so "
                                      "no rule can allow it",
    [PROFILE_WITHHELD_WRITE_SHIELDED] = "it is inside a path bento keeps read-only on every "
                                        "run",
    [PROFILE_WITHHELD_TOO_BROAD] = "it is too broad to review (the root, a top-level "
                                   "directory or a home); grant the narrower paths inside it",
    [PROFILE_WITHHELD_RUN_REFUSED] = "bento run would refuse it",
    [PROFILE_FLAG_ABOVE_WRITE_SHIELD] = "it contains a path bento keeps read-only; the degraded "
                                        "tier would refuse it",
    [PROFILE_FLAG_FOREIGN_HOME_SHIELD] = "it reaches shielded paths in a home that is not "
                                         "yours; review it before approving",
    [PROFILE_FLAG_TARGET_STEERABLE_TMP] = "it is under /tmp, where the program may have chosen "
                                          "the name; check it is the one you expect",
    [PROFILE_FLAG_WHOLE_WORKDIR] = "it is the script's whole directory; a narrower grant may "
                                   "be enough",
};

const char *profile_reason_to_string(enum profile_reason r)
{
        return r < _PROFILE_REASON_MAX ? reason_names[r] : "unknown";
}

bool profile_reason_is_flag(enum profile_reason r)
{
        return r >= PROFILE_FLAG_ABOVE_WRITE_SHIELD && r < _PROFILE_REASON_MAX;
}

const char *profile_item_kind_to_string(enum profile_item_kind k)
{
        return k == PROFILE_ITEM_WRITE ? "write" : k == PROFILE_ITEM_NETWORK ? "network" : "read";
}

char *profile_host_port(const char *host, const char *port)
{
        bool v6 = strchr(host, ':') != NULL;

        return text_printf("%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

char *profile_item_line(const struct profile_item *it)
{
        cleanup_free char *what = NULL, *q = NULL;

        what = it->kind == PROFILE_ITEM_NETWORK ? profile_host_port(it->host, it->port)
                                                : strdup(it->path);
        q = what ? text_quote(what) : NULL;
        if (!q)
                return NULL;
        if (it->reason == PROFILE_WITHHELD_READ_SHIELDED)
                return text_printf("[bento] not proposing access to %s - it is a %s bento "
                                   "shields on every run, and a profile never drafts an opt-in",
                                   q, validate_holds_noun(it->holds));
        if (profile_reason_is_flag(it->reason))
                return text_printf("[bento] proposing %s %s - %s",
                                   profile_item_kind_to_string(it->kind), q,
                                   reason_words[it->reason]);
        return text_printf("[bento] not proposing %s %s - %s",
                           profile_item_kind_to_string(it->kind), q, reason_words[it->reason]);
}

static bool same_item(const struct profile_item *a, enum profile_item_kind kind, const char *path,
                      enum profile_reason reason)
{
        return a->kind == kind && a->reason == reason && a->path && strcmp(a->path, path) == 0;
}

int proposer_item(struct proposer *pr, enum profile_item_kind kind, const char *path,
                  enum profile_reason reason, enum shield_holds holds, bool absent,
                  const char *detail)
{
        bool flag = profile_reason_is_flag(reason);
        struct profile_item **v = flag ? &pr->out->flagged : &pr->out->withheld;
        size_t *n = flag ? &pr->out->n_flagged : &pr->out->n_withheld;
        struct profile_item *nv;

        /* The same path withheld twice for one reason (read, then probed)
         * is one entry; the most recent ones are where a repeat shows. */
        for (size_t i = *n, k = 0; i-- > 0 && k < 64; k++)
                if (same_item(&(*v)[i], kind, path, reason))
                        return 0;
        nv = reallocarray(*v, *n + 1, sizeof(*nv));
        if (!nv)
                return -ENOMEM;
        *v = nv;
        nv[*n] = (struct profile_item){
            .kind = kind, .path = strdup(path), .reason = reason, .holds = holds, .absent = absent};
        if (detail)
                nv[*n].detail = strdup(detail);
        if (!nv[*n].path || (detail && !nv[*n].detail)) {
                free(nv[*n].path);
                free(nv[*n].detail);
                return -ENOMEM;
        }
        (*n)++;
        return 0;
}

static int net_item(struct proposer *pr, const struct profile_dest *d, enum profile_reason reason)
{
        struct profile_proposal *out = pr->out;
        struct profile_item *nv = reallocarray(out->withheld, out->n_withheld + 1, sizeof(*nv));

        if (!nv)
                return -ENOMEM;
        out->withheld = nv;
        nv[out->n_withheld] = (struct profile_item){.kind = PROFILE_ITEM_NETWORK,
                                                    .host = strdup(d->host),
                                                    .port = strdup(d->port),
                                                    .reason = reason};
        if (!nv[out->n_withheld].host || !nv[out->n_withheld].port) {
                free(nv[out->n_withheld].host);
                free(nv[out->n_withheld].port);
                return -ENOMEM;
        }
        out->n_withheld++;
        return 0;
}

/* A recorded destination as a rule, or NULL when it is not one concrete
 * host and port a manifest can name (a wildcard the target asked for
 * must not turn into a wildcard grant). */
static bool net_rule_ok(const char *host, const char *port)
{
        char why[256];

        if (!host[0] || host[0] == '.' || strcmp(host, "*") == 0 || !bento_port_canonical(port))
                return false;
        return netrule_check_host(host, why, sizeof(why)) == 0 &&
               netrule_check_port(port, why, sizeof(why)) == 0;
}

static bool has_rule(const struct manifest *m, const char *host, const char *port)
{
        for (size_t i = 0; i < m->n_network; i++)
                if (strcmp(m->network[i].host, host) == 0 && strcmp(m->network[i].port, port) == 0)
                        return true;
        return false;
}

static int add_rule(struct manifest *m, const char *host, const char *port)
{
        struct manifest_net_rule *nv;

        if (has_rule(m, host, port))
                return 0;
        nv = reallocarray(m->network, m->n_network + 1, sizeof(*nv));
        if (!nv)
                return -ENOMEM;
        m->network = nv;
        nv[m->n_network] = (struct manifest_net_rule){strdup(host), strdup(port)};
        if (!nv[m->n_network].host || !nv[m->n_network].port) {
                free(nv[m->n_network].host);
                free(nv[m->n_network].port);
                return -ENOMEM;
        }
        m->n_network++;
        return 0;
}

static int cmp_rule(const void *a, const void *b)
{
        const struct manifest_net_rule *x = a, *y = b;
        int c = strcmp(x->host, y->host);

        return c ? c : strcmp(x->port, y->port);
}

static int network(struct proposer *pr)
{
        const struct profile_observation *o = pr->o;
        struct manifest *m = pr->out->m;

        for (size_t i = 0; i < o->n_untunneled; i++)
                if (net_item(pr, &o->untunneled[i], PROFILE_WITHHELD_NOT_TUNNELED) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < o->n_connects; i++) {
                cleanup_free char *host = strdup(o->connects[i].host);

                if (!host)
                        return -ENOMEM;
                bento_host_normalise(host);
                if (!net_rule_ok(host, o->connects[i].port)) {
                        if (net_item(pr, &o->connects[i], PROFILE_WITHHELD_UNREPRESENTABLE) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (add_rule(m, host, o->connects[i].port) < 0)
                        return -ENOMEM;
        }
        if (m->n_network > 1)
                qsort(m->network, m->n_network, sizeof(*m->network), cmp_rule);
        return 0;
}

static int grants(struct proposer *pr)
{
        struct manifest *m = pr->out->m;

        for (size_t i = 0; i < pr->reads.n; i++)
                if (!pr->reads.v[i].dropped &&
                    bento_strv_append(&m->read, &m->n_read, pr->reads.v[i].path) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < pr->writes.n; i++)
                if (!pr->writes.v[i].dropped &&
                    bento_strv_append(&m->write, &m->n_write, pr->writes.v[i].path) < 0)
                        return -ENOMEM;
        return 0;
}

struct manifest *profile_manifest_new(void)
{
        struct manifest *m = calloc(1, sizeof(*m));
        char **strs[] = {&m->path,
                         &m->entrypoint,
                         &m->interpreter,
                         &m->limits.memory,
                         &m->limits.cpu,
                         &m->limits.tmp,
                         &m->provenance.generated_by,
                         &m->provenance.generated_at,
                         &m->provenance.approves};

        if (!m)
                return NULL;
        for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
                if (!(*strs[i] = strdup("")))
                        return manifest_free(m);
        return m;
}

char **profile_strv_copy(char *const *v, size_t n)
{
        char **out = calloc(1, sizeof(char *));
        size_t k = 0;

        for (size_t i = 0; out && i < n; i++)
                if (bento_strv_append(&out, &k, v[i]) < 0) {
                        bento_strv_free_n(out, k);
                        return NULL;
                }
        return out;
}

static int replace(char **dst, const char *s)
{
        char *c = strdup(s ? s : "");

        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

/* Entrypoint, interpreter, env and exec of the draft. */
static int skeleton(struct proposer *pr)
{
        const struct profile_context *c = pr->c;
        struct manifest *m = pr->out->m;

        if (replace(&m->entrypoint, c->entrypoint) < 0 ||
            replace(&m->interpreter, c->interpreter) < 0)
                return -ENOMEM;
        m->interpreter_args = profile_strv_copy(c->interpreter_args, c->n_interpreter_args);
        m->env = profile_strv_copy(c->env_names, c->n_env_names);
        if (!m->interpreter_args || !m->env)
                return -ENOMEM;
        m->n_interpreter_args = c->n_interpreter_args;
        m->n_env = c->n_env_names;
        m->exec = pr->o->execed ? MANIFEST_EXEC_ALL : MANIFEST_EXEC_NONE;
        return 0;
}

void profile_proposal_done(struct profile_proposal *p)
{
        struct profile_item *lists[] = {p->withheld, p->flagged};
        const size_t ns[] = {p->n_withheld, p->n_flagged};

        for (size_t l = 0; l < 2; l++) {
                for (size_t i = 0; i < ns[l]; i++) {
                        free(lists[l][i].path);
                        free(lists[l][i].host);
                        free(lists[l][i].port);
                        free(lists[l][i].detail);
                }
                free(lists[l]);
        }
        manifest_free(p->m);
        bento_strv_free_n(p->warnings, p->n_warnings);
        *p = (struct profile_proposal){0};
}

static bool granted(const struct manifest *m, const struct profile_item *it)
{
        char *const *v = it->kind == PROFILE_ITEM_WRITE ? m->write : m->read;
        size_t n = it->kind == PROFILE_ITEM_WRITE ? m->n_write : m->n_read;

        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], it->path) == 0)
                        return true;
        return false;
}

/* A flag is about a grant the proposal keeps: one run refused after all
 * is withheld instead, and its flags go. */
static void drop_stale_flags(struct profile_proposal *p)
{
        size_t o = 0;

        for (size_t i = 0; i < p->n_flagged; i++) {
                if (granted(p->m, &p->flagged[i])) {
                        p->flagged[o++] = p->flagged[i];
                        continue;
                }
                free(p->flagged[i].path);
                free(p->flagged[i].detail);
        }
        p->n_flagged = o;
}

static void proposer_done(struct proposer *pr)
{
        struct cands *cs[] = {&pr->reads, &pr->writes};

        for (size_t l = 0; l < 2; l++) {
                for (size_t i = 0; i < cs[l]->n; i++)
                        free(cs[l]->v[i].path);
                free(cs[l]->v);
        }
        free(pr->script_dir);
        free(pr->runtime_root);
        shield_set_free(pr->shields);
}

static int start(struct proposer *pr, struct bento_err *err)
{
        struct shield_env own = {.uid = getuid()};
        const struct shield_env *env = pr->c->shield_env ? pr->c->shield_env : &own;

        if (!pr->c->entrypoint || pr->c->entrypoint[0] != '/')
                return bento_err_setx(err, EINVAL, "the entrypoint must be an absolute path");
        if (pr->o->sigsys)
                return bento_err_setx(
                    err, EPERM,
                    "the observation is unusable: a traced process (pid %ld) was killed by "
                    "seccomp (SIGSYS); the target used the 32-bit system call interface or "
                    "installed a sandbox of its own, which the observer cannot follow",
                    pr->o->sigsys_pid);
        pr->script_dir = path_join(pr->c->entrypoint, "..");
        pr->out->m = profile_manifest_new();
        if (!pr->script_dir || !pr->out->m)
                return bento_err_set(err, ENOMEM, "the proposal");
        if (!pr->c->shields)
                return shields_build(env, &pr->shields, err);
        /* A copy: the clamps add the workspace rules of the proposed writes to it. */
        pr->shields = shield_set_copy(pr->c->shields);
        return pr->shields ? 0 : bento_err_set(err, ENOMEM, "the proposal");
}

int profile_propose(const struct profile_observation *o, const struct profile_context *c,
                    struct profile_proposal *ret, struct bento_err *err)
{
        struct proposer pr = {.o = o, .c = c, .out = ret};
        int r;

        *ret = (struct profile_proposal){0};
        r = start(&pr, err);
        if (r >= 0)
                r = proposer_collect(&pr, err);
        if (r >= 0)
                r = proposer_clamp(&pr, err);
        if (r >= 0 && (skeleton(&pr) < 0 || grants(&pr) < 0 || network(&pr) < 0))
                r = bento_err_set(err, ENOMEM, "the proposal");
        if (r >= 0 && (r = proposer_run_refusals(&pr, err)) >= 0)
                drop_stale_flags(ret);
        if (r >= 0)
                r = profile_warnings(o, c, ret, err);
        proposer_done(&pr);
        if (r < 0)
                profile_proposal_done(ret);
        return r;
}
