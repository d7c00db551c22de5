/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The missing-shield check of inspect: the credential shields of this
 * host (docs/manifest.md, "CREDENTIAL SHIELDS", the same code translate uses) are weighed against
 * the grants the bundle's mounts show (docs/manifest.md, "CREDENTIAL SHIELDS"), and each shield the
 * grants make necessary must be there, with a mount of the right shape placed after every grant
 * that covers it (a later grant would uncover it again).
 *
 * A read grant exactly on a hidden store is an opt-in (docs/manifest.md, "CREDENTIAL SHIELDS"):
 * reported, not flagged.  The check is judged against this host now; a bundle written for another
 * user or before a store was created can differ. It runs only for bundles that carry bento's
 * annotations: for any other bundle a "missing shield" is not a claim the bundle ever made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "inspect.h"
#include "manifest/path.h"
#include "shields/shields.h"

static bool is_grant(enum inspect_role role)
{
        return role == INSPECT_SYSTEM || role == INSPECT_READ || role == INSPECT_WRITE;
}

/* Does mount m have a shape that enforces the shield kind? */
static bool shape_fits(const struct inspect_mount *m, enum shield_mount_kind kind)
{
        switch (kind) {
        case SHIELD_MOUNT_HIDDEN_DIR:
                return m->role == INSPECT_SHIELD_HIDDEN;
        case SHIELD_MOUNT_HIDDEN_FILE:
        case SHIELD_MOUNT_READ_ONLY_FILE:
                return m->role == INSPECT_SHIELD_FILE;
        case SHIELD_MOUNT_READ_ONLY:
                return m->ro && m->role != INSPECT_SHIELD_SCRATCH;
        case SHIELD_MOUNT_DISCARDED:
                return m->role == INSPECT_SHIELD_SCRATCH || m->role == INSPECT_SHIELD_HIDDEN;
        default:
                return false;
        }
}

static int check_one(struct inspect_report *r, const struct shield_mount *sm)
{
        const char *path = sm->path;
        size_t last_grant = 0;
        bool covered = false;

        for (size_t i = 0; i < r->n_mounts; i++)
                if (is_grant(r->mounts[i].role) && path_within(r->mounts[i].destination, path) &&
                    !(r->mounts[i].ro && strcmp(r->mounts[i].destination, path) == 0 &&
                      sm->kind == SHIELD_MOUNT_READ_ONLY))
                        last_grant = i, covered = true;
        for (size_t i = r->n_mounts; i-- > 0;) {
                const struct inspect_mount *m = &r->mounts[i];

                if (strcmp(m->destination, path) != 0 || !shape_fits(m, sm->kind))
                        continue;
                if (!covered || i > last_grant)
                        return 0;
                return inspect_flag(r,
                                    "shield \"%s\" (%s) is mounted before the grant \"%s\" that "
                                    "covers it, so the grant uncovers it again",
                                    path, shield_mount_kind_to_string(sm->kind),
                                    r->mounts[last_grant].destination);
        }
        return inspect_flag(r,
                            "missing shield: \"%s\" (%s, %s) is reachable through the grants but "
                            "has no shield mount",
                            path, shield_mount_kind_to_string(sm->kind),
                            sm->rule->holds != SHIELD_HOLDS_NONE
                                ? shield_holds_to_string(sm->rule->holds)
                                : "write-shielded");
}

/* docs/manifest.md, "CREDENTIAL SHIELDS" seen from the mounts: a read bind exactly on a hidden
 * store. */
static int opt_ins(struct inspect_report *r, const struct shield_set *s, bool *opted)
{
        r->opened = calloc(r->n_mounts + 1, sizeof(*r->opened));
        if (!r->opened)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_mounts; i++) {
                const struct inspect_mount *m = &r->mounts[i];
                bool any = false;

                if (m->role != INSPECT_READ)
                        continue;
                for (size_t j = 0; j < s->n_rules; j++) {
                        const struct shield_rule *rule = &s->rules[j];

                        if (rule->deny != SHIELD_DENY_ALL ||
                            rule->origin == SHIELD_ORIGIN_WORKSPACE ||
                            (strcmp(rule->path, m->destination) != 0 &&
                             strcmp(rule->literal, m->destination) != 0))
                                continue;
                        opted[j] = true;
                        if (!any)
                                r->opened[r->n_opened++] = (struct inspect_opened){
                                    m->destination, shield_holds_to_string(rule->holds)};
                        any = true;
                }
        }
        return 0;
}

static int needed(struct inspect_report *r, const struct shield_set *s, const bool *opted,
                  struct shield_mount **ret, size_t *ret_n, struct bento_err *err)
{
        cleanup_free const char **exposed = calloc(r->n_mounts + 1, sizeof(char *));
        cleanup_free const char **writes = calloc(r->n_mounts + 1, sizeof(char *));
        size_t n_exposed = 0, n_writes = 0;

        if (!exposed || !writes)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_mounts; i++) {
                if (!is_grant(r->mounts[i].role))
                        continue;
                exposed[n_exposed++] = r->mounts[i].destination;
                if (r->mounts[i].role == INSPECT_WRITE)
                        writes[n_writes++] = r->mounts[i].destination;
        }
        return shields_needed(s,
                              &(struct shield_exposure){.exposed = exposed,
                                                        .n_exposed = n_exposed,
                                                        .writes = writes,
                                                        .n_writes = n_writes,
                                                        .opted = opted},
                              ret, ret_n, err);
}

/* The read-write binds, for the workspace rules (docs/manifest.md, "CREDENTIAL SHIELDS"). */
static int add_workspace(struct inspect_report *r, struct shield_set *s, struct bento_err *err)
{
        cleanup_free const char **writes = calloc(r->n_mounts + 1, sizeof(char *));
        size_t n = 0;

        if (!writes)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_mounts; i++)
                if (r->mounts[i].role == INSPECT_WRITE)
                        writes[n++] = r->mounts[i].destination;
        return shields_add_workspace(s, writes, n, err);
}

int inspect_check_shields(struct inspect_report *r, struct bento_err *err)
{
        struct shield_env env = {.uid = getuid()};
        cleanup_shield_set struct shield_set *s = NULL;
        cleanup_free bool *opted = NULL;
        cleanup_free struct shield_mount *need = NULL;
        struct bento_err why = {0};
        size_t n_need = 0;
        int rc;

        rc = shields_build(&env, &s, &why);
        if (rc == -ENOMEM)
                return rc;
        if (rc < 0)
                return 0; /* no anchor here: nothing to weigh the mounts against */
        rc = add_workspace(r, s, &why);
        if (rc < 0)
                return rc == -ENOMEM ? rc : 0;
        opted = calloc(s->n_rules + 1, sizeof(bool));
        if (!opted)
                return -ENOMEM;
        rc = opt_ins(r, s, opted);
        if (rc < 0 || (!inspect_annotation(r, "org.bento.fingerprint") &&
                       !inspect_annotation(r, "org.bento.manifest")))
                return rc;
        rc = needed(r, s, opted, &need, &n_need, err);
        if (rc < 0)
                return rc;
        r->shields_checked = true;
        for (size_t i = 0; rc >= 0 && i < n_need; i++)
                rc = check_one(r, &need[i]);
        return rc;
}
