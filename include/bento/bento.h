/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libbento-embed: run a bento manifest from a C program (docs/embedding.md).
 *
 * The library drives the installed `bento` program over its subprocess
 * contract (`bento validate --json`, `bento run --json --network-gate`), so
 * a run through the library is enforced by exactly the code a run from the
 * command line is.  Link with `pkg-config --cflags --libs bento`.
 *
 * Every function returns 0 on success or a negative errno value; none
 * prints.  Strings handed to callbacks live only for the call.  The
 * library starts a thread per run (the network gate) and child processes;
 * it does not touch signal dispositions.
 */
#ifndef BENTO_BENTO_H
#define BENTO_BENTO_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENTO_EMBED_VERSION_MAJOR 0
#define BENTO_EMBED_VERSION_MINOR 1

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *bento_embed_version(void);

/* ---- validation -------------------------------------------------------- */

/* One problem with a manifest, at its place (line and column from 1; 0
 * when the problem has no place, such as a file that cannot be read). */
struct bento_problem {
        char *file;
        unsigned line, column;
        char *message;
};

struct bento_validation {
        bool loaded;   /* the manifest parsed and every field is valid */
        bool approved; /* its approval stamp is current on this host */
        bool runnable; /* bento would run it here (loaded, resolvable, approved or not) */
        struct bento_problem *problems; /* when !loaded: every problem found */
        size_t n_problems;
        char *approval; /* "current", "stale", "unapproved"; NULL when !loaded */
        char *json;     /* `bento validate --json`'s whole document; NULL when !loaded */
};

/* Load and check the manifest at path, and its approval.  A manifest
 * with problems is not an error: *ret says loaded = false and lists them.
 * Free with bento_validation_free(). */
int bento_validate(const char *path, struct bento_validation **ret);
void bento_validation_free(struct bento_validation *v);

/* ---- running ------------------------------------------------------------ */

enum bento_posture {
        BENTO_POSTURE_DEFAULT,        /* core layers required, hardening reported */
        BENTO_POSTURE_STRICT,         /* every layer required (bento run --strict) */
        BENTO_POSTURE_ALLOW_DEGRADED, /* bento run --allow-degraded */
};

enum bento_event_kind {
        BENTO_EVENT_STDOUT,  /* data/len: a chunk of the target's stdout */
        BENTO_EVENT_STDERR,  /* ... of its stderr */
        BENTO_EVENT_DENIAL,  /* what/host/port: a refused destination, after the run */
        BENTO_EVENT_VERDICT, /* the run completed: exit_code, json */
        BENTO_EVENT_REFUSAL, /* bento declined, the target never ran: reason, json */
        BENTO_EVENT_FAILED,  /* the run began and could not be finished: reason, json */
};

struct bento_event {
        enum bento_event_kind kind;
        const char *data; /* STDOUT, STDERR (not NUL-terminated) */
        size_t len;
        /* DENIAL: "egress_denied" (no rule), "gate_denied" (the gate said no,
         * or nothing), "guard_blocked" (resolved to space the sandbox must
         * not reach) or "untunneled" (plain http) */
        const char *what;
        const char *host, *port;
        int exit_code;      /* VERDICT, REFUSAL, FAILED: bento's exit status */
        const char *reason; /* REFUSAL, FAILED */
        const char *json;   /* VERDICT, REFUSAL, FAILED: the event as bento wrote it */
};

/* Consulted while the target runs, from the library's gate thread, for
 * each connection to a host:port no network rule allows (and that the
 * proxy does not refuse on its own).  Return true to admit it.  Not
 * answering within the timeout, like returning false, refuses. */
typedef bool (*bento_gate_fn)(const char *host, const char *port, void *userdata);

/* Every event of the run, in order, from the calling thread. */
typedef void (*bento_observer_fn)(const struct bento_event *ev, void *userdata);

struct bento_run_options {
        /* Where the target's stdout and stderr go besides the observer; -1:
         * nowhere.  The target's stdin is always empty. */
        int stdout_fd, stderr_fd;
        /* NAME=VALUE pairs for the target, each NAME in the manifest's env:
         * list (bento run --env). */
        const char *const *env;
        size_t n_env;
        enum bento_posture posture;
        bool allow_unapproved;
        bento_gate_fn gate; /* NULL: no gate, only the rules */
        void *gate_userdata;
        int gate_timeout;           /* seconds per question, 1-600; 0: bento's default (10) */
        bento_observer_fn observer; /* may be NULL */
        void *observer_userdata;
        /* The bento program; NULL: $BENTO, else "bento" on $PATH. */
        const char *bento;
};

/* Defaults: no output fds, default posture, no gate, no observer. */
void bento_run_options_init(struct bento_run_options *o);

struct bento_result {
        enum bento_event_kind kind; /* VERDICT, REFUSAL or FAILED */
        int exit_code;              /* bento's exit status: the target's, 124, or 125 */
        char *reason;               /* REFUSAL, FAILED: why; else NULL */
        char *json;                 /* the final event as bento wrote it */
};

/* Run the manifest at path.  Returns 0 when bento reported an outcome
 * (any of the three; look at ret->kind), negative errno when bento could
 * not be started or said nothing readable.  Free with bento_result_done(). */
int bento_run(const char *path, const struct bento_run_options *o, struct bento_result *ret);
void bento_result_done(struct bento_result *r);

#ifdef __cplusplus
}
#endif

#endif
