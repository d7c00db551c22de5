/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento profile, from what the observer saw to the manifest it writes
 * (docs/profile.md).  This is the API the session and `bento profile`
 * (translate/cli/cmd-profile.c) call; everything in it is pure logic over
 * the observer's report, the egress hook's report and the host's paths, so
 * it is unit-tested without a sandbox.  The order of use:
 *
 *   1. profile_interpreter_guess() on the script's first bytes (unless
 *      --interpreter was given); print profile_interpreter_line() and, when
 *      there are shebang arguments, profile_interpreter_args_line().
 *   2. After each sandboxed round: profile_observation_parse() on the text
 *      bento-observe wrote to fd 3, then profile_observation_add_egress()
 *      with the egress hook's report (translate/run/run.h).
 *   3. profile_propose(): the clamped proposal (a struct manifest with
 *      absolute paths), the withheld and flagged entries with their reasons,
 *      the warnings and whether the proposal is complete.
 *   4. profile_merge_check() before the first round (refuses an --out that
 *      names another entrypoint), then profile_merge() with the existing
 *      --out manifest, if any, and the paths the user declined.
 *   5. profile_finish(): provenance (generated-by, generated-at,
 *      blocked-hosts) and the relocatable spellings; then
 *      profile_write() (atomic, through translate/manifest/write.c).
 *   6. --json: profile_json_document() or profile_json_refusal().
 *
 * Every function follows the bento_err convention; every result struct is
 * released with its *_done() function, which accepts a zeroed struct.
 * Strings in results are heap-allocated and owned by the struct.
 */
#ifndef BENTO_PROFILE_H
#define BENTO_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "json.h"
#include "manifest/manifest.h"
#include "manifest/write.h"
#include "run/run.h"
#include "shields/shields.h"

/* ---- The observer's report (observation.c) ---------------------------- */

/* The report may be as large as any other input bento reads. */
#define PROFILE_REPORT_MAX (64u << 20)

enum profile_access_kind {
        PROFILE_ACCESS_READ,
        PROFILE_ACCESS_WRITE,
        PROFILE_ACCESS_PROBE,
        PROFILE_ACCESS_CHDIR,
};

enum profile_result {
        PROFILE_RESULT_OK,
        PROFILE_RESULT_ABSENT, /* ENOENT, or ENOTDIR for a probe */
        PROFILE_RESULT_ERROR,  /* any other errno */
        /* a read or probe of a system tree, reported without waiting for the result
         * (the proposal skips those paths whatever it was) */
        PROFILE_RESULT_UNWATCHED,
};

struct profile_access {
        enum profile_access_kind kind;
        enum profile_result result;
        char *path;     /* decoded, absolute as the box saw it, not cleaned */
        bool unix_sock; /* a `unix connect|bind` line named the same path */
};

struct profile_exec {
        enum profile_result result; /* ok: a new image replaced the process */
        char *path;
};

/* Accesses the decoder could not name, counted per (syscall, reason). */
struct profile_dropped {
        char *name;   /* syscall name or number */
        char *reason; /* one word: unreadable-path, x32-or-ia32, ... */
        unsigned long count;
};

/* A destination the target asked the egress proxy for. */
struct profile_dest {
        char *host, *port;
};

struct profile_observation {
        struct profile_access *accesses;
        size_t n_accesses;
        struct profile_exec *execs; /* every execve/execveat attempt */
        size_t n_execs;
        bool execed; /* some exec attempt replaced the image (exec: all) */
        struct profile_dropped *dropped;
        size_t n_dropped;
        unsigned long dropped_total;
        bool sigsys; /* a tracee died of SIGSYS: the observation is unusable */
        long sigsys_pid;
        bool finished;   /* the `end` line was read */
        bool end_signal; /* the root target was killed by end_code */
        int end_code;    /* exit status, or signal number */
        /* From the egress hook (profile_observation_add_egress). */
        struct profile_dest *connects; /* every recorded CONNECT, sorted */
        size_t n_connects;
        struct profile_dest *guard_blocked; /* refused by the upstream guard */
        size_t n_guard_blocked;
        struct profile_dest *untunneled; /* not made through the proxy */
        size_t n_untunneled;
        long dropped_connects; /* refusals the proxy could not name */
};

/* Parse the report (hostile: size-capped, strict percent-decoding, unknown
 * kinds refused; the error names line:column).  A report without an `end`
 * line parses, with finished false.  *ret is zeroed first. */
int profile_observation_parse(const char *data, size_t len, struct profile_observation *ret,
                              struct bento_err *err);

/* Add the egress hook's decisions: connects = denied + guard-blocked (the
 * targets the program named, whatever became of them), guard_blocked,
 * untunneled; dropped_connects = faults + connections refused at capacity. */
int profile_observation_add_egress(struct profile_observation *o, const struct run_egress *e,
                                   struct bento_err *err);

void profile_observation_done(struct profile_observation *o);

