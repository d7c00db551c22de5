/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI runtime-spec config.json model.
 *
 * oci_config_parse() follows runtime-spec's rules for readers: unknown
 * properties are ignored, invalid values are rejected with the JSON path of
 * the bad value ("linux.namespaces[2].type: ..."), the input is size-capped,
 * embedded NUL bytes (raw or \u0000) and duplicate object keys are rejected.
 * oci_config_write() emits a deterministic, pretty-printed document: the same
 * model always gives the same bytes.
 *
 * Strings are heap-allocated, NUL-terminated, never NULL unless documented as
 * optional.  Arrays come as (pointer, count) pairs; string arrays made by the
 * parser are also NULL-terminated (args and env can go to execve() as they
 * are), but code must not rely on that for models it builds itself.
 * Optional scalars carry a `has_` flag.  linux.resources, linux.seccomp and
 * process.landlock are kept as raw JSON subtrees (struct bento_json) for the
 * runtime's cgroup, seccomp and Landlock modules.
 *
 * The reader treats a JSON null like an absent property (as Go's
 * encoding/json does).  Models built in code must use malloc'ed memory
 * throughout, since oci_config_free() frees every pointer it finds.
 */
#ifndef BENTO_OCI_CONFIG_H
#define BENTO_OCI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "json.h"

/*
 * The largest config.json read (create, the state directory's copy, exec's
 * --process file, `bento inspect`).  It grows with the mounts: `bento
 * translate` writes 300 to 500 bytes per mount, so 2,000 write grants
 * (10,000 mounts) are 3 to 5 MB.  The kernel's fs.mount-max (100,000
 * mounts per namespace by default) bounds what any config can ask for at
 * about 50 MB of such entries, and 64 MiB holds that; above it the parse
 * (a tree several times the size of the text) would cost more memory than
 * a runtime invocation should take for a config no kernel would mount.
 */
#define OCI_CONFIG_MAX_BYTES ((size_t) 64 << 20)

enum oci_ns_type {
        OCI_NS_PID,
        OCI_NS_NETWORK,
        OCI_NS_MOUNT,
        OCI_NS_IPC,
        OCI_NS_UTS,
        OCI_NS_USER,
        OCI_NS_CGROUP,
        OCI_NS_TIME,
        _OCI_NS_MAX,
};

/* "pid", "network", ... ; NULL for out-of-range values. */
const char *oci_ns_type_to_string(enum oci_ns_type t);
/* Returns the type or -1 when the name is not a runtime-spec namespace. */
int oci_ns_type_from_string(const char *s);

struct oci_namespace {
        enum oci_ns_type type;
        char *path; /* optional: join this namespace instead of creating one */
};

struct oci_id_mapping {
        uint32_t container_id;
        uint32_t host_id;
        uint32_t size;
};

struct oci_mount {
        char *destination;
        char *source;   /* optional */
        char *type;     /* optional */
        char **options; /* n_options entries */
        size_t n_options;
        /* an idmapped mount (runtime-spec 1.2): ids of the source file
         * system as containerID, shown in the mount as hostID */
        struct oci_id_mapping *uid_mappings;
        size_t n_uid_mappings;
        struct oci_id_mapping *gid_mappings;
        size_t n_gid_mappings;
};

enum oci_cap_set {
        OCI_CAP_BOUNDING,
        OCI_CAP_EFFECTIVE,
        OCI_CAP_INHERITABLE,
        OCI_CAP_PERMITTED,
        OCI_CAP_AMBIENT,
        _OCI_CAP_SET_MAX,
};

struct oci_capabilities {
        /* names as written ("CAP_CHOWN"); validation of the names is the
         * runtime's job (unknown ones are a warning per runtime-spec). */
        char **set[_OCI_CAP_SET_MAX];
        size_t n[_OCI_CAP_SET_MAX];
        bool present[_OCI_CAP_SET_MAX]; /* the key was in the document */
};

struct oci_rlimit {
        char *type;   /* "RLIMIT_NOFILE" */
        int resource; /* RLIMIT_NOFILE; unknown names and duplicates are rejected,
                       * as is soft > hard */
        uint64_t soft;
        uint64_t hard;
};

struct oci_user {
        uint32_t uid;
        uint32_t gid;
        bool has_umask;
        uint32_t umask;
        uint32_t *additional_gids;
        size_t n_additional_gids;
};

/* A runtime-spec name and the kernel's number for it. */
struct oci_name_value {
        const char *name;
        unsigned long value;
};

/* The names runtime-spec 1.2 defines for the process attributes below, each
 * table ending in {NULL, 0}: for error messages, the writer and `features`.
 * Values are the kernel's (SCHED_FIFO, SCHED_FLAG_RESET_ON_FORK,
 * IOPRIO_CLASS_BE, PER_LINUX32, MPOL_BIND, MPOL_F_STATIC_NODES). */
