/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shields of this host applied to one manifest: rules anchored on this
 * user's homes plus the workspace rules of its write grants (docs/manifest.md, "CREDENTIAL
 * SHIELDS"), the grant checks (docs/manifest.md, "GRANTS A RUN REFUSES"), the exact-path opt-ins
 * (docs/manifest.md, "CREDENTIAL SHIELDS"), the shields that need a mount (docs/manifest.md,
 * "CREDENTIAL SHIELDS"), and the two refusals only a run can make: a target inside a shield
 * (docs/manifest.md, "GRANTS A RUN REFUSES") and a shield mount point that cannot be created inside
 * a write grant (docs/manifest.md, "CREDENTIAL SHIELDS").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "internal.h"

int policy_refuse(struct policy *p, enum shield_check check, const char *grant, char *message,
                  struct bento_err *err)
{
        struct shield_refusal *v;

        if (!message)
                return bento_err_set(err, ENOMEM, "grant checks");
        v = reallocarray(p->refusals, p->n_refusals + 1, sizeof(*v));
        if (!v) {
                free(message);
                return bento_err_set(err, ENOMEM, "grant checks");
        }
        p->refusals = v;
        v[p->n_refusals] = (struct shield_refusal){
            .check = check, .grant = strdup(grant ? grant : ""), .message = message};
        if (!v[p->n_refusals++].grant)
                return bento_err_set(err, ENOMEM, "grant checks");
        return 0;
}

static int grant_checks(struct policy *p, struct bento_err *err)
{
        cleanup_free struct shield_grant *reads = calloc(p->n_reads + 1, sizeof(*reads));
        cleanup_free struct shield_grant *writes = calloc(p->n_writes + 1, sizeof(*writes));
        cleanup_free const char **read_paths = calloc(p->n_reads + 1, sizeof(char *));
        cleanup_free const char **write_real = calloc(p->n_writes + 1, sizeof(char *));
        int r;

        if (!reads || !writes || !read_paths || !write_real)
                return bento_err_set(err, ENOMEM, "grant checks");
        /* Refusals name each grant resolved as docs/manifest.md, "PATH RESOLUTION" says (`~`
         * expanded, relative paths joined to the manifest's directory), as run words them. */
        for (size_t i = 0; i < p->n_reads; i++) {
                reads[i] = (struct shield_grant){p->reads[i].expanded, NULL};
                read_paths[i] = p->reads[i].expanded;
        }
        for (size_t i = 0; i < p->n_writes; i++) {
                writes[i] = (struct shield_grant){p->writes[i].expanded, NULL};
                write_real[i] = p->writes[i].real;
        }
        r = shields_add_workspace(p->shields, write_real, p->n_writes, err);
        if (r >= 0)
                r = shields_opt_ins(p->shields, read_paths, p->n_reads, &p->opted, err);
        if (r < 0)
                return r;
        return shields_check_grants(p->shields,
                                    &(struct shield_grants){.reads = reads,
                                                            .n_reads = p->n_reads,
                                                            .writes = writes,
                                                            .n_writes = p->n_writes,
                                                            .opted = p->opted},
                                    &p->refusals, &p->n_refusals, err);
}

int policy_shields(struct policy *p, const struct policy_host *host, struct bento_err *err)
{
        struct shield_env own = {.uid = getuid()};
        const struct shield_env *env = host && host->shield_env ? host->shield_env : &own;
        struct bento_err why = {0};
        int r;

        if (host && host->shields) {
                p->shields = shield_set_copy(host->shields);
                return p->shields ? grant_checks(p, err) : bento_err_set(err, ENOMEM, "shields");
        }
        r = shields_build(env, &p->shields, &why);
        if (r == -ENOMEM)
                return bento_err_set(err, ENOMEM, "shields");
        if (r < 0) {
                /* No anchor: nothing can be shielded, so every run is refused;
                 * validate still shows the rest. */
                p->shields_error = strdup(why.msg);
                return p->shields_error ? 0 : bento_err_set(err, ENOMEM, "shields");
        }
        return grant_checks(p, err);
}

/* docs/manifest.md, "GRANTS A RUN REFUSES": the program bento starts must not be a shielded file.
 */
static int check_target(struct policy *p, const char *what, const struct policy_path *pp,
                        struct bento_err *err)
{
        const struct shield_rule *rule;
        char *msg = NULL;

