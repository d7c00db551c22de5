/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bento manifest (docs/manifest.md): the reviewed policy, as written.
 *
 * manifest_parse() treats the input as hostile (docs/manifest.md, "SYNTAX RULES"): size cap, UTF-8
 * only, no tags, anchors, aliases or merge keys, bounded nesting, one document, unknown keys
 * rejected at every level; then the character screen (docs/manifest.md, "SYNTAX RULES") and the
 * validation rules (docs/manifest.md, "SYNTAX RULES").  Strings are heap-allocated and never NULL
 * (empty string when absent); lists are (pointer, count). Paths are kept exactly as written:
 * resolution (docs/manifest.md, "PATH RESOLUTION") is a separate step (manifest_resolve) so the
 * fingerprint (docs/manifest.md, "APPROVAL") covers the literal spelling.
 */
#ifndef BENTO_MANIFEST_H
#define BENTO_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define MANIFEST_MAX_BYTES (1u << 20) /* 1 MiB; unsigned, printed with %u */
#define MANIFEST_MAX_DEPTH 32

enum manifest_exec {
        MANIFEST_EXEC_NONE, /* absent or "" decodes as none */
        MANIFEST_EXEC_NONE_STRICT,
        MANIFEST_EXEC_ALL,
};

struct manifest_net_rule {
        char *host; /* as written */
        char *port; /* as written; an integer scalar becomes its decimal string */
};

struct manifest_limits {
        char *memory;            /* as written, "" when absent */
        char *cpu;               /* as written ("50%"), "" when absent */
        int64_t pids;            /* 0 when absent */
        bool has_pids;           /* the key was present (an explicit 0 is an error) */
        uint64_t memory_bytes;   /* parsed; 0 when absent */
        uint64_t cpu_hundredths; /* parsed percent x 100 ("12.5%" -> 1250); 0 when absent */
        char *tmp;               /* the size of the box's /tmp, as written; "" when absent */
        uint64_t tmp_bytes;      /* parsed; 0 when absent (the default cap applies) */
};

struct manifest_provenance {
        char *generated_by; /* "" when absent */
        char *generated_at;
        char *approves; /* 64 lowercase hex, or "" */
        char **blocked_hosts;
        size_t n_blocked_hosts;
};

/* Where a key or value was in the file, for messages ("app.yaml:12:5"). */
struct manifest_place {
        unsigned line; /* 1-based; 0 when unknown */
        unsigned col;  /* 1-based */
};

/* Where each value was (docs/manifest.md, "SYNTAX RULES" errors and docs/manifest.md, "SYNTAX
 * RULES" problems name it).  Filled by the loader; a manifest built in code leaves it zeroed (line
 * 0 = unknown, NULL arrays), which every consumer accepts.  Array members have one entry per list
 * element. */
struct manifest_places {
        struct manifest_place top; /* the top-level mapping */
        struct manifest_place entrypoint, interpreter, exec;
        struct manifest_place *interpreter_args;
        struct manifest_place *args;
        struct manifest_place *env;
        struct manifest_place *network_host; /* n_network entries: the host value, */
        struct manifest_place *network_port; /* the port value (the rule when absent) */
        struct manifest_place memory, cpu, pids, tmp;
        struct manifest_place generated_by, generated_at, approves;
        struct manifest_place *blocked_hosts;
};

struct manifest {
        char *path; /* the file as given on the command line ("" for in-memory input) */
        char *entrypoint;
        char *interpreter;
        char **interpreter_args;
        size_t n_interpreter_args;
        char **args;
        size_t n_args;
        char **env;
        size_t n_env;
        char **read;
        size_t n_read;
        struct manifest_place *read_places; /* n_read entries */
        char **write;
        size_t n_write;
        struct manifest_place *write_places;
        struct manifest_net_rule *network;
        size_t n_network;
        enum manifest_exec exec;
        struct manifest_limits limits;
        struct manifest_provenance provenance;
        /* exec as written ("" when absent), so that validation can name a
         * bad mode; NULL in a manifest built in code (then exec rules). */
        char *exec_as_written;
        struct manifest_places places;
};

/* A list of problems, each already rendered ("app.yaml:12:5: policy: ...").
 * One problem is reported as is; several as "the manifest has N problems:"
 * followed by indented lines (docs/manifest.md, "SYNTAX RULES"). */
struct manifest_problems {
        char **items;
        size_t n;
};

/* Parse and validate.  On success (0) *ret owns a manifest.  On a manifest
 * error returns -EINVAL with every problem in *problems (the caller frees
 * it with manifest_problems_done) and err set to the rendered summary.
 * name is used in messages (usually the path as given). */
int manifest_parse(const char *data, size_t len, const char *name, struct manifest **ret,
                   struct manifest_problems *problems, struct bento_err *err);

/* The docs/manifest.md, "SYNTAX RULES" checks alone, for a manifest built in code (the canonical
 * writer validates before it writes).  Same return and problems convention
 * as manifest_parse; NULL strings count as empty. */
int manifest_validate(const struct manifest *m, const char *name,
                      struct manifest_problems *problems, struct bento_err *err);

/* The problems as the CLI prints them: one problem as is, several as
 * "the manifest has N problems:" and one indented line each, no trailing
 * newline.  Returns a heap string, or NULL when out of memory. */
char *manifest_problems_render(const struct manifest_problems *p);

/* Read (size-capped, regular files only) and parse a file. */
int manifest_load(const char *path, struct manifest **ret, struct manifest_problems *problems,
                  struct bento_err *err);

struct manifest *manifest_free(struct manifest *m);
void manifest_problems_done(struct manifest_problems *p);

/* "none", "none-strict", "all" */
const char *manifest_exec_to_string(enum manifest_exec e);

/* Network rule matching of docs/manifest.md, "NETWORK RULES" (host/port already screened by the
 * proxy). */
bool manifest_network_allows(const struct manifest *m, const char *host, const char *port);

static inline void cleanup_manifest_fn(struct manifest **m)
{
        manifest_free(*m);
}
#define cleanup_manifest __attribute__((cleanup(cleanup_manifest_fn)))

/* Why a manifest could not be loaded, as bento words it (without the
 * "bento: " prefix): the rendered problems, or a pointer to what a script
 * handed over by mistake probably meant.  Heap string, NULL on ENOMEM. */
char *manifest_load_error(const char *path, const struct manifest_problems *p,
                          const struct bento_err *err);

#endif
