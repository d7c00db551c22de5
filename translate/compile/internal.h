/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's parts, one file each: the mount table (mounts.c),
 * process (process.c), linux (linux.c) with its seccomp
 * filter (seccomp.c) and the bundle files (compile.c).
 */
#ifndef BENTO_COMPILE_INTERNAL_H
#define BENTO_COMPILE_INTERNAL_H

#include "compile.h"
#include "jsonw.h"
#include "mount-identity.h"

/* One entry of config.json "mounts", and what its host path was when the
 * policy was checked (kind NONE for the fresh pseudo-filesystems, whose
 * destination is inside the rootfs). */
struct compile_mount {
        char *destination;
        const char *type; /* static */
        char *source;
        const char *const *options; /* static, NULL-terminated */
        char *size_option;          /* "size=<bytes>" after them, or NULL */
        struct bento_mount_identity identity;
};

/* A symlink to create in rootfs/ instead of a mount (merged-/usr hosts:
 * /bin -> usr/bin), so the sandbox sees the host's layout. */
struct compile_symlink {
        char *name;   /* absolute path inside the sandbox */
        char *target; /* the link text, as on the host */
};

struct compile_plan {
        struct compile_mount *mounts;
        size_t n_mounts, cap_mounts;
        struct compile_symlink *symlinks;
        size_t n_symlinks, cap_symlinks;
};

/* Whether the bundle runs the egress proxy: the manifest has rules, or profiling records. */
bool compile_has_egress(const struct policy *p, const struct compile_opts *o);

int compile_plan_mounts(const struct policy *p, const struct compile_opts *o,
                        struct compile_plan *plan, struct bento_err *err);
void compile_plan_done(struct compile_plan *plan);

void compile_write_mounts(struct bento_jsonw *w, const struct compile_plan *plan);
/* The org.bento.mount-identity annotation's text for the plan (heap), or
 * NULL when out of memory. */
char *compile_mount_identities(const struct compile_plan *plan);
void compile_write_process(struct bento_jsonw *w, const struct policy *p,
                           const struct compile_opts *o, char *const *env);
void compile_write_linux(struct bento_jsonw *w, const struct policy *p,
                         const struct compile_opts *o);
/* linux.seccomp: the exec mode's rules (the gate's only when gate; with
 * record, exec: all sends the exec calls to the gate too) and the
 * privilege-bit rules every bundle carries; init: process 1 is bento-init,
 * which the listener's metadata tells the gate. */
void compile_write_seccomp(struct bento_jsonw *w, const struct policy *p, const char *listener,
                           bool gate, bool record, bool init);
void compile_write_hooks(struct bento_jsonw *w, const struct policy *p,
                         const struct compile_opts *o, const char *egress_hook);

#endif
