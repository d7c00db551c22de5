/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container init, from clone() to execve() (see init.h).  Each step is a
 * small named function; on the first failure the init sends the error over
 * the sync socket and exits, and `create` reports it and tears down.
 */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "hooks.h"
#include "process/landlock.h"
#include "mount/shared-root.h"
#include "mount/sources.h"
#include "mount/mounts.h"
#include "namespace/namespaces.h"
#include "process/attrs.h"
#include "process/process.h"
#include "process/env.h"
#include "seccomp/seccomp.h"
#include "sigstate.h"
#include "base/sync.h"
#include "terminal.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the init learns on the way and needs later. */
struct init_state {
        pid_t host_pid;  /* our pid as the runtime sees it (hooks, seccomp agent) */
        int listener_fd; /* connected seccomp agent socket, or -1 */
};

/* Signals the runtime ignored or blocked must not leak into the target:
 * ignored dispositions survive execve. */
static void reset_signals(void)
{
        sigset_t changed, none;

        /* only what is not the default already (sigstate.h) */
        bento_signals_not_default(&changed);
        for (int s = 1; s < NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP && sigismember(&changed, s) == 1)
                        signal(s, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The init inherits every fd `create` had open, among them the locked state
 * directory: close all of them but its own two and the preserved ones, so
 * the lock and anything else of the runtime's cannot outlive `create`. */
static void close_inherited_fds(const struct rt_init_args *a)
{
        unsigned int lo = (unsigned int) (a->sync_fd < a->fifo_fd ? a->sync_fd : a->fifo_fd);
        unsigned int hi = (unsigned int) (a->sync_fd < a->fifo_fd ? a->fifo_fd : a->sync_fd);
        unsigned int first = 3u + (unsigned int) a->ctx->preserve_fds;

        if (first < lo)
                syscall(SYS_close_range, first, lo - 1, 0);
        if (lo + 1 < hi)
                syscall(SYS_close_range, lo + 1, hi - 1, 0);
        syscall(SYS_close_range, hi + 1, ~0U, 0);
}

/* sync #0: the namespaces the clone left to us (rt_init_args.unshare_flags)
 * are made here, while the runtime makes and enters the cgroup: the
 * network namespace above all costs about as much as the cgroup work, so
 * the two overlap.  Nothing here runs container code, forks or makes a
 * file; the cgroup is entered (sync #1) before any of that.  The runtime's
 * RT_SYNC_GO wakes us, which lets the scheduler put us on an idle CPU. */
static int step_own_namespaces(const struct rt_init_args *a, struct bento_err *err)
{
        struct rt_sync_msg m;
        int r;

        if (!a->unshare_flags)
                return 0;
        r = rt_sync_expect(a->sync_fd, RT_SYNC_GO, &m, NULL, err);
        if (r < 0)
                return r;
        if (unshare((int) a->unshare_flags) < 0)
                return bento_err_set(err, errno, "cannot create the container's namespaces");
        if (a->unshare_flags & CLONE_NEWNET)
                return rt_ns_loopback_up(err);
        return 0;
}

/* Write "0" (ourselves) into each of the cgroup "tasks" files the runtime
 * opened for us (rt_cgroup_info.self_fds); closes them. */
static int enter_own_cgroups(const int *fds, size_t n, struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; i < n; i++) {
                if (r == 0 && write(fds[i], "0", 1) != 1)
                        r = bento_err_set(err, errno ? errno : EIO,
                                          "cannot move the container process into its cgroup");
                close(fds[i]);
        }
        return r;
}

/* sync #1: wait until the parent wrote the id maps and made our cgroup,
 * then enter it before anything else. */
static int step_wait_parent(const struct rt_init_args *a, struct init_state *st,
                            struct bento_err *err)
{
        int fds[RT_SYNC_MAX_FDS];
        struct rt_sync_msg m;
        size_t n = 0;
        int r;

        if (rt_sync_recv_fds(a->sync_fd, &m, fds, RT_SYNC_MAX_FDS, &n) < 0)
                return bento_err_setx(err, EPIPE, "the runtime went away during setup");
        if (m.type != RT_SYNC_MAPS_DONE) {
                for (size_t i = 0; i < n; i++)
                        close(fds[i]);
                return bento_err_setx(err, EPROTO, "unexpected setup message %u (wanted %d)",
                                      m.type, (int) RT_SYNC_MAPS_DONE);
        }
        r = enter_own_cgroups(fds, n, err);
        if (r < 0)
                return r;
        st->host_pid = m.code;
        if (a->ctx->new_ns[OCI_NS_USER]) {
                /* become root of the new namespace when root is mapped, so
                 * files made during setup get a mapped owner */
                if (setresgid(0, 0, 0) < 0 && errno != EINVAL)
                        return bento_err_set(err, errno, "setresgid(0) in the user namespace");
                if (setresuid(0, 0, 0) < 0 && errno != EINVAL)
                        return bento_err_set(err, errno, "setresuid(0) in the user namespace");
        }
        return 0;
}

static int step_namespaces(const struct rt_init_args *a, struct bento_err *err)
{
        const struct rt_context *ctx = a->ctx;

        if (ctx->new_ns[OCI_NS_CGROUP] && unshare(CLONE_NEWCGROUP) < 0)
                return bento_err_set(err, errno, "cannot create the cgroup namespace");
        /* (a network namespace made at sync #0 has its loopback up already) */
        if (ctx->new_ns[OCI_NS_NETWORK] && !(a->unshare_flags & CLONE_NEWNET))
                return rt_ns_loopback_up(err);
        return 0;
}

/* sync #2 (init side): report the mounts made and wait while the runtime
 * runs prestart and createRuntime hooks in its own namespaces. */
static int wait_runtime_hooks(const struct rt_init_args *a, struct bento_err *err)
{
        struct rt_sync_msg m;
        int r;

        if (!rt_context_has_runtime_hooks(a->ctx))
                return 0;
        if (rt_sync_send(a->sync_fd, RT_SYNC_MOUNTED, 0, NULL, -1) < 0)
                return bento_err_setx(err, EPIPE, "the runtime went away during setup");
        r = rt_sync_expect(a->sync_fd, RT_SYNC_HOOKS_DONE, &m, NULL, err);
        return r < 0 ? r : 0;
}

/* Hooks run from inside the container (createContainer, startContainer);
 * their state carries our pid as the host sees it, as for the others. */
static int run_container_hooks(const struct rt_context *ctx, const struct init_state *st,
                               enum oci_hook_kind kind, struct bento_err *err)
{
        char *state = NULL;
        int r;

        if (ctx->cfg->n_hooks[kind] == 0)
                return 0;
        r = rt_hooks_state(ctx->cfg, ctx->id, ctx->bundle, BENTO_STATUS_CREATED, st->host_pid,
                           &state, err);
        if (r >= 0)
                r = rt_hooks_run(ctx->cfg, kind, ctx->bundle, state, NULL, 0, err);
        free(state);
        return r;
}

static int step_filesystem(const struct rt_init_args *a, struct init_state *st,
                           struct bento_err *err)
{
        const struct rt_context *ctx = a->ctx;
        cleanup_rt_bind_sources struct rt_bind_sources srcs = RT_BIND_SOURCES_INIT;
        int r;

        /* in a mount namespace shared with others, everything is mounted
         * beneath one tree the runtime has recorded (mount/shared-root.h) */
        r = rt_shared_root_attach(ctx, a->sync_fd, err);
        /* bind sources opened by the runtime, with its credentials */
        if (r >= 0)
                r = rt_bind_sources_fetch(ctx, a->sync_fd, &srcs, err);
        if (r >= 0)
                r = rt_mounts_prepare(ctx, &srcs, err);
        if (r >= 0)
                r = wait_runtime_hooks(a, err);
        /* still before pivot_root: host paths (hook programs, the seccomp
         * agent's socket) are reachable */
        if (r >= 0)
                r = run_container_hooks(ctx, st, OCI_HOOK_CREATE_CONTAINER, err);
        if (r >= 0 && rt_seccomp_has_listener(ctx->seccomp)) {
                r = rt_seccomp_connect_listener(ctx->seccomp, err);
                if (r >= 0)
                        st->listener_fd = r;
        }
        if (r >= 0)
                r = rt_mounts_pivot(ctx, err);
        /* as runc and crun, a missing cwd is made, before / turns
         * read-only; sysctls go in before readonlyPaths (engines list
         * /proc/sys there) */
        if (r >= 0) {
                rt_process_make_cwd(ctx->cfg->process);
                r = rt_sysctl_apply(ctx, err);
        }
        if (r >= 0)
                r = rt_mounts_finish(ctx, err);
        /* HOME, LISTEN_*, stdio owner: inside the finished root, before
         * the identity switch and any seccomp filter (step_process) */
        if (r >= 0)
                r = rt_process_inside(ctx->cfg->process, ctx->listen_fds, err);
        return r;
}

static int step_cwd(const struct oci_process *proc, struct bento_err *err)
{
        if (chdir(proc->cwd) < 0)
                return bento_err_set(err, errno, "process.cwd: cannot enter '%s'", proc->cwd);
        return 0;
}

static const char *env_path(const struct oci_process *proc)
{
        for (size_t i = 0; i < proc->n_env; i++)
                if (strncmp(proc->env[i], "PATH=", 5) == 0)
                        return proc->env[i] + 5;
        return DEFAULT_PATH;
}

/* execvp's search, done before `start` so a missing program fails `create`
 * with the words engines look for ("executable file not found in $PATH"). */
int rt_resolve_executable(const struct oci_process *proc, char *out, size_t size,
                          struct bento_err *err)
{
        const char *name = proc->args[0];
        const char *path;
        int saved = ENOENT;

        if (strchr(name, '/')) {
                if (access(name, X_OK) < 0)
                        return bento_err_set(err, errno, "exec: \"%s\"", name);
                snprintf(out, size, "%s", name);
                return 0;
        }
        for (path = env_path(proc); path;) {
                const char *colon = strchr(path, ':');
                size_t len = colon ? (size_t) (colon - path) : strlen(path);
                struct stat st;

                snprintf(out, size, "%.*s%s%s", (int) len, path, len ? "/" : "", name);
                if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
                        if (access(out, X_OK) == 0)
                                return 0;
                        saved = errno;
                }
                path = colon ? colon + 1 : NULL;
        }
        if (saved == EACCES)
                return bento_err_set(err, EACCES, "exec: \"%s\"", name);
        return bento_err_setx(err, ENOENT, "exec: \"%s\": executable file not found in $PATH",
                              name);
}

