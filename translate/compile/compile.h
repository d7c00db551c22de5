/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy compiler: a resolved policy (policy/policy.h) becomes an OCI bundle,
 * config.json plus an empty read-only rootfs, following the mapping of
 * docs/cli/bento-translate.md, "THE BUNDLE".  Output is deterministic: the same
 * policy and options give the same bytes, so CI can diff bundles.
 *
 * The bundle is complete on its own: any OCI runtime that honours it
 * enforces every core guarantee or refuses to start (the exec block names
 * a seccomp listener that must be there; see docs/exec-gate.md).  The one
 * field other runtimes ignore is process.landlock, the backstop.
 */
#ifndef BENTO_COMPILE_H
#define BENTO_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "policy/policy.h"

/* The name of the empty read-only file that file shields bind (docs/manifest.md, "CREDENTIAL
 * SHIELDS") and of the exec gate's socket, both inside the bundle directory. */
#define COMPILE_SHIELD_FILE   "shield"
#define COMPILE_SHIELD_DOT    "shield-dot" /* reads ".": a missing git commondir */
#define COMPILE_GATE_SOCKET   "exec-gate.sock"
#define COMPILE_ROOTFS        "rootfs"
#define COMPILE_CONFIG        "config.json"
#define COMPILE_PROXY_ADDRESS "http://127.0.0.1:3128"
/* The internal verb the poststop hook runs (not listed in --help). */
#define COMPILE_CLEANUP_VERB "__remove-mount-points"

/* The bundle `bento profile` runs (docs/profile.md): the target under the observer, fully
 * observable (no exec filter, no Landlock: the tracer must see every exec and open as the
 * kernel sees it), with an empty home and the egress proxy always there to record. */
#define COMPILE_OBSERVE_BOX_PATH "/.bento/observe"
/* The observer's preload library, as installed (compile_library_path()), and
 * where it is bound when profiling. */
#define COMPILE_OBSERVE_SHIM          "bento-observe-shim.so"
#define COMPILE_OBSERVE_SHIM_BOX_PATH "/.bento/observe-shim.so"
/* The descriptor the observer writes its report to, inside the box. */
#define COMPILE_OBSERVE_FD "3"
/* Where bento-init (hooks/init), the box's process 1, is bound read-only
 * (docs/hooks/bento-init.md). */
#define COMPILE_INIT_BOX_PATH "/.bento/init"
/* The descriptor bento-init writes the target's end to, under bento run. */
#define COMPILE_INIT_STATUS_FD "3"
/* listenerMetadata of a bundle whose process 1 is bento-init: the gate
 * then lets the init's exec and, after it, the init's exec of the target
 * through (docs/exec-gate.md).  A bundle without the init says
 * COMPILE_GATE_METADATA. */
#define COMPILE_GATE_METADATA      "bento-exec-gate/1"
#define COMPILE_GATE_METADATA_INIT "bento-exec-gate/1 init"

struct compile_profile {
        const char *observe; /* absolute host path of bento-observe, bound read-only */
        /* absolute host path of its preload library, bound read-only and passed with
         * --shim; NULL: the observer runs without it */
        const char *shim;
        /* The real $HOME (absolute, resolved), covered by an empty tmpfs so that home
         * exists and is writable scratch while its files stay absent unless granted;
         * NULL: none. */
        const char *home;
        /* Run the egress proxy even when the manifest has no network rule: every CONNECT
         * is then recorded in its report and refused. */
        bool egress;
        /* Trees whose reads and probes the proposal skips whatever their result: the
         * observer reports them without a stop at the call's exit (--no-result-under);
         * NULL-terminated, or NULL. */
        const char *const *no_result;
};

