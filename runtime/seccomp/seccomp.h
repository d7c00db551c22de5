/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.seccomp through libseccomp.  The filter is compiled once in
 * `create` (parent side, before clone) into a BPF program; the init only
 * installs it, with no allocation and no libseccomp call.
 *
 * Where it is installed (see container/init.c and container/exec.c): after the exec.fifo
 * released the init, after startContainer hooks and Landlock, as the very
 * last step before execve, with or without noNewPrivileges.  A profile a
 * user writes need not allow anything the runtime does (close_range,
 * capset, the exec.fifo's read, the hooks' fork and exec...): only execve.
 * Without noNewPrivileges the kernel takes a filter only from a holder of
 * CAP_SYS_ADMIN, which the identity switch keeps until execve for that
 * (rt_seccomp_until_exec()).  With SCMP_ACT_NOTIFY the init connects to
 * listenerPath before pivot_root (the path is a host path) and, right after
 * installing the filter, sends the "container process state" JSON with the
 * notify fd over that socket (SCM_RIGHTS).
 */
#ifndef RT_SECCOMP_H
#define RT_SECCOMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "json.h"
#include "oci-config.h"

struct rt_seccomp; /* compiled filter, listener path, metadata */

/* Compile cfg->linux_.seccomp.  *ret is NULL when the config has none.
 * Warnings (unknown syscall names skipped, one line per name) go into warn.
 * Errors name the JSON path ("linux.seccomp.syscalls[3].args[0].op: ...").
 * A relative listenerPath is taken relative to bundle (absolute, or NULL
 * to refuse one), as root.path and mount sources are, so that a bundle
 * still names its own gate's socket after it is moved. */
int rt_seccomp_compile(const struct oci_config *cfg, const char *bundle, struct rt_seccomp **ret,
                       char *warn, size_t warn_size, struct bento_err *err);

/* Like rt_seccomp_compile(), with compiled programs kept in the directory
 * cache_fd (see rt_seccomp_cache_open; -1 compiles every time).  Compiling
 * podman's default profile with libseccomp takes longer than the rest of
 * `create`; the cache is keyed by everything the program depends on and
 * holds that key in full, so a hit is exact. */
int rt_seccomp_compile_cached(const struct oci_config *cfg, const char *bundle, int cache_fd,
                              struct rt_seccomp **ret, char *warn, size_t warn_size,
                              struct bento_err *err);

/* Open the cache directory dir (absolute; its missing components made
 * 0700), reached without a symlink; -1 when that is impossible or the
 * directory is not ours alone (owned by another user, or writable by
 * group or others).  See cache-dir.c. */
int rt_seccomp_cache_open(const char *dir);

struct rt_seccomp *rt_seccomp_free(struct rt_seccomp *s);

/* What was compiled, for `state`: {"defaultAction", "architectures",
 * "flags", "rules" (count), "skipped" (unknown names), "bpfInstructions",
 * "cached", "listenerPath"?}; NULL on allocation failure. */
struct bento_json *rt_seccomp_describe(const struct rt_seccomp *s);

/* True when the filter has SCMP_ACT_NOTIFY rules and a listenerPath. */
bool rt_seccomp_has_listener(const struct rt_seccomp *s);

/* listenerPath (made absolute against the bundle) and listenerMetadata as
 * the bundle gave it (NULL when absent). */
const char *rt_seccomp_listener_path(const struct rt_seccomp *s);
const char *rt_seccomp_listener_metadata(const struct rt_seccomp *s);

/* Replace listenerPath by path (heap, taken even on failure); the length
 * is checked as the compiler checks it. */
int rt_seccomp_set_listener_path(struct rt_seccomp *s, char *path, struct bento_err *err);

/* In the init before pivot_root: connect to listenerPath.  Returns the fd. */
int rt_seccomp_connect_listener(const struct rt_seccomp *s, struct bento_err *err);

/* In the init: install the filter; with a listener, send the container
 * process state (built from cfg, id, bundle and host_pid) and the notify fd
 * over listener_fd, then close both.  The state is built before the filter
 * goes in; after it only seccomp(2), sendmsg(2) and close(2) are called,
 * and nothing is allocated. */
int rt_seccomp_install(const struct rt_seccomp *s, int listener_fd, const struct oci_config *cfg,
                       const char *id, const char *bundle, pid_t host_pid, struct bento_err *err);

/* The capabilities (bits 1 << CAP_x) the identity switch must keep until
 * execve so that rt_seccomp_install() can still load s as the last step:
 * CAP_SYS_ADMIN without noNewPrivileges, nothing otherwise or without s. */
uint64_t rt_seccomp_until_exec(const struct rt_seccomp *s, bool no_new_privileges);

/* Lists for `features` (linux.seccomp). */
enum rt_seccomp_list {
        RT_SECCOMP_ACTIONS,         /* SCMP_ACT_* this build and libseccomp accept */
        RT_SECCOMP_OPERATORS,       /* SCMP_CMP_* */
        RT_SECCOMP_ARCHS,           /* SCMP_ARCH_* libseccomp knows */
        RT_SECCOMP_KNOWN_FLAGS,     /* SECCOMP_FILTER_FLAG_* understood */
        RT_SECCOMP_SUPPORTED_FLAGS, /* of those, what the running kernel takes */
        _RT_SECCOMP_LIST_MAX,
};

/* The i-th name of a list; NULL past the end. */
const char *rt_seccomp_list_name(enum rt_seccomp_list list, size_t i);

#endif