static int step_process(const struct rt_init_args *a, char *exe, size_t size, struct bento_err *err)
{
        const struct rt_context *ctx = a->ctx;
        const struct oci_process *proc = ctx->cfg->process;
        int r;

        r = rt_hostname_apply(ctx, err);
        if (r >= 0 && proc->terminal)
                r = rt_terminal_setup(proc, a->sync_fd, err);
        else if (r >= 0 && setsid() < 0)
                r = bento_err_set(err, errno, "setsid");
        if (r >= 0)
                r = rt_rlimits_apply(proc, err);
        if (r >= 0)
                r = rt_keyring_join(ctx, err);
        if (r >= 0)
                r = rt_process_attrs_apply(proc, &ctx->cfg->linux_, false, err);
        if (r >= 0)
                r = rt_identity_apply(
                    proc, rt_seccomp_until_exec(ctx->seccomp, proc->no_new_privileges), err);
        /* after the identity switch: the target's own uid must be able to
         * enter its cwd and execute the program */
        if (r >= 0)
                r = step_cwd(proc, err);
        if (r >= 0)
                r = rt_resolve_executable(proc, exe, size, err);
        return r;
}

/* Keep fds 3 .. 3+preserve-1 for the target, close-on-exec everything else. */
static int step_fds(const struct rt_context *ctx, struct bento_err *err)
{
        unsigned int first = 3u + (unsigned int) ctx->preserve_fds;

        for (unsigned int fd = 3; fd < first; fd++) {
                int fl = fcntl((int) fd, F_GETFD);
                if (fl < 0 || fcntl((int) fd, F_SETFD, fl & ~FD_CLOEXEC) < 0)
                        return bento_err_set(err, errno, "--preserve-fds: fd %u", fd);
        }
        if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return bento_err_set(err, errno, "close_range");
        return 0;
}