struct compile_opts {
        const char *bundle_dir; /* absolute; where config.json goes */
        /* The root filesystem's directory, absolute, made and empty; NULL:
         * <bundle_dir>/rootfs (root.path then says "rootfs"). */
        const char *rootfs_dir;
        const char *listener_path; /* exec gate socket; NULL: <bundle_dir>/exec-gate.sock */
        const char *egress_hook;   /* absolute path of bento-egress; NULL: beside bento */
        const char *init;          /* absolute path of bento-init; NULL: beside bento */
        /* bento-init reports the target's end on the container's descriptor
         * COMPILE_INIT_STATUS_FD (bento run passes it; other runtimes would not). */
        bool init_status;
        const char *egress_report;  /* passed to the hook as --report, or NULL */
        char *const *env_overrides; /* NAME=VALUE from --env, already checked */
        size_t n_env_overrides;
        const char *cgroups_path; /* linux.cgroupsPath, or NULL (the runtime's default) */
        const char *fingerprint;  /* of the manifest as written */
        const char *approval;     /* "current", "stale" or "unapproved" */
        bool terminal;            /* process.terminal */
        /* Name a poststop hook that removes the shield mount points the
         * run creates on the host (bento run removes them itself). */
        bool mount_point_hook;
        /* The host cannot run the exec gate (no seccomp user notification,
         * or no bento-exec-gate): leave execve/execveat open and let the
         * run report the exec-block layer as unavailable (docs/cli/bento-run.md, "ADMISSION"). fork
         * and clone rules of none-strict stay. */
        bool no_exec_gate;
        /* bento run --record-exec on an exec: all manifest: send execve and
         * execveat to the gate all the same, which then records them and
         * lets every one through (docs/exec-gate.md, "Record mode"). */
        bool record_exec;
        /* Where bento-runtime writes the hooks' stdout and stderr
         * (run.oci.hooks.stdout/stderr annotations), or NULL. */
        const char *hooks_log;
        /* The limits linux.resources caps; NULL: the manifest's.  A run
         * admitted without a limit the host cannot apply (--allow-degraded)
         * leaves that limit out, so the runtime does not refuse it. */
        const struct manifest_limits *limits;
        /* bento run --network-gate: the gate's socket, resolved and checked
         * out of the sandbox's reach (bento-egress --gate), or NULL; and
         * --network-gate-timeout in seconds, 0 for the proxy's default. */
        const char *network_gate;
        int network_gate_timeout;
        /* Profiling (bento profile); NULL for every other bundle. */
        const struct compile_profile *profile;
};

/* The environment the target gets (docs/manifest.md, "ENVIRONMENT"): *ret is a NULL-terminated,
 * sorted strv of NAME=VALUE.  Caller frees with strv_free(). */
int compile_env(const struct policy *p, const struct compile_opts *o, char ***ret,
                struct bento_err *err);

/* Whether the bundle's process 1 is bento-init with the target as its
 * child: every bundle but a profiling one (whose process is the observer)
 * and an exec: none-strict one without the exec gate (whose filter would
 * refuse the init's fork; the gate lets that one fork through). */
bool compile_has_init(const struct policy *p, const struct compile_opts *o);

/* Whether limits give the bundle a linux.resources (memory, cpu or pids):
 * without one, the sandbox needs no cgroup of its own. */
bool compile_caps_anything(const struct manifest_limits *l);

struct compile_symlink;

/* What compile_bundle_with() writes: config.json's bytes (NUL-terminated) and
 * the links the bundle's rootfs holds, which are planned with the mounts and
 * so are not planned a second time for the rootfs. */
struct compile_output {
        char *config;
        size_t len;
        struct compile_symlink *symlinks;
        size_t n_symlinks;
};

/* config.json for p and the rootfs links, into *ret (freed with
 * compile_output_done(), also after a failure). */
int compile_config_planned(const struct policy *p, const struct compile_opts *o,
                           struct compile_output *ret, struct bento_err *err);
void compile_output_done(struct compile_output *out);

static inline void cleanup_compile_output_fn(struct compile_output *out)
{
        compile_output_done(out);
}
#define cleanup_compile_output __attribute__((cleanup(cleanup_compile_output_fn)))

/* config.json for p alone.  *ret is heap-allocated, NUL-terminated. */
int compile_config(const struct policy *p, const struct compile_opts *o, char **ret,
                   size_t *ret_len, struct bento_err *err);

/* Write the whole bundle into o->bundle_dir (created 0700 when missing):
 * config.json (0600), an empty rootfs/ with the symlinks the system paths
 * need, and the empty shield file.  Refuses a directory that holds
 * anything else, so a typo cannot overwrite unrelated files. */
int compile_bundle(const struct policy *p, const struct compile_opts *o, struct bento_err *err);

/* The same with what compile_config_planned() computed for o (translate
 * computes it before anything is written, to refuse early, and need not
 * compute it twice). */
int compile_bundle_with(const struct compile_opts *o, const struct compile_output *out,
                        struct bento_err *err);

/* compile_bundle()'s check of its directory, alone and without creating
 * anything: 0 when dir holds only a bundle's files, or does not exist yet
 * and its parent is a directory (compile_bundle() creates dir alone). */
int compile_check_bundle_dir(const char *dir, struct bento_err *err);

/* The absolute path of a program installed beside bento (bento-runtime,
 * bento-egress, bento-exec-gate), or the one an environment variable names
 * ($BENTO_RUNTIME, ...) when it is absolute.  Heap string, NULL on ENOMEM. */
char *compile_helper_path(const char *env_name, const char *program);

/* The same for a library of bento's own (bento-observe-shim.so): in lib/bento/
 * beside the directory bento is in (build/lib/bento in the build tree,
 * PREFIX/lib/bento installed), or the one env_name names. */
char *compile_library_path(const char *env_name, const char *library);

#endif