extern const struct oci_name_value oci_sched_policies[];
extern const struct oci_name_value oci_sched_flags[];
extern const struct oci_name_value oci_ioprio_classes[];
extern const struct oci_name_value oci_personality_domains[];
extern const struct oci_name_value oci_mempolicy_modes[];
extern const struct oci_name_value oci_mempolicy_flags[];

/* The name of value in table; NULL when it has none. */
const char *oci_name_of(const struct oci_name_value *table, unsigned long value);

/* Largest CPU and memory-node counts the lists below may name (the
 * kernel's NR_CPUS and MAX_NUMNODES limits). */
#define OCI_MAX_CPUS  8192
#define OCI_MAX_NODES 1024

/* process.scheduler, for sched_setattr(2).  nice is within -20..19. */
struct oci_scheduler {
        unsigned long policy; /* SCHED_*; 4 is SCHED_ISO, which Linux lacks */
        int32_t nice;
        int32_t priority;
        unsigned long flags; /* SCHED_FLAG_* */
        uint64_t runtime;    /* ns; SCHED_DEADLINE only */
        uint64_t deadline;
        uint64_t period;
        bool has_runtime; /* given (0 included): SCHED_DEADLINE needs both */
        bool has_deadline;
};

/* process.ioPriority, for ioprio_set(2).  A missing priority reads as 0. */
struct oci_io_priority {
        unsigned long ioclass; /* IOPRIO_CLASS_RT, _BE or _IDLE */
        int32_t priority;      /* 0..7 */
};

/* process.execCPUAffinity: CPU lists as written, checked by the parser
 * (idlist.h format, CPUs below OCI_MAX_CPUS); NULL when absent. */
struct oci_cpu_affinity {
        char *initial;
        char *final;
};

struct oci_process {
        bool terminal;
        bool has_console_size;
        uint32_t console_height;
        uint32_t console_width;
        struct oci_user user;
        char **args; /* at least one entry */
        size_t n_args;
        char **env;
        size_t n_env;
        char *cwd;                             /* absolute */
        struct oci_capabilities *capabilities; /* optional */
        struct oci_rlimit *rlimits;
        size_t n_rlimits;
        bool no_new_privileges;
        bool has_oom_score_adj;
        int oom_score_adj;
        char *apparmor_profile;                     /* optional */
        char *selinux_label;                        /* optional */
        struct bento_json *landlock;                /* optional, raw (proposed spec shape) */
        struct oci_scheduler *scheduler;            /* optional */
        struct oci_io_priority *io_priority;        /* optional */
        struct oci_cpu_affinity *exec_cpu_affinity; /* optional */
};

struct oci_root {
        char *path; /* as written: absolute or bundle-relative */
        bool readonly;
};

struct oci_device {
        char type; /* 'c', 'b', 'u' or 'p' */
        char *path;
        int64_t major; /* -1 when absent (allowed for 'p') */
        int64_t minor;
        bool has_file_mode;
        uint32_t file_mode;
        bool has_uid;
        uint32_t uid;
        bool has_gid;
        uint32_t gid;
};

struct oci_kv {
        char *key;
        char *value;
};

struct oci_hook {
        char *path;
        char **args;
        size_t n_args;
        char **env;
        size_t n_env;
        bool has_env; /* distinguishes "env": [] from no env at all */
        bool has_timeout;
        int timeout; /* seconds, > 0 */
};

enum oci_hook_kind {
        OCI_HOOK_PRESTART,
        OCI_HOOK_CREATE_RUNTIME,
        OCI_HOOK_CREATE_CONTAINER,
        OCI_HOOK_START_CONTAINER,
        OCI_HOOK_POSTSTART,
        OCI_HOOK_POSTSTOP,
        _OCI_HOOK_KIND_MAX,
};

/* "prestart", "createRuntime", ... ; NULL for out-of-range values. */
const char *oci_hook_kind_to_string(enum oci_hook_kind k);

/* "bounding", "effective", ... ; NULL for out-of-range values. */
const char *oci_cap_set_to_string(enum oci_cap_set s);

/* "RLIMIT_NOFILE" → RLIMIT_NOFILE; -1 for names that are not Linux rlimits. */
int oci_rlimit_from_string(const char *name);
/* RLIMIT_NOFILE → "RLIMIT_NOFILE"; NULL for unknown values. */
const char *oci_rlimit_to_string(int resource);

/* linux.personality: runtime-spec 1.2 defines no flags, so a flag is
 * rejected by the parser. */
struct oci_personality {
        unsigned long domain; /* PER_LINUX or PER_LINUX32 */
};

/* linux.memoryPolicy, for set_mempolicy(2). */
struct oci_memory_policy {
        unsigned long mode;  /* MPOL_* */
        unsigned long flags; /* MPOL_F_* mode flags */
        char *nodes;         /* optional node list as written (idlist.h), checked */
};

