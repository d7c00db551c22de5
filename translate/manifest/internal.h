/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared between the three halves of the manifest loader: manifest.c
 * (lifetime, problem lists, the public entry points), yaml.c (the
 * libyaml event loader) and check.c (the validation rules).  Not
 * for use outside them.
 */
#ifndef BENTO_MANIFEST_INTERNAL_H
#define BENTO_MANIFEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"

/* Values shown in messages are cut here; the value is named, not dumped. */
#define MANIFEST_SHOWN_MAX 200

/* A NUL byte inside a scalar ("\0" in a double-quoted string) cannot live in
 * the model's C strings, so the loader notes the first one it meets and the
 * checks report it as the docs/manifest.md, "SYNTAX RULES" control character it is. */
struct manifest_nul_hit {
        bool set;
        struct manifest_place at;
        char shown[MANIFEST_SHOWN_MAX + 8];
};

struct manifest_nul_hits {
        struct manifest_nul_hit policy;     /* any policy field */
        struct manifest_nul_hit provenance; /* a provenance field */
};

/* Append "<name>:<line>:<col>: <message>" to p (the place is left out when
 * unknown), with every control, bidirectional and line-separator character
 * removed from the whole line.  Returns 0 or -ENOMEM. */
int manifest_problem_add(struct manifest_problems *p, const char *name,
                         const struct manifest_place *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Decode data (already size- and UTF-8-checked) into m, enforcing the
 * input-level rules of docs/manifest.md, "SYNTAX RULES".  Returns 0; -EINVAL with exactly one
 * problem added to p; or -ENOMEM. */
int manifest_yaml_load(const char *data, size_t len, const char *name, struct manifest *m,
                       struct manifest_problems *p, struct manifest_nul_hits *hits);

/* Run the character screen and every rule of docs/manifest.md, "SYNTAX RULES" on m, adding what
 * fails to p (nothing added = valid).  hits may be NULL.  Returns 0 or
 * -ENOMEM. */
int manifest_check_all(const struct manifest *m, const char *name,
                       const struct manifest_nul_hits *hits, struct manifest_problems *p);

/* A value for a message: sanitised and cut (see screen_sanitize). */
const char *manifest_shown(const char *s, char buf[static MANIFEST_SHOWN_MAX + 8]);

#endif
