/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `exec`: start another process in a running container.  The process joins
 * every namespace of the container's init that differs from ours (through
 * setns() on the init's pidfd, so all of them at once), the init's root
 * directory, and the container's cgroup; it gets its own user, groups,
 * capabilities, rlimits, noNewPrivileges, cwd and environment, then the
 * container's Landlock ruleset and, as the very last step, the container's
 * seccomp filter.
 *
 * Processes, as for `create` with namespaces to join:
 *
 *   bento-runtime exec
 *      │ clone3
 *      ▼
 *   intermediate ── setns(init pidfd, every CLONE_NEW* that differs),
 *      │            fchdir(init's root), chroot(".")
 *      │ clone3(CLONE_PARENT)
 *      ▼
 *   exec process (in the container's pid namespace; a child of
 *                 bento-runtime, orphaned with --detach when it exits)
 *
 * The process is set up from the inside and talks to the runtime over a
 * SOCK_SEQPACKET pair (base/sync.h); errors come back word for word.
 */
#ifndef RT_EXEC_H
#define RT_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "store.h"

struct rt_exec_opts {
        const char *id;
        /* --process: a runtime-spec process object; the options below that
         * describe the process are then refused by the CLI */
        const char *process_file;
        /* otherwise the container's own process with these changes */
        char **args; /* NULL-terminated, n_args > 0 */
        size_t n_args;
        const char *cwd;
        char **env; /* KEY=VALUE: replaces KEY or is appended */
        size_t n_env;
        bool has_user;
        uint32_t uid;
        bool has_gid;
        uint32_t gid;
        char **caps; /* added to the bounding, effective and permitted sets */
        size_t n_caps;
        bool no_new_privs;
        bool tty;
        /* either way */
        bool detach;
        const char *pid_file;
        const char *console_socket;
        int preserve_fds;
};

struct rt_exec_result {
        pid_t pid;      /* host pid of the process */
        int pidfd;      /* refers to it */
        int console_fd; /* pty master to proxy (a terminal, no --console-socket), or -1 */
        /* when rt_exec() fails: the exit status to report, 127 when the
         * program was not found, 126 when the process could not be set up
         * or executed, 1 for anything before the process existed */
        int fail_status;
};

/* Start the process.  Returns once it has called execve() successfully
 * (the close-on-exec sync socket reads end-of-file): *ret then holds its
 * pid and pidfd (owned by the caller).  *ret is written on failure too,
 * for fail_status (its fds are then -1).  The container must be running.
 * The process is our child: without opts->detach the caller waits for
 * it; with it, it is orphaned (to the caller's subreaper) when we exit. */
int rt_exec(struct rt_store *store, const struct rt_exec_opts *opts, struct rt_exec_result *ret,
            struct bento_err *err);

/* exec-process.c: the process to run, from opts->process_file or from the
 * container's process (dir's config copy) changed by the other options.
 * *ret is a new model, its args and env NULL-terminated. */
int rt_exec_process_build(const struct rt_container_dir *dir, const struct rt_exec_opts *opts,
                          struct oci_process **ret, struct bento_err *err);

#endif