struct oci_linux {
        struct oci_namespace *namespaces;
        size_t n_namespaces;
        struct oci_id_mapping *uid_mappings;
        size_t n_uid_mappings;
        struct oci_id_mapping *gid_mappings;
        size_t n_gid_mappings;
        struct oci_device *devices;
        size_t n_devices;
        struct oci_kv *sysctl; /* sorted by key */
        size_t n_sysctl;
        char *cgroups_path;       /* optional */
        char *rootfs_propagation; /* optional: shared slave private unbindable (or r-forms) */
        char **masked_paths;
        size_t n_masked_paths;
        char **readonly_paths;
        size_t n_readonly_paths;
        char *mount_label;                       /* optional */
        struct bento_json *resources;            /* optional, raw */
        struct bento_json *seccomp;              /* optional, raw */
        struct oci_personality *personality;     /* optional */
        struct oci_memory_policy *memory_policy; /* optional */
};

struct oci_config {
        char *oci_version;
        struct oci_process *process; /* optional (create may omit it; start refuses) */
        struct oci_root root;        /* required on Linux */
        char *hostname;              /* optional */
        char *domainname;            /* optional */
        struct oci_mount *mounts;
        size_t n_mounts;
        struct oci_hook *hooks[_OCI_HOOK_KIND_MAX];
        size_t n_hooks[_OCI_HOOK_KIND_MAX];
        struct oci_kv *annotations; /* sorted by key */
        size_t n_annotations;
        bool has_linux;
        struct oci_linux linux_; /* zeroed when absent */
        /* JSON paths of runtime-spec properties that are present but that
         * this model does not carry ("linux.personality"): a runtime must
         * refuse them rather than silently run without them */
        char **unmodelled;
        size_t n_unmodelled;
};

/* Parse a config.json document held in memory (len bytes, need not be
 * NUL-terminated).  On success *ret owns a new model.  Errors name the JSON
 * path of the bad value, e.g. "process.user.uid: expected an unsigned
 * 32-bit integer, got a string".  Never aborts on any input.  Besides the
 * JSON-level rules (json.h) and type checks, it rejects: a missing
 * ociVersion or root (root.path non-empty); a process without user.uid,
 * user.gid, non-empty args or an absolute cwd; mounts without destination;
 * hooks with a relative path or timeout <= 0; unknown or duplicate
 * namespace types, relative namespace paths; id mappings of size 0 or that
 * wrap past 2^32; devices of a type other than c/b/u/p, a relative path, or
 * without major/minor for c/b/u; unknown or duplicate rlimits, soft > hard;
 * oomScoreAdj outside -1000..1000; an unknown rootfsPropagation; relative
 * maskedPaths/readonlyPaths; resources, seccomp or landlock that are not
 * objects; a scheduler, ioPriority, personality or memoryPolicy name (policy,
 * flag, class, domain, mode) runtime-spec does not define, a nice outside
 * -20..19, an I/O priority outside 0..7, any personality flag, and CPU or
 * node lists that are not lists or name a CPU/node past the kernel's
 * limits.  Whether this kernel can do what they ask is the runtime's
 * question, not the model's. */
int oci_config_parse(const char *data, size_t len, struct oci_config **ret, struct bento_err *err);

/* Parse a lone process object (the file `exec --process` reads) with the
 * rules of config.json's "process" member; error paths start at the
 * object ("args: must have at least one entry").  On success *ret owns a
 * new process. */
int oci_process_parse(const char *data, size_t len, struct oci_process **ret,
                      struct bento_err *err);

/* Free a process model; accepts NULL, returns NULL. */
struct oci_process *oci_process_free(struct oci_process *p);

static inline void cleanup_oci_process_fn(struct oci_process **p)
{
        oci_process_free(*p);
}
#define cleanup_oci_process __attribute__((cleanup(cleanup_oci_process_fn)))

/* Read and parse a file, refusing files above OCI_CONFIG_MAX_BYTES and a
 * symlink as the last path component (see fileio.h).  Parse errors are
 * prefixed with the file name ("bundle/config.json: process.cwd: ..."). */
int oci_config_load(const char *path, struct oci_config **ret, struct bento_err *err);

/* Serialise deterministically (two-space indentation, fixed key order, a
 * trailing newline).  *ret_buf is heap-allocated and NUL-terminated.
 * annotations and sysctl are written sorted by key whatever the model's
 * order; a duplicate key, a required string left NULL or a string that is
 * not UTF-8 fails with EINVAL/EILSEQ.  Optional members that are absent or
 * empty are left out, so parse → write → parse → write is byte-stable. */
int oci_config_write(const struct oci_config *cfg, char **ret_buf, size_t *ret_len,
                     struct bento_err *err);

/* Free a model; accepts NULL, returns NULL. */
struct oci_config *oci_config_free(struct oci_config *cfg);

/* Look up an annotation; NULL when absent. */
const char *oci_config_annotation(const struct oci_config *cfg, const char *key);

/* Find the namespace entry of a type; NULL when the config does not list it. */
const struct oci_namespace *oci_config_namespace(const struct oci_config *cfg,
                                                 enum oci_ns_type type);

static inline void cleanup_oci_config_fn(struct oci_config **p)
{
        oci_config_free(*p);
}
#define cleanup_oci_config __attribute__((cleanup(cleanup_oci_config_fn)))

#endif
