/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento profile's session (docs/cli/bento-profile.md, docs/profile.md): the preflight
 * refusals, the discovery policy the target is watched under, one observed run in the full
 * sandbox (session-run.c), the single pass with its one retry or the interactive converge
 * loop (session-loop.c), and the manifest written at the end.  The verb
 * (cli/cmd-profile.c) only parses the flags into struct profile_opts.
 */
#ifndef BENTO_PROFILE_SESSION_H
#define BENTO_PROFILE_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest/manifest.h"
#include "run/run.h"

/* bento profile's exit status for a proposal that is not complete (docs/cli/bento-profile.md,
 * "EXIT STATUS"). */
#define PROFILE_EXIT_INCOMPLETE 4
/* The interactive loop's round cap. */
#define PROFILE_ROUND_CAP 25

struct profile_opts {
        const char *script;      /* as given */
        const char *interpreter; /* --interpreter, or NULL: guessed */
        const char *out;         /* --out, or NULL: <script as given>.manifest.yaml */
        bool allow_network, json;
        char *accept_alias[RUN_ENV_MAX]; /* --accept-alias trees, made absolute (owned) */
        size_t n_accept_alias;
        char **args; /* after "--": the script's arguments (argv's, not owned) */
        size_t n_args;
};

/* The environment names discovery passes through (their real values) and the proposal lists,
 * when set and non-empty on this host. */
extern const char *const profile_discovery_env[];

/* Whether a directory is too broad to grant whole: "/", a top-level directory, a home
 * container (/home, /var/home, /export/home, /Users) or a home anchor (home is $HOME, may be
 * NULL).  dir is absolute and clean. */
bool profile_dir_is_broad(const char *dir, const char *home);

/* What the discovery manifest is made of: the script (absolute, clean), the interpreter and
 * its shebang arguments as given, the script's arguments, --allow-network, and the grants
 * the converge loop accepted so far. */
struct profile_discovery {
        const char *script, *interpreter;
        char *const *interpreter_args;
        size_t n_interpreter_args;
        char *const *args;
        size_t n_args;
        bool allow_network;
        char *const *extra_read, *const *extra_write;
        size_t n_extra_read, n_extra_write;
};

/* The discovery manifest: the script as entrypoint, read and write [dirname] unless broad
 * (then nothing) plus the extra grants, exec all, the discovery env names, network *:* with
 * allow_network (else none: the proxy is there anyway and refuses every CONNECT, recording
 * it).  Validated as any manifest.  *ret is owned by the caller. */
int profile_discovery_manifest(const struct profile_discovery *d, struct manifest **ret,
                               struct bento_err *err);

/* What one observed run gave (session-run.c). */
struct profile_round {
        char *report; /* bento-observe's report, as read from the pipe (NUL-terminated) */
        size_t report_len;
        bool report_truncated; /* it grew past report_max; the rest was dropped */
        struct run_outcome out;
        struct run_egress egress; /* the proxy's decisions: every CONNECT tried */
        /* This host's shield set as the round built it, once: its policy took a copy, and the
         * proposal and run's refusals of the draft borrow it (profile_context.shields) instead
         * of building it twice more.  NULL when the host has no usable home (the policy said
         * why).  Freed by profile_round_done(). */
        struct shield_set *shields;
};

void profile_round_done(struct profile_round *r);

struct profile_run_opts {
        bool json;                 /* target stdout goes to stderr */
        bool interactive;          /* target stdin is none */
        char *const *accept_alias; /* --accept-alias trees */
        size_t n_accept_alias;
        size_t report_max; /* the most of the observer's report kept */
};

/* Run m (a discovery manifest, built in code) once in the full sandbox under bento-observe:
 * resolve, the credential-alias scan, the probe and the filesystem layer check, the bundle
 * (compile_profile), bento-runtime with the report pipe, the report read while the target
 * runs.  A refusal returns -EPERM with its reason in err (exit 125); a failure another
 * negative errno. */
int profile_run_round(const struct manifest *m, const struct profile_run_opts *o,
                      struct profile_round *ret, struct bento_err *err);

/* The whole of `bento profile` after its flags: takes ownership of o's --accept-alias
 * strings.  Returns the exit status. */
int profile_session(struct profile_opts *o);

#endif
