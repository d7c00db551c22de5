/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Is the runtime "rootless"?  Not the same question as "is the effective
 * uid 0": rootless podman calls the runtime as uid 0 of a user namespace it
 * made, where the runtime may make namespaces and mounts but owns no cgroup
 * and cannot write /run.  The answers follow runc's, so that podman and
 * other engines see the same behaviour from either runtime:
 *
 *   - the state root is under $XDG_RUNTIME_DIR when the runtime is not root
 *     or is root only inside a user namespace (unless $USER is "root",
 *     which marks a root login inside a container);
 *   - a cgroup that cannot be made is not an error unless a limit needs it,
 *     when the runtime is not root in the initial user namespace (or
 *     --rootless true says so; --rootless false turns it off).
 */
#ifndef RT_ROOTLESS_H
#define RT_ROOTLESS_H

#include <stdbool.h>

/* --rootless: auto (the default), false, true */
enum rt_rootless_mode {
        RT_ROOTLESS_AUTO,
        RT_ROOTLESS_FALSE,
        RT_ROOTLESS_TRUE,
};

/* True when map (the text of a uid_map) is the identity map of every uid,
 * one line "0 0 4294967295": the initial user namespace's. */
bool rt_uid_map_is_initial(const char *map);

/* True when this process runs in the initial user namespace, from
 * /proc/self/uid_map.  An unreadable map (a kernel without user
 * namespaces) counts as the initial one. */
bool rt_in_initial_userns(void);

/* Whether the default state root is $XDG_RUNTIME_DIR/bento-runtime (when
 * that variable is set to an absolute path). */
bool rt_rootless_state_dir(void);

/* Whether cgroup permission errors are forgiven where no limit needs the
 * cgroup (rt_context.rootless_cgroups). */
bool rt_rootless_cgroups(enum rt_rootless_mode mode);

#endif
