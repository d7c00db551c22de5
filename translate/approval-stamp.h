/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing the approval stamp into a manifest (spec/bento.md §3.4 step 7)
 * without losing what its author wrote around the policy.
 *
 * The stamp is provenance {generated-by: bento approve, generated-at,
 * approves; blocked-hosts carried}.  Rather than re-emitting the whole
 * file canonically (§1.10), which drops comments and layout, the stamp is
 * applied as a minimal textual edit: the values of existing provenance
 * keys are replaced in place (in their quoting style), missing keys are
 * inserted as lines at the provenance block's indentation, and a missing
 * block is inserted after the last top-level entry.  Every other byte is
 * kept.  The result is then parsed again and must serialize canonically
 * exactly like the stamped model; only then is it used.  When the edit is
 * not possible (flow-style provenance or top level, an empty provenance
 * key, anything the re-parse does not confirm) the canonical serialization
 * is used instead, and the caller says that comments were lost.
 */
#ifndef BENTO_APPROVAL_STAMP_H
#define BENTO_APPROVAL_STAMP_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest.h"

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

/* The current time as RFC 3339 UTC into buf ("2026-07-14T00:00:00Z"). */
void approval_now_rfc3339(char buf[static 32]);

#endif
