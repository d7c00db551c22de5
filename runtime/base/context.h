/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the container-setup steps need to know, gathered once by `create`
 * before the container init is cloned.  The init gets a copy of this through
 * clone() and must not allocate more than it has to: every setup step takes
 * the context read-only and reports failure through a struct bento_err.
 */
#ifndef RT_CONTEXT_H
#define RT_CONTEXT_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "oci-config.h"

struct rt_seccomp;
struct rt_notify;
struct rt_shared_root;
struct bento_json;

/* `create` records what it is about to make before it makes it (intent
 * first), so that a runtime killed at any point leaves a state directory
 * that `delete --force` understands (container/create.c).  Both calls
 * write the record atomically; a failure fails the create. */
struct rt_intent {
        /* Before the first cgroup directory is made: cgroup is the
         * {"paths", "created"} object of every hierarchy's path, primary
         * the path that stands for the container (rt_cgroup_info.path). */
        int (*cgroup)(struct rt_intent *in, const struct bento_json *cgroup, const char *primary,
                      struct bento_err *err);
        /* Right after the clone: the init's pid, before it is let go on. */
        int (*pid)(struct rt_intent *in, pid_t pid, struct bento_err *err);
        /* Before the init attaches its root tree in a mount namespace it
         * shares: the "sharedRoot" description (mount/shared-root.h). */
        int (*shared_root)(struct rt_intent *in, const struct bento_json *desc,
                           struct bento_err *err);
};

struct rt_context {
        const struct oci_config *cfg;
        const char *id;
        const char *bundle; /* absolute path of the bundle directory */
        const char *rootfs; /* absolute host path of the root filesystem */

        /* namespaces the container gets for itself (created, not joined) */
        bool new_ns[_OCI_NS_MAX];
        /* namespaces listed in the config at all (created or joined) */
        bool has_ns[_OCI_NS_MAX];
        /* the init runs in a user namespace (new, joined, or the runtime's
         * own), so mknod is impossible and mounts inherit locked flags */
        bool in_userns;
        /* the runtime itself runs without root on the host (euid not 0):
         * it needs a user namespace and may map only its own ids */
        bool rootless;
        /* cgroup permission errors are forgiven where no limit needs the
         * cgroup, as runc's rootless cgroup manager does: also true for
         * root of a user namespace (rootless podman), base/rootless.h */
        bool rootless_cgroups;

        bool no_pivot;
        bool no_new_keyring;
        int preserve_fds;
        int listen_fds; /* LISTEN_FDS to announce to the init's program, or 0 */

        /* --systemd-cgroup: the cgroup is a transient systemd scope */
        bool systemd_cgroup;
        /* --cgroup-manager disabled: the container gets no cgroup */
        bool no_cgroup;
        /* linux.seccomp compiled in `create` before the clone; NULL: none */
        const struct rt_seccomp *seccomp;
        /* the NOTIFY_SOCKET proxy's directory (container/notify.h), for the record;
         * NULL or without .inner: none */
        const struct rt_notify *notify;
        /* `create` only (NULL elsewhere): where intent is recorded */
        struct rt_intent *intent;
        /* `create` only: filled in while the init sets up when the container
         * has no mount namespace of its own (mount/shared-root.h) */
        struct rt_shared_root *shared_root;
};

/* prestart or createRuntime hooks exist: the init stops after its mounts
 * (before pivot_root) until the runtime has run them */
bool rt_context_has_runtime_hooks(const struct rt_context *ctx);

#endif
