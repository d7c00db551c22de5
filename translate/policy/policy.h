/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy as it lands on this host: the manifest's paths resolved
 * (docs/manifest.md, "PATH RESOLUTION", then symlinks), the credential
 * shields anchored here (docs/manifest.md, "CREDENTIAL SHIELDS"), and every refusal a run would
 * make before anything is launched (docs/manifest.md, "GRANTS A RUN REFUSES", and a shield mount
 * point that cannot be made, "CREDENTIAL SHIELDS"). validate prints it, translate and run compile
 * it; none of them computes any of it a second way.
 *
 * Resolution never fingerprints anything: the fingerprint covers the
 * manifest as written (docs/approve.md, "How the fingerprint is computed").  Nothing here creates
 * or changes a host path; policy_prepare_writes() is the one step that does, and only once every
 * refusal has been checked.
 */
#ifndef BENTO_POLICY_H
#define BENTO_POLICY_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

#include "err.h"
#include "manifest/manifest.h"
#include "manifest/path.h"
#include "shields/shields.h"

/* One manifest path in each of its spellings. */
struct policy_path {
        const char *written; /* as in the manifest (borrowed) */
        char *expanded;      /* `~` expanded, relative joined to the base */
        char *real;          /* expanded, symlinks resolved as far as it exists */
        bool exists;         /* real names something (stat succeeded) */
        bool is_dir;
        int stat_errno; /* why stat failed, 0 when it did not */
        dev_t dev;      /* what real named when it was resolved and checked: */
        ino_t ino;      /* the bundle records it, the runtime verifies it */
};

/* The host facts resolution depends on; NULL members mean the process's
 * own (environment, PATH, passwd).  Tests point them elsewhere. */
struct policy_host {
        const struct shield_env *shield_env; /* NULL: HOME, getuid(), /etc/passwd */
        const char *path_env;                /* NULL: getenv("PATH") */
        /* This host's shield set, already built for shield_env (shields_build()): the policy
         * takes a copy instead of building its own.  NULL: built here. */
        const struct shield_set *shields;
};

struct policy {
        const struct manifest *m; /* borrowed; must outlive the policy */
        struct policy_host host;  /* as given to policy_resolve() (borrowed members) */
        bool host_given;
        char *base; /* absolute directory of the manifest */
        char *home; /* $HOME as used for `~`, NULL when unset */
        struct policy_path entrypoint;
        struct policy_path interpreter; /* written == "" when there is none */
        struct policy_path *reads;
        size_t n_reads;
        struct policy_path *writes;
        size_t n_writes;
        /* the writes' resolved paths ("" for one that did not resolve), indexed, so
         * policy_holding_write costs a lookup per ancestor of the path instead of a
         * pass over every grant (10,000 write grants made compile quadratic) */
        const char **write_keys;
        struct path_index write_index;

        /* Why the entrypoint or interpreter cannot start on this host
         * (`entrypoint "<p>": <err>`, `interpreter "<i>" not found: <err>`). */
        char **problems;
        size_t n_problems;

        /* The shields of this host plus the workspace rules of the write
         * grants; NULL when no home anchors (then shields_error says why,
         * and every run is refused). */
        struct shield_set *shields;
        char *shields_error;
        bool *opted; /* per shield rule: opted in by an exact read grant */

        /* What the sandbox shows besides the grants (docs/manifest.md, "WHAT THE PROGRAM SEES"):
         * the existing system paths and the interpreter's read path, sorted. */
        char **system_paths;
        size_t n_system_paths;

        /* The shields that need a mount (docs/manifest.md, "CREDENTIAL SHIELDS"), in mount order.
         */
        struct shield_mount *shield_mounts;
        size_t n_shield_mounts;

        /* Every refusal, in the order run checks them; the first refuses. */
        struct shield_refusal *refusals;
        size_t n_refusals;
};

/* docs/manifest.md, "WHAT THE PROGRAM SEES": the system paths every sandbox gets read-only, each
 * one that exists on the host (NULL-terminated).  inspect recognises them. */
extern const char *const policy_system_candidates[];

/* Resolve m on this host.  Fails only for what makes resolution itself
 * impossible (`~user`, HOME unset or not absolute when `~` is used, a path
 * still naming `~`, out of memory); everything a run would refuse is
 * collected in the policy instead. */
int policy_resolve(const struct manifest *m, const struct policy_host *host, struct policy **ret,
                   struct bento_err *err);

struct policy *policy_free(struct policy *p);

/* docs/manifest.md, "PATH RESOLUTION" alone for one path, for display: *ret gets the expanded
 * spelling. */
int policy_expand(const char *path, const char *base, const char *home, char **ret,
                  struct bento_err *err);

/* The first refusal as run words it, or NULL when the run may proceed
 * (problems and a missing shield anchor count as refusals too).  Heap
 * string; the caller frees it. */
char *policy_refusal(const struct policy *p);

/* The innermost write grant (resolved) that path lies strictly beneath,
 * or NULL. */
const char *policy_holding_write(const struct policy *p, const char *path);

/* docs/manifest.md, "WHAT THE PROGRAM SEES": create the missing write directories (mkdir -p, 0700).
 * Call only after policy_refusal() returned NULL.  The shields of a write
 * grant depend on what is in it, so when a directory was created the
 * policy is resolved again (*p replaced) and checked again; a refusal then
 * fails with EPERM and its sentence.  1 when *p was replaced, 0 when every
 * write directory existed (*p unchanged). */
int policy_prepare_writes(struct policy **p, struct bento_err *err);

static inline void cleanup_policy_fn(struct policy **p)
{
        policy_free(*p);
}
#define cleanup_policy __attribute__((cleanup(cleanup_policy_fn)))

#endif
