/* SPDX-License-Identifier: Apache-2.0 */
/* State root and per-container state directories (see store.h). */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cleanup.h"
#include "fileio.h"
#include "base/proc.h"
#include "base/rootless.h"

#define RECORD_NAME "state.json"
#define CONFIG_NAME "config.json"
#define FIFO_NAME   "exec.fifo"

static int mkdir_parents(char *path, mode_t mode)
{
        for (char *p = path + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(path, mode) < 0 && errno != EEXIST) {
                        *p = '/';
                        return -errno;
                }
                *p = '/';
        }
        if (mkdir(path, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

char *rt_store_default_root(void)
{
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        char *r = NULL;

        if (xdg && xdg[0] == '/' && rt_rootless_state_dir()) {
                if (asprintf(&r, "%s/bento-runtime", xdg) < 0)
                        return NULL;
                return r;
        }
        return strdup("/run/bento-runtime");
}

int rt_store_open(const char *root_option, struct rt_store *ret, struct bento_err *err)
{
        cleanup_free char *root = NULL;
        cleanup_free char *abs = NULL;

        root = root_option ? strdup(root_option) : rt_store_default_root();
        if (!root)
                return bento_err_set(err, ENOMEM, "state root");
        if (root[0] != '/') {
                char cwd[PATH_MAX];
                if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, root) < 0)
                        return bento_err_set(err, errno ? errno : ENOMEM, "state root '%s'", root);
                free(root);
                root = TAKE_PTR(abs);
        }
        /* it exists after the first container: no mkdir per component */
        ret->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (ret->root_fd < 0 && errno == ENOENT) {
                int r = mkdir_parents(root, 0700);

                if (r < 0)
                        return bento_err_set(err, -r, "cannot create state root '%s'", root);
                ret->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        if (ret->root_fd < 0)
                return bento_err_set(err, errno, "cannot open state root '%s'", root);
        ret->root = TAKE_PTR(root);
        return 0;
}

void rt_store_close(struct rt_store *store)
{
        free(store->root);
        store->root = NULL;
        if (store->root_fd >= 0)
                close(store->root_fd);
        store->root_fd = -1;
        oci_config_free(store->kept_cfg);
        store->kept_cfg = NULL;
        free(store->kept_id);
        store->kept_id = NULL;
}

void rt_store_keep_config(struct rt_store *store, const char *id, struct oci_config *cfg)
{
        char *copy = strdup(id);

        oci_config_free(store->kept_cfg);
        free(store->kept_id);
        store->kept_cfg = copy ? cfg : NULL;
        store->kept_id = copy;
        if (!copy)
                oci_config_free(cfg); /* the saved copy is read then */
}

int rt_id_validate(const char *id, struct bento_err *err)
{
        size_t len = strlen(id);

        if (len == 0 || len > RT_ID_MAX)
                return bento_err_setx(err, EINVAL, "invalid container id: must be 1 to %d bytes",
                                      RT_ID_MAX);
        if (id[0] == '.')
                return bento_err_setx(err, EINVAL,
                                      "invalid container id '%s': must not start "
                                      "with '.'",
                                      id);
        for (const char *p = id; *p; p++) {
                char c = *p;
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '+' || c == '.' || c == '-'))
                        return bento_err_setx(err, EINVAL,
                                              "invalid container id '%s': only "
                                              "letters, digits and _ + . - are allowed",
                                              id);
        }
        return 0;
}

static int lock_dir(struct rt_container_dir *dir, bool exclusive, const char *id,
                    struct bento_err *err)
{
        struct stat st;

        while (flock(dir->fd, exclusive ? LOCK_EX : LOCK_SH) < 0)
                if (errno != EINTR)
                        return bento_err_set(err, errno, "cannot lock container '%s'", id);
        /* removed by someone else while we waited for the lock */
        if (fstat(dir->fd, &st) < 0 || st.st_nlink == 0)
                return bento_err_setx(err, ENOENT, "container does not exist: %s", id);
        return 0;
}

int rt_container_dir_create(struct rt_store *store, const char *id, struct rt_container_dir *ret,
                            struct bento_err *err)
{
        struct rt_container_dir d = {.path = NULL, .fd = -1};
        int r;

        r = rt_id_validate(id, err);
        if (r < 0)
                return r;
        if (mkdirat(store->root_fd, id, 0700) < 0) {
                if (errno == EEXIST)
                        return bento_err_setx(err, EEXIST, "container already exists: %s", id);
                return bento_err_set(err, errno, "cannot create state directory for '%s'", id);
        }
        d.fd = openat(store->root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d.fd < 0 || asprintf(&d.path, "%s/%s", store->root, id) < 0) {
                r = bento_err_set(err, errno ? errno : ENOMEM, "cannot open state directory");
                unlinkat(store->root_fd, id, AT_REMOVEDIR);
                rt_container_dir_close(&d);
                return r;
        }
        r = lock_dir(&d, true, id, err);
        if (r < 0) {
                rt_container_dir_close(&d);
                return r;
        }
        *ret = d;
        return 0;
}

