/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parent side of container creation (see spawn.h).  The init is cloned in
 * one clone3() call with every namespace it creates.  When namespaces must
 * be joined by path, a short-lived intermediate process joins them first
 * and clones the init with CLONE_PARENT, so that the runtime's own
 * namespaces never change.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "hooks.h"
#include "init.h"
#include "base/log.h"
#include "mount/shared-root.h"
#include "mount/sources.h"
#include "base/proc.h"
#include "base/sync.h"
#include "terminal.h"

/* The cgroup namespace is made by the init itself, after it was placed in
 * its cgroup, so that the namespace root is the container's cgroup. */
static uint64_t init_clone_flags(const struct rt_ns_plan *plan)
{
        return plan->clone_flags & ~(uint64_t) CLONE_NEWCGROUP;
}

/* Namespaces the init can as well make itself with unshare() right after
 * the clone (sync #0), in parallel with our cgroup work: the same
 * namespaces, owned by the same user namespace (a new one is still made
 * by the clone, as is the pid namespace, which unshare() would give only
 * to the init's children).  Only for a direct clone: the intermediate of
 * clone_via_intermediate keeps the plain order. */
static unsigned long deferred_flags(const struct rt_ns_plan *plan)
{
        if (plan->any_join)
                return 0;
        return plan->clone_flags & (CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS);
}

__attribute__((noreturn)) static void run_intermediate(const struct rt_context *ctx,
                                                       const struct rt_ns_plan *plan,
                                                       const struct rt_init_args *ia)
{
        struct bento_err err = {0};
        pid_t pid;

        if (rt_ns_join_all(plan, &err) < 0) {
                rt_sync_send_err(ia->sync_fd, &err);
                _exit(1);
        }
        pid = rt_clone3(init_clone_flags(plan) | CLONE_PARENT, NULL);
        if (pid < 0) {
                bento_err_set(&err, errno, "cannot create the container process");
                rt_sync_send_err(ia->sync_fd, &err);
                _exit(1);
        }
        if (pid == 0)
                rt_init_main(ia);
        (void) ctx;
        /* sync #0: tell the runtime the init's pid (same pid namespace) */
        rt_sync_send(ia->sync_fd, RT_SYNC_PID, pid, NULL, -1);
        _exit(0);
}

static int clone_via_intermediate(const struct rt_context *ctx, const struct rt_ns_plan *plan,
                                  int parent_sock, const struct rt_init_args *ia,
                                  struct rt_spawned *ret, struct bento_err *err)
{
        struct rt_sync_msg m;
        pid_t mid;
        int r;

        mid = rt_clone3(0, NULL);
        if (mid < 0)
                return bento_err_set(err, errno, "cannot fork");
        if (mid == 0) {
                close(parent_sock);
                run_intermediate(ctx, plan, ia);
        }
        (void) waitpid(mid, NULL, 0);
        r = rt_sync_expect(parent_sock, RT_SYNC_PID, &m, NULL, err);
        if (r < 0)
                return r;
        ret->pid = m.code;
        ret->pidfd = (int) syscall(SYS_pidfd_open, ret->pid, 0);
        if (ret->pidfd < 0)
                return bento_err_set(err, errno, "pidfd_open of the container process");
        return 0;
}

/* clone3() refuses CLONE_INTO_CGROUP so (before Linux 5.7, or for a
 * cgroup it cannot take a task into that way): the pid is written into
 * cgroup.procs after the clone instead, as before. */
static bool into_cgroup_unsupported(int e)
{
        return e == EINVAL || e == ENOSYS || e == E2BIG || e == EOPNOTSUPP;
}

/* The init starts life in its cgroup2 cgroup when rt_cgroup_prepare made
 * one (sp->cgroup), so that nobody has to move it there later: a move by
 * pid takes cgroup_threadgroup_rwsem for writing, which waits for an RCU
 * grace period (about 10 ms here), while a clone into the cgroup does not. */
static int clone_direct(const struct rt_ns_plan *plan, int parent_sock,
                        const struct rt_init_args *ia, struct rt_spawned *sp, struct bento_err *err)
{
        uint64_t flags = init_clone_flags(plan) & ~(uint64_t) ia->unshare_flags;
        int cgroup_fd = rt_cgroup_clone_fd(&sp->cgroup);
        int pidfd = -1;
        pid_t pid;

        pid = rt_clone3_into(flags, cgroup_fd, &pidfd);
        if (pid < 0 && cgroup_fd >= 0 && into_cgroup_unsupported(errno)) {
                rt_log_debug("clone3 CLONE_INTO_CGROUP: %s; moving the init afterwards",
                             strerror(errno));
                cgroup_fd = -1;
                pid = rt_clone3_into(flags, -1, &pidfd);
        }
        if (pid < 0 && cgroup_fd >= 0)
                return bento_err_set(err, errno,
                                     "cannot create the container process in its cgroup "
                                     "(clone3 with CLONE_INTO_CGROUP)");
        if (pid < 0)
                return bento_err_set(err, errno, "cannot create the container process");
        if (pid == 0) {
                close(parent_sock);
                rt_init_main(ia);
        }
        sp->cgroup.cloned_into = cgroup_fd >= 0;
        sp->pid = pid;
        sp->pidfd = pidfd;
        return 0;
}

