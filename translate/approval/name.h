/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Approval follows the name (docs/approve.md, issue 14).  A stamp
 * and a journal record vouch for a file; a user runs a name.  When
 * narrow.yaml is replaced by a symbolic link to another approved manifest,
 * the file reached carries a current stamp and a matching record, so
 * without this check the other manifest's grants would run under the
 * narrow name with nothing said.
 *
 * The rule: a name that reaches its file through no symbolic link is the
 * file, and is judged by the stamp and the journal as before.  A name
 * with a link anywhere on the way (the last component or a directory
 * above it) is honoured only when this host's journal holds an approval
 * of that very name (journal.h files one under it) that reached the same
 * real path; run refuses it otherwise.  Every component counts, because
 * swapping a directory for a link is the same attack one level up; a
 * layout such as /home -> /usr/home costs one `bento approve` under the
 * name that is used, and a name typed relative to the working directory
 * is made absolute with getcwd(), which holds no links.
 *
 * The manifest is opened once, through no link beyond what was approved:
 * a plain name and an approved link's recorded target are both opened
 * with no symbolic link allowed on the way (trust_open_nolinks()), and the
 * same descriptor is inspected, fingerprinted and parsed.
 *
 * Device and inode are recorded but not compared: approve and run's
 * blocked-host record replace the file by rename, and so do many editors,
 * so the inode of an approved manifest is not stable; the stamp and the
 * journal's fingerprint vouch for the content at the approved place.
 */
#ifndef BENTO_APPROVAL_NAME_H
#define BENTO_APPROVAL_NAME_H

#include <stdbool.h>

#include "err.h"
#include "manifest/manifest.h"
#include "manifest/trust.h"

enum approval_name_verdict {
        APPROVAL_NAME_PLAIN,      /* no symbolic link on the way: the name is the file */
        APPROVAL_NAME_APPROVED,   /* through links, approved under this name, same file */
        APPROVAL_NAME_UNRECORDED, /* through a link, never approved under this name here */
        APPROVAL_NAME_OLD_RECORD, /* through a link; the record predates identities */
        APPROVAL_NAME_REDIRECTED, /* through a link to another file than was approved */
        APPROVAL_NAME_UNTRUSTED,  /* through a link, and the journal is not private */
};

struct approval_name {
        enum approval_name_verdict verdict;
        char *named;    /* absolute, clean, links not followed */
        char *leads_to; /* where it leads now, links resolved; NULL when PLAIN */
        bool is_link;   /* the last component is a symbolic link */
        /* REDIRECTED: the real path the name was approved for, and whether
         * it was a link then; UNRECORDED: the name that file was approved
         * under, when it was (else NULL). */
        char *approved;
        bool approved_as_link;
};

/* The manifest's absolute name as given: path_clean() of path, or of the
 * working directory joined with it.  Heap string, NULL when out of
 * memory or without a working directory. */
char *approval_named_path(const char *path);

/* Open the manifest named path the way approval vouches for it, judge the
 * name (*name, always filled on return 0 or 1; empty it with
 * approval_name_done()), then inspect and parse the one descriptor into
 * *l (trust_load_fd()).  A name approval_name_ok() rejects is loaded only
 * when follow is set, through its links as they are now; otherwise 1 is
 * returned with *l untouched and nothing opened.  Returns 0 when loaded,
 * 1, or a negative errno with err and problems filled as
 * trust_load_manifest() does. */
int approval_load(const char *path, bool follow, struct approval_name *name, struct trust_loaded *l,
                  struct manifest_problems *problems, struct bento_err *err);

/* PLAIN or APPROVED: the name reaches what this host approved. */
bool approval_name_ok(const struct approval_name *n);

/* Why a name approval_name_ok() rejects cannot be trusted, naming path
 * (as the user gave it), where it leads now, and the remedy: review it,
 * then `bento approve <path>` again.  One sentence without a final stop,
 * heap; NULL for an accepted name or when out of memory. */
char *approval_name_problem(const struct approval_name *n, const char *path);

/* approve's callout about the name (report/review.h): what stamping it
 * will mean for a name through a link, or what changed since it was
 * approved.  NULL for a plain name, an approved one, or out of memory. */
char *approval_name_callout(const struct approval_name *n, const char *path);

void approval_name_done(struct approval_name *n);

#endif
