/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `exec` (see exec.h).  The runtime checks the container and prepares
 * everything that needs the host's view (the process model, the compiled
 * seccomp filter, a pidfd and the root directory of the init, the seccomp
 * agent's socket); the intermediate joins; the exec process sets itself up
 * from the inside in the order the container init uses, and execs.
 *
 * Handshake (runtime <-> exec process, over one SOCK_SEQPACKET pair):
 *   #0 intermediate -> runtime  RT_SYNC_PID: code = host pid of the process
 *   #1 runtime -> process       RT_SYNC_MAPS_DONE: it is in the container's
 *                               cgroup; code = its host pid
 *   -  process -> runtime       RT_SYNC_PTY with a terminal: the master
 *   #2 process -> runtime       RT_SYNC_READY: set up, about to restrict
 *                               itself and exec
 *   #3 end of file              execve() closed the close-on-exec socket;
 *                               RT_SYNC_ERROR instead when a last step failed
 */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/caps.h"
#include "cgroup/cgroup.h"
#include "cleanup.h"
#include "pidfile.h"
#include "init.h"
#include "process/landlock.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/rootless.h"
#include "process/attrs.h"
#include "process/process.h"
#include "process/env.h"
#include "seccomp/seccomp.h"
#include "spawn.h"
#include "base/sync.h"
#include "terminal.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct exec_job {
        const struct rt_exec_opts *opts;
        struct rt_container_dir dir; /* shared lock until the process runs */
        struct bento_record *rec;
        struct oci_config *cfg;   /* the container's configuration copy */
        struct oci_process *proc; /* what runs */
        struct rt_seccomp *seccomp;
        int init_pidfd;
        int root_fd;       /* the init's root directory */
        int listener_fd;   /* the seccomp agent's socket, or -1 */
        uint64_t ns_flags; /* CLONE_NEW* of the namespaces to join */
};

/* /proc/<pid>/ns names and the setns() flag of each. */
static const struct {
        const char *name;
        uint64_t flag;
} ns_kinds[] = {
    {"user", CLONE_NEWUSER},     {"mnt", CLONE_NEWNS},    {"pid", CLONE_NEWPID},
    {"net", CLONE_NEWNET},       {"ipc", CLONE_NEWIPC},   {"uts", CLONE_NEWUTS},
    {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME},
};

/* ---- in the runtime, before anything is started -------------------------- */

static int open_running(struct exec_job *job, struct rt_store *store, struct bento_err *err)
{
        const char *id = job->opts->id;
        enum bento_status st = BENTO_STATUS_CREATING;
        int r;

        r = rt_id_validate(id, err);
        if (r >= 0)
                r = rt_container_dir_open(store, id, false, &job->dir, err);
        if (r < 0)
                return r;
        r = rt_container_record_load(&job->dir, &job->rec, err);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r >= 0)
                st = rt_container_status(&job->dir, job->rec);
        /* as crun: a created container has no program running yet to join */
        if (st != BENTO_STATUS_RUNNING)
                return bento_err_setx(err, ESRCH, "container not running: %s is %s", id,
                                      bento_status_to_string(st));
        return rt_container_config_load(&job->dir, &job->cfg, err);
}

/* What create refuses for the container is refused for its processes. */
static int check_process(const struct exec_job *job, struct bento_err *err)
{
        const struct oci_process *p = job->proc;
        char warnings[2048] = "";
        int r;

        if (!p->terminal && job->opts->console_socket)
                return bento_err_setx(err, EINVAL,
                                      "--console-socket given but process.terminal is false: "
                                      "there is no terminal to send to it");
        if (p->terminal && job->opts->detach && !job->opts->console_socket)
                return bento_err_setx(err, EINVAL,
                                      "a terminal with --detach needs --console-socket");
        r = rt_landlock_validate(p, err);
        if (r >= 0)
                r = rt_process_attrs_prepare(job->proc, &job->cfg->linux_, true, err);
        if (r < 0)
                return r;
        rt_caps_validate(p->capabilities, !(job->ns_flags & CLONE_NEWUSER), warnings,
                         sizeof(warnings));
        for (char *save = NULL, *w = strtok_r(warnings, "\n", &save); w;
             w = strtok_r(NULL, "\n", &save))
                rt_log_warning("%s", w);
        return 0;
}