static int write_oom_score_adj(pid_t pid, int value, struct bento_err *err)
{
        char path[64];
        char buf[32];
        cleanup_close int fd = -1;
        int len;

        snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int) pid);
        len = snprintf(buf, sizeof(buf), "%d", value);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, buf, (size_t) len) != len)
                return bento_err_set(err, errno, "process.oomScoreAdj: cannot write %d", value);
        return 0;
}

/* sync #1 (parent side): maps, oom score, then let the init go on. */
static int setup_from_outside(const struct rt_context *ctx, struct rt_spawned *sp, int sock,
                              struct bento_err *err)
{
        const struct oci_process *proc = ctx->cfg->process;
        int r;

        /* in its cgroup before it runs any container code (in the cgroup2
         * one, with CLONE_INTO_CGROUP, from its first instruction) */
        r = rt_cgroup_enter(ctx, sp->pid, &sp->cgroup, err);
        if (r < 0)
                return r;
        if (ctx->new_ns[OCI_NS_USER]) {
                r = rt_ns_write_maps(sp->pid, ctx->cfg, ctx->rootless, err);
                if (r < 0)
                        return r;
        }
        if (proc->has_oom_score_adj) {
                r = write_oom_score_adj(sp->pid, proc->oom_score_adj, err);
                if (r < 0)
                        return r;
        }
        /* with the v1 cgroups' "tasks" files, which the init writes itself
         * into before anything else (see rt_cgroup_info.self_fds) */
        r = rt_sync_send_fds(sock, RT_SYNC_MAPS_DONE, sp->pid, sp->cgroup.self_fds,
                             sp->cgroup.n_self_fds);
        for (size_t i = 0; i < sp->cgroup.n_self_fds; i++)
                close(sp->cgroup.self_fds[i]);
        sp->cgroup.n_self_fds = 0;
        if (r < 0)
                return bento_err_setx(err, EPIPE, "the container process exited during setup");
        /* the init sets itself up meanwhile */
        return rt_cgroup_enter_finish(&sp->cgroup, err);
}

/* sync #2 (parent side): the init's mounts are made and it waits before
 * pivot_root; prestart and createRuntime hooks run now, in our namespaces. */
static int run_runtime_hooks(const struct rt_context *ctx, const struct rt_spawned *sp, int sock,
                             struct bento_err *err)
{
        cleanup_free char *state = NULL;
        struct rt_sync_msg m;
        int r;

        if (!rt_context_has_runtime_hooks(ctx))
                return 0;
        r = rt_sync_expect(sock, RT_SYNC_MOUNTED, &m, NULL, err);
        /* "created", as crun sends and runtime-tools' hooks_stdin expects */
        if (r >= 0)
                r = rt_hooks_state(ctx->cfg, ctx->id, ctx->bundle, BENTO_STATUS_CREATED, sp->pid,
                                   &state, err);
        if (r >= 0)
                r = rt_hooks_run(ctx->cfg, OCI_HOOK_PRESTART, ctx->bundle, state, NULL, 0, err);
        if (r >= 0)
                r = rt_hooks_run(ctx->cfg, OCI_HOOK_CREATE_RUNTIME, ctx->bundle, state, NULL, 0,
                                 err);
        if (r < 0)
                return r;
        if (rt_sync_send(sock, RT_SYNC_HOOKS_DONE, 0, NULL, -1) < 0)
                return bento_err_setx(err, EPIPE, "the container process exited during setup");
        return 0;
}

/* sync #2 (parent side): forward a terminal if one comes, until READY. */
static int wait_ready(const struct rt_spawn_opts *opts, struct rt_spawned *sp, int sock,
                      struct bento_err *err)
{
        for (;;) {
                struct rt_sync_msg m;
                cleanup_close int fd = -1;
                int r;

                if (rt_sync_recv(sock, &m, &fd) < 0)
                        return bento_err_setx(err, EPIPE,
                                              "the container process exited during "
                                              "setup");
                if (m.type == RT_SYNC_ERROR)
                        return bento_err_setx(err, m.code > 0 ? m.code : EIO, "%s", m.msg);
                if (m.type == RT_SYNC_READY)
                        return 0;
                if (m.type != RT_SYNC_PTY || fd < 0)
                        return bento_err_setx(err, EPROTO, "unexpected setup message %u", m.type);
                if (opts->keep_console && sp->console_fd < 0) {
                        sp->console_fd = TAKE_FD(fd);
                        continue;
                }
                if (!opts->console_socket)
                        return bento_err_setx(err, EINVAL,
                                              "process.terminal needs "
                                              "--console-socket");
                r = rt_console_send(opts->console_socket, fd, err);
                if (r < 0)
                        return r;
        }
}

