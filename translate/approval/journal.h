/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval journal (docs/approve.md, "The approval journal"): this host's own record of
 * what `bento approve` stamped, one JSON file per manifest at
 * $XDG_STATE_HOME/bento/approvals/<sha256 of the real manifest path>.json
 * ($XDG_STATE_HOME only when absolute, else ~/.local/state).  It holds the
 * canonical policy text that was approved, so a later re-approval can show
 * what changed, and it tells run and validate whether a current stamp was
 * put there by a review on this host.  Losing it costs only that diff and
 * that note: the stamp in the manifest stays the authority.
 *
 * A record also says what was approved by identity: the name the manifest
 * was given (absolute, links not followed), whether that name was a
 * symbolic link, and the device and inode of the file stamped.  When the
 * name reached the file through a link, the record is filed under the
 * SHA-256 of that name as well, so a later run of the same name can tell
 * whether the link was there at approval (name.h).  Records
 * written before these fields existed read back without them
 * (has_identity false).
 *
 * A record is believed only when the journal is private: "bento" and
 * "approvals" below the state home are real directories (never links:
 * bento makes them itself), they and the file are not group/world-
 * writable, carry no ACL granting write to a named user or group and
 * belong to the effective uid or root, and the file passes the manifest
 * trust inspection (manifest/trust.h: no directory above it that others can write,
 * no link on the way that others could swap), and only when it is
 * authentic: its "mac" is the HMAC of its fields under this host's journal
 * key (journal-key.h).  A private place proves nothing about who wrote a
 * record there once XDG_STATE_HOME can point into a tree an earlier
 * sandbox could write; the key, hidden from every sandbox, does.
 */
#ifndef BENTO_JOURNAL_H
#define BENTO_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum journal_verdict {
        JOURNAL_ABSENT,          /* no entry, or an empty or corrupt one */
        JOURNAL_UNTRUSTED,       /* an entry others could have written */
        JOURNAL_UNAUTHENTICATED, /* an entry without a valid mac (or no key): absent */
        JOURNAL_FOREIGN,         /* an entry for another fingerprint than the stamp */
        JOURNAL_MATCHES,         /* this host recorded approving exactly the stamp */
        JOURNAL_VERDICT_MAX,
};

struct journal_entry {
        char *fingerprint;   /* the stamp that was written */
        char *policy;        /* canonical manifest YAML without provenance */
        char *manifest_path; /* the real path of the manifest */
        char *stamped_at;    /* RFC 3339, UTC */
        bool reviewed;       /* false when stamped with --yes */
        /* What was approved, by identity; all unset in older records. */
        bool has_identity;
        char *named_path;   /* the name approve was given: absolute, links not followed */
        bool named_symlink; /* its last component was a symbolic link */
        uint64_t dev, ino;  /* the file the stamp was written to */
        char *mac;          /* as read back: hex HMAC (journal-key.h), NULL when none */
};

/* The journal directory as a heap string.  Fails with ENOENT when neither
 * an absolute $XDG_STATE_HOME nor an absolute $HOME is set. */
int journal_dir(char **ret, struct bento_err *err);

/* The entry file for the manifest whose symlink-resolved path is real. */
int journal_entry_path(const char *real, char **ret, struct bento_err *err);

/* What the journal says about the manifest at real carrying stamp (its
 * provenance.approves).  A record that is there but not authentic is
 * JOURNAL_UNAUTHENTICATED, which callers treat as absent (it only words the
 * note differently).  When ret_entry is not NULL and the verdict is
 * JOURNAL_FOREIGN or JOURNAL_MATCHES, *ret_entry gets the entry (free it
 * with journal_entry_free()); otherwise it is set to NULL.  Never fails:
 * whatever cannot be read is JOURNAL_ABSENT. */
enum journal_verdict journal_lookup(const char *real, const char *stamp,
                                    struct journal_entry **ret_entry);

/* The entry filed under key, a manifest's real path or (for a name that
 * reached its file through a link) that name, whatever its fingerprint:
 * 1 with *ret set (free it with journal_entry_free()), 0 when there is
 * none, it is empty or corrupt, or it is not authentic, -EPERM when the journal is not private
 * (see above).  *ret is NULL unless 1 is returned. */
int journal_find(const char *key, struct journal_entry **ret);

/* Write e (its mac computed here under the journal key, which is created
 * when missing; e->mac is ignored) as the entry for e->manifest_path, and
 * when e has an identity whose named_path differs, as the entry for that
 * name too: directories
 * created 0700, the file 0600, through a ".bento-approval-*" temporary
 * file, fsync and rename.  Refuses (ELOOP) when "bento" or "approvals"
 * below the state home is a link.  Returns 0 or -errno with err filled. */
int journal_record(const struct journal_entry *e, struct bento_err *err);

/* Is the journal within reach of one of paths (absolute, clean): does a
 * path equal or hold the journal root ($XDG_STATE_HOME/bento, or
 * ~/.local/state/bento) or its approvals directory, either as named or
 * with symlinks resolved?  A program that can write there can forge a
 * record of approval.  Returns 1 with *ret_index (the first such path)
 * and *ret_where (heap: the journal directory) set, 0 when none is (or
 * the journal has no home), -ENOMEM. */
int journal_within(const char *const *paths, size_t n, size_t *ret_index, char **ret_where);

/* The journal's home comes from XDG_STATE_HOME, not from HOME. */
bool journal_relocated(void);

struct journal_entry *journal_entry_free(struct journal_entry *e);

/* "absent", "untrusted", "unauthenticated", "foreign", "matches". */
const char *journal_verdict_to_string(enum journal_verdict v);

/* A line diff of two texts, LCS-based: each line of the result is
 * "  <line>" (kept), "- <line>" (only in old) or "+ <line>" (only in new),
 * with a newline after each.  Heap string, NULL when out of memory. */
char *journal_diff(const char *old_text, const char *new_text);

static inline void cleanup_journal_entry_fn(struct journal_entry **e)
{
        journal_entry_free(*e);
}
#define cleanup_journal_entry __attribute__((cleanup(cleanup_journal_entry_fn)))

#endif
