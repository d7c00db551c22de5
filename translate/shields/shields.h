/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Credential shields (docs/manifest.md, "CREDENTIAL SHIELDS"): the mandatory deny-list that keeps
 * credential stores, shell start-up files and service sockets out of reach
 * whatever a manifest grants.  This module only computes policy: the rule
 * set per home anchor (docs/manifest.md, "CREDENTIAL SHIELDS"), the workspace rules per write grant
 * (docs/manifest.md, "CREDENTIAL SHIELDS"), the grant checks and the read opt-in (docs/manifest.md,
 * "GRANTS A RUN REFUSES" and "CREDENTIAL SHIELDS"), and which rules need a mount and of what kind
 * (docs/manifest.md, "CREDENTIAL SHIELDS").  Turning those decisions into OCI mounts is the
 * compiler's job.
 *
 * Everything that reads the host's identity comes in through struct
 * shield_env, so tests can point the module at fake homes and a fake passwd
 * file.  Paths handed in are absolute; rules carry two spellings: `literal`
 * (built from the anchor, cleaned, not symlink-resolved: what a manifest
 * would name, and what opt-in compares against) and `path` (symlink-resolved:
 * what gets mounted and what containment checks use).
 */
#ifndef BENTO_SHIELDS_H
#define BENTO_SHIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* Walk bound for credential-link expansion and the .git/modules walk. */
#define SHIELD_WALK_DEPTH_MAX 64

enum shield_deny {
        SHIELD_DENY_ALL,   /* hidden: no read, write or create */
        SHIELD_DENY_WRITE, /* readable, not writable or creatable */
        SHIELD_DENY_MAX,
};

enum shield_holds {
        SHIELD_HOLDS_NONE, /* DenyWrite rules */
        SHIELD_HOLDS_CREDENTIALS,
        SHIELD_HOLDS_PRIVATE_DATA,
        SHIELD_HOLDS_HISTORY,
        SHIELD_HOLDS_PERSISTENCE,
        SHIELD_HOLDS_SERVICES,
        SHIELD_HOLDS_UNKNOWN,
        SHIELD_HOLDS_MAX,
};

/* Where a rule came from; opt-in (docs/manifest.md, "CREDENTIAL SHIELDS") applies to every built-in
 * origin, the workspace checks (docs/manifest.md, "CREDENTIAL SHIELDS") only to
 * SHIELD_ORIGIN_WORKSPACE. */
enum shield_origin {
        SHIELD_ORIGIN_HOME,
        SHIELD_ORIGIN_RELOCATION,
        SHIELD_ORIGIN_RUNTIME,
        SHIELD_ORIGIN_LINK,
        SHIELD_ORIGIN_WORKSPACE,
        SHIELD_ORIGIN_MAX,
};

/* The longest path a home rule may have: its row holds it whole. */
#define SHIELD_HOME_REL_MAX 43

/* One row of the docs/manifest.md, "CREDENTIAL SHIELDS" table (rules.c).
 * The path is in the row, not pointed to: in a position-independent
 * program 544 pointers are 544 relocations, and the start of every run
 * copied the four pages they sat on (a page fault each, the dearest
 * kind); rows without pointers stay in read-only, shared pages. */
struct shield_home_rule {
        char rel[SHIELD_HOME_REL_MAX + 1]; /* relative to the anchor */
        enum shield_deny deny : 8;
        bool dir;
        enum shield_holds holds : 8;
};

extern const struct shield_home_rule shield_home_rules[];
extern const size_t shield_home_rules_n;

/* The pointers first and the small fields packed after them: a set holds
 * a thousand rules per home anchor, and every page of them is a fault. */
struct shield_rule {
        char *path; /* absolute, cleaned, symlink-resolved */
        /* absolute, cleaned, as built (before symlink resolution); the same
         * string as path when the two are equal (shield_set_free() knows) */
        char *literal;
        const char *source; /* static: the relocating variable, NULL for defaults */
        char *grant;        /* workspace rules: the resolved write grant; NULL otherwise */
        /* a byte each: the set holds a thousand rules per home anchor */
        enum shield_deny deny : 8;
        enum shield_holds holds : 8;
        enum shield_origin origin : 8;
        bool dir;
        /* A missing file the sandbox must see as "." rather than empty:
         * git's commondir, where "." keeps the gitdir its own common dir
         * (an empty commondir makes git stop with an error). */
        bool reads_as_dot;
};
_Static_assert(SHIELD_DENY_MAX <= 128 && SHIELD_HOLDS_MAX <= 128 && SHIELD_ORIGIN_MAX <= 128,
               "a rule's deny, holds and origin are 8-bit fields");

