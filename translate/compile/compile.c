/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bundle as a whole: config.json's top level (root, hostname, hooks,
 * annotations) around the parts the other compile-*.c files write, and
 * the files beside it.  Everything is written in a fixed order from
 * sorted inputs, so the output is byte-for-byte reproducible.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "exec-gate-socket.h"
#include "internal.h"
#include "fileio.h"
#include "policy/mount-points.h"
#include "manifest/path.h"

#define OCI_VERSION "1.0.2"

/* bento's own program, asked of the kernel once (it was six readlink(2)
 * calls a run, one per helper named); the host probe asks from its own
 * thread.  A mutex rather than pthread_once(), which wakes waiters with a
 * system call even when there are none. */
static void self_exe(char *buf, size_t size)
{
        static char known[4096];
        static bool have;
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

        pthread_mutex_lock(&lock);
        if (!have) {
                ssize_t len = readlink("/proc/self/exe", known, sizeof(known) - 1);

                if (len > 0)
                        known[len] = '\0';
                else /* no /proc */
                        snprintf(known, sizeof(known), "/usr/local/bin/bento");
                have = true;
        }
        snprintf(buf, size, "%s", known);
        pthread_mutex_unlock(&lock);
}

/* The path given in env_name when it is absolute, else rel under the directory
 * `up` levels above bento's own (0: bento's directory), or under /usr/local/bin's
 * when bento cannot name itself. */
static char *installed_path(const char *env_name, int up, const char *rel)
{
        const char *given = getenv(env_name);
        char self[4096];

        if (given && given[0] == '/')
                return strdup(given);
        self_exe(self, sizeof(self));
        for (int i = 0; i <= up; i++) {
                char *slash = strrchr(self, '/');

                if (slash && slash != self)
                        *slash = '\0';
        }
        return path_join(self, rel);
}

char *compile_helper_path(const char *env_name, const char *program)
{
        return installed_path(env_name, 0, program);
}

char *compile_library_path(const char *env_name, const char *library)
{
        cleanup_free char *rel = path_join("lib/bento", library);

        return rel ? installed_path(env_name, 1, rel) : NULL;
}

static void write_egress_hook(struct bento_jsonw *w, const struct manifest *m,
                              const struct compile_opts *o, const char *egress_hook)
{
        bento_jsonw_key(w, "createRuntime");
        bento_jsonw_open_array(w);
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "path", egress_hook);
        bento_jsonw_key(w, "args");
        bento_jsonw_open_array(w);
        bento_jsonw_string(w, "bento-egress");
        for (size_t i = 0; i < m->n_network; i++) {
                cleanup_free char *rule = NULL;

                if (asprintf(&rule, "%s:%s", m->network[i].host, m->network[i].port) < 0) {
                        bento_jsonw_fail(w, -ENOMEM, "hooks");
                        return;
                }
                bento_jsonw_string(w, "--allow");
                bento_jsonw_string(w, rule);
        }
        if (o->egress_report) {
                bento_jsonw_string(w, "--report");
                bento_jsonw_string(w, o->egress_report);
        }
        if (o->network_gate) {
                bento_jsonw_string(w, "--gate");
                bento_jsonw_string(w, o->network_gate);
        }
        if (o->network_gate && o->network_gate_timeout > 0) {
                char s[16];

                snprintf(s, sizeof(s), "%d", o->network_gate_timeout);
                bento_jsonw_string(w, "--gate-timeout");
                bento_jsonw_string(w, s);
        }
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
        bento_jsonw_close_array(w);
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": after the container is gone, remove the mount points its
 * shields created on the host, for runtimes other than `bento run`: one group per write grant, with
 * the grant's identity now, so that the hook acts on no grant that was replaced since
 * (policy/mount-points.h). */
static void write_cleanup_hook(struct bento_jsonw *w, const struct mount_points *mp)
{
        cleanup_free char *self = compile_helper_path("BENTO_SELF", "bento");

        bento_jsonw_key(w, "poststop");
        bento_jsonw_open_array(w);
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "path", self);
        bento_jsonw_key(w, "args");
        bento_jsonw_open_array(w);
        bento_jsonw_string(w, "bento");
        bento_jsonw_string(w, COMPILE_CLEANUP_VERB);
        for (size_t i = 0; i < mp->n; i++) {
                const struct mount_point *m = &mp->v[i];

                if (i == 0 || strcmp(m->grant, mp->v[i - 1].grant) != 0) {
                        char id[48];

                        mount_points_format_id(&m->grant_id, id);
                        bento_jsonw_string(w, MOUNT_POINTS_BENEATH);
                        bento_jsonw_string(w, m->grant);
                        bento_jsonw_string(w, id);
                }
                bento_jsonw_string(w, m->path);
        }
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
        bento_jsonw_close_array(w);
}

