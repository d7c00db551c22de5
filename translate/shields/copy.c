/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A deep copy of a shield set.  Building the set for this host resolves about a thousand rule
 * paths per home anchor; a caller that needs the same host's set several times (bento profile:
 * the discovery run's policy, the proposal, run's refusals of the draft) builds it once and
 * hands each user a copy it may extend with its own workspace rules and free.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "shields.h"

static char **strv_copy(char *const *v, size_t n)
{
        char **c = calloc(n + 1, sizeof(char *));

        for (size_t i = 0; c && i < n; i++)
                if (!(c[i] = strdup(v[i]))) {
                        strv_free(c);
                        return NULL;
                }
        return c;
}

/* s's rules into c; c->n_rules counts only those copied whole, so a failure leaves c freeable. */
static int copy_rules(struct shield_set *c, const struct shield_set *s)
{
        c->rules = calloc(s->cap_rules ? s->cap_rules : 1, sizeof(*c->rules));
        if (!c->rules)
                return -1;
        c->cap_rules = s->cap_rules;
        for (size_t i = 0; i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];
                struct shield_rule *d = &c->rules[i];

                *d = *r; /* the scalars; source is static */
                d->path = strdup(r->path);
                /* one string for both when they are equal, as shields_build() keeps them */
                d->literal = r->literal == r->path ? d->path : strdup(r->literal);
                d->grant = r->grant ? strdup(r->grant) : NULL;
                c->n_rules++;
                if (!d->path || !d->literal || (r->grant && !d->grant))
                        return -1;
        }
        return 0;
}

/* The path table holds rule indexes, which the copy keeps, so it is copied as it is. */
static int copy_table(struct shield_set *c, const struct shield_set *s)
{
        if (!s->cap_hashed)
                return 0;
        c->hashed = malloc(s->cap_hashed * sizeof(*c->hashed));
        if (!c->hashed)
                return -1;
        memcpy(c->hashed, s->hashed, s->cap_hashed * sizeof(*c->hashed));
        c->cap_hashed = s->cap_hashed;
        c->n_hashed = s->n_hashed;
        return 0;
}

static int copy_unshieldable(struct shield_set *c, const struct shield_set *s)
{
        if (!s->n_unshieldable)
                return 0;
        c->unshieldable = calloc(s->n_unshieldable, sizeof(*c->unshieldable));
        if (!c->unshieldable)
                return -1;
        c->cap_unshieldable = s->n_unshieldable;
        for (size_t i = 0; i < s->n_unshieldable; i++) {
                c->unshieldable[i].variable = s->unshieldable[i].variable;
                c->unshieldable[i].value = strdup(s->unshieldable[i].value);
                c->n_unshieldable++;
                if (!c->unshieldable[i].value)
                        return -1;
        }
        return 0;
}

struct shield_set *shield_set_copy(const struct shield_set *s)
{
        cleanup_shield_set struct shield_set *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        c->n_anchors = s->n_anchors;
        c->anchors = strv_copy(s->anchors, s->n_anchors);
        c->resolved_anchors = strv_copy(s->resolved_anchors, s->n_anchors);
        c->n_redirected_workspace = s->n_redirected_workspace;
        if (!c->anchors || !c->resolved_anchors ||
            (s->runtime_dir && !(c->runtime_dir = strdup(s->runtime_dir))) ||
            copy_rules(c, s) < 0 || copy_table(c, s) < 0 || copy_unshieldable(c, s) < 0)
                return NULL;
        return TAKE_PTR(c);
}
