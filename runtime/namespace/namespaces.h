/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.namespaces: which namespaces the container creates, which it joins
 * by path, and the uid/gid maps of a new user namespace.
 */
#ifndef RT_NAMESPACES_H
#define RT_NAMESPACES_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/context.h"

struct rt_ns_plan {
        unsigned long clone_flags; /* CLONE_NEW* for the namespaces created */
        int join_fd[_OCI_NS_MAX];  /* opened `path` namespaces, -1 when not joined */
        bool any_join;
};

/* Fill ctx->new_ns/has_ns/in_userns and open every namespace to join,
 * checking it is a namespace of the declared type.  Errors name the entry
 * (linux.namespaces[1].path). */
int rt_ns_plan_make(const struct oci_config *cfg, struct rt_context *ctx, struct rt_ns_plan *plan,
                    struct bento_err *err);
void rt_ns_plan_close(struct rt_ns_plan *plan);

/* Enter every joined namespace (user first).  Runs in the intermediate
 * process that then clones the init. */
int rt_ns_join_all(const struct rt_ns_plan *plan, struct bento_err *err);

/* Write /proc/<pid>/{setgroups,uid_map,gid_map} for a new user namespace.
 * Without mappings in the config the caller's own uid and gid are mapped to
 * 0, like `unshare -r`. */
int rt_ns_write_maps(pid_t pid, const struct oci_config *cfg, bool rootless, struct bento_err *err);

/* An fd of a new user namespace whose uid_map and gid_map are the given
 * entries (each line "containerID hostID size"), for an idmapped mount
 * (MOUNT_ATTR_IDMAP).  field names the mount in errors ("mounts[2]"). */
int rt_ns_idmap_userns(const struct oci_id_mapping *uid, size_t n_uid,
                       const struct oci_id_mapping *gid, size_t n_gid, const char *field,
                       struct bento_err *err);

/* Bring the loopback interface of the current network namespace up. */
int rt_ns_loopback_up(struct bento_err *err);

/* The /proc/<pid>/ns/ file name of a namespace type ("net" for network). */
const char *rt_ns_proc_name(enum oci_ns_type t);

#endif
