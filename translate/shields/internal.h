/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the shield-*.c files and nothing else: the one place
 * rules enter a set (resolution, drops and deduplication happen there, so
 * every origin obeys the same rules).
 */
#ifndef BENTO_SHIELD_INTERNAL_H
#define BENTO_SHIELD_INTERNAL_H

#include <stdbool.h>

#include "manifest/path.h"
#include "shields.h"

/* The variable through env's lookup, NULL when unset. */
const char *shield_env_get(const struct shield_env *env, const char *name);

/* What a rule added by shield_set_add() holds besides its path; the
 * fields mean what they do in struct shield_rule (grant is copied). */
struct shield_rule_spec {
        enum shield_deny deny;
        bool dir;
        enum shield_holds holds;
        const char *source;
        enum shield_origin origin;
        const char *grant;
        bool reads_as_dot;
};

/* Add a rule built at literal.  Returns 0 when kept (or merged into an
 * equal rule), 1 when dropped as unshieldable (docs/manifest.md, "CREDENTIAL SHIELDS"), -ENOMEM. */
int shield_set_add(struct shield_set *s, const char *literal, const struct shield_rule_spec *spec,
                   struct bento_err *err);

/* The same for a literal already spelled as path_clean() spells it (a
 * path_join() of clean parts), which the set takes over (frees) in every
 * case: the home rules, a thousand of them, are not copied again. */
int shield_set_take(struct shield_set *s, char *clean_literal, const struct shield_rule_spec *spec,
                    struct bento_err *err);

/* List, inside the current path memo scope, the directories of anchor that
 * hold many home rules (busy-dirs.c), before the rules are resolved. */
void shields_list_busy_dirs(const char *anchor);

/* Room for `more` rules beyond those in s, in the rule array and the
 * table that finds them, made at once rather than by doubling: each
 * doubling copies the rules into pages that fault in afresh.  -ENOMEM. */
int shield_set_reserve(struct shield_set *s, size_t more);

/* Record an unshieldable relocation (deduplicated). */
int shield_set_report(struct shield_set *s, const char *variable, const char *value,
                      struct bento_err *err);

/* shieldable() against the literal (cleaned, unresolved) anchors. */
bool shield_shieldable_literal(const struct shield_set *s, const char *path);

/* The environment relocations and the XDG_RUNTIME_DIR rule (docs/manifest.md,
 * "CREDENTIAL SHIELDS"). */
int shields_add_relocations(struct shield_set *s, const struct shield_env *env,
                            struct bento_err *err);

/* docs/manifest.md, "CREDENTIAL SHIELDS" credential-link expansion over the rules present now. */
int shields_expand_links(struct shield_set *s, struct bento_err *err);

#endif
