/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What deserves a second look before a manifest is stamped
 * (docs/approve.md, "What approve does, in order", step 4): grants under /tmp, interpreter options,
 * exec: all, write grants over the manifest or the entrypoint, read grants that open a credential
 * shield, grants of a whole home or top-level directory, and network rules that reach a destination
 * the egress guard refused on an earlier run (provenance.blocked-hosts, recorded by run or
 * profile), and a manifest named through a symbolic link (approval/name.h).
 */
#ifndef BENTO_APPROVAL_REVIEW_H
#define BENTO_APPROVAL_REVIEW_H

#include <stddef.h>

#include "manifest/manifest.h"
#include "policy/policy.h"

/* What approve reviews: the manifest, its policy on this host (NULL when
 * the grants could not be resolved; then unresolved says why), and the
 * manifest's own location in both spellings. */
struct approval_review {
        const struct manifest *m;
        const struct policy *p;
        const char *unresolved;     /* why resolution failed, or NULL */
        const char *manifest_real;  /* symlink-resolved, or NULL */
        const char *manifest_named; /* absolute, as named (links not followed), or NULL */
        const char *name_callout;   /* approval_name_callout(), or NULL */
};

/* The callouts, sorted, one sentence each, as a NULL-terminated strv
 * (free with strv_free); *ret_n gets their number.  Returns 0 or
 * -ENOMEM. */
int approval_callouts(const struct approval_review *rv, char ***ret, size_t *ret_n);

#endif
