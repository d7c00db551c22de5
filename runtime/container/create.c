/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `create`: read and check the bundle, make the state directory and
 * exec.fifo, clone the init through the handshake, record what was applied.
 * Any failure undoes everything made so far.
 */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "base/log.h"
#include "process/landlock.h"
#include "mount/mounts.h"
#include "mount/shared-root.h"
#include "namespace/namespaces.h"
#include "agent.h"
#include "notify.h"
#include "pidfile.h"
#include "base/proc.h"
#include "base/rootless.h"
#include "process/attrs.h"
#include "process/process.h"
#include "record.h"
#include "seccomp/seccomp.h"
#include "spawn.h"

/* Layers bento-runtime cannot enforce: refusing them is the only honest
 * answer (a container must never run with a requested guarantee dropped).
 * Hooks, seccomp, cgroups, Landlock and the process attributes
 * (process/attrs.h) are checked by their own modules. */
static int refuse_unsupported(const struct oci_config *cfg, struct bento_err *err)
{
        if (cfg->n_unmodelled)
                return bento_err_setx(err, ENOTSUP,
                                      "%s: not supported by bento-runtime; "
                                      "refusing to run without it",
                                      cfg->unmodelled[0]);
        return 0;
}

static int check_config(const struct oci_config *cfg, const struct rt_create_opts *opts,
                        struct bento_err *err)
{
        char warnings[2048] = "";
        int r;

        if (!cfg->process)
                return bento_err_setx(err, EINVAL,
                                      "process: missing; the container would have "
                                      "nothing to run");
        if (!cfg->has_linux)
                return bento_err_setx(err, EINVAL,
                                      "linux: missing; bento-runtime runs Linux "
                                      "containers only");
        r = refuse_unsupported(cfg, err);
        if (r < 0)
                return r;
        /* as runc: a socket nothing would ever be sent to is a mistake */
        if (!cfg->process->terminal && opts->console_socket)
                return bento_err_setx(err, EINVAL,
                                      "--console-socket given but process.terminal is false: "
                                      "there is no terminal to send to it");
        if (cfg->process->terminal && !opts->console_socket && !opts->keep_console)
                return bento_err_setx(err, EINVAL,
                                      "process.terminal is true: --console-socket "
                                      "is required");
        r = rt_landlock_validate(cfg->process, err);
        if (r < 0)
                return r;
        r = rt_mounts_validate(cfg, err);
        if (r < 0)
                return r;
        r = rt_process_validate(cfg, warnings, sizeof(warnings), err);
        if (r < 0)
                return r;
        for (char *save = NULL, *w = strtok_r(warnings, "\n", &save); w;
             w = strtok_r(NULL, "\n", &save))
                rt_log_warning("%s", w);
        return 0;
}

static int check_preserved_fds(int n, struct bento_err *err)
{
        for (int fd = 3; fd < 3 + n; fd++)
                if (fcntl(fd, F_GETFD) < 0)
                        return bento_err_setx(err, EBADF, "--preserve-fds %d: fd %d is not open", n,
                                              fd);
        return 0;
}

static int resolve_rootfs(const char *bundle, const struct oci_config *cfg, char **ret,
                          struct bento_err *err)
{
        cleanup_free char *joined = NULL;
        char real[PATH_MAX];
        struct stat st;

        if (cfg->root.path[0] == '/')
                joined = strdup(cfg->root.path);
        else if (asprintf(&joined, "%s/%s", bundle, cfg->root.path) < 0)
                joined = NULL;
        if (!joined)
                return bento_err_set(err, ENOMEM, "root.path");
        if (!realpath(joined, real))
                return bento_err_set(err, errno, "root.path: '%s'", joined);
        if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                return bento_err_setx(err, ENOTDIR, "root.path: '%s' is not a directory", real);
        *ret = strdup(real);
        return *ret ? 0 : bento_err_set(err, ENOMEM, "root.path");
}

struct create_job {
        const struct rt_create_opts *opts;
        char *state_path; /* <root>/<id>, before it exists */
        struct rt_notify notify;
        char *bundle;
        char *rootfs;
        char *config_data;
        size_t config_len;
        struct oci_config *cfg;
        struct rt_container_dir dir;
        char *fifo_path;
        struct rt_ns_plan plan;
        struct rt_seccomp *seccomp;
        struct rt_shared_root shared_root;
};