/* ---- Interpreter guessing (interpreter.c) ----------------------------- */

#define PROFILE_SHEBANG_MAX 256

enum profile_interp_source {
        PROFILE_INTERP_NONE,      /* no guess: the entrypoint runs as a binary */
        PROFILE_INTERP_SHEBANG,   /* from "#!" */
        PROFILE_INTERP_EXTENSION, /* from .py, .sh, .bash, .js, .rb */
};

struct profile_interp {
        enum profile_interp_source source;
        char *interpreter; /* NULL when source is NONE */
        char **args;       /* interpreter_args, NULL-terminated strv (never NULL on success) */
        size_t n_args;
        char *extension;   /* ".py" when source is EXTENSION */
        bool looks_script; /* began with "#!", even when nothing usable followed */
};

/* Guess from the script's first bytes (only the first PROFILE_SHEBANG_MAX
 * are looked at) and its name. */
int profile_interpreter_guess(const char *head, size_t len, const char *script,
                              struct profile_interp *ret, struct bento_err *err);

/* Read the first bytes of script (a regular file, opened without blocking
 * on a FIFO) and guess.  Fails with the open/read error. */
int profile_interpreter_guess_file(const char *script, struct profile_interp *ret,
                                   struct bento_err *err);

/* `[bento] interpreter "<i>", from <the script's shebang|the .py extension>;
 * --interpreter overrides it` and `[bento] the shebang passes "<args>" to
 * <i>; the manifest records it as interpreter_args`.  Heap strings without
 * a newline; NULL when there is nothing to say (or out of memory). */
char *profile_interpreter_line(const struct profile_interp *g);
char *profile_interpreter_args_line(const struct profile_interp *g);

void profile_interp_done(struct profile_interp *g);

/* ---- The proposal (proposal*.c) ----------------------------------------- */

enum profile_item_kind {
        PROFILE_ITEM_READ,
        PROFILE_ITEM_WRITE,
        PROFILE_ITEM_NETWORK,
};

enum profile_reason {
        /* withheld */
        PROFILE_WITHHELD_SYSTEM_TREE,
        PROFILE_WITHHELD_SANDBOX_SCRATCH,
        PROFILE_WITHHELD_UNIX_SOCKET,
        PROFILE_WITHHELD_UNREPRESENTABLE,
        PROFILE_WITHHELD_NOT_TUNNELED,
        PROFILE_WITHHELD_READ_SHIELDED,
        PROFILE_WITHHELD_WRITE_SHIELDED,
        PROFILE_WITHHELD_TOO_BROAD,
        PROFILE_WITHHELD_RUN_REFUSED,
        /* flagged (kept in the proposal) */
        PROFILE_FLAG_ABOVE_WRITE_SHIELD,
        PROFILE_FLAG_FOREIGN_HOME_SHIELD,
        PROFILE_FLAG_TARGET_STEERABLE_TMP,
        PROFILE_FLAG_WHOLE_WORKDIR,
        _PROFILE_REASON_MAX,
};

struct profile_item {
        enum profile_item_kind kind;
        char *path;        /* read/write: absolute, cleaned; NULL for network */
        char *host, *port; /* network; NULL otherwise */
        enum profile_reason reason;
        enum shield_holds holds; /* read-shielded: what the shield holds */
        bool absent;             /* every observed open said ENOENT */
        char *detail;            /* run-refused: run's sentence; else NULL */
};

/* What the proposal is computed against. */
struct profile_context {
        const char *entrypoint;  /* absolute script path */
        const char *interpreter; /* as it will be written; NULL or "" for none */
        char *const *interpreter_args;
        size_t n_interpreter_args;
        const char *interpreter_resolved; /* absolute path of the interpreter, or NULL */
        char *const *env_names;           /* the discovery names set on this host */
        size_t n_env_names;
        const struct shield_env *shield_env; /* NULL: the process's (HOME, uid, passwd) */
        const char *path_env;                /* PATH for run's checks; NULL: process's */
        /* The shield set already built for shield_env (borrowed, never changed: the proposal
         * extends a copy); NULL: built when needed. */
        const struct shield_set *shields;
};

struct profile_proposal {
        struct manifest *m; /* absolute paths; no provenance yet */
        struct profile_item *withheld;
        size_t n_withheld;
        struct profile_item *flagged;
        size_t n_flagged;
        char **warnings; /* "[bento] WARNING: ..." lines, strv */
        size_t n_warnings;
        bool complete;
        const char *incomplete_reason; /* static, NULL when complete */
};

/* docs/profile.md, "From observation to proposal": reads, writes (parent
 * directories), network, exec and env from o, after the exclusions, floors
 * and clamps. */
int profile_propose(const struct profile_observation *o, const struct profile_context *c,
                    struct profile_proposal *ret, struct bento_err *err);