/* A failure seen on our side (a closed socket, a cgroup write for a pid
 * that is gone) may only be the echo of the init's own failure, which it
 * sent before exiting: that message is the one to report. */
static void prefer_init_error(int sock, struct bento_err *err)
{
        struct pollfd p = {.fd = sock, .events = POLLIN};
        struct rt_sync_msg m;

        while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN) && rt_sync_recv(sock, &m, NULL) >= 0)
                if (m.type == RT_SYNC_ERROR) {
                        bento_err_setx(err, m.code > 0 ? m.code : EIO, "%s", m.msg);
                        return;
                }
}

static void kill_failed(struct rt_spawned *sp)
{
        if (sp->pidfd >= 0) {
                syscall(SYS_pidfd_send_signal, sp->pidfd, SIGKILL, NULL, 0);
                (void) rt_pidfd_wait_exit(sp->pidfd, 5000);
                close(sp->pidfd);
        } else if (sp->pid > 0) {
                kill(sp->pid, SIGKILL);
        }
        if (sp->pid > 0)
                (void) waitpid(sp->pid, NULL, 0);
        if (sp->cgroup.path || sp->cgroup.prepared) {
                struct bento_err ignored;
                (void) rt_cgroup_info_remove(&sp->cgroup, &ignored);
        }
        rt_cgroup_info_done(&sp->cgroup);
        if (sp->console_fd >= 0)
                close(sp->console_fd);
        sp->pid = 0;
        sp->pidfd = -1;
        sp->console_fd = -1;
}

int rt_spawn_init(const struct rt_context *ctx, const struct rt_ns_plan *plan,
                  const struct rt_spawn_opts *opts, struct rt_spawned *ret, struct bento_err *err)
{
        struct rt_spawned sp = {.pid = 0, .pidfd = -1, .console_fd = -1};
        cleanup_close int fifo_fd = -1;
        cleanup_close int parent_sock = -1;
        cleanup_close int child_sock = -1;
        int pair[2];
        int r;

        /* O_RDWR on a FIFO never blocks and keeps a writer open, so the
         * init's read() waits for `start` instead of seeing end-of-file */
        fifo_fd = open(opts->fifo_path, O_RDWR | O_CLOEXEC);
        if (fifo_fd < 0)
                return bento_err_set(err, errno, "cannot open %s", opts->fifo_path);
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                return bento_err_set(err, errno, "socketpair");
        parent_sock = pair[0];
        child_sock = pair[1];

        struct rt_init_args ia = {.ctx = ctx,
                                  .sync_fd = child_sock,
                                  .fifo_fd = fifo_fd,
                                  .unshare_flags = deferred_flags(plan)};
        /* only the direct clone goes into the cgroup2 cgroup: the
         * intermediate has joined namespaces (a cgroup or user namespace
         * among them, maybe), and the init's pid is written there after */
        r = rt_cgroup_prepare(ctx, !plan->any_join, &sp.cgroup, err);
        if (r < 0)
                return r;
        if (plan->any_join)
                r = clone_via_intermediate(ctx, plan, parent_sock, &ia, &sp, err);
        else
                r = clone_direct(plan, parent_sock, &ia, &sp, err);
        close(TAKE_FD(child_sock));
        /* recorded before the init is let go on: from here on a killed
         * runtime leaves an init that `delete --force` can find (before
         * this, the init waits on the sync socket and dies of its EOF) */
        if (r >= 0 && ctx->intent)
                r = ctx->intent->pid(ctx->intent, sp.pid, err);
        /* sync #0: the init makes its remaining namespaces meanwhile */
        if (r >= 0 && ia.unshare_flags)
                (void) rt_sync_send(parent_sock, RT_SYNC_GO, 0, NULL, -1);
        if (r >= 0)
                r = setup_from_outside(ctx, &sp, parent_sock, err);
        /* without a mount namespace of its own, the init's root tree is
         * recorded before it is attached */
        if (r >= 0)
                r = rt_shared_root_serve(ctx, sp.pid, parent_sock, err);
        /* the init asks for its bind sources before its first mount */
        if (r >= 0)
                r = rt_bind_sources_serve(ctx, sp.pid, sp.pidfd, parent_sock, err);
        if (r >= 0 && opts->meanwhile)
                r = opts->meanwhile(opts->meanwhile_arg, err);
        if (r >= 0)
                r = run_runtime_hooks(ctx, &sp, parent_sock, err);
        if (r >= 0)
                r = wait_ready(opts, &sp, parent_sock, err);
        if (r < 0) {
                struct bento_err ignored;

                if (sp.pid > 0)
                        prefer_init_error(parent_sock, err);
                kill_failed(&sp);
                (void) rt_shared_root_remove(ctx->shared_root, &ignored);
                return r;
        }
        *ret = sp;
        return 0;
}