static int load_bundle(struct create_job *job, struct bento_err *err)
{
        char real[PATH_MAX];
        cleanup_free char *config_path = NULL;
        int r;

        if (!realpath(job->opts->bundle ? job->opts->bundle : ".", real))
                return bento_err_set(err, errno, "--bundle '%s'",
                                     job->opts->bundle ? job->opts->bundle : ".");
        job->bundle = strdup(real);
        /* --config names a file from the caller's directory, as crun reads it */
        if (job->opts->config)
                config_path = strdup(job->opts->config);
        else if (asprintf(&config_path, "%s/config.json", real) < 0)
                config_path = NULL;
        if (!job->bundle || !config_path)
                return bento_err_set(err, ENOMEM, "bundle");
        r = bento_read_file(config_path, OCI_CONFIG_MAX_BYTES, &job->config_data, &job->config_len,
                            err);
        if (r < 0)
                return r;
        r = oci_config_parse(job->config_data, job->config_len, &job->cfg, err);
        if (r < 0)
                return bento_err_prefix(err, "%s", config_path);
        /* before the checks, which then see the mount and variable it adds */
        r = rt_notify_plan(job->cfg, job->state_path, &job->notify, err);
        if (r < 0)
                return r;
        r = check_config(job->cfg, job->opts, err);
        if (r >= 0)
                r = rt_process_attrs_prepare(job->cfg->process, &job->cfg->linux_, false, err);
        if (r < 0)
                return bento_err_prefix(err, "%s", config_path);
        r = check_preserved_fds(job->opts->preserve_fds, err);
        if (r < 0)
                return r;
        return resolve_rootfs(job->bundle, job->cfg, &job->rootfs, err);
}

/* What `create` writes that does not need the init: done while the init
 * sets itself up (rt_spawn_opts.meanwhile). */
static int do_early_work(void *arg, struct bento_err *err)
{
        struct create_job *job = arg;

        return rt_container_config_save(&job->dir, job->config_data, job->config_len, err);
}

/* Intent first (rt_intent): the record, marked "creating", is rewritten
 * before each resource is made, so a kill at any point leaves one that
 * names everything that may exist. */
struct create_intent {
        struct rt_intent ops;
        const struct rt_context *ctx;
        const struct rt_container_dir *dir;
        struct bento_record *rec;
};

static int intend_cgroup(struct rt_intent *in, const struct bento_json *cgroup, const char *primary,
                         struct bento_err *err)
{
        struct create_intent *ci = (struct create_intent *) in;
        int r = rt_record_intend_cgroup(ci->rec, cgroup, primary, err);

        return r < 0 ? r : rt_container_record_save(ci->dir, ci->rec, err);
}

static int intend_shared_root(struct rt_intent *in, const struct bento_json *desc,
                              struct bento_err *err)
{
        struct create_intent *ci = (struct create_intent *) in;
        int r = rt_record_intend_shared_root(ci->rec, desc, err);

        return r < 0 ? r : rt_container_record_save(ci->dir, ci->rec, err);
}

static int intend_pid(struct rt_intent *in, pid_t pid, struct bento_err *err)
{
        struct create_intent *ci = (struct create_intent *) in;
        int r = rt_record_intend_pid(ci->ctx, pid, ci->rec, err);

        return r < 0 ? r : rt_container_record_save(ci->dir, ci->rec, err);
}

static int spawn_and_record(struct create_job *job, struct rt_context *ctx, struct rt_created *ret,
                            struct bento_err *err)
{
        cleanup_bento_record struct bento_record *rec = NULL;
        struct create_intent intent = {
            .ops = {.cgroup = intend_cgroup, .pid = intend_pid, .shared_root = intend_shared_root},
            .ctx = ctx,
            .dir = &job->dir};
        struct rt_spawn_opts so = {.console_socket = job->opts->console_socket,
                                   .keep_console =
                                       job->opts->keep_console && !job->opts->console_socket,
                                   .fifo_path = job->fifo_path,
                                   .meanwhile = do_early_work,
                                   .meanwhile_arg = job};
        struct rt_spawned sp = {.pid = 0, .pidfd = -1, .console_fd = -1};
        int r;

        r = rt_record_start(ctx, &rec, err);
        if (r < 0)
                return r;
        intent.rec = rec;
        ctx->intent = &intent.ops;
        r = rt_spawn_init(ctx, &job->plan, &so, &sp, err);
        ctx->intent = NULL;
        if (r < 0)
                return r;
        r = rt_record_finish(ctx, sp.pid, &sp.cgroup, rec, err);
        if (r >= 0)
                r = rt_container_record_save(&job->dir, rec, err);
        if (r >= 0 && job->opts->pid_file)
                r = rt_pid_file_write(job->opts->pid_file, sp.pid, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_pidfd_signal(sp.pidfd, 9, &ignored);
                (void) rt_pidfd_wait_exit(sp.pidfd, 5000);
                close(sp.pidfd);
                if (sp.console_fd >= 0)
                        close(sp.console_fd);
                if (sp.cgroup.path)
                        (void) rt_cgroup_info_remove(&sp.cgroup, &ignored);
                rt_cgroup_info_done(&sp.cgroup);
                (void) rt_shared_root_remove(ctx->shared_root, &ignored);
                return r;
        }
        rt_log_debug("create %s: init %d is set up and waits for start", ctx->id, (int) sp.pid);
        rt_cgroup_info_done(&sp.cgroup);
        ret->pid = sp.pid;
        ret->pidfd = sp.pidfd;
        ret->console_fd = sp.console_fd;
        return 0;
}

