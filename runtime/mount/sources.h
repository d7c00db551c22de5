/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bind-mount sources opened with the runtime's credentials.  The init runs
 * as the root of a user namespace, which is an unprivileged uid on the host:
 * a source below a directory only the caller may enter (/root, mode 0700)
 * cannot be reached from there.  So the runtime opens every bind source
 * itself, inside the init's new mount namespace (a helper process enters it
 * with setns, keeping the runtime's uid, groups and capabilities), and
 * passes the descriptors to the init, which verifies and mounts exactly
 * those objects.  An idmapped mount (mounts[].uidMappings) is made there
 * too: the source is cloned with open_tree() and given the id map with
 * mount_setattr(MOUNT_ATTR_IDMAP), which needs host privileges.
 *
 * A runtime without root on the host has no more rights than the init's
 * mapped uid, cannot enter the init's mount namespace, and cannot idmap:
 * then the init opens the sources itself, as before, and idmapped mounts
 * are refused.
 */
#ifndef RT_MOUNT_SOURCES_H
#define RT_MOUNT_SOURCES_H

#include <stdbool.h>

#include "base/context.h"
#include "options.h"

/* The source descriptor of every mount, by index (-1: not a bind mount, or
 * none was passed: the init opens it itself).  The descriptors arrive in
 * batches while the init mounts, and each is closed once its mount is made:
 * holding all of them at once made a config with more bind mounts than
 * RLIMIT_NOFILE allows fail (20,000 read grants from bento profile). */
struct rt_bind_sources {
        int *fds;
        size_t n;
        const struct oci_config *cfg;
        int sock;    /* where the runtime sends them (-1: nothing to receive) */
        size_t want; /* descriptors still to come */
        size_t next; /* the mount the next descriptor belongs to */
        size_t used; /* mounts below this index are made: their fds closed */
};

#define RT_BIND_SOURCES_INIT                                                                       \
        {                                                                                          \
                .fds = NULL, .n = 0, .sock = -1                                                    \
        }

/* A bind mount: type "bind", or the bind/rbind option. */
bool rt_mount_is_bind(const struct oci_mount *m, const struct rt_mount_opts *o);

/* Open the source of bind mount i (relative sources against the bundle),
 * following symlinks as a bind mount does; for an idmapped mount, the
 * detached idmapped clone.  The file system not supporting idmapped mounts
 * is named in the error.  Returns the fd or -errno with err set. */
int rt_bind_source_open(const struct rt_context *ctx, size_t i, struct bento_err *err);

/* Runtime side: wait for the init's RT_SYNC_BIND_REQUEST, open every bind
 * source inside the init's mount namespace (pidfd) and send them over sock.
 * Nothing happens when the init opens them itself.  pid and pidfd name
 * the init. */
int rt_bind_sources_serve(const struct rt_context *ctx, pid_t pid, int pidfd, int sock,
                          struct bento_err *err);

/* Init side, in its mount namespace: ask the runtime for the sources (or
 * leave s empty when the init opens them); rt_bind_sources_get receives
 * them as the mounts need them. */
int rt_bind_sources_fetch(const struct rt_context *ctx, int sock, struct rt_bind_sources *s,
                          struct bento_err *err);

/* The fd for mounts[i] in *fd (-1: the init opens the source itself),
 * receiving batches until it is there; the fds of the mounts before i are
 * closed (mounts are made in order).  Returns 0, or -errno with err set
 * when the runtime went away or sent something else. */
int rt_bind_sources_get(struct rt_bind_sources *s, size_t i, int *fd, struct bento_err *err);

void rt_bind_sources_close(struct rt_bind_sources *s);

#define cleanup_rt_bind_sources __attribute__((cleanup(rt_bind_sources_close)))

#endif
