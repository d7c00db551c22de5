/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing the approval stamp (docs/approve.md, "What approve does, in order", step 7) and recorded
 * blocked hosts (docs/manifest.md, "PROVENANCE") into a manifest without losing what its
 * author wrote around the policy.
 *
 * The stamp is provenance {generated-by: bento approve, generated-at,
 * approves; blocked-hosts carried}.  Rather than re-emitting the whole
 * file canonically (docs/approve.md, "How the file is rewritten"), which drops comments and layout,
 * the stamp is applied as a minimal textual edit: the values of existing provenance keys are
 * replaced in place (in their quoting style), missing keys are inserted as lines at the provenance
 * block's indentation, and a missing block is inserted after the last top-level entry.  Every other
 * byte is kept.  The result is then parsed again and must serialize canonically exactly like the
 * stamped model; only then is it used.  When the edit is not possible (flow-style provenance or top
 * level, an empty provenance key, anything the re-parse does not confirm) the canonical
 * serialization is used instead, and the caller says that comments were lost.
 *
 * Blocked hosts ("host:port" destinations the egress guard refused although
 * a rule allowed them) are added the same way, as item lines of
 * provenance.blocked-hosts; they are provenance, outside the fingerprint
 * (docs/approve.md, "How the fingerprint is computed"), so an approval stays as it was.  `run`
 * records them as a side effect, so there is no canonical fallback here: when the text cannot be
 * edited in place, nothing is written and the caller says why.
 */
#ifndef BENTO_APPROVAL_STAMP_H
#define BENTO_APPROVAL_STAMP_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest/manifest.h"

#define APPROVAL_GENERATED_BY "bento approve"

struct approval_stamp {
        const char *fingerprint;  /* 64 lowercase hex: the fingerprint of the policy */
        const char *generated_at; /* RFC 3339 UTC, e.g. "2026-07-14T00:00:00Z" */
};

struct approval_stamped {
        char *text; /* the new file content, NUL-terminated (heap) */
        size_t len;
        bool textual; /* true: a minimal edit of the original; false: canonical */
};

/* Set m's provenance to the stamp (generated-by "bento approve", the
 * stamp's time and fingerprint; blocked-hosts unchanged) and compute the
 * file text that carries it.  data/len are the bytes m was parsed from.
 * On success *ret owns the text (free ret->text).  Fails only for what
 * makes even the canonical form impossible (out of memory, a value that
 * is not UTF-8), with err filled; m's provenance may then already hold
 * the stamp. */
int approval_stamp_text(struct manifest *m, const char *data, size_t len,
                        const struct approval_stamp *stamp, struct approval_stamped *ret,
                        struct bento_err *err);

/* What approval_blocked_hosts_text() made. */
struct approval_blocked_edit {
        char *text; /* the new file content, NUL-terminated (heap) */
        size_t len;
        char **added; /* the entries that were new, sorted (NULL-terminated strv) */
        size_t n_added;
};

/* Add entries ("host:port", IPv6 hosts bracketed, as recorded) to m's
 * provenance.blocked-hosts and compute the file text that carries them,
 * as a minimal textual edit of data, the bytes m was parsed from.  Entries
 * already recorded (exact string) are skipped; the others, deduplicated,
 * go in sorted, each before the first recorded entry that sorts after it,
 * so a sorted list stays sorted and a hand-ordered one keeps its order.
 * A missing key or provenance block is inserted; the new items are
 * double-quoted lines at the indentation of the list's dashes.
 *
 * Returns 1 with *ret filled (empty it with approval_blocked_edit_done())
 * and m's list the merged one; 0 when every entry is recorded already
 * (nothing to write; *ret zeroed); or a negative errno with err set and m
 * unchanged: -EOPNOTSUPP when the text cannot be edited in place (flow
 * style, a layout the edit does not handle, or an edit the re-parse did
 * not confirm; err says which), -EINVAL for an entry that is not plain
 * printable ASCII without quotes or backslashes, -ENOMEM. */
int approval_blocked_hosts_text(struct manifest *m, const char *data, size_t len,
                                char *const *entries, size_t n, struct approval_blocked_edit *ret,
                                struct bento_err *err);

void approval_blocked_edit_done(struct approval_blocked_edit *e);

/* The current time as RFC 3339 UTC into buf ("2026-07-14T00:00:00Z"). */
void approval_now_rfc3339(char buf[static 32]);

#endif
