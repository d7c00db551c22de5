/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container lifecycle behind the verbs: create (bundle → parked init +
 * state directory), start (release the init), signal, destroy.
 */
#ifndef RT_CONTAINER_H
#define RT_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "store.h"

struct rt_create_opts {
        const char *id;
        const char *bundle; /* default: the current directory */
        const char *config; /* --config: instead of <bundle>/config.json */
        const char *pid_file;
        const char *console_socket;
        bool no_pivot;
        bool no_new_keyring;
        int preserve_fds; /* with the socket-activation ones */
        int listen_fds;   /* rt_listen_fds(): LISTEN_FDS for the init, or 0 */
        /* --systemd-cgroup */
        bool systemd_cgroup;
        /* --cgroup-manager disabled: no cgroup at all */
        bool no_cgroup;
        /* --rootless: enum rt_rootless_mode */
        int rootless;
        /* --seccomp-cache: NULL for the default state root's .cache/seccomp */
        const char *seccomp_cache;
        /* --no-subreaper (foreground `run`) */
        bool no_subreaper;
        /* foreground `run`: the parsed config stays in the store for the
         * hooks of start and delete (rt_store_keep_config) */
        bool keep_config;
        /* foreground `run`: process.terminal without --console-socket is
         * fine, the pty master comes back in rt_created.console_fd */
        bool keep_console;
};

struct rt_created {
        pid_t pid;
        int pidfd;
        int console_fd; /* the pty master with keep_console and a terminal, else -1 */
};

/* Everything `create` does.  On failure nothing is left: no state directory,
 * no process, no mount. */
int rt_container_create(struct rt_store *store, const struct rt_create_opts *opts,
                        struct rt_created *ret, struct bento_err *err);

/* Release a created container's init (exec.fifo).  "container not created"
 * style errors for other states. */
int rt_container_start(struct rt_store *store, const char *id, struct bento_err *err);

/* The same; when it fails after releasing the init, the container is torn
 * down here, and with torn_down its record (with oomKills added, as
 * `state` would have shown it just before) goes to *torn_down, for the
 * caller to free.  *torn_down is untouched otherwise.  When it succeeds
 * and started is not NULL, the record start read under the container's
 * lock goes to *started (the caller frees it): `run` watches the cgroup it
 * names without reading the state file again. */
int rt_container_start_facts(struct rt_store *store, const char *id,
                             struct bento_record **torn_down, struct bento_record **started,
                             struct bento_err *err);

/* Signal the init, or with `all` every process of the container. */
int rt_container_kill(struct rt_store *store, const char *id, int sig, bool all,
                      struct bento_err *err);

/* Delete: refuses a running container unless force; kills it with force. */
int rt_container_delete(struct rt_store *store, const char *id, bool force, struct bento_err *err);

/* The same, and (when ret_oom_kills is not NULL) the OOM kills counted in
 * the container's cgroup just before it went (rt_cgroup_oom_kills): what
 * `run` reports after its container ended, from one look at the record.
 * With ret_rec, the record delete read under the container's lock, with
 * oomKills added before the cgroup went (as `state` would have shown it
 * just before), goes to *ret_rec for the caller to free (NULL when there
 * was none): `run --report` takes it rather than reading it once more. */
int rt_container_delete_counting(struct rt_store *store, const char *id, bool force,
                                 long *ret_oom_kills, struct bento_record **ret_rec,
                                 struct bento_err *err);

#endif
