/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Manifest trust inspection (docs/approve.md, "What approve does, in order"): who besides the
 * caller could rewrite a manifest.  An approval stamp is an unkeyed hash, so it attests only what
 * whoever can write the file leaves there; this module finds those other writers.  It looks at the
 * file that was actually opened (the descriptor, located through /proc/self/fd), its directory,
 * every ancestor directory of its real location and every symbolic link
 * met on the way from the name the user gave.
 *
 * Everything is judged against the effective uid; root-owned files and
 * directories are never "foreign".  Sticky directories (/tmp) are exempt
 * from the write-bit checks.  Each finding is a flaw with a reason, an
 * optional hint and whether it is fatal for `approve` (approve refuses on
 * the first fatal flaw; run and validate only warn, and only for a stamped
 * manifest).
 *
 * Group membership is read from the group and passwd files directly (not
 * through NSS), so tests can point the module at fake ones.
 */
#ifndef BENTO_TRUST_H
#define BENTO_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "manifest.h"

enum trust_flaw_kind {
        TRUST_FILE_SHARED_WRITE,  /* group/world write bits or an ACL: not fatal */
        TRUST_FILE_FOREIGN_OWNER, /* owned by another uid (not root) */
        TRUST_DIR_ACL,            /* a directory ACL grants write to a named user/group */
        TRUST_DIR_WORLD_WRITABLE, /* world-writable, not sticky */
        TRUST_DIR_GROUP_SHARED,   /* group-writable, setgid or a group with other members */
        TRUST_DIR_GROUP_PRIVATE,  /* group-writable, the caller's private group: not fatal */
        TRUST_DIR_FOREIGN_OWNER,  /* owned by another uid (not root) */
        TRUST_SYMLINK_FOREIGN,    /* a foreign symlink in a directory others can write */
        TRUST_UNLOCATED,          /* where the file lives cannot be established */
        TRUST_FLAW_MAX,
};

struct trust_flaw {
        enum trust_flaw_kind kind;
        bool fatal;   /* approve refuses */
        char *reason; /* a sentence fragment naming the path ("... is world-writable ...") */
        char *hint;   /* what to do about it, or NULL */
};

struct trust_report {
        char *real_path; /* the opened file's symlink-resolved location, NULL when unknown */
        struct trust_flaw *flaws;
        size_t n_flaws;
};

/* The identity the inspection judges against; a NULL host (or NULL
 * members) means geteuid(), /etc/passwd and /etc/group. */
struct trust_host {
        uid_t euid;
        bool euid_set; /* use euid instead of geteuid() */
        const char *passwd_path;
        const char *group_path;
};

/* Inspect the open regular file fd that was opened as path.  Fails (and
 * nothing is vouched for) when fd is not a regular file ("<path> is not a
 * regular file, so there is nothing to vouch for its permissions") or when
 * its resolved location names another inode ("... moved while it was being
 * read").  Every other finding is a flaw in *ret, which the caller empties
 * with trust_report_done().  ret is written only on success. */
int trust_inspect_fd(int fd, const char *path, const struct trust_host *host,
                     struct trust_report *ret, struct bento_err *err);

/* A manifest loaded together with what its inspection found. */
struct trust_loaded {
        struct manifest *m;
        struct trust_report trust;
        char *data; /* the bytes m was parsed from (NUL-terminated) */
        size_t len;
};

/* Open path (following symlinks), inspect the descriptor, then read and
 * parse the manifest from that same descriptor, so what was inspected is
 * what is fingerprinted and run.  Errors and problems follow
 * manifest_load(); *ret is filled only on success and emptied with
 * trust_loaded_done().  This is the loader every verb that checks
 * approval should use. */
int trust_load_manifest(const char *path, const struct trust_host *host, struct trust_loaded *ret,
                        struct manifest_problems *problems, struct bento_err *err);

/* trust_load_manifest() for a descriptor fd the caller opened as path
 * (for reading); fd is consumed, closed in every case. */
int trust_load_fd(int fd, const char *path, const struct trust_host *host, struct trust_loaded *ret,
                  struct manifest_problems *problems, struct bento_err *err);

/* Open the absolute, clean path for reading (O_CLOEXEC, O_NOCTTY,
 * O_NONBLOCK) through no symbolic link at all: openat2() with
 * RESOLVE_NO_SYMLINKS, or where the kernel lacks it O_NOFOLLOW plus a
 * check that the opened file sits at path itself.  Returns the descriptor,
 * -ELOOP when a link is on the way (any component), or another -errno. */
int trust_open_nolinks(const char *path);

void trust_loaded_done(struct trust_loaded *l);

void trust_report_done(struct trust_report *r);

/* The first flaw approve refuses on, or NULL. */
const struct trust_flaw *trust_first_fatal(const struct trust_report *r);

/* The docs/approve.md, "What approve does, in order" warnings of run and validate for a stamped
 * manifest, one
 * "[bento] <reason> - its approval stamp attests only what whoever can
 * write it leaves there." line per flaw plus "[bento] <hint>" lines, each
 * ending in a newline.  Heap string ("" when there are no flaws), NULL
 * when out of memory. */
char *trust_render_warnings(const struct trust_report *r);

/* Whether a POSIX ACL on fd (or path when fd < 0) lets a named user other
 * than euid, or a named group, write (the mask applied).  Returns 1 and
 * fills the describing text into who (e.g. "user 1001"), 0 when not (also
 * when the file system has no ACLs), or -errno. */
int trust_acl_grants_write(int fd, const char *path, uid_t euid, char *who, size_t who_size);

/* Whether gid is a private group for euid: no user other than euid is a
 * member of it, by the group file's member list or as primary group. */
bool trust_group_private(const struct trust_host *host, gid_t gid);

static inline void cleanup_trust_report_fn(struct trust_report *r)
{
        trust_report_done(r);
}
#define cleanup_trust_report __attribute__((cleanup(cleanup_trust_report_fn)))
#define cleanup_trust_loaded __attribute__((cleanup(trust_loaded_done)))

#endif