static uint64_t namespaces_to_join(pid_t init)
{
        pid_t self = getpid();
        uint64_t flags = 0;

        for (size_t i = 0; i < sizeof(ns_kinds) / sizeof(ns_kinds[0]); i++) {
                uint64_t theirs = rt_proc_ns_inode(init, ns_kinds[i].name);
                /* setns() refuses to re-enter our own user namespace */
                if (theirs && theirs != rt_proc_ns_inode(self, ns_kinds[i].name))
                        flags |= ns_kinds[i].flag;
        }
        return flags;
}

static int open_init(struct exec_job *job, struct bento_err *err)
{
        const struct bento_record *rec = job->rec;
        char path[64];

        job->init_pidfd = rt_pidfd_open_checked(rec->pid, rec->start_time, err);
        if (job->init_pidfd < 0)
                return bento_err_prefix(err, "%s", job->opts->id);
        /* with --no-pivot the mount namespace's root is not the container's:
         * the init's root directory is */
        snprintf(path, sizeof(path), "/proc/%d/root", (int) rec->pid);
        job->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (job->root_fd < 0)
                return bento_err_set(err, errno, "cannot open the container's root %s", path);
        /* the pidfd pins the init; this says /proc/<pid> was the same one */
        if (!rt_proc_matches(rec->pid, rec->start_time))
                return bento_err_setx(err, ESRCH, "container not running: %s", job->opts->id);
        job->ns_flags = namespaces_to_join(rec->pid);
        return 0;
}

/* The container's filter, compiled here so the process only installs it;
 * the agent's socket is a host path, so it is connected here too. */
static int prepare_seccomp(struct exec_job *job, struct bento_err *err)
{
        char warnings[2048] = "";
        int r;

        r = rt_seccomp_compile(job->cfg, job->rec->bundle, &job->seccomp, warnings,
                               sizeof(warnings), err);
        for (char *save = NULL, *w = strtok_r(warnings, "\n", &save); w;
             w = strtok_r(NULL, "\n", &save))
                rt_log_warning("%s", w);
        if (r < 0 || !rt_seccomp_has_listener(job->seccomp))
                return r;
        r = rt_seccomp_connect_listener(job->seccomp, err);
        if (r >= 0)
                job->listener_fd = r;
        return r;
}

/* ---- in the exec process ------------------------------------------------------ */