/* Under none-strict bento-init's one fork needs the gate (seccomp.c). */
bool compile_has_init(const struct policy *p, const struct compile_opts *o)
{
        return !o->profile && (p->m->exec != MANIFEST_EXEC_NONE_STRICT || !o->no_exec_gate);
}

bool compile_has_egress(const struct policy *p, const struct compile_opts *o)
{
        return p->m->n_network > 0 || o->network_gate || (o->profile && o->profile->egress);
}

void compile_write_hooks(struct bento_jsonw *w, const struct policy *p,
                         const struct compile_opts *o, const char *egress_hook)
{
        struct mount_points points = {0};
        struct bento_err err = {0};

        if (o->mount_point_hook && mount_points_list(p, &points, &err) < 0) {
                bento_jsonw_fail(w, -err.code, "%s", err.msg);
                return;
        }
        if (compile_has_egress(p, o) || points.n > 0) {
                bento_jsonw_key(w, "hooks");
                bento_jsonw_open_object(w);
                if (compile_has_egress(p, o))
                        write_egress_hook(w, p->m, o, egress_hook);
                if (points.n > 0)
                        write_cleanup_hook(w, &points);
                bento_jsonw_close_object(w);
        }
        mount_points_done(&points);
}

static void write_annotations(struct bento_jsonw *w, const struct policy *p,
                              const struct compile_opts *o, const char *identities)
{
        const char *slash = strrchr(p->m->path, '/');
        cleanup_free char *manifest = path_join(p->base, slash ? slash + 1 : p->m->path);

        bento_jsonw_key(w, "annotations");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring_opt(w, "org.bento.approval", o->approval);
        bento_jsonw_kstring(w, "org.bento.exec", manifest_exec_to_string(p->m->exec));
        /* the gate's socket in the bundle, found again after a move */
        if (p->m->exec != MANIFEST_EXEC_ALL && !o->listener_path)
                bento_jsonw_kstring(w, BENTO_GATE_SOCKET_ANNOTATION, COMPILE_GATE_SOCKET);
        bento_jsonw_kstring_opt(w, "org.bento.fingerprint", o->fingerprint);
        bento_jsonw_kstring(w, "org.bento.manifest", manifest); /* NULL fails the writer */
        bento_jsonw_kstring(w, BENTO_MOUNT_IDENTITY_ANNOTATION, identities); /* likewise */
        bento_jsonw_kstring(w, "org.bento.tier", "full");
        bento_jsonw_kstring(w, "org.bento.version", BENTO_VERSION);
        bento_jsonw_kstring_opt(w, "run.oci.hooks.stderr", o->hooks_log);
        bento_jsonw_kstring_opt(w, "run.oci.hooks.stdout", o->hooks_log);
        bento_jsonw_close_object(w);
}

/* The exec gate listens on a unix socket at linux.seccomp.listenerPath: a
 * path longer than a socket address holds would make a bundle that can
 * never start, so it is refused here, before anything is written. */
static int check_listener(const struct policy *p, const struct compile_opts *o,
                          struct bento_err *err)
{
        struct sockaddr_un sa;
        cleanup_free char *own = NULL;
        const char *path = o->listener_path;

        if (p->m->exec == MANIFEST_EXEC_ALL)
                return 0;
        if (!path) {
                own = path_join(o->bundle_dir, COMPILE_GATE_SOCKET);
                if (!own)
                        return bento_err_set(err, ENOMEM, "bundle");
                path = own;
        }
        if (strlen(path) < sizeof(sa.sun_path))
                return 0;
        return bento_err_setx(err, ENAMETOOLONG,
                              "the exec gate's socket \"%s\" would be longer than a unix socket "
                              "address can be (%zu bytes); write the bundle to a shorter path",
                              path, sizeof(sa.sun_path) - 1);
}

