/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the proposal files of translate/profile/ share: the candidate grants
 * as they are narrowed down (proposal-paths.c collects and excludes,
 * proposal-clamps.c applies the shields, floors and run's refusals,
 * proposal.c puts the manifest and the warnings together).
 */
#ifndef BENTO_PROFILE_INTERNAL_H
#define BENTO_PROFILE_INTERNAL_H

#include "profile.h"
#include "shields/shields.h"

/* One path the target touched, with what is known about it. */
struct cand {
        char *path;     /* absolute, cleaned */
        bool opened;    /* a read/write access, not only probes or chdir */
        bool any_ok;    /* some access to it did not end in ENOENT */
        bool unix_sock; /* a socket path */
        bool dropped;   /* removed by a clamp or covered by a write */
};

struct cands {
        struct cand *v;
        size_t n;
};

/* The state of one profile_propose() call. */
struct proposer {
        const struct profile_observation *o;
        const struct profile_context *c;
        char *script_dir;   /* dirname(entrypoint), cleaned */
        char *runtime_root; /* the interpreter's install root, or NULL */
        struct shield_set *shields;
        struct cands reads;  /* files and directories read */
        struct cands writes; /* parent directories of what was written */
        struct profile_proposal *out;
};

/* Add an item to out's withheld or flagged list (by profile_reason_is_flag);
 * path is copied.  Returns 0 or -ENOMEM. */
int proposer_item(struct proposer *pr, enum profile_item_kind kind, const char *path,
                  enum profile_reason reason, enum shield_holds holds, bool absent,
                  const char *detail);

/* proposal-paths.c: reads and writes from the accesses after the
 * exclusions; unrepresentable paths and sockets withheld. */
int proposer_collect(struct proposer *pr, struct bento_err *err);

/* proposal-clamps.c: shields, floors and the broad clamp; reads under a
 * write dropped; the flags. */
int proposer_clamp(struct proposer *pr, struct bento_err *err);

/* proposal-clamps.c: grants run would refuse, withheld run-refused, with
 * pr->out->m already holding the grants. */
int proposer_run_refusals(struct proposer *pr, struct bento_err *err);

/* Is path "/", a top-level directory, a home container or a home anchor
 * (or an ancestor of one)? */
bool profile_broad(const struct shield_set *s, const char *path);

/* proposal-paths.c: one of the system trees or files every sandbox
 * shows, never proposed. */
bool profile_system_path(const char *p);

/* warnings.c: the WARNING lines and the completeness verdict. */
int profile_warnings(const struct profile_observation *o, const struct profile_context *c,
                     struct profile_proposal *p, struct bento_err *err);

/* A fresh manifest with every string "" (never NULL), as manifest.h wants. */
struct manifest *profile_manifest_new(void);

/* A copy of v[0..n) as a strv (NULL-terminated), or NULL. */
char **profile_strv_copy(char *const *v, size_t n);

/* merge.c: the absolute directory that holds the manifest file out
 * (relative to the working directory); NULL with errno set. */
char *profile_out_dir(const char *out);

/* "host:port", IPv6 hosts bracketed. */
char *profile_host_port(const char *host, const char *port);

#endif
