/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The credential-alias scan (docs/validate.md, "The credential-alias scan"), as validate's note: a
 * granted tree can hold a second name for a shielded credential, a hard
 * link or a bind mount, which the shields (placed on the credential's own
 * name) do not cover.  This finds such names under a budget of directory
 * entries and says when it was cut short.  It only reads the host.
 *
 * Credentials are the credential stores and every hidden file rule of the
 * shields anchored here (plus the wallet key paths inside the bulk stores),
 * minus the stores a read grant opts in.  Hard links are looked for only
 * when some credential file has more than one link; bind aliases come from
 * /proc/self/mountinfo.
 *
 * The write side covers every other shield (the read-only start-up files
 * and tool directories, the workspace shields of a checkout, the hidden
 * bulk stores): a second name for one of their files inside a write grant,
 * where no shield covers it, would let the sandbox change the file.  Inside
 * a read grant such a name is harmless (read-only, rro, and the shields
 * never promised to hide those files), so only write grants are searched.
 */
#ifndef BENTO_ALIAS_SCAN_H
#define BENTO_ALIAS_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "policy.h"

#define ALIAS_SCAN_BUDGET 50000 /* directory entries, validate's bound */

struct alias_hit {
        char *path;      /* the second name, inside a grant */
        char *target;    /* the shielded name it aliases */
        bool write_side; /* target is write-protected, path writable */
};

struct alias_scan {
        struct alias_hit *hits;
        size_t n_hits;
        bool partial; /* the budget ran out, or something could not be read */
};

/* Scan the grants of p (which must have shields).  budget bounds the
 * directory entries looked at.  Fails only when out of memory. */
int alias_scan(const struct policy *p, size_t budget, struct alias_scan *ret,
               struct bento_err *err);

void alias_scan_done(struct alias_scan *s);

struct bento_jsonw;

/* One hit as JSON: {"path", "credential"} or, on the write side,
 * {"path", "protected"} (validate's and run's lists share the form). */
void alias_hit_json(struct bento_jsonw *w, const struct alias_hit *h);

/* Entries run and translate look at before giving up (and refusing). */
#define ALIAS_SCAN_RUN_BUDGET 2000000

/* run's and translate's side of docs/validate.md, "The credential-alias scan": the refusal when a
 * granted tree holds a second name for a credential (or a write grant one for a write-protected
 * file), or could not be fully checked (fail closed).  accept/n_accept are the --accept-alias trees
 * (run only; a tree that holds or is inside a credential store is refused): aliases under them are
 * not refused, and when every alias found is under one they are handed back in *accepted (may be
 * NULL) for the caller to list. Heap string without "bento: ", or NULL when the run may go on (or
 * on ENOMEM, with err set: check err->code). */
char *alias_scan_refusal(const struct policy *p, char *const *accept, size_t n_accept,
                         struct alias_scan *accepted, struct bento_err *err);

#endif