/* sync #3: parked until `start` writes one byte into exec.fifo. */
static int wait_for_start(int fifo_fd)
{
        char c;
        ssize_t n;

        do
                n = read(fifo_fd, &c, 1);
        while (n < 0 && errno == EINTR);
        return n == 1 ? 0 : -EPIPE;
}

/* sync #3 passed: startContainer hooks, then Landlock, then the seccomp
 * filter as the very last step before execve, with or without
 * noNewPrivileges.  Nothing of the runtime's runs under the filter but that
 * execve, so a profile need not allow close_range, capset, the fifo's read,
 * landlock_* or the hooks' fork and exec; the exec gate of a bento bundle
 * lets exactly this one execve through. */
static int finish_after_start(const struct rt_context *ctx, const struct init_state *st,
                              struct bento_err *err)
{
        const struct oci_process *proc = ctx->cfg->process;
        int r;

        r = run_container_hooks(ctx, st, OCI_HOOK_START_CONTAINER, err);
        if (r >= 0 && proc->landlock)
                r = rt_landlock_apply(proc->landlock, err);
        if (r >= 0 && ctx->seccomp)
                r = rt_seccomp_install(ctx->seccomp, st->listener_fd, ctx->cfg, ctx->id,
                                       ctx->bundle, st->host_pid, err);
        return r;
}

