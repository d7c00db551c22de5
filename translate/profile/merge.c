/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing the result (docs/profile.md, "Writing the manifest"): a draft
 * merged into the manifest already at --out (only one for the same
 * entrypoint: merging another program's grants into this one would hand
 * them over unreviewed), then provenance and the relocatable spellings,
 * then the atomic write of translate/manifest/write.c.  The merge never
 * keeps an approval: the merged file is a new policy to review.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"
#include "jsonr.h"
#include "manifest/path.h"
#include "policy/policy.h"
#include "report/text.h"

char *profile_out_dir(const char *out)
{
        cleanup_free char *abs = NULL;
        char cwd[4096];

        if (out[0] == '/')
                abs = strdup(out);
        else if (getcwd(cwd, sizeof(cwd)))
                abs = path_join(cwd, out);
        return abs ? path_join(abs, "..") : NULL;
}

/* A path of existing as this host reads it (docs/manifest.md, "PATH
 * RESOLUTION"), cleaned; NULL with err set when it cannot be expanded. */
static char *expand(const char *p, const char *base, const char *home, struct bento_err *err)
{
        cleanup_free char *e = NULL;
        char *c;

        if (policy_expand(p, base, home, &e, err) < 0)
                return NULL;
        c = path_clean(e);
        if (!c)
                bento_err_set(err, ENOMEM, "merge");
        return c;
}

int profile_merge_check(const struct manifest *existing, const char *out, const char *entrypoint,
                        const char *home, struct bento_err *err)
{
        cleanup_free char *base = profile_out_dir(out), *theirs = NULL,
                          *ours = path_clean(entrypoint);
        cleanup_free char *qa = NULL, *qb = NULL;
        struct bento_err why = {0};

        if (!base || !ours)
                return bento_err_set(err, ENOMEM, "merge");
        theirs = expand(existing->entrypoint, base, home, &why);
        if (theirs && strcmp(theirs, ours) == 0)
                return 0;
        qa = text_quote(theirs ? theirs : existing->entrypoint);
        qb = text_quote(ours);
        return bento_err_setx(err, EEXIST,
                              "refusing to merge into %s: it is a manifest for %s, not %s; pass "
                              "--out with another file, or delete %s to start afresh",
                              out, qa ? qa : "?", qb ? qb : "?", out);
}

struct strs {
        char *const *v;
        size_t n;
};

struct strv_acc {
        char **v;
        size_t n;
};

static bool in_list(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

/* One list to merge: this run's (replaced by the union), the existing
 * file's as written, what the user declined, and where kept ones go. */
struct path_merge {
        char ***ours;
        size_t *n_ours;
        char *const *old;
        size_t n_old;
        struct strs declined;
        char ***kept;
        size_t *n_kept;
};

/* One path of the existing file (written, and expanded as e): into the
 * union u unless declined, and into kept when this run did not see it. */
static int merge_one(const struct path_merge *pm, struct strv_acc *u, const char *written,
                     const char *e)
{
        if (in_list(pm->declined.v, pm->declined.n, e))
                return 0;
        if (!in_list(*pm->ours, *pm->n_ours, e) &&
            bento_strv_append(pm->kept, pm->n_kept, written) < 0)
                return -ENOMEM;
        if (in_list(u->v, u->n, e))
                return 0;
        return bento_strv_append(&u->v, &u->n, e);
}

/* union = old (expanded against base and home) then ours, minus declined;
 * kept = old not ours. */
static int merge_paths(const struct path_merge *pm, const char *base, const char *home,
                       struct bento_err *err)
{
        struct strv_acc u = {calloc(1, sizeof(char *)), 0};
        int r = u.v ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < pm->n_old; i++) {
                cleanup_free char *e = expand(pm->old[i], base, home, err);

                r = e ? merge_one(pm, &u, pm->old[i], e) : -err->code;
        }
        for (size_t i = 0; r >= 0 && i < *pm->n_ours; i++) {
                const char *s = (*pm->ours)[i];

                if (!in_list(u.v, u.n, s) && !in_list(pm->declined.v, pm->declined.n, s))
                        r = bento_strv_append(&u.v, &u.n, s);
        }
        if (r < 0) {
                bento_strv_free_n(u.v, u.n);
                return r == -ENOMEM ? bento_err_set(err, ENOMEM, "merge") : r;
        }
        bento_strv_free_n(*pm->ours, *pm->n_ours);
        *pm->ours = u.v;
        *pm->n_ours = u.n;
        return 0;
}