/* Where compiled programs are kept: --seccomp-cache, else the default
 * state root's, whatever --root is, so that runs that each get a new
 * --root (bento run) still find the program an earlier one compiled. */
static int open_seccomp_cache(const struct rt_create_opts *opts)
{
        cleanup_free char *root = NULL;
        cleanup_free char *dir = NULL;

        if (opts->seccomp_cache)
                return rt_seccomp_cache_open(opts->seccomp_cache);
        root = rt_store_default_root();
        if (!root || asprintf(&dir, "%s/.cache/seccomp", root) < 0) {
                dir = NULL;
                return -1;
        }
        return rt_seccomp_cache_open(dir);
}

/* Compiled once here, before the clone: the init only installs it. */
static int compile_seccomp(struct create_job *job, struct bento_err *err)
{
        char warnings[2048] = "";
        cleanup_close int cache_fd = -1;
        int r;

        if (job->cfg->linux_.seccomp)
                cache_fd = open_seccomp_cache(job->opts);
        r = rt_seccomp_compile_cached(job->cfg, job->bundle, cache_fd, &job->seccomp, warnings,
                                      sizeof(warnings), err);
        for (char *save = NULL, *w = strtok_r(warnings, "\n", &save); w;
             w = strtok_r(NULL, "\n", &save))
                rt_log_warning("%s", w);
        return r;
}

static void job_free(struct create_job *job)
{
        free(job->bundle);
        free(job->rootfs);
        free(job->config_data);
        free(job->fifo_path);
        free(job->state_path);
        rt_notify_done(&job->notify);
        oci_config_free(job->cfg);
        rt_ns_plan_close(&job->plan);
        rt_container_dir_close(&job->dir);
        rt_seccomp_free(job->seccomp);
        rt_shared_root_done(&job->shared_root);
}

int rt_container_create(struct rt_store *store, const struct rt_create_opts *opts,
                        struct rt_created *ret, struct bento_err *err)
{
        struct create_job job = {.opts = opts, .dir = {.path = NULL, .fd = -1}};
        struct rt_context ctx;
        int r;

        for (int i = 0; i < _OCI_NS_MAX; i++)
                job.plan.join_fd[i] = -1;
        memset(&ctx, 0, sizeof(ctx));
        r = rt_id_validate(opts->id, err);
        if (r >= 0 && asprintf(&job.state_path, "%s/%s", store->root, opts->id) < 0) {
                job.state_path = NULL;
                r = bento_err_set(err, ENOMEM, "state directory");
        }
        if (r >= 0)
                r = load_bundle(&job, err);
        if (r < 0)
                goto out;
        ctx = (struct rt_context){.cfg = job.cfg,
                                  .id = opts->id,
                                  .bundle = job.bundle,
                                  .rootfs = job.rootfs,
                                  .rootless = geteuid() != 0,
                                  .no_pivot = opts->no_pivot,
                                  .no_new_keyring = opts->no_new_keyring,
                                  .preserve_fds = opts->preserve_fds,
                                  .listen_fds = opts->listen_fds};
        r = rt_ns_plan_make(job.cfg, &ctx, &job.plan, err);
        if (r >= 0)
                r = rt_mounts_check_ns(&ctx, err);
        if (r >= 0)
                r = compile_seccomp(&job, err);
        if (r >= 0)
                r = rt_agent_start(job.seccomp, job.cfg, job.bundle, err);
        if (r < 0)
                goto out;
        ctx.seccomp = job.seccomp;
        ctx.systemd_cgroup = opts->systemd_cgroup;
        ctx.no_cgroup = opts->no_cgroup;
        ctx.rootless_cgroups = rt_rootless_cgroups(opts->rootless);
        ctx.notify = &job.notify;
        ctx.shared_root = &job.shared_root;
        rt_log_debug("create %s: bundle %s, rootfs %s, clone flags %#lx%s%s", opts->id, job.bundle,
                     job.rootfs, job.plan.clone_flags,
                     job.plan.any_join ? ", joining namespaces by path" : "",
                     ctx.rootless ? ", rootless" : "");
        r = rt_container_dir_create(store, opts->id, &job.dir, err);
        if (r < 0)
                goto out;
        r = rt_notify_make_dir(job.dir.fd, &job.notify, err);
        if (r >= 0 && asprintf(&job.fifo_path, "%s/exec.fifo", job.dir.path) < 0) {
                job.fifo_path = NULL;
                r = bento_err_set(err, ENOMEM, "exec.fifo");
        } else if (r >= 0 && mkfifo(job.fifo_path, 0600) < 0) {
                r = bento_err_set(err, errno, "cannot make %s", job.fifo_path);
        }
        if (r >= 0)
                r = spawn_and_record(&job, &ctx, ret, err);
        if (r >= 0 && opts->keep_config)
                rt_store_keep_config(store, opts->id, TAKE_PTR(job.cfg));
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_notify_remove(job.dir.fd, NULL, &ignored);
                (void) rt_container_dir_remove(store, opts->id, &job.dir, &ignored);
        }
out:
        job_free(&job);
        return r;
}
