/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state root (`--root`, default /run/bento-runtime, or
 * $XDG_RUNTIME_DIR/bento-runtime when not root on the host, as
 * base/rootless.h decides) and the per-container state
 * directories in it: <root>/<id>/ (0700) holding state.json (the record),
 * config.json (the copy taken at create time; later verbs read this one,
 * never the bundle) and exec.fifo (while the container is "created").
 *
 * Every verb that changes a container holds an exclusive flock on its
 * directory; readers take a shared one.  A directory removed while a caller
 * waited for the lock reads as "container does not exist".
 */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stdbool.h>

#include "err.h"
#include "oci-config.h"
#include "state.h"

#define RT_ID_MAX 1024

struct rt_store {
        char *root;  /* absolute */
        int root_fd; /* O_PATH|O_DIRECTORY */
        /* `run`: the config create parsed, for the hooks of start and
         * delete in the same process, instead of reading and parsing the
         * copy create saved (the same bytes) twice more */
        struct oci_config *kept_cfg;
        char *kept_id;
};

struct rt_container_dir {
        char *path; /* <root>/<id> */
        int fd;     /* O_DIRECTORY, holds the flock */
};

/* The state root without --root (malloc'd; NULL without memory). */
char *rt_store_default_root(void);

/* Resolve and open the state root; creates it (0700) when missing. */
int rt_store_open(const char *root_option, struct rt_store *ret, struct bento_err *err);
void rt_store_close(struct rt_store *store);

/* Keep cfg (taken) as container id's config for this process's later
 * start and delete. */
void rt_store_keep_config(struct rt_store *store, const char *id, struct oci_config *cfg);

/* Container id's config for its hooks: the kept one, else the copy in its
 * state directory dir, then put in *owned for the caller to free.  *ret is
 * NULL when that copy names no hooks at all. */
int rt_container_hooks_config(const struct rt_store *store, const char *id,
                              const struct rt_container_dir *dir, const struct oci_config **ret,
                              struct oci_config **owned, struct bento_err *err);

/* The ids of the containers in the state root (its subdirectories not
 * starting with '.'), sorted; free with rt_store_ids_free. */
int rt_store_ids(const struct rt_store *store, char ***ret, size_t *ret_n, struct bento_err *err);
void rt_store_ids_free(char **ids, size_t n);

/* Container ids: [A-Za-z0-9_+.-], not starting with '.', 1..1024 bytes. */
int rt_id_validate(const char *id, struct bento_err *err);

/* mkdir <root>/<id> and lock it exclusively; "container already exists"
 * (EEXIST) when it does. */
int rt_container_dir_create(struct rt_store *store, const char *id, struct rt_container_dir *ret,
                            struct bento_err *err);

/* Open and lock an existing container dir; "container does not exist"
 * (ENOENT) otherwise. */
int rt_container_dir_open(struct rt_store *store, const char *id, bool exclusive,
                          struct rt_container_dir *ret, struct bento_err *err);

/* Remove everything in the dir and the dir itself, then release it. */
int rt_container_dir_remove(struct rt_store *store, const char *id, struct rt_container_dir *dir,
                            struct bento_err *err);

void rt_container_dir_close(struct rt_container_dir *dir);

/* Read/write files inside the container dir. */
int rt_container_record_load(const struct rt_container_dir *dir, struct bento_record **ret,
                             struct bento_err *err);
int rt_container_record_save(const struct rt_container_dir *dir, const struct bento_record *rec,
                             struct bento_err *err);
int rt_container_config_load(const struct rt_container_dir *dir, struct oci_config **ret,
                             struct bento_err *err);
/* The same for callers that want only the hooks: *ret is left NULL (and
 * 0 returned) when the saved config cannot name any, which spares `start`
 * and `delete` the parse of a config without hooks. */
int rt_container_hooks_config_load(const struct rt_container_dir *dir, struct oci_config **ret,
                                   struct bento_err *err);
int rt_container_config_save(const struct rt_container_dir *dir, const char *data, size_t len,
                             struct bento_err *err);

/* True while exec.fifo exists (created, not yet started). */
bool rt_container_has_fifo(const struct rt_container_dir *dir);

/* Status from the record: a pid that is alive, not a zombie and has the
 * recorded start time is "created" while exec.fifo exists and "running"
 * afterwards (or "paused" when frozen); anything else is "stopped".
 * A dir without a record yet is "creating". */
enum bento_status rt_container_status(const struct rt_container_dir *dir,
                                      const struct bento_record *rec);

#endif
