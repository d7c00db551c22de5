/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two JSON documents about a container:
 *
 *  - the runtime's persistent record (`<root>/<id>/state.json`): what was
 *    created and how to find it again (pid + start time, bundle, rootfs,
 *    cgroup) plus what was actually applied (namespaces and their inodes,
 *    id mappings, cgroup limits read back), for the later verbs.  It holds
 *    nothing that grows with the config's mount list, so a container with
 *    100,000 mounts has a record of a few KiB;
 *  - the OCI "container state" object handed to hooks on stdin and printed
 *    by `state` (ociVersion, id, status, pid, bundle, annotations).
 *
 * The record is parsed as hostile input (a state directory may have been
 * tampered with): every field is type-checked, sizes are capped.
 */
#ifndef BENTO_STATE_H
#define BENTO_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "oci-config.h"

/*
 * The largest state.json.  The record no longer copies the mount table
 * (see struct bento_record), so it does not grow with the mounts; what
 * still comes from the config (namespaces, seccomp's skipped names, the
 * cgroup limits read back) is bounded by the config, and the id maps by
 * the kernel (340 lines each).  A typical record is a few KiB; 16 MiB
 * leaves room for the largest config's odd cases, and
 * bento_record_write() refuses to write a record above it, so `create`
 * fails (and cleans up) instead of leaving a container that no later
 * verb can read.
 */
#define BENTO_STATE_MAX_BYTES ((size_t) 16 << 20)
#define BENTO_OCI_VERSION     "1.2.0"

enum bento_status {
        BENTO_STATUS_CREATING,
        BENTO_STATUS_CREATED,
        BENTO_STATUS_RUNNING,
        BENTO_STATUS_PAUSED,
        BENTO_STATUS_STOPPED,
        _BENTO_STATUS_MAX,
};

/* "creating", "created", "running", "paused", "stopped" */
const char *bento_status_to_string(enum bento_status s);

struct bento_applied_ns {
        char *type;     /* "pid", "network", ... */
        uint64_t inode; /* of /proc/<pid>/ns/<name> */
        bool joined;    /* joined by path rather than created */
        char *path;     /* optional: the path joined */
};

struct bento_applied_mount {
        char *destination; /* inside the container */
        char *type;        /* optional */
        char *source;      /* optional */
        char *options;     /* optional: as the kernel reports them (mountinfo) */
};

struct bento_record {
        char *id;
        pid_t pid;           /* host pid of the container init */
        uint64_t start_time; /* field 22 of /proc/<pid>/stat */
        char *bundle;        /* absolute */
        char *rootfs;        /* absolute */
        char *created;       /* RFC 3339, UTC */
        char *owner;         /* user name or numeric uid */
        char *cgroup_path;   /* optional */
        bool systemd_cgroup;
        struct bento_applied_ns *namespaces;
        size_t n_namespaces;
        /* Never stored in state.json (neither written nor read): `state`
         * fills them from the live init's mountinfo (runtime/mount/table.c)
         * and the "bento" member shows them when n_mounts > 0. */
        struct bento_applied_mount *mounts;
        size_t n_mounts;
        char *uid_map;            /* optional: contents of /proc/<pid>/uid_map */
        char *gid_map;            /* optional */
        struct bento_json *extra; /* optional object: other applied facts, emitted as "applied" */
        /* An intent record: `create` writes one before it makes each
         * resource (the cgroup paths it is about to mkdir, the init's pid
         * as soon as it is known) and has not finished, so what it names
         * may or may not exist; emitted as "creating": true only when set. */
        bool creating;
};

/*
 * The record as JSON (deterministic, pretty, members in this order):
 *   id, pid, startTime, bundle, rootfs, created, owner, cgroupPath?,
 *   systemdCgroup, namespaces [{type, inode, joined, path?}], uidMap?,
 *   gidMap?, applied? (= extra), creating? (only when true)
 * Required on both write and parse: a non-empty id, pid >= 0, absolute
 * bundle and rootfs, created, owner; extra, when set, must be an object.
 * A record above BENTO_STATE_MAX_BYTES is not written (EFBIG, with its size
 * and the limit).  Unknown members are ignored on parse, so records stay
 * readable across versions (a "mounts" array of an older one included).
 */
int bento_record_write(const struct bento_record *rec, char **ret_buf, size_t *ret_len,
                       struct bento_err *err);

/* Parse a record (at most BENTO_STATE_MAX_BYTES); errors name the JSON
 * path. */
int bento_record_parse(const char *data, size_t len, struct bento_record **ret,
                       struct bento_err *err);

struct bento_record *bento_record_free(struct bento_record *rec);

static inline void cleanup_bento_record_fn(struct bento_record **p)
{
        bento_record_free(*p);
}
#define cleanup_bento_record __attribute__((cleanup(cleanup_bento_record_fn)))

/* The OCI state object: ociVersion (BENTO_OCI_VERSION), id, status, pid,
 * bundle, then rootfs, created and owner when set, then annotations (always
 * an object; from cfg, sorted; {} without cfg).  When `rec` is given, an
 * extra "bento" member describes what was applied: namespaces, mounts
 * (only when rec->n_mounts > 0), uidMap?, gidMap?, followed by the members
 * of rec->extra (those named like the four before are skipped).  pid is written as given (0 when
 * stopped). `pretty` gives the indented form with a trailing newline, otherwise one line without
 * newline (for hook stdin). */
struct bento_oci_state {
        const char *id;
        enum bento_status status;
        pid_t pid;
        const char *bundle;
        const char *rootfs;             /* optional */
        const char *created;            /* optional */
        const char *owner;              /* optional */
        const struct oci_config *cfg;   /* optional: annotations */
        const struct bento_record *rec; /* optional: applied facts */
};

int bento_oci_state_write(const struct bento_oci_state *st, bool pretty, char **ret_buf,
                          size_t *ret_len, struct bento_err *err);

struct bento_jsonw;

/* The same object into one w is writing (as a value: after a key, or in an
 * array), so that a message that carries it needs no second pass; an
 * invalid status is w's sticky error. */
void bento_oci_state_put(struct bento_jsonw *w, const struct bento_oci_state *st);

/* The "bento" member alone (key and object), exactly as the state object
 * above carries it, into an object w is writing: for `run --report`, which
 * hands a caller the same facts without a `state` call.  Failures are
 * w's sticky error. */
void bento_record_put_applied(struct bento_jsonw *w, const struct bento_record *rec);

#endif