static void reset_signals(void)
{
        sigset_t none;

        for (int s = 1; s < NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP)
                        signal(s, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Close every inherited fd from `first` up except the ones in keep[]
 * (ascending, -1 for unused): the runtime's lock on the state directory
 * must not live on in the container. */
static void close_inherited(unsigned int first, const int keep[2])
{
        unsigned int lo = first;

        for (int i = 0; i < 2; i++) {
                if (keep[i] < 0 || (unsigned int) keep[i] < lo)
                        continue;
                if ((unsigned int) keep[i] > lo)
                        syscall(SYS_close_range, lo, (unsigned int) keep[i] - 1, 0);
                lo = (unsigned int) keep[i] + 1;
        }
        syscall(SYS_close_range, lo, ~0U, 0);
}

static void close_fds(const struct exec_job *job, int sync_fd)
{
        int a = sync_fd, b = job->listener_fd;
        int keep[2] = {a < b ? a : b, a < b ? b : a};

        close_inherited(3u + (unsigned int) job->opts->preserve_fds, keep);
}

/* Keep fds 3 .. 3+preserve-1 for the program, close-on-exec the rest. */
static int keep_fds(int preserve, struct bento_err *err)
{
        unsigned int first = 3u + (unsigned int) preserve;

        for (unsigned int fd = 3; fd < first; fd++) {
                int fl = fcntl((int) fd, F_GETFD);
                if (fl < 0 || fcntl((int) fd, F_SETFD, fl & ~FD_CLOEXEC) < 0)
                        return bento_err_set(err, errno, "--preserve-fds: fd %u", fd);
        }
        if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return bento_err_set(err, errno, "close_range");
        return 0;
}

/* sync #1: wait until the runtime has put us in the container's cgroup.
 * In a user namespace of its own, become its root (when mapped) so what
 * setup creates, the pty among it, has a mapped owner. */
static int wait_runtime(const struct exec_job *job, int sync_fd, pid_t *ret_host_pid,
                        struct bento_err *err)
{
        struct rt_sync_msg m;
        int r;

        r = rt_sync_expect(sync_fd, RT_SYNC_MAPS_DONE, &m, NULL, err);
        if (r < 0)
                return r;
        *ret_host_pid = m.code;
        if (!(job->ns_flags & CLONE_NEWUSER))
                return 0;
        if (setresgid(0, 0, 0) < 0 && errno != EINVAL)
                return bento_err_set(err, errno, "setresgid(0) in the user namespace");
        if (setresuid(0, 0, 0) < 0 && errno != EINVAL)
                return bento_err_set(err, errno, "setresuid(0) in the user namespace");
        return 0;
}

/* The container's session keyring (the init made it, named after the
 * container), so the process does not keep the caller's keys. */
static int join_keyring(const struct exec_job *job, struct bento_err *err)
{
        struct rt_context ctx = {.cfg = job->cfg,
                                 .id = job->opts->id,
                                 .in_userns = (job->ns_flags & CLONE_NEWUSER) != 0 ||
                                              !rt_in_initial_userns()};

        return rt_keyring_join(&ctx, err);
}

static int setup_terminal(const struct exec_job *job, int sync_fd, struct bento_err *err)
{
        if (job->proc->terminal)
                return rt_terminal_setup_exec(job->proc, sync_fd, err);
        /* a session of its own, as the init has: not in the caller's job
         * control */
        if (setsid() < 0)
                return bento_err_set(err, errno, "setsid");
        return 0;
}

/* Everything up to sync #2, in the container init's order. */
static int setup_process(const struct exec_job *job, int sync_fd, pid_t *host_pid, char *exe,
                         size_t size, struct bento_err *err)
{
        const struct oci_process *proc = job->proc;
        int r;

        r = wait_runtime(job, sync_fd, host_pid, err);
        if (r >= 0)
                r = setup_terminal(job, sync_fd, err);
        /* HOME and the stdio owner, before seccomp and the identity switch */
        if (r >= 0)
                r = rt_process_inside(job->proc, 0, err);
        if (r >= 0)
                r = rt_rlimits_apply(proc, err);
        if (r >= 0)
                r = join_keyring(job, err);
        if (r >= 0)
                r = rt_process_attrs_apply(proc, &job->cfg->linux_, true, err);
        /* the filter goes in last (restrict_process); without
         * noNewPrivileges that needs CAP_SYS_ADMIN kept until execve */
        if (r >= 0)
                r = rt_identity_apply(
                    proc, rt_seccomp_until_exec(job->seccomp, proc->no_new_privileges), err);
        if (r >= 0 && chdir(proc->cwd) < 0)
                r = bento_err_set(err, errno, "process.cwd: cannot enter '%s'", proc->cwd);
        if (r >= 0)
                r = rt_resolve_executable(proc, exe, size, err);
        if (r >= 0)
                r = keep_fds(job->opts->preserve_fds, err);
        return r;
}

/* After sync #2: the container's Landlock ruleset (and the one of a
 * --process file on top), then the seccomp filter, last, with or without
 * noNewPrivileges, so it cannot break the runtime's own steps: only the
 * execve runs under it. */
static int restrict_process(const struct exec_job *job, pid_t host_pid, struct bento_err *err)
{
        const struct bento_json *theirs = job->cfg->process ? job->cfg->process->landlock : NULL;
        int r = 0;

        if (theirs)
                r = rt_landlock_apply(theirs, err);
        if (r >= 0 && job->opts->process_file && job->proc->landlock)
                r = rt_landlock_apply(job->proc->landlock, err);
        if (r >= 0 && job->seccomp)
                r = rt_seccomp_install(job->seccomp, job->listener_fd, job->cfg, job->opts->id,
                                       job->rec->bundle, host_pid, err);
        return r;
}

/* podman and docker report 127 for a program that is not there, 126 for
 * one that cannot be run. */
static int fail_status_of(int code)
{
        return code == ENOENT ? 127 : 126;
}

__attribute__((noreturn)) static void run_process(const struct exec_job *job, int sync_fd)
{
        struct bento_err err = {0};
        char exe[PATH_MAX];
        pid_t host_pid = 0;

        reset_signals();
        close_fds(job, sync_fd);
        if (setup_process(job, sync_fd, &host_pid, exe, sizeof(exe), &err) < 0) {
                rt_sync_send_err(sync_fd, &err);
                _exit(fail_status_of(err.code));
        }
        /* sync #2: set up */
        if (rt_sync_send(sync_fd, RT_SYNC_READY, 0, NULL, -1) < 0)
                _exit(1);
        if (restrict_process(job, host_pid, &err) >= 0) {
                static char *no_env[] = {NULL};
                /* sync #3: success closes the socket (close-on-exec) */
                execve(exe, job->proc->args, job->proc->env ? job->proc->env : no_env);
                bento_err_set(&err, errno, "exec \"%s\"", exe);
        }
        /* the filter may forbid even this: then say it here */
        if (rt_sync_send(sync_fd, RT_SYNC_ERROR, err.code, err.msg, -1) < 0)
                fprintf(stderr, "bento-runtime: %s\n", err.msg);
        _exit(fail_status_of(err.code));
}

__attribute__((noreturn)) static void run_intermediate(const struct exec_job *job, int sync_fd)
{
        struct bento_err err = {0};
        pid_t pid;

        /* before the process exists, so it starts on these CPUs and is moved
         * into the container's cgroup from there */
        if (rt_exec_affinity_initial(job->proc, &err) < 0) {
                rt_sync_send_err(sync_fd, &err);
                _exit(1);
        }
        if (job->ns_flags && setns(job->init_pidfd, (int) job->ns_flags) < 0) {
                bento_err_set(&err, errno, "cannot join the namespaces of container %s",
                              job->opts->id);
        } else if (fchdir(job->root_fd) < 0 || chroot(".") < 0 || chdir("/") < 0) {
                bento_err_set(&err, errno, "cannot enter the root of container %s", job->opts->id);
        } else {
                /* a sibling: our parent's child, in the container's pid
                 * namespace, which setns() chose for our children */
                pid = rt_clone3(CLONE_PARENT, NULL);
                if (pid == 0)
                        run_process(job, sync_fd);
                if (pid > 0) {
                        /* sync #0 */
                        rt_sync_send(sync_fd, RT_SYNC_PID, pid, NULL, -1);
                        _exit(0);
                }
                bento_err_set(&err, errno, "cannot create the process");
        }
        rt_sync_send_err(sync_fd, &err);
        _exit(1);
}

/* ---- in the runtime, while the process starts ---------------------------------- */

/* A terminal goes to --console-socket, or back to the caller to proxy. */
static int take_terminal(const struct exec_job *job, int *fd, int *console_fd,
                         struct bento_err *err)
{
        if (job->opts->console_socket)
                return rt_console_send(job->opts->console_socket, *fd, err);
        if (*console_fd >= 0)
                return bento_err_setx(err, EPROTO, "a second terminal from the process");
        *console_fd = TAKE_FD(*fd);
        return 0;
}

/* sync #2 and #3 (runtime side). */
static int wait_started(const struct exec_job *job, int sock, int *console_fd,
                        struct bento_err *err)
{
        bool ready = false;

        for (;;) {
                struct rt_sync_msg m;
                cleanup_close int fd = -1;
                int r;

                if (rt_sync_recv(sock, &m, &fd) < 0) {
                        if (ready)
                                return 0;
                        return bento_err_setx(err, EPIPE, "the process exited during setup");
                }
                if (m.type == RT_SYNC_ERROR)
                        return bento_err_setx(err, m.code > 0 ? m.code : EIO, "%s", m.msg);
                if (m.type == RT_SYNC_READY && !ready) {
                        ready = true;
                        continue;
                }
                if (m.type != RT_SYNC_PTY || fd < 0 || ready)
                        return bento_err_setx(err, EPROTO, "unexpected message %u from the process",
                                              m.type);
                r = take_terminal(job, &fd, console_fd, err);
                if (r < 0)
                        return r;
        }
}

/* sync #1 (runtime side) and what follows. */
static int release_process(const struct exec_job *job, int sock, struct rt_exec_result *res,
                           struct bento_err *err)
{
        int r;

        r = rt_cgroup_attach(job->rec, res->pid, err);
        if (r < 0)
                return r;
        if (rt_sync_send(sock, RT_SYNC_MAPS_DONE, res->pid, NULL, -1) < 0)
                return bento_err_setx(err, EPIPE, "the process exited during setup");
        r = wait_started(job, sock, &res->console_fd, err);
        if (r < 0) {
                res->fail_status = fail_status_of(err->code);
                return r;
        }
        if (job->opts->pid_file)
                return rt_pid_file_write(job->opts->pid_file, res->pid, err);
        return 0;
}

static void kill_started(struct rt_exec_result *res)
{
        if (res->pidfd >= 0) {
                (void) syscall(SYS_pidfd_send_signal, res->pidfd, SIGKILL, NULL, 0);
                close(res->pidfd);
        }
        if (res->pid > 0)
                (void) waitpid(res->pid, NULL, 0);
        if (res->console_fd >= 0)
                close(res->console_fd);
        res->pid = 0;
        res->pidfd = res->console_fd = -1;
}

static int start_process(const struct exec_job *job, struct rt_exec_result *res,
                         struct bento_err *err)
{
        cleanup_close int sock = -1;
        struct rt_sync_msg m;
        int pair[2];
        pid_t mid;
        int r;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
                return bento_err_set(err, errno, "socketpair");
        sock = pair[0];
        /* the process is our child (a sibling of the intermediate); with
         * --detach it is orphaned when we exit, as crun's and runc's are,
         * and goes to our caller's subreaper, not to a caller that may
         * never reap it */
        mid = rt_clone3(0, NULL);
        if (mid == 0) {
                close(sock);
                run_intermediate(job, pair[1]);
        }
        close(pair[1]);
        if (mid < 0)
                return bento_err_set(err, errno, "cannot fork");
        (void) waitpid(mid, NULL, 0);
        r = rt_sync_expect(sock, RT_SYNC_PID, &m, NULL, err);
        if (r < 0)
                return r;
        res->pid = m.code;
        res->pidfd = (int) syscall(SYS_pidfd_open, res->pid, 0);
        if (res->pidfd < 0)
                r = bento_err_set(err, errno, "pidfd_open of the process");
        else
                r = release_process(job, sock, res, err);
        if (r < 0)
                kill_started(res);
        return r;
}

static void job_free(struct exec_job *job)
{
        oci_process_free(job->proc);
        oci_config_free(job->cfg);
        bento_record_free(job->rec);
        rt_seccomp_free(job->seccomp);
        if (job->init_pidfd >= 0)
                close(job->init_pidfd);
        if (job->root_fd >= 0)
                close(job->root_fd);
        if (job->listener_fd >= 0)
                close(job->listener_fd);
        rt_container_dir_close(&job->dir);
}

int rt_exec(struct rt_store *store, const struct rt_exec_opts *opts, struct rt_exec_result *ret,
            struct bento_err *err)
{
        struct exec_job job = {.opts = opts,
                               .dir = {.path = NULL, .fd = -1},
                               .init_pidfd = -1,
                               .root_fd = -1,
                               .listener_fd = -1};
        struct rt_exec_result res = {.pid = 0, .pidfd = -1, .console_fd = -1, .fail_status = 1};
        int r;

        r = open_running(&job, store, err);
        if (r >= 0)
                r = rt_exec_process_build(&job.dir, opts, &job.proc, err);
        if (r >= 0)
                r = open_init(&job, err);
        if (r >= 0)
                r = check_process(&job, err);
        if (r >= 0)
                r = prepare_seccomp(&job, err);
        if (r >= 0)
                r = start_process(&job, &res, err);
        if (r >= 0)
                rt_log_debug("exec %s: process %d started", opts->id, (int) res.pid);
        job_free(&job);
        *ret = res;
        return r;
}