/* The target could not be executed.  `start` is still waiting on
 * exec.fifo: tell it why, so a target that never ran is reported as the
 * runtime's failure, not as an exit status of the target. */
static _Noreturn void exec_failed(int fifo_fd, const char *exe, int e)
{
        char msg[PATH_MAX + 256];

        snprintf(msg, sizeof(msg), "exec \"%s\": %.200s", exe, strerror(e));
        (void) !write(fifo_fd, msg, strlen(msg));
        fprintf(stderr, "bento-runtime: %s\n", msg);
        _exit(e == ENOENT ? 127 : 126);
}

/* execve wants NULL-terminated vectors; the model keeps (pointer, count). */
static char **null_terminated(char **v, size_t n)
{
        char **out = calloc(n + 1, sizeof(char *));

        if (!out)
                _exit(1);
        for (size_t i = 0; i < n; i++)
                out[i] = v[i];
        return out;
}

void rt_init_main(const struct rt_init_args *a)
{
        const struct rt_context *ctx = a->ctx;
        const struct oci_process *proc = ctx->cfg->process;
        struct init_state st = {.host_pid = 0, .listener_fd = -1};
        struct bento_err err = {0};
        char exe[PATH_MAX];
        int r;

        reset_signals();
        close_inherited_fds(a);
        r = step_own_namespaces(a, &err);
        if (r >= 0)
                r = step_wait_parent(a, &st, &err);
        if (r >= 0)
                r = step_namespaces(a, &err);
        if (r >= 0)
                r = step_filesystem(a, &st, &err);
        if (r >= 0)
                r = step_process(a, exe, sizeof(exe), &err);
        if (r >= 0)
                r = step_fds(ctx, &err);
        if (r < 0) {
                rt_sync_send_err(a->sync_fd, &err);
                _exit(1);
        }
        /* sync #2: fully set up, parked */
        if (rt_sync_send(a->sync_fd, RT_SYNC_READY, 0, NULL, -1) < 0)
                _exit(1);
        close(a->sync_fd);
        if (wait_for_start(a->fifo_fd) < 0)
                _exit(1);
        /* exec.fifo stays open (close-on-exec) until execve: `start` waits
         * for it to close and reads why when it carries a message */
        if (finish_after_start(ctx, &st, &err) < 0) {
                (void) !write(a->fifo_fd, err.msg, strlen(err.msg));
                fprintf(stderr, "bento-runtime: %s\n", err.msg);
                _exit(126);
        }
        execve(exe, null_terminated(proc->args, proc->n_args),
               null_terminated(proc->env, proc->n_env));
        exec_failed(a->fifo_fd, exe, errno);
}
