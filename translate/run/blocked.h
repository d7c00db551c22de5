/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run, after the run (docs/manifest.md, "PROVENANCE"): the destinations
 * the egress guard refused although a network rule allowed them (they
 * resolved into loopback, private, link-local or metadata space) are
 * recorded in the manifest's provenance.blocked-hosts, so that validate,
 * approve and later runs can point at the rule that covers them.
 *
 * blocked-hosts is outside the fingerprint (docs/approve.md, "How the fingerprint is computed"), so
 * the approval stays as it was.  The entries go in as a minimal textual edit that keeps every other
 * byte (approval/stamp.h), written atomically onto the file that was checked before the run.  A run
 * never rewrites the manifest canonically: when the text cannot be edited in place, or the file is
 * not one a run should rewrite (changed or moved during the run, someone else's, group- or
 * world-writable), nothing is written and a note says why.
 */
#ifndef BENTO_RUN_BLOCKED_H
#define BENTO_RUN_BLOCKED_H

#include <stddef.h>

#include "run.h"
#include "manifest/trust.h"

struct run_blocked {
        char **recorded; /* the "host:port" entries added (NULL-terminated strv), or
                            NULL */
        size_t n_recorded;
        char *note; /* what to tell the user, one line without "[bento] note: ", or
                       NULL */
};

/* Record e's guard-blocked destinations that a rule of l's manifest allows
 * and that it does not hold yet.  l is the manifest as loaded before the
 * run (trust_load_manifest): the file must still hold exactly those bytes
 * at its real path.  Nothing new: nothing is done and *ret stays empty.
 * Every outcome is reported through ret->note; a failure to record is not
 * an error of the run.  Returns 1 when the manifest was rewritten, else
 * 0. */
int run_blocked_record(const struct trust_loaded *l, const struct run_egress *e,
                       struct run_blocked *ret);

/* Print b's note on stderr ("[bento] note: ..."), if there is one. */
void run_blocked_note(const struct run_blocked *b);

void run_blocked_done(struct run_blocked *b);

#endif