int compile_config_planned(const struct policy *p, const struct compile_opts *o,
                           struct compile_output *ret, struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_strv char **env = NULL;
        cleanup_free char *egress = NULL, *identities = NULL;
        struct compile_plan plan = {0};
        int r;

        if (!p->entrypoint.exists)
                return bento_err_set(err, ENOENT, "entrypoint \"%s\" does not exist on this host",
                                     p->entrypoint.expanded);
        r = check_listener(p, o, err);
        if (r >= 0)
                r = compile_env(p, o, &env, err);
        if (r < 0)
                return r;
        egress = o->egress_hook ? strdup(o->egress_hook)
                                : compile_helper_path("BENTO_EGRESS", "bento-egress");
        if (!egress)
                return bento_err_set(err, ENOMEM, "bundle");
        r = compile_plan_mounts(p, o, &plan, err);
        if (r >= 0 && !(identities = compile_mount_identities(&plan)))
                r = bento_err_set(err, ENOMEM, "bundle");
        if (r >= 0)
                r = bento_jsonw_init(&w, true, err);
        if (r < 0) {
                compile_plan_done(&plan);
                return r;
        }
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "ociVersion", OCI_VERSION);
        bento_jsonw_key(&w, "root");
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "path", o->rootfs_dir ? o->rootfs_dir : COMPILE_ROOTFS);
        bento_jsonw_kbool(&w, "readonly", true);
        bento_jsonw_close_object(&w);
        bento_jsonw_kstring(&w, "hostname", "bento");
        compile_write_process(&w, p, o, env);
        compile_write_mounts(&w, &plan);
        compile_write_hooks(&w, p, o, egress);
        write_annotations(&w, p, o, identities);
        compile_write_linux(&w, p, o);
        bento_jsonw_close_object(&w);
        ret->symlinks = TAKE_PTR(plan.symlinks);
        ret->n_symlinks = plan.n_symlinks;
        plan.n_symlinks = 0;
        compile_plan_done(&plan);
        return bento_jsonw_finish(&w, &ret->config, &ret->len);
}

void compile_output_done(struct compile_output *out)
{
        struct compile_plan links = {.symlinks = out->symlinks, .n_symlinks = out->n_symlinks};

        compile_plan_done(&links);
        free(out->config);
        *out = (struct compile_output){0};
}

int compile_config(const struct policy *p, const struct compile_opts *o, char **ret,
                   size_t *ret_len, struct bento_err *err)
{
        cleanup_compile_output struct compile_output out = {0};
        int r = compile_config_planned(p, o, &out, err);

        if (r < 0)
                return r;
        *ret = TAKE_PTR(out.config);
        *ret_len = out.len;
        return 0;
}

/* A directory is ours to write into when it is empty or holds only what a
 * bundle holds. */
static int check_bundle_dir(const char *dir, struct bento_err *err)
{
        static const char *const ours[] = {COMPILE_CONFIG, COMPILE_ROOTFS, COMPILE_SHIELD_FILE,
                                           COMPILE_SHIELD_DOT, COMPILE_GATE_SOCKET};
        cleanup_dir DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return bento_err_set(err, errno, "cannot open the bundle directory \"%s\"", dir);
        while ((de = readdir(d))) {
                bool known = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;

                for (size_t i = 0; !known && i < sizeof(ours) / sizeof(ours[0]); i++)
                        known = strcmp(de->d_name, ours[i]) == 0;
                if (!known)
                        return bento_err_setx(err, EEXIST,
                                              "\"%s\" holds \"%s\", which is not part of a bento "
                                              "bundle; choose an empty or new directory",
                                              dir, de->d_name);
        }
        return 0;
}

int compile_check_bundle_dir(const char *dir, struct bento_err *err)
{
        char parent[4096];
        struct stat st;
        char *slash;

        if (lstat(dir, &st) == 0 || errno != ENOENT)
                return check_bundle_dir(dir, err);
        /* compile_bundle() creates the directory itself, not its parents */
        if (snprintf(parent, sizeof(parent), "%s", dir) >= (int) sizeof(parent))
                return bento_err_setx(err, ENAMETOOLONG, "the bundle path \"%s\" is too long", dir);
        slash = strrchr(parent, '/');
        if (slash)
                *(slash == parent ? slash + 1 : slash) = '\0';
        if (stat(slash ? parent : ".", &st) < 0)
                return bento_err_set(err, errno, "cannot create the bundle directory \"%s\"", dir);
        if (!S_ISDIR(st.st_mode))
                return bento_err_set(err, ENOTDIR, "cannot create the bundle directory \"%s\"",
                                     dir);
        return 0;
}

