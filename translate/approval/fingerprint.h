/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval fingerprint (docs/manifest.md, "APPROVAL"): a SHA-256 over the manifest
 * as written, byte-compatible with the original so that a stamp written by
 * either implementation is "current" for the other.  It is unkeyed drift
 * detection, not authentication: it tells whether the permissions changed
 * since someone stamped them, never who stamped them.
 *
 * The hash covers entrypoint, interpreter, interpreter_args, args, env,
 * read, write, network, exec and limits; it does not cover provenance,
 * comments, formatting, key order or anything host-dependent.
 */
#ifndef BENTO_FINGERPRINT_H
#define BENTO_FINGERPRINT_H

#include "err.h"
#include "manifest/manifest.h"

#define MANIFEST_FINGERPRINT_HEX_LEN 64

enum manifest_approval {
        MANIFEST_APPROVAL_UNAPPROVED, /* provenance.approves is empty */
        MANIFEST_APPROVAL_CURRENT,    /* approves equals the fingerprint */
        MANIFEST_APPROVAL_STALE,      /* anything else */
        _MANIFEST_APPROVAL_MAX,
};

/* Compute the fingerprint of m into ret_hex: 64 lowercase hex digits and a
 * NUL.  A NULL manifest fingerprints as the empty string, which never equals
 * a stored stamp.  Lists are sorted on private copies; m is not modified.
 * Returns 0, or -ENOMEM / -EIO (libcrypto failure) with err filled; ret_hex
 * is written only on success. */
int manifest_fingerprint(const struct manifest *m, char ret_hex[static 65], struct bento_err *err);

/* Compare provenance.approves with the fingerprint of m (docs/approve.md, "What the stamp is, and
 * what it is not").  A NULL manifest is unapproved; if the fingerprint cannot be computed the
 * answer is STALE, so a failure can never read as approval. */
enum manifest_approval manifest_approval_state(const struct manifest *m);

/* The JSON names: "unapproved", "current", "stale"; out-of-range values
 * give "unapproved" (an unknown state is never treated as approved). */
const char *manifest_approval_to_string(enum manifest_approval a);

#endif
