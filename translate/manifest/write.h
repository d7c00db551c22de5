/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing a manifest back (docs/approve.md, "How the file is rewritten"): the canonical YAML that
 * `approve` and `profile` emit, and the atomic file replacement they use.
 *
 * The canonical form puts the keys in the order of docs/manifest.md, "FIELDS", omits empty and
 * absent fields, writes network rules as {host, port} mappings, always
 * writes exec, writes limits only when one is set (pids only when non-zero)
 * and puts provenance last.  Every string is double-quoted with YAML
 * escapes for '"', '\\' and everything a YAML reader would not take
 * literally (C0, DEL, C1, line/paragraph separators, BOM, U+FFFE/U+FFFF),
 * so every string round-trips whatever it contains; pids is a plain
 * integer.  Comments of the original file are not kept: a written manifest
 * is machine-owned.
 */
#ifndef BENTO_MANIFEST_WRITE_H
#define BENTO_MANIFEST_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "manifest.h"

enum manifest_yaml_flags {
        /* Leave the provenance block out: the policy text the approval
         * journal stores and diffs (docs/approve.md, "The approval journal"). */
        MANIFEST_YAML_NO_PROVENANCE = 1u << 0,
};

/* Serialize m canonically.  *ret is heap-allocated and NUL-terminated,
 * *ret_len excludes the terminator; both are written only on success.
 * Fails with -EILSEQ (naming the field) when a string is not valid UTF-8,
 * -EINVAL for a NULL manifest, -ENOMEM.  The policy is not validated here
 * (manifest_write_file does that), so a draft can be shown as it stands. */
int manifest_to_yaml(const struct manifest *m, unsigned flags, char **ret, size_t *ret_len,
                     struct bento_err *err);

/* What manifest_write_file did to the file mode, so the caller can warn
 * "[bento] <path> was group/world-writable (<old>); writing it back as
 * <new> - ..." when clamped is set. */
struct manifest_write_info {
        bool existed;    /* a file was replaced (false: created) */
        mode_t old_mode; /* its permission bits; 0 when it did not exist */
        mode_t new_mode; /* the permission bits written */
        bool clamped;    /* group/world write bits were removed */
        dev_t dev;       /* the file written (the approval journal records it) */
        ino_t ino;
};

/* Replace the manifest at path with the canonical serialization of m.
 *
 * m is validated first (manifest_validate, with path in the messages), so
 * a file the parser would refuse is never written; then -EINVAL comes with
 * the rendered problems in err.  A symlink at path is
 * followed and the file it resolves to is replaced; a dangling one is an
 * error.  The new content goes to a ".bento-approve-*" temporary file in
 * the resolved file's directory, gets the previous file's permission bits
 * (0600 for a new file) minus group/world write, is fsync()ed and renamed
 * into place; on failure the temporary file is removed and the old file is
 * untouched.  When the temporary file cannot be created the error names
 * the directory.  ret_info may be NULL; it is written only on success.
 * Returns 0 or a negative errno with err filled. */
int manifest_write_file(const char *path, const struct manifest *m,
                        struct manifest_write_info *ret_info, struct bento_err *err);

/* The file replacement of manifest_write_file() for text the caller has
 * produced itself (approve's minimal stamp edit): same symlink, temporary
 * file, mode and flush rules, same ret_info.  The caller must already have
 * checked that data parses to the manifest it means to write. */
int manifest_write_bytes(const char *path, const char *data, size_t len,
                         struct manifest_write_info *ret_info, struct bento_err *err);

#endif