/* mkdir -p inside rootfs for a symlink's parent, then the link itself. */
static int make_symlink(int rootfd, const struct compile_symlink *s, struct bento_err *err)
{
        cleanup_free char *rel = strdup(s->name + 1);
        char existing[4096];
        ssize_t len;

        if (!rel)
                return bento_err_set(err, ENOMEM, "rootfs");
        for (char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                if (mkdirat(rootfd, rel, 0755) < 0 && errno != EEXIST)
                        return bento_err_set(err, errno, "cannot create \"%s\" in the rootfs", rel);
                *slash = '/';
        }
        if (symlinkat(s->target, rootfd, rel) == 0)
                return 0;
        len = readlinkat(rootfd, rel, existing, sizeof(existing) - 1);
        if (len >= 0) {
                existing[len] = '\0';
                if (strcmp(existing, s->target) == 0)
                        return 0;
        }
        return bento_err_set(err, errno ? errno : EEXIST,
                             "cannot create the symlink \"%s\" in the rootfs", s->name);
}

static int write_rootfs(int dirfd, const struct compile_opts *o, const struct compile_output *out,
                        struct bento_err *err)
{
        cleanup_close int rootfd = -1;

        if (!o->rootfs_dir && mkdirat(dirfd, COMPILE_ROOTFS, 0755) < 0 && errno != EEXIST)
                return bento_err_set(err, errno, "cannot create the rootfs directory");
        rootfd =
            o->rootfs_dir
                ? open(o->rootfs_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                : openat(dirfd, COMPILE_ROOTFS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rootfd < 0)
                return bento_err_set(err, errno, "cannot open the rootfs directory");
        for (size_t i = 0; i < out->n_symlinks; i++) {
                int r = make_symlink(rootfd, &out->symlinks[i], err);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* The empty file that file shields bind read-only (docs/manifest.md, "CREDENTIAL SHIELDS").  Its
 * mode is 0600, not 0400: the mount makes it read-only, and an owner-writable file lets a write
 * inside the sandbox fail the way docs/manifest.md says, with EROFS from the mount, instead of
 * EACCES from the file's mode. */
static int write_shield_file(int dirfd, struct bento_err *err)
{
        cleanup_close int fd =
            openat(dirfd, COMPILE_SHIELD_FILE, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "cannot create the shield file");
        if (!S_ISREG(st.st_mode) || st.st_size != 0)
                return bento_err_set(err, EEXIST,
                                     "the bundle's shield file is not an empty regular file");
        if (fchmod(fd, 0600) < 0)
                return bento_err_set(err, errno, "cannot set the shield file's mode");
        return 0;
}

/* The file a missing git commondir is bound to: "." keeps the gitdir its
 * own common dir, where an empty file would make git stop. */
static int write_dot_file(int dirfd, struct bento_err *err)
{
        int r = bento_write_file_atomic_at(dirfd, COMPILE_SHIELD_DOT, ".\n", 2, 0600, err);

        return r < 0 ? bento_err_prefix(err, "the bundle's %s file", COMPILE_SHIELD_DOT) : 0;
}

int compile_bundle(const struct policy *p, const struct compile_opts *o, struct bento_err *err)
{
        cleanup_compile_output struct compile_output out = {0};
        int r;

        r = compile_config_planned(p, o, &out, err);
        if (r < 0)
                return r;
        return compile_bundle_with(o, &out, err);
}

int compile_bundle_with(const struct compile_opts *o, const struct compile_output *out,
                        struct bento_err *err)
{
        cleanup_close int dirfd = -1;
        bool made = mkdir(o->bundle_dir, 0700) == 0;
        int r;

        if (!made && errno != EEXIST)
                return bento_err_set(err, errno, "cannot create the bundle directory \"%s\"",
                                     o->bundle_dir);
        /* one that was there may hold what is not a bundle's; one just made
         * is empty (bento run's always is) */
        r = made ? 0 : check_bundle_dir(o->bundle_dir, err);
        if (r < 0)
                return r;
        dirfd = open(o->bundle_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return bento_err_set(err, errno, "cannot open \"%s\"", o->bundle_dir);
        r = write_rootfs(dirfd, o, out, err);
        if (r >= 0)
                r = write_shield_file(dirfd, err);
        if (r >= 0)
                r = write_dot_file(dirfd, err);
        if (r >= 0)
                r = bento_write_file_atomic_at(dirfd, COMPILE_CONFIG, out->config, out->len, 0600,
                                               err);
        return r;
}
