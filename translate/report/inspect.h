/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento inspect (docs/inspect.md): read any bundle's
 * config.json and state the policy it enforces in manifest terms (reads,
 * writes, shields, exec, network, limits, environment, identity), and flag
 * everything in it that no bento manifest could have produced: a
 * capability, a missing namespace, noNewPrivileges off, a writable system
 * path, a writable root, a device or a foreign mount type, a missing or
 * weakened seccomp filter, a hook bento does not write, and, for a bundle
 * that says bento wrote it (org.bento.* annotations), each credential
 * shield this host's shields would need but the mounts lack.
 *
 * config.json is hostile input: it is read under a size cap with the
 * bundle/json.h parser, and every member is type-checked before use (a
 * member of the wrong type is itself flagged, never trusted).  Nothing is
 * executed and nothing in the bundle is changed.
 */
#ifndef BENTO_INSPECT_H
#define BENTO_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "json.h"
#include "oci-config.h"

/* The runtime's own limit (oci-config.h): a bundle bento-runtime accepts
 * can be inspected. */
#define INSPECT_CONFIG_MAX OCI_CONFIG_MAX_BYTES

/* What a mount is, judged by its shape alone. */
enum inspect_role {
        INSPECT_FRESH,          /* /proc, /dev, /dev/pts, /dev/shm, /tmp mounted fresh */
        INSPECT_SYSTEM,         /* a read-only bind of a system path */
        INSPECT_READ,           /* a read-only bind: a read grant */
        INSPECT_WRITE,          /* a read-write bind: a write grant */
        INSPECT_TARGET,         /* the program re-bound read-only */
        INSPECT_SHIELD_HIDDEN,  /* an empty read-only tmpfs over a directory */
        INSPECT_SHIELD_FILE,    /* an empty read-only file bound over a file */
        INSPECT_SHIELD_RO,      /* a read-only rebind inside a write grant */
        INSPECT_SHIELD_SCRATCH, /* a writable tmpfs inside a write grant ("discarded") */
        INSPECT_SHIELD_PARENT,  /* a read-write rebind inside a write grant, above a shield */
        INSPECT_OTHER,          /* anything else (flagged) */
        INSPECT_ROLE_MAX,
};

struct inspect_mount {
        const char *destination; /* borrowed from the parsed document; never NULL */
        const char *type;        /* "" when absent */
        const char *source;      /* "" when absent */
        bool ro, rw, bind;       /* options */
        enum inspect_role role;
};

/* A read grant that lands exactly on a store the shields hide (docs/manifest.md, "CREDENTIAL
 * SHIELDS"). */
struct inspect_opened {
        const char *path;
        const char *holds;
};

struct inspect_report {
        char *dir; /* the bundle directory, absolute */
        struct bento_json *doc;
        const struct bento_json *process, *linux_, *annotations; /* NULL when absent */

        struct inspect_mount *mounts;
        size_t n_mounts;

        const char *exec;     /* "none", "none-strict", "all" */
        const char *exec_how; /* how the filter blocks it, for the report */
        const char *listener; /* linux.seccomp.listenerPath, or NULL */
        bool seccomp;         /* linux.seccomp present */
        bool netns;           /* a fresh network namespace */
        const char **egress;  /* host:port pairs given to bento-egress */
        size_t n_egress;
        size_t n_cleanup;    /* mount points translate's poststop hook removes */
        size_t n_identities; /* mounts whose host path the bundle pinned by identity */

        struct inspect_opened *opened;
        size_t n_opened;
        bool shields_checked; /* the missing-shield check ran */

        char **flags; /* NULL-terminated */
        size_t n_flags;
};

/* Read and judge <dir>/config.json.  Fails (-errno, err filled) only when
 * the file cannot be read or is not a JSON object; everything else is a
 * flag.  Free with inspect_report_done(). */
int inspect_bundle(const char *dir, struct inspect_report *ret, struct bento_err *err);

void inspect_report_done(struct inspect_report *r);

void inspect_print_human(FILE *f, const struct inspect_report *r);
int inspect_print_json(FILE *f, const struct inspect_report *r, struct bento_err *err);

/* Internal steps (inspect-*.c). */
int inspect_flag(struct inspect_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int inspect_read_mounts(struct inspect_report *r);
int inspect_check_process(struct inspect_report *r);
int inspect_check_linux(struct inspect_report *r);
int inspect_check_hooks(struct inspect_report *r);
int inspect_check_shields(struct inspect_report *r, struct bento_err *err);
int inspect_check_identities(struct inspect_report *r);

/* The string member key of obj, or NULL when absent or not a string. */
const char *inspect_str(const struct bento_json *obj, const char *key);

/* The annotation key, or NULL. */
const char *inspect_annotation(const struct inspect_report *r, const char *key);

const char *inspect_role_name(enum inspect_role role);

#endif
