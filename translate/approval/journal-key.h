/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The journal key: 32 random bytes that authenticate this host's approval
 * records.  A record's place and layout are no proof that `bento approve`
 * wrote it: a sandboxed program with a write grant can lay out a perfect
 * copy wherever a later XDG_STATE_HOME may point.  So each record carries
 * "mac", an HMAC-SHA256 under this key of its fields that matter, and a
 * record whose mac is missing or wrong is not believed.
 *
 * The key lives at <passwd home>/.local/state/bento/journal.key.  The
 * passwd home (parsed from /etc/passwd, as the shields do) is not moved by
 * HOME or XDG_STATE_HOME, so a relocated journal cannot bring its own key;
 * the shields hide the file in every sandbox (a credentials rule in
 * shields/rules.c).  It is read only when private: reached below the home
 * through real directories (no link), "bento" and the file owned by the
 * effective uid or root and not writable by others, the file readable by
 * its owner alone, exactly 32 bytes, and vouched for by the trust
 * inspection of its ancestors (manifest/trust.h).  `bento approve` creates it when
 * missing (O_CREAT|O_EXCL|O_NOFOLLOW, 0600; directories 0700).
 */
#ifndef BENTO_JOURNAL_KEY_H
#define BENTO_JOURNAL_KEY_H

#include <stdbool.h>

#include "err.h"
#include "journal.h"

#define JOURNAL_KEY_LEN     32
#define JOURNAL_MAC_HEX_LEN 64

/* The key file's path as a heap string; ENOENT when the passwd database
 * has no home for the effective uid. */
int journal_key_path(char **ret, struct bento_err *err);

/* Read the key: 1 with key filled, 0 when there is none, -EPERM when the
 * file is there but not private (see above), -EINVAL when it is not 32
 * bytes, or another -errno; err says why for anything but 1 and 0. */
int journal_key_load(unsigned char key[static JOURNAL_KEY_LEN], struct bento_err *err);

/* journal_key_load(), creating the key first when there is none.  0 with
 * key filled, or -errno with err filled (a key that is there but unusable
 * is never replaced: err says to remove it). */
int journal_key_ensure(unsigned char key[static JOURNAL_KEY_LEN], struct bento_err *err);

/* The mac of e under key, as lower-case hex: HMAC-SHA256 over a canonical
 * encoding of fingerprint, manifest_path, stamped_at, reviewed, policy and
 * the identity fields (has_identity, named_path, named_symlink, dev, ino).
 * 0, or -EIO when libcrypto failed. */
int journal_mac(const unsigned char key[static JOURNAL_KEY_LEN], const struct journal_entry *e,
                char hex[static JOURNAL_MAC_HEX_LEN + 1]);

/* Whether e->mac is the mac of e under key (compared in constant time);
 * false when e has no mac. */
bool journal_authentic(const unsigned char key[static JOURNAL_KEY_LEN],
                       const struct journal_entry *e);

/* Tests only: look for the key under home instead of the passwd home
 * (NULL restores it).  bento itself never calls this, and nothing in the
 * environment can do the same. */
void journal_key_use_home(const char *home);

#endif