/* "system-tree", "read-shielded", "whole-workdir", ... */
const char *profile_reason_to_string(enum profile_reason r);
/* "read", "write", "network" */
const char *profile_item_kind_to_string(enum profile_item_kind k);
/* Whether r is a flag (the grant stays) rather than a withholding. */
bool profile_reason_is_flag(enum profile_reason r);

/* The `[bento] not proposing ...` / `[bento] proposing ...` line for an item
 * (heap string, no newline; NULL when out of memory). */
char *profile_item_line(const struct profile_item *it);

void profile_proposal_done(struct profile_proposal *p);

/* ---- Merge and relocatable spellings (merge.c) ----------------------- */

/* Fails with EEXIST and `refusing to merge into <out>: it is a manifest for
 * <A>, not <B> ...` when the existing manifest's entrypoint, resolved
 * against out's directory and home, is not entrypoint (absolute).
 * home may be NULL (then `~` entrypoints cannot match). */
int profile_merge_check(const struct manifest *existing, const char *out, const char *entrypoint,
                        const char *home, struct bento_err *err);

/* What the merge kept and changed, for the `kept from the existing
 * manifest` lines and the --json "merged" object. */
struct profile_merge_info {
        char **kept_read, **kept_write, **kept_env, **kept_network; /* strv; network "host:port" */
        size_t n_kept_read, n_kept_write, n_kept_env, n_kept_network;
        bool exec_widened;    /* the existing file said none, the result says all */
        bool approval_voided; /* the existing file carried an approval */
        bool interpreter_changed;
        char *interpreter_was; /* set when interpreter_changed */
        char **interpreter_args_was;
        size_t n_interpreter_args_was;
        bool interpreter_args_changed;
};

/* What the user answered no to in the converge loop: removed from the
 * merged result even when the existing file granted it. */
struct profile_declined {
        char *const *reads; /* absolute */
        size_t n_reads;
        char *const *writes;
        size_t n_writes;
        bool exec; /* a declined exec demotes a merged `exec: all` to none */
};

/* Merge existing (loaded from out; call profile_merge_check first) into the
 * proposal's manifest m (absolute paths) in place. */
int profile_merge(struct manifest *m, const struct manifest *existing, const char *out,
                  const char *home, const struct profile_declined *declined,
                  struct profile_merge_info *ret, struct bento_err *err);

/* The `[bento]   kept from the existing manifest, not shown by this run:
 * <kind> "<p>"` lines and the interpreter-change line, strv. */
int profile_merge_lines(const struct profile_merge_info *info, char ***ret, size_t *ret_n);

void profile_merge_info_done(struct profile_merge_info *info);

/* Provenance (generated-by, generated-at = now in UTC, blocked-hosts =
 * guard_blocked entries a rule of m allows; approves dropped) and the
 * relocatable spellings against out's directory and home (absolute, not
 * "/"; NULL for none), each path kept absolute when its relative form
 * would not validate.  now == 0 means time(NULL). */
int profile_finish(struct manifest *m, const struct profile_dest *guard_blocked, size_t n_blocked,
                   const char *out, const char *home, int64_t now, struct bento_err *err);

/* The relocatable spelling of one absolute path: "./rel" or "." under
 * dir, "~/rel" or "~" under home, else the path.  Heap string. */
char *profile_relocatable(const char *path, const char *dir, const char *home);

/* Write m to out atomically (manifest_write_file); ret_warning gets the
 * group/world-writable note when the mode was clamped (heap, else NULL). */
int profile_write(const char *out, const struct manifest *m, char **ret_warning,
                  struct bento_err *err);

/* ---- --json (json.c) --------------------------------------------------- */

/* The document on stdout: manifest, complete, incomplete_reason, policy
 * (as written), withheld, flagged, blocked_hosts, merged (when merge is
 * non-NULL). */
int profile_json_document(FILE *f, const char *out, const struct profile_proposal *p,
                          const struct manifest *written, const struct profile_merge_info *merge,
                          struct bento_err *err);

/* {"refused":true,"reason":..., "report":{...}}; report NULL writes {}. */
int profile_json_refusal(FILE *f, const char *reason, const struct bento_json *report,
                         struct bento_err *err);

/* ---- Internal helpers shared by the files of this folder -------------- */

/* Percent-decode strictly: only %XX with upper-case hex; a raw byte that
 * the encoder would have escaped is refused.  Returns 0 or -EINVAL with
 * *ret_col set to the offending byte's offset. */
int profile_percent_decode(const char *s, size_t len, char **ret, size_t *ret_bad);

/* The system trees and files the proposal never grants (the /etc/ld.so
 * prefix aside), NULL-terminated: what the observer need not wait for. */
const char *const *profile_system_trees(void);

/* For each of paths[0..n) (absolute), whether a grant of it would reach shielded
 * paths in a home that is not one of this user's anchors (the foreign-home-shield
 * flag): ret[i].  For resumed grants, which are always asked about. */
int profile_foreign_shield_check(const struct profile_context *c, char *const *paths, size_t n,
                                 bool *ret, struct bento_err *err);

#endif
