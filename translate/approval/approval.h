/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval state of a loaded manifest (docs/approve.md, "What the stamp is, and what it is
 * not") and the words bento says about it.  run, validate and translate call approval_check() once,
 * on the manifest they are about to use (loaded with trust_load_manifest(), so the bytes checked
 * are the bytes run), before resolving any path:
 *
 *      struct approval_status st;
 *
 *      if (approval_check(l.m, l.trust.real_path, &st) != MANIFEST_APPROVAL_CURRENT &&
 *          !allow_unapproved) {
 *              char *why = approval_refusal(st.state, path);
 *              fprintf(stderr, "bento: %s\n", why);     (exit 125)
 *      }
 *      notes = approval_notes(&st, &l.trust);           (print on stderr)
 *
 * The stamp is unkeyed drift detection, not authentication: "current"
 * means the permissions are the ones someone stamped, not who did.  The
 * journal verdict and the trust report say how far this host can vouch
 * for that someone.
 */
#ifndef BENTO_APPROVAL_H
#define BENTO_APPROVAL_H

#include <stdbool.h>

#include "fingerprint.h"
#include "journal.h"
#include "manifest/manifest.h"
#include "manifest/trust.h"

struct approval_status {
        enum manifest_approval state;                       /* unapproved, current or stale */
        char fingerprint[MANIFEST_FINGERPRINT_HEX_LEN + 1]; /* "" when it cannot be computed */
        enum journal_verdict journal;                       /* this host's record of the stamp */
        bool stamped;                                       /* provenance.approves is set */
};

/* The approval state of m (docs/approve.md, "What the stamp is, and what it is not"), which is also
 * returned.  real_path is the manifest's symlink-resolved location (trust_report.real_path) for the
 * journal lookup; NULL means realpath(m->path), and a manifest with no path has no journal entry.
 * Never fails: when the fingerprint cannot be computed the state is STALE, so a failure cannot read
 * as approval. ret may be NULL. */
enum manifest_approval approval_check(const struct manifest *m, const char *real_path,
                                      struct approval_status *ret);

/* run's refusal for a state other than CURRENT (heap string, without the
 * "bento: " prefix and without a newline): "refusing to run: the manifest
 * is not approved; ..." or "refusing to run: the manifest's permissions
 * changed since it was approved; ...", naming path in the remedies and
 * --allow-unapproved.  NULL for CURRENT or when out of memory. */
char *approval_refusal(enum manifest_approval state, const char *path);

/* What run and validate print on stderr before going on, each line
 * "[bento] ..." with a newline: the trust warnings of docs/approve.md, "What approve does, in
 * order" when the manifest carries a stamp, then the stamp note of docs/approve.md, "The approval
 * journal" when the stamp is current but this host holds no matching record.  trust may be NULL.
 * Heap string ("" when there is nothing to say), NULL when out of memory. */
char *approval_notes(const struct approval_status *s, const struct trust_report *trust);

/* validate's "approval:" value (docs/validate.md).  A STALE value has two more lines,
 * separated by '\n', for the caller to indent.  Static string. */
const char *approval_describe(enum manifest_approval state);

/* The message validate --strict fails with (docs/validate.md), NULL for CURRENT.
 * Static string. */
const char *approval_strict_failure(enum manifest_approval state);

#endif