/* An environment value that would have moved a shield somewhere it cannot
 * be mounted (docs/manifest.md, "CREDENTIAL SHIELDS"): dropped from the rules, but never silently.
 */
struct shield_unshieldable {
        const char *variable; /* static */
        char *value;          /* the offending path as the variable gave it */
};

/* The host identity, injectable.  getenv == NULL means the process
 * environment (getenv(3)); home is read through getenv("HOME") as well
 * when home_set is false. */
struct shield_env {
        const char *home; /* $HOME, NULL when unset */
        bool home_set;    /* use `home` instead of looking HOME up */
        uid_t uid;
        const char *passwd_path; /* NULL: /etc/passwd */
        const char *(*getenv)(const char *name, void *userdata);
        void *userdata;
};

struct shield_set {
        char **anchors;          /* cleaned: $HOME, then the passwd home */
        char **resolved_anchors; /* the same, symlink-resolved */
        size_t n_anchors;
        char *runtime_dir; /* cleaned absolute XDG_RUNTIME_DIR, or NULL */
        struct shield_rule *rules;
        size_t n_rules, cap_rules;
        /* resolve.c's lookup of equal rules: 1 + rule index per
         * slot (0 empty) over the first n_hashed rules; four bytes a slot,
         * as every page of the table is a page fault. */
        uint32_t *hashed;
        size_t cap_hashed, n_hashed;
        struct shield_unshieldable *unshieldable;
        size_t n_unshieldable, cap_unshieldable;
        /* workspace rules a symlinked component moved (literal != path): almost always
         * none, and then no grant needs the redirect check's pass over every rule */
        size_t n_redirected_workspace;
};

/* docs/manifest.md, "CREDENTIAL SHIELDS": the passwd home of uid, parsed from the passwd file
 * directly (never through NSS, docs/cli/bento-version.md).  *ret is a heap string, or NULL when the
 * file or the entry is missing (not an error: the caller decides). */
int shields_passwd_home(const char *passwd_path, uid_t uid, char **ret, struct bento_err *err);

/* docs/manifest.md, "CREDENTIAL SHIELDS": the anchors, cleaned and deduplicated, as a
 * NULL-terminated strv. Fails with ENOENT "no usable home directory ..." when there is none. */
int shields_find_anchors(const struct shield_env *env, char ***ret, struct bento_err *err);

/* Build every home, runtime and relocation rule and the credential-link
 * expansion for env.  *ret is freed with shield_set_free(). */
int shields_build(const struct shield_env *env, struct shield_set **ret, struct bento_err *err);

/* docs/manifest.md, "CREDENTIAL SHIELDS": add the workspace rules for write grants (resolved,
 * absolute). */
int shields_add_workspace(struct shield_set *s, const char *const *writes, size_t n_writes,
                          struct bento_err *err);

struct shield_set *shield_set_free(struct shield_set *s);

/* A deep copy of s that answers every question s does and can be extended and freed on its
 * own (shield_set_free()); NULL when out of memory.  For a caller that needs the same host's
 * set more than once: building it costs a path resolution per rule, copying it none. */
struct shield_set *shield_set_copy(const struct shield_set *s);

/* docs/manifest.md, "CREDENTIAL SHIELDS" shieldable(): false for "/", "/dev/null", an anchor or an
 * ancestor of one (against the resolved anchors). */
bool shields_shieldable(const struct shield_set *s, const char *path);

/* Does rule cover path (docs/manifest.md, "CREDENTIAL SHIELDS": equal, or strictly beneath a dir
 * rule, on component boundaries; path is cleaned first)? */
bool shield_rule_covers(const struct shield_rule *r, const char *path);

/* The strictest rule covering path, or NULL. */
const struct shield_rule *shields_covering(const struct shield_set *s, const char *path);

/* docs/manifest.md, "CREDENTIAL SHIELDS": *ret gets one bool per rule (s->n_rules), true when a
 * read grant (resolved as docs/manifest.md, "PATH RESOLUTION" says, not symlink-resolved)
 * string-equals a built-in DenyAll rule's literal path.  Caller frees. */
int shields_opt_ins(const struct shield_set *s, const char *const *reads, size_t n_reads,
                    bool **ret, struct bento_err *err);

/* The checks behind docs/manifest.md, "GRANTS A RUN REFUSES", numbered in
 * the order they run (the original bento numbers them the same way). */