        if (!pp->real || !pp->exists)
                return 0;
        rule = shields_covering(p->shields, pp->real);
        if (!rule || rule->deny != SHIELD_DENY_ALL)
                return 0;
        for (size_t i = 0; p->opted && i < p->shields->n_rules; i++)
                if (&p->shields->rules[i] == rule && p->opted[i])
                        return 0;
        if (asprintf(&msg,
                     "%s \"%s\" would expose the shielded path \"%s\"; bento hides it on every "
                     "run, so move the program out of it",
                     what, pp->expanded, rule->path) < 0)
                msg = NULL;
        return policy_refuse(p, SHIELD_CHECK_EXPOSES_TARGET, pp->written, msg, err);
}

/* The deepest existing ancestor of path (path itself excluded). */
static char *existing_parent(const char *path)
{
        char *cur = strdup(path);
        mode_t type;

        while (cur && strcmp(cur, "/") != 0) {
                char *slash = strrchr(cur, '/');

                *(slash == cur ? slash + 1 : slash) = '\0';
                if (path_type(cur, &type) == 0)
                        break;
        }
        return cur;
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": a shield on a path that does not exist yet needs its
 * mount point created inside the write grant, which needs write permission there. */
static int check_carve(struct policy *p, const struct shield_rule *rule, struct bento_err *err)
{
        cleanup_free char *parent = NULL;
        const char *grant = NULL;
        char *msg = NULL;
        mode_t type;

        if (path_type(rule->path, &type) == 0)
                return 0;
        parent = existing_parent(rule->path);
        if (!parent)
                return bento_err_set(err, ENOMEM, "shields");
        if (path_access(parent, W_OK) == 0)
                return 0;
        for (size_t i = 0; i < p->n_writes; i++)
                if (path_within(p->writes[i].real, rule->path))
                        grant = p->writes[i].expanded;
        if (asprintf(&msg,
                     "write grant \"%s\" cannot be honored: bento shields \"%s\" inside it, and "
                     "creating that mount point needs write permission on \"%s\"; make that "
                     "directory writable or narrow the grant",
                     grant ? grant : "?", rule->path, parent) < 0)
                msg = NULL;
        return policy_refuse(p, SHIELD_CHECK_CARVE, grant, msg, err);
}

static int needed_mounts(struct policy *p, struct bento_err *err)
{
        size_t n_exposed = p->n_system_paths + p->n_reads + p->n_writes;
        cleanup_free const char **exposed = calloc(n_exposed + 1, sizeof(char *));
        cleanup_free const char **writes = calloc(p->n_writes + 1, sizeof(char *));
        cleanup_free char **sys_real = calloc(p->n_system_paths + 1, sizeof(char *));
        size_t n = 0;
        int r = 0;

        if (!exposed || !writes || !sys_real)
                return bento_err_set(err, ENOMEM, "shields");
        for (size_t i = 0; i < p->n_system_paths && r >= 0; i++) {
                r = path_resolve(p->system_paths[i], &sys_real[i]);
                exposed[n++] = sys_real[i];
        }
        for (size_t i = 0; i < p->n_reads; i++)
                if (p->reads[i].exists)
                        exposed[n++] = p->reads[i].real;
        for (size_t i = 0; i < p->n_writes; i++)
                exposed[n++] = writes[i] = p->writes[i].real;
        if (r >= 0)
                r = shields_needed(p->shields,
                                   &(struct shield_exposure){.exposed = exposed,
                                                             .n_exposed = n,
                                                             .writes = writes,
                                                             .n_writes = p->n_writes,
                                                             .opted = p->opted},
                                   &p->shield_mounts, &p->n_shield_mounts, err);
        for (size_t i = 0; i < p->n_system_paths; i++)
                free(sys_real[i]);
        return r < 0 ? (r == -ENOMEM ? bento_err_set(err, ENOMEM, "shields") : r) : 0;
}

int policy_shield_mounts(struct policy *p, struct bento_err *err)
{
        int r;

        if (!p->shields)
                return 0;
        r = check_target(p, "entrypoint", &p->entrypoint, err);
        if (r >= 0)
                r = check_target(p, "interpreter", &p->interpreter, err);
        if (r >= 0)
                r = needed_mounts(p, err);
        for (size_t i = 0; r >= 0 && i < p->n_shield_mounts; i++)
                r = check_carve(p, p->shield_mounts[i].rule, err);
        return r;
}