static int merge_env(struct manifest *m, const struct manifest *old, struct profile_merge_info *in)
{
        cleanup_strv char **u = profile_strv_copy(old->env, old->n_env);
        size_t n = old->n_env;

        if (!u)
                return -ENOMEM;
        for (size_t i = 0; i < old->n_env; i++)
                if (!in_list(m->env, m->n_env, old->env[i]) &&
                    bento_strv_append(&in->kept_env, &in->n_kept_env, old->env[i]) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < m->n_env; i++)
                if (!in_list(u, n, m->env[i]) && bento_strv_append(&u, &n, m->env[i]) < 0)
                        return -ENOMEM;
        bento_strv_free_n(m->env, m->n_env);
        m->env = TAKE_PTR(u);
        m->n_env = n;
        return 0;
}

static bool has_rule(const struct manifest_net_rule *v, size_t n, const char *h, const char *p)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i].host, h) == 0 && strcmp(v[i].port, p) == 0)
                        return true;
        return false;
}

static int add_rule(struct manifest *m, const char *host, const char *port)
{
        struct manifest_net_rule *nv = reallocarray(m->network, m->n_network + 1, sizeof(*nv));

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

/* The existing rules first, then this run's new ones; the existing ones
 * this run did not use are listed as kept. */
static int merge_network(struct manifest *m, const struct manifest *old,
                         struct profile_merge_info *in)
{
        cleanup_manifest struct manifest *u = profile_manifest_new();

        if (!u)
                return -ENOMEM;
        for (size_t i = 0; i < old->n_network; i++) {
                const struct manifest_net_rule *r = &old->network[i];
                cleanup_free char *hp = NULL;

                if (has_rule(u->network, u->n_network, r->host, r->port))
                        continue;
                if (add_rule(u, r->host, r->port) < 0)
                        return -ENOMEM;
                if (has_rule(m->network, m->n_network, r->host, r->port))
                        continue;
                hp = profile_host_port(r->host, r->port);
                if (!hp || bento_strv_append(&in->kept_network, &in->n_kept_network, hp) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < m->n_network; i++)
                if (!has_rule(u->network, u->n_network, m->network[i].host, m->network[i].port) &&
                    add_rule(u, m->network[i].host, m->network[i].port) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < m->n_network; i++) {
                free(m->network[i].host);
                free(m->network[i].port);
        }
        free(m->network);
        m->network = TAKE_PTR(u->network);
        m->n_network = u->n_network;
        u->n_network = 0;
        return 0;
}

static bool same_strv(char *const *a, size_t na, char *const *b, size_t nb)
{
        if (na != nb)
                return false;
        for (size_t i = 0; i < na; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return true;
}

static int copy_str(char **dst, const char *s)
{
        char *c = strdup(s);

        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

/* interpreter from this run (a change noted), args and limits from the
 * existing file. */
static int merge_rest(struct manifest *m, const struct manifest *old, struct profile_merge_info *in)
{
        in->interpreter_changed = strcmp(m->interpreter, old->interpreter) != 0;
        in->interpreter_args_changed = !same_strv(m->interpreter_args, m->n_interpreter_args,
                                                  old->interpreter_args, old->n_interpreter_args);
        if (in->interpreter_changed && !(in->interpreter_was = strdup(old->interpreter)))
                return -ENOMEM;
        if (in->interpreter_args_changed) {
                in->interpreter_args_was =
                    profile_strv_copy(old->interpreter_args, old->n_interpreter_args);
                if (!in->interpreter_args_was)
                        return -ENOMEM;
                in->n_interpreter_args_was = old->n_interpreter_args;
        }
        bento_strv_free_n(m->args, m->n_args);
        m->args = profile_strv_copy(old->args, old->n_args);
        m->n_args = m->args ? old->n_args : 0;
        if (!m->args || copy_str(&m->limits.memory, old->limits.memory) < 0 ||
            copy_str(&m->limits.cpu, old->limits.cpu) < 0 ||
            copy_str(&m->limits.tmp, old->limits.tmp) < 0)
                return -ENOMEM;
        m->limits.pids = old->limits.pids;
        m->limits.has_pids = old->limits.has_pids;
        m->limits.memory_bytes = old->limits.memory_bytes;
        m->limits.cpu_hundredths = old->limits.cpu_hundredths;
        m->limits.tmp_bytes = old->limits.tmp_bytes;
        in->approval_voided = old->provenance.approves[0] != '\0';
        return 0;
}

int profile_merge(struct manifest *m, const struct manifest *existing, const char *out,
                  const char *home, const struct profile_declined *declined,
                  struct profile_merge_info *ret, struct bento_err *err)
{
        static const struct profile_declined none = {0};
        const struct profile_declined *d = declined ? declined : &none;
        cleanup_free char *base = profile_out_dir(out);
        bool all;

        *ret = (struct profile_merge_info){0};
        if (!base)
                return bento_err_set(err, ENOMEM, "merge");
        if (merge_paths(&(struct path_merge){&m->read,
                                             &m->n_read,
                                             existing->read,
                                             existing->n_read,
                                             {d->reads, d->n_reads},
                                             &ret->kept_read,
                                             &ret->n_kept_read},
                        base, home, err) < 0 ||
            merge_paths(&(struct path_merge){&m->write,
                                             &m->n_write,
                                             existing->write,
                                             existing->n_write,
                                             {d->writes, d->n_writes},
                                             &ret->kept_write,
                                             &ret->n_kept_write},
                        base, home, err) < 0) {
                profile_merge_info_done(ret);
                return -err->code;
        }
        if (merge_env(m, existing, ret) < 0 || merge_network(m, existing, ret) < 0 ||
            merge_rest(m, existing, ret) < 0) {
                profile_merge_info_done(ret);
                return bento_err_set(err, ENOMEM, "merge");
        }
        all = (m->exec == MANIFEST_EXEC_ALL || existing->exec == MANIFEST_EXEC_ALL) && !d->exec;
        ret->exec_widened = all && existing->exec != MANIFEST_EXEC_ALL;
        m->exec = all ? MANIFEST_EXEC_ALL
                      : (d->exec ? MANIFEST_EXEC_NONE
                                 : (existing->exec == MANIFEST_EXEC_ALL ? MANIFEST_EXEC_NONE
                                                                        : existing->exec));
        return 0;
}

static int kept_lines(char ***v, size_t *n, const char *kind, char *const *items, size_t k)
{
        for (size_t i = 0; i < k; i++) {
                cleanup_free char *q = text_quote(items[i]);
                cleanup_free char *line = q ? text_printf("[bento]   kept from the existing "
                                                          "manifest, not shown by this run: %s %s",
                                                          kind, q)
                                            : NULL;

                if (!line || bento_strv_append(v, n, line) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int profile_merge_lines(const struct profile_merge_info *in, char ***ret, size_t *ret_n)
{
        char **v = calloc(1, sizeof(char *));
        size_t n = 0;
        int r = v ? 0 : -ENOMEM;

        if (r >= 0 && in->interpreter_changed) {
                cleanup_free char *q = text_quote(in->interpreter_was);
                cleanup_free char *line =
                    q ? text_printf("[bento] the interpreter changed: the existing manifest said "
                                    "%s, this run's is written instead",
                                    q)
                      : NULL;

                r = line ? bento_strv_append(&v, &n, line) : -ENOMEM;
        }
        if (r >= 0)
                r = kept_lines(&v, &n, "read", in->kept_read, in->n_kept_read);
        if (r >= 0)
                r = kept_lines(&v, &n, "write", in->kept_write, in->n_kept_write);
        if (r >= 0)
                r = kept_lines(&v, &n, "env", in->kept_env, in->n_kept_env);
        if (r >= 0)
                r = kept_lines(&v, &n, "network", in->kept_network, in->n_kept_network);
        if (r < 0) {
                bento_strv_free_n(v, n);
                return -ENOMEM;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

void profile_merge_info_done(struct profile_merge_info *in)
{
        bento_strv_free_n(in->kept_read, in->n_kept_read);
        bento_strv_free_n(in->kept_write, in->n_kept_write);
        bento_strv_free_n(in->kept_env, in->n_kept_env);
        bento_strv_free_n(in->kept_network, in->n_kept_network);
        free(in->interpreter_was);
        bento_strv_free_n(in->interpreter_args_was, in->n_interpreter_args_was);
        *in = (struct profile_merge_info){0};
}