enum shield_check {
        SHIELD_CHECK_WRITE_ROOT = 1,
        SHIELD_CHECK_READ_INSIDE,
        SHIELD_CHECK_WRITE_INSIDE_DENY_ALL,
        SHIELD_CHECK_CASE_FOLDED,
        SHIELD_CHECK_WORKSPACE_REDIRECT,
        SHIELD_CHECK_WRITE_DENY_WRITE,
        SHIELD_CHECK_WRITE_CONTAINS,
        SHIELD_CHECK_PROC_PID,
        SHIELD_CHECK_MANAGED_MOUNT,
        SHIELD_CHECK_LOOP,
        SHIELD_CHECK_WRITE_NOT_DIR,
        SHIELD_CHECK_EXPOSES_TARGET, /* 12: entrypoint or interpreter inside a shield */
        SHIELD_CHECK_CARVE,          /* a shield mount point that cannot be made */
        SHIELD_CHECK_JOURNAL,        /* a write grant holds the approval journal */
        SHIELD_CHECK_MAX,
};

struct shield_refusal {
        enum shield_check check;
        char *grant;   /* as the caller spelled it */
        char *message; /* the full refusal sentence */
};

/* A grant as docs/manifest.md, "PATH RESOLUTION" resolved it (absolute, `~` expanded, not
 * symlink-resolved) and as written in the manifest (for messages; NULL: use path). */
struct shield_grant {
        const char *path;
        const char *as_written;
};

/* The grants shields_check_grants() reviews.  opted is the
 * shields_opt_ins() answer for reads (NULL: computed there). */
struct shield_grants {
        const struct shield_grant *reads;
        size_t n_reads;
        const struct shield_grant *writes;
        size_t n_writes;
        const bool *opted;
};

/* Run docs/manifest.md, "GRANTS A RUN REFUSES" checks 1–11 over the grants in in.  Every refusal is
 * returned, ordered by check number then grant order, so *ret[0] is the one that refuses a run and
 * validate can print them all.  *ret is freed with shield_refusals_free(). */
int shields_check_grants(const struct shield_set *s, const struct shield_grants *in,
                         struct shield_refusal **ret, size_t *ret_n, struct bento_err *err);

void shield_refusals_free(struct shield_refusal *r, size_t n);

/* docs/manifest.md, "CREDENTIAL SHIELDS" mount kinds.  The compiler maps HIDDEN_DIR and DISCARDED
 * to an empty read-only / scratch tmpfs, the two *_FILE kinds to a bind of an empty read-only file,
 * and READ_ONLY to a read-only rebind of the path itself. */
enum shield_mount_kind {
        SHIELD_MOUNT_HIDDEN_DIR,     /* DenyAll dir: reported "hidden" */
        SHIELD_MOUNT_HIDDEN_FILE,    /* DenyAll file: reported "hidden" */
        SHIELD_MOUNT_READ_ONLY,      /* DenyWrite, exists: "read-only" */
        SHIELD_MOUNT_READ_ONLY_FILE, /* DenyWrite file, missing: "read-only" */
        SHIELD_MOUNT_DISCARDED,      /* DenyWrite dir, missing: "discarded" */
        SHIELD_MOUNT_MAX,
};

/* Where a shield is mounted: usually the rule's own path.  A missing
 * shield whose parent is missing too inside a write grant is mounted at the
 * topmost missing directory instead (kind HIDDEN_DIR or DISCARDED): the
 * runtime would otherwise have to create ordinary directories above the
 * mount point, which the sandbox could rename away with the mount inside
 * and replace with ones of its own (threat-model.md, "shield ancestors"). */
struct shield_mount {
        const struct shield_rule *rule; /* points into the set */
        enum shield_mount_kind kind;
        const char *path; /* the mount point; points into the same allocation */
        bool lifted;      /* path is an ancestor of rule->path */
};

/* What shields_needed() weighs the rules against.  exposed = every
 * resolved grant and system mount path; writes = the resolved write grants;
 * opted as for struct shield_grants (NULL: nothing opted in). */
struct shield_exposure {
        const char *const *exposed;
        size_t n_exposed;
        const char *const *writes;
        size_t n_writes;
        const bool *opted;
};

/* docs/manifest.md, "CREDENTIAL SHIELDS": the needed rules and their mount kinds, DenyWrite mounts
 * first and DenyAll mounts after.  *ret is one allocation, freed with free(); its rules point into
 * s. */
int shields_needed(const struct shield_set *s, const struct shield_exposure *x,
                   struct shield_mount **ret, size_t *ret_n, struct bento_err *err);

/* "credentials", "private-data", ...; "" for SHIELD_HOLDS_NONE. */
const char *shield_holds_to_string(enum shield_holds h);
/* "hidden", "read-only", "discarded". */
const char *shield_mount_kind_to_string(enum shield_mount_kind k);

static inline void cleanup_shield_set_fn(struct shield_set **s)
{
        shield_set_free(*s);
}
#define cleanup_shield_set __attribute__((cleanup(cleanup_shield_set_fn)))

#endif