int rt_container_dir_open(struct rt_store *store, const char *id, bool exclusive,
                          struct rt_container_dir *ret, struct bento_err *err)
{
        struct rt_container_dir d = {.path = NULL, .fd = -1};
        int r;

        r = rt_id_validate(id, err);
        if (r < 0)
                return r;
        d.fd = openat(store->root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d.fd < 0) {
                if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
                        return bento_err_setx(err, ENOENT, "container does not exist: %s", id);
                return bento_err_set(err, errno, "cannot open state of '%s'", id);
        }
        if (asprintf(&d.path, "%s/%s", store->root, id) < 0) {
                d.path = NULL;
                rt_container_dir_close(&d);
                return bento_err_set(err, ENOMEM, "state path");
        }
        r = lock_dir(&d, exclusive, id, err);
        if (r < 0) {
                rt_container_dir_close(&d);
                return r;
        }
        *ret = d;
        return 0;
}

void rt_container_dir_close(struct rt_container_dir *dir)
{
        free(dir->path);
        dir->path = NULL;
        if (dir->fd >= 0)
                close(dir->fd);
        dir->fd = -1;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void rt_store_ids_free(char **ids, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(ids[i]);
        free(ids);
}

int rt_store_ids(const struct rt_store *store, char ***ret, size_t *ret_n, struct bento_err *err)
{
        cleanup_dir DIR *d = opendir(store->root);
        char **names = NULL;
        struct dirent *e;
        size_t n = 0;

        if (!d)
                return bento_err_set(err, errno, "cannot list %s", store->root);
        while ((e = readdir(d))) {
                char **grown;

                if (e->d_name[0] == '.' || e->d_type != DT_DIR)
                        continue;
                grown = realloc(names, (n + 1) * sizeof(*names));
                if (grown)
                        names = grown;
                if (!grown || !(names[n] = strdup(e->d_name))) {
                        rt_store_ids_free(names, n);
                        return bento_err_set(err, ENOMEM, "list");
                }
                n++;
        }
        /* qsort's array must not be NULL, even when empty */
        if (n > 0)
                qsort(names, n, sizeof(*names), compare_names);
        *ret = names;
        *ret_n = n;
        return 0;
}

/* What a writer killed between creating its temporary file and renaming
 * it over state.json or config.json left: recognised by name (the
 * runtime's own pattern, bento_is_temp_name) and removed when it is a
 * regular file, through the directory fd, never following anything.
 * Anything else in the directory stays, and its removal then fails. */
static int remove_temporaries(const struct rt_container_dir *dir, struct bento_err *err)
{
        int fd = openat(dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_dir DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        int r = 0;

        if (!d) {
                if (fd >= 0)
                        close(fd);
                return bento_err_set(err, errno, "cannot list %s", dir->path);
        }
        while ((e = readdir(d))) {
                struct stat st;

                if (!bento_is_temp_name(e->d_name, RECORD_NAME) &&
                    !bento_is_temp_name(e->d_name, CONFIG_NAME))
                        continue;
                if (fstatat(dir->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                if (unlinkat(dir->fd, e->d_name, 0) < 0 && errno != ENOENT)
                        r = bento_err_set(err, errno, "cannot remove %s/%s", dir->path, e->d_name);
        }
        return r;
}

/* Every name that is there goes; the last failure is the answer. */
static int unlink_names(const struct rt_container_dir *dir, const char *const *names, size_t n,
                        struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; i < n; i++)
                if (unlinkat(dir->fd, names[i], 0) < 0 && errno != ENOENT)
                        r = bento_err_set(err, errno, "cannot remove %s/%s", dir->path, names[i]);
        return r;
}

int rt_container_dir_remove(struct rt_store *store, const char *id, struct rt_container_dir *dir,
                            struct bento_err *err)
{
        static const char *const names[] = {RECORD_NAME, CONFIG_NAME, FIFO_NAME};
        /* what older runtimes wrote under a fixed name: only looked for
         * when the directory is not empty without them */
        static const char *const old_names[] = {RECORD_NAME ".tmp", CONFIG_NAME ".tmp"};
        int r = unlink_names(dir, names, sizeof(names) / sizeof(names[0]), err);
        int e = unlinkat(store->root_fd, id, AT_REMOVEDIR) < 0 ? errno : 0;

        if (e == ENOTEMPTY) {
                r = unlink_names(dir, old_names, sizeof(old_names) / sizeof(old_names[0]), err);
                if (r >= 0)
                        r = remove_temporaries(dir, err);
                e = r < 0 ? 0 : unlinkat(store->root_fd, id, AT_REMOVEDIR) < 0 ? errno : 0;
        }
        if (e && e != ENOENT)
                r = bento_err_set(err, e, "cannot remove state directory %s", dir->path);
        rt_container_dir_close(dir);
        return r;
}

static int path_in_dir(const struct rt_container_dir *dir, const char *name, char **ret,
                       struct bento_err *err)
{
        if (asprintf(ret, "%s/%s", dir->path, name) < 0) {
                *ret = NULL;
                return bento_err_set(err, ENOMEM, "state path");
        }
        return 0;
}

int rt_container_record_load(const struct rt_container_dir *dir, struct bento_record **ret,
                             struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        r = bento_read_file_at(dir->fd, RECORD_NAME, BENTO_STATE_MAX_BYTES, &data, &len, err);
        if (r < 0)
                return r;
        r = bento_record_parse(data, len, ret, err);
        if (r < 0)
                return bento_err_prefix(err, "%s/%s", dir->path, RECORD_NAME);
        return 0;
}

int rt_container_record_save(const struct rt_container_dir *dir, const struct bento_record *rec,
                             struct bento_err *err)
{
        cleanup_free char *data = NULL;
        cleanup_free char *path = NULL;
        size_t len = 0;
        int r;

        r = bento_record_write(rec, &data, &len, err);
        if (r < 0)
                return r;
        r = path_in_dir(dir, RECORD_NAME, &path, err);
        if (r < 0)
                return r;
        return bento_write_file_atomic(path, data, len, 0600, err);
}

int rt_container_config_load(const struct rt_container_dir *dir, struct oci_config **ret,
                             struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        r = bento_read_file_at(dir->fd, CONFIG_NAME, OCI_CONFIG_MAX_BYTES, &data, &len, err);
        if (r < 0)
                return r;
        r = oci_config_parse(data, len, ret, err);
        if (r < 0)
                return bento_err_prefix(err, "%s/%s", dir->path, CONFIG_NAME);
        return 0;
}

/* A JSON object key equal to "hooks" is spelled out, quotes and all, or
 * uses a \u escape: no other escape makes a letter.  The quotes matter:
 * bento's own annotations (run.oci.hooks.stdout) hold the bare word, and
 * without them every start and delete parsed the whole config again. */
static bool may_name_hooks(const char *data, size_t len)
{
        return memmem(data, len, "\"hooks\"", 7) || memmem(data, len, "\\u", 2);
}

int rt_container_hooks_config_load(const struct rt_container_dir *dir, struct oci_config **ret,
                                   struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        *ret = NULL;
        r = bento_read_file_at(dir->fd, CONFIG_NAME, OCI_CONFIG_MAX_BYTES, &data, &len, err);
        if (r < 0 || !may_name_hooks(data, len))
                return r < 0 ? r : 0;
        r = oci_config_parse(data, len, ret, err);
        if (r < 0)
                return bento_err_prefix(err, "%s/%s", dir->path, CONFIG_NAME);
        return 0;
}

int rt_container_hooks_config(const struct rt_store *store, const char *id,
                              const struct rt_container_dir *dir, const struct oci_config **ret,
                              struct oci_config **owned, struct bento_err *err)
{
        int r;

        *owned = NULL;
        if (store->kept_cfg && strcmp(store->kept_id, id) == 0) {
                *ret = store->kept_cfg;
                return 0;
        }
        r = rt_container_hooks_config_load(dir, owned, err);
        *ret = *owned;
        return r;
}

int rt_container_config_save(const struct rt_container_dir *dir, const char *data, size_t len,
                             struct bento_err *err)
{
        cleanup_free char *path = NULL;
        int r;

        r = path_in_dir(dir, CONFIG_NAME, &path, err);
        if (r < 0)
                return r;
        return bento_write_file_atomic(path, data, len, 0600, err);
}

bool rt_container_has_fifo(const struct rt_container_dir *dir)
{
        return faccessat(dir->fd, FIFO_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

enum bento_status rt_container_status(const struct rt_container_dir *dir,
                                      const struct bento_record *rec)
{
        if (!rec || rec->creating)
                return BENTO_STATUS_CREATING;
        if (!rt_proc_matches(rec->pid, rec->start_time))
                return BENTO_STATUS_STOPPED;
        if (rt_container_has_fifo(dir))
                return BENTO_STATUS_CREATED;
        if (rt_cgroup_is_frozen(rec) == 1)
                return BENTO_STATUS_PAUSED;
        return BENTO_STATUS_RUNNING;
}
