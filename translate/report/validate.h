/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `bento validate` reports about a manifest on this host
 * (docs/validate.md), computed once and printed two ways (human text,
 * validate-human.c; one JSON document, validate-json.c).  Everything here
 * is derived from the loaded manifest, its approval status (approval/approval.h)
 * and the policy resolved on this host (policy/policy.h); nothing is computed a
 * second way, so validate predicts exactly what translate and run do.
 *
 * Notes never fail validation: missing read grants, file-shaped write
 * grants, unshieldable relocations.  Failures (--strict) are the approval
 * state, runnability problems, refused grants and an unanchorable host.
 */
#ifndef BENTO_VALIDATE_H
#define BENTO_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/alias-scan.h"
#include "approval/approval.h"
#include "err.h"
#include "manifest/manifest.h"
#include "policy/policy.h"

/* Where a refusal belongs in the report. */
enum validate_field {
        VALIDATE_FIELD_ENTRYPOINT,
        VALIDATE_FIELD_INTERPRETER,
        VALIDATE_FIELD_READ,
        VALIDATE_FIELD_WRITE,
        VALIDATE_FIELD_MAX,
};

struct validate_place {
        enum validate_field field;
        size_t index; /* into reads or writes; 0 otherwise */
};

/* A provenance.blocked-hosts entry a network rule covers (docs/manifest.md, "PROVENANCE"). */
struct validate_blocked {
        size_t rule;       /* index into m->network */
        const char *entry; /* as recorded (borrowed) */
        char *host, *port; /* split */
};

/* A path that pins the manifest to this host's layout (docs/manifest.md, "PATH RESOLUTION"
 * "relocatable"). */
struct validate_pin {
        const char *field; /* "entrypoint", "interpreter", "read grant", "write grant" */
        const char *path;  /* as written (borrowed) */
};

/* A pin as one phrase, `read grant "~/x"`: the words of --relocatable's
 * refusal and of validate --json's pinned_paths.  NULL when out of memory. */
char *validate_pin_text(const struct validate_pin *pin);

struct validate_report {
        const struct manifest *m;
        const struct policy *p;    /* NULL when the paths could not be resolved */
        const char *resolve_error; /* why p is NULL */
        struct approval_status approval;

        /* One place per p->refusals entry. */
        struct validate_place *refusal_places;
        /* Per read grant: the shield rule it opts in (docs/manifest.md, "CREDENTIAL SHIELDS"), or
         * NULL. */
        const struct shield_rule **read_opt_in;
        size_t n_opted;
        /* Per grant: a whole home or top-level directory. */
        bool *read_broad, *write_broad;

        struct validate_blocked *blocked;
        size_t n_blocked;
        const char **blocked_unreadable; /* entries that are not host:port */
        size_t n_blocked_unreadable;

        /* The callouts of docs/approve.md, "What approve does, in order" (review.h) that validate
         * does not already note beside a grant, sorted. */
        char **callouts;
        size_t n_callouts;

        struct validate_pin *pins;
        size_t n_pins;

        /* docs/validate.md, "The credential-alias scan" as a note: second names of shielded
         * credentials inside the grants (only when the shields are anchored). */
        struct alias_scan aliases;

        /* XDG_RUNTIME_DIR as set, when no shield can follow it; else NULL. */
        const char *runtime_dir_unshieldable;
};

/* Build the report.  p may be NULL (resolve_error says why).  The report
 * borrows m, p and approval's inputs; free it with validate_report_done().
 * Fails only when out of memory. */
int validate_report_build(const struct manifest *m, const struct policy *p,
                          const char *resolve_error, const struct approval_status *approval,
                          struct validate_report *ret, struct bento_err *err);

void validate_report_done(struct validate_report *r);

/* The human report on f (the layout of docs/validate.md, "The text report").  show_relocatable adds
 * the relocatable: line. */
void validate_print_human(FILE *f, const struct validate_report *r, bool show_relocatable);

/* The --json document, written to f.  Returns 0 or -errno with err
 * filled. */
int validate_print_json(FILE *f, const struct validate_report *r, bool show_relocatable,
                        struct bento_err *err);

/* Why a run on this host would be refused before the target starts:
 * runnability problems, refused grants and an unanchorable host, joined
 * with "; " (heap string), or NULL when nothing is refused.  *ret_oom is
 * set when the answer could not be built. */
char *validate_host_failures(const struct validate_report *r, bool *ret_oom);

/* The noun docs/cli/bento-run.md, "OUTPUT"/docs/manifest.md, "CREDENTIAL SHIELDS" use for what a
 * shield holds: "credential store", "private data store", "history store", "host-startup path",
 * "service socket path", "always-shielded path". */
const char *validate_holds_noun(int holds);

/* docs/cli/bento-run.md, "NOTES": a write grant that does not exist and whose last component has
 * an extension that is not the whole name ("out/log.txt", not ".cache"). */
bool validate_fileish(const struct policy_path *w);

/* Split a provenance.blocked-hosts entry, "host:port" as Go's
 * net.JoinHostPort writes it (IPv6 bracketed).  false when it is not one
 * (then nothing is allocated); *host and *port are heap strings. */
bool validate_split_host_port(const char *entry, char **host, char **port);

/* Is path (clean, absolute) "/", a top-level directory, a home anchor of
 * p or an ancestor of one? */
bool validate_broad_path(const struct policy *p, const char *path);

#endif
