/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Can bento-runtime build the full sandbox here?  Two facts: the
 * bento-runtime binary itself, and the namespaces it creates for every
 * bundle bento writes (user, mount, pid, net, ipc, uts, cgroup).
 *
 * The namespace probe does for real what a run needs, in a throw-away
 * child: clone() with all seven flags, map the caller's uid and gid into
 * the new user namespace from outside (as bento-runtime does), then inside
 * make the mount tree private, mount a fresh /proc and a tmpfs.  A child
 * that cannot is the same refusal a run would meet; its namespaces and
 * mounts die with it.  Bounded by a 5 s timeout (then: unknown).
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "compile/compile.h"

#define NS_FLAGS                                                                                   \
        (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | \
         CLONE_NEWCGROUP)
#define NS_TIMEOUT_MS 5000

/* The remedy every blocked-userns reason ends with (docs/doctor.md, "What the probe does, and what
 * it costs"). */
#define CONTAINER_REMEDY                                                                           \
        " Inside a container: with docker use --security-opt seccomp=unconfined "                  \
        "--security-opt apparmor=unconfined, and also --security-opt systempaths=unconfined."

/* ---- bento-runtime and the helper programs ---- */

static int check_exec(const char *path)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EACCES;
        return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0 ? -errno : 0;
}

struct helper {
        const char *env, *program, *role;
        bool *found;
        char *path; /* PATH_MAX */
        char *why;  /* HOST_TEXT_MAX */
};

/* One program, looked up exactly as `bento run` will (compile/compile.h). */
static void find_helper(const struct helper *h, const char *override, struct host_facts *f)
{
        const char *env = getenv(h->env);
        cleanup_free char *path =
            override ? strdup(override) : compile_helper_path(h->env, h->program);
        int r;

        if (!path) {
                host_fmt(h->why, HOST_TEXT_MAX, "out of memory looking for %s", h->program);
                return;
        }
        host_fmt(h->path, PATH_MAX, "%s", path);
        if (!override && env && env[0] && env[0] != '/') {
                size_t n = strlen(f->helpers_note);

                host_fmt(f->helpers_note + n, sizeof(f->helpers_note) - n,
                         "%s$%s=\"%s\" is ignored: it is not an absolute path.", n ? " " : "",
                         h->env, env);
        }
        r = check_exec(path);
        if (r == 0) {
                *h->found = true;
                return;
        }
        host_fmt(h->why, HOST_TEXT_MAX,
                 "%s, %s, is not usable at \"%s\" (%s): %s. Install it next to bento, or point "
                 "$%s at it.",
                 h->program, h->role, path,
                 override || (env && env[0] == '/') ? "as given" : "next to bento", strerror(-r),
                 h->env);
}

/* bento serves the exec gate itself (run/gate.c) unless $BENTO_EXEC_GATE
 * names a program, as an absolute path, to run instead. */
static bool gate_program(void)
{
        const char *env = getenv("BENTO_EXEC_GATE");

        return env && env[0] == '/';
}

static void gate_built_in(const struct helper *h, struct host_facts *f)
{
        const char *env = getenv(h->env);

        *h->found = true;
        host_fmt(h->path, PATH_MAX, "built into bento");
        if (env && env[0]) {
                size_t n = strlen(f->helpers_note);

                host_fmt(f->helpers_note + n, sizeof(f->helpers_note) - n,
                         "%s$%s=\"%s\" is ignored: it is not an absolute path.", n ? " " : "",
                         h->env, env);
        }
}

void host_probe_runtime(const struct host_probe_opts *opts, struct host_facts *ret)
{
        const char *env = getenv("BENTO_RUNTIME");
        const struct helper helpers[] = {
            {"BENTO_RUNTIME", "bento-runtime", "which builds the sandbox", &ret->runtime_found,
             ret->runtime_path, ret->runtime_why},
            {"BENTO_EXEC_GATE", "bento-exec-gate", "which enforces exec: none", &ret->gate_found,
             ret->gate_path, ret->gate_why},
            {"BENTO_EGRESS", "bento-egress", "the proxy that serves network: rules",
             &ret->egress_found, ret->egress_path, ret->egress_why},
        };

        ret->runtime_from_env = (opts && opts->runtime) || (env && env[0] == '/');
        for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
                if (helpers[i].found == &ret->gate_found && !gate_program()) {
                        gate_built_in(&helpers[i], ret);
                        continue;
                }
                find_helper(&helpers[i], i == 0 && opts ? opts->runtime : NULL, ret);
        }
}

/* ---- namespaces ---- */

/* Where the child stopped, sent back over the report pipe. */
enum ns_step {
        NS_STEP_OK,
        NS_STEP_GO,
        NS_STEP_PRIVATE,
        NS_STEP_PROC,
        NS_STEP_TMPFS,
};

struct ns_report {
        int step;
        int err;
};

struct ns_pipes {
        int go[2];     /* parent -> child: maps written */
        int report[2]; /* child -> parent: struct ns_report, then EOF */
};

/* In the child: wait until the maps are written, then mount what a
 * sandbox mounts first, and say how far it got. */
static __attribute__((noreturn)) void ns_child(struct ns_pipes *p)
{
        struct ns_report rep = {NS_STEP_OK, 0};
        char c;

        close(p->go[1]);
        close(p->report[0]);
        if (read(p->go[0], &c, 1) != 1)
                rep = (struct ns_report){NS_STEP_GO, EPIPE};
        else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                rep = (struct ns_report){NS_STEP_PRIVATE, errno};
        else if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                rep = (struct ns_report){NS_STEP_PROC, errno};
        else if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=4k") < 0)
                rep = (struct ns_report){NS_STEP_TMPFS, errno};
        if (write(p->report[1], &rep, sizeof(rep)) != (ssize_t) sizeof(rep))
                _exit(2);
        _exit(rep.step == NS_STEP_OK ? 0 : 1);
}

static int write_proc(pid_t pid, const char *file, const char *value)
{
        char path[64];

        host_fmt(path, sizeof(path), "/proc/%d/%s", (int) pid, file);
        return bento_write_value(path, value, 0, NULL);
}

/* uid and gid mapped to themselves, as the bundles bento writes ask. */
static int write_maps(pid_t pid)
{
        char map[64];
        int r;

        host_fmt(map, sizeof(map), "%u %u 1\n", (unsigned) geteuid(), (unsigned) geteuid());
        r = write_proc(pid, "uid_map", map);
        if (r < 0)
                return r;
        r = write_proc(pid, "setgroups", "deny");
        if (r < 0 && r != -ENOENT)
                return r;
        host_fmt(map, sizeof(map), "%u %u 1\n", (unsigned) getegid(), (unsigned) getegid());
        return write_proc(pid, "gid_map", map);
}

static long read_long(const char *path)
{
        char buf[32] = "";
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

        if (n <= 0)
                return -1;
        buf[n] = '\0';
        return strtol(buf, NULL, 10);
}

/* clone() failed with ENOSPC: a namespace count limit, named if set to 0. */
static void why_enospc(struct host_facts *f)
{
        static const char *const kinds[] = {"user", "mnt", "pid", "net", "ipc", "uts", "cgroup"};
        char path[64];

        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
                host_fmt(path, sizeof(path), "/proc/sys/user/max_%s_namespaces", kinds[i]);
                if (read_long(path) != 0)
                        continue;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "creating namespaces is switched off: user.max_%s_namespaces=0. An "
                         "administrator can allow it with sysctl -w "
                         "user.max_%s_namespaces=15000.%s",
                         kinds[i], kinds[i], CONTAINER_REMEDY);
                return;
        }
        host_fmt(f->ns_why, sizeof(f->ns_why),
                 "the namespace limits of /proc/sys/user/max_*_namespaces are exhausted (No "
                 "space left on device).%s",
                 CONTAINER_REMEDY);
}

/* clone() failed with EPERM: say why when the host tells. */
static void why_eperm(struct host_facts *f)
{
        const char *cause = "";

        if (geteuid() != 0 &&
            read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
                cause =
                    " AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns=1): "
                    "install an AppArmor profile that permits bento-runtime, or set it to 0.";
        else if (geteuid() != 0 && read_long("/proc/sys/kernel/unprivileged_userns_clone") == 0)
                cause = " The kernel switch kernel.unprivileged_userns_clone is 0; set it to 1.";
        else
                cause = " A seccomp filter, a security module or a chroot around this process "
                        "refuses it (Operation not permitted).";
        host_fmt(f->ns_why, sizeof(f->ns_why),
                 "this caller (uid %u) cannot create a user namespace.%s%s", (unsigned) geteuid(),
                 cause, CONTAINER_REMEDY);
}

/* EINVAL: this kernel lacks a namespace type; /proc/self/ns names them. */
static void why_einval(struct host_facts *f)
{
        static const char *const kinds[] = {"user", "mnt", "pid", "net", "ipc", "uts", "cgroup"};
        char path[64];

        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
                host_fmt(path, sizeof(path), "/proc/self/ns/%s", kinds[i]);
                if (access(path, F_OK) < 0 && errno == ENOENT) {
                        host_fmt(f->ns_why, sizeof(f->ns_why),
                                 "this kernel has no %s namespaces (built without them), and "
                                 "every bento sandbox needs one.",
                                 kinds[i]);
                        f->ns = HOST_NS_BLOCKED;
                        return;
                }
        }
        f->ns = HOST_NS_UNKNOWN;
        host_fmt(f->ns_why, sizeof(f->ns_why),
                 "creating the sandbox's namespaces failed: Invalid argument");
}

static void clone_failed(struct host_facts *f, int e)
{
        f->ns = HOST_NS_BLOCKED;
        switch (e) {
        case ENOSPC:
                why_enospc(f);
                break;
        case EPERM:
        case EACCES:
                why_eperm(f);
                break;
        case EINVAL:
                why_einval(f);
                break;
        case EUSERS:
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "this process is already nested 32 user namespaces deep, the kernel's "
                         "limit.");
                break;
        default:
                f->ns = HOST_NS_UNKNOWN;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "creating the sandbox's namespaces failed: %s", strerror(e));
        }
}

static void child_failed(struct host_facts *f, const struct ns_report *rep)
{
        f->ns = HOST_NS_BLOCKED;
        switch (rep->step) {
        case NS_STEP_PROC:
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "a fresh /proc cannot be mounted inside the sandbox's namespaces (%s): "
                         "the /proc this process sees has parts masked or mounted over, as "
                         "container runtimes do. With docker, --security-opt "
                         "systempaths=unconfined lifts that.",
                         strerror(rep->err));
                break;
        case NS_STEP_TMPFS:
        case NS_STEP_PRIVATE:
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "the sandbox's mount namespace cannot be set up (%s of %s failed: %s).%s",
                         rep->step == NS_STEP_TMPFS ? "a tmpfs mount" : "making / private",
                         rep->step == NS_STEP_TMPFS ? "/tmp" : "the mount tree", strerror(rep->err),
                         CONTAINER_REMEDY);
                break;
        default:
                f->ns = HOST_NS_UNKNOWN;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "the namespace probe's child stopped early (%s)", strerror(rep->err));
        }
}

/* The child's report, or a timeout (then it is killed). */
static int await_child(pid_t pid, int fd, struct ns_report *rep)
{
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        ssize_t n;
        int r, status;

        do
                r = poll(&pfd, 1, NS_TIMEOUT_MS);
        while (r < 0 && errno == EINTR);
        if (r == 0)
                kill(pid, SIGKILL);
        n = r > 0 ? read(fd, rep, sizeof(*rep)) : -1;
        while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
                ;
        if (r == 0)
                return -ETIMEDOUT;
        return n == (ssize_t) sizeof(*rep) ? 0 : -EPIPE;
}

static void close_pipes(struct ns_pipes *p)
{
        for (int i = 0; i < 2; i++) {
                if (p->go[i] >= 0)
                        close(p->go[i]);
                if (p->report[i] >= 0)
                        close(p->report[i]);
        }
}

static void run_probe(struct host_facts *f, struct ns_pipes *p)
{
        struct ns_report rep = {NS_STEP_GO, 0};
        pid_t pid;
        int r;

        /* the raw syscall without a new stack forks: the child goes on
         * with a copy of this stack (no stack switch to confuse sanitizers) */
        pid = (pid_t) syscall(SYS_clone, NS_FLAGS | SIGCHLD, NULL, NULL, NULL, NULL);
        if (pid == 0)
                ns_child(p);
        if (pid < 0) {
                clone_failed(f, errno);
                return;
        }
        close(p->go[0]);
        close(p->report[1]);
        p->go[0] = p->report[1] = -1;
        r = write_maps(pid);
        if (r == 0 && write(p->go[1], "x", 1) != 1)
                r = -errno;
        close(p->go[1]);
        p->go[1] = -1;
        if (r < 0) {
                kill(pid, SIGKILL);
                (void) await_child(pid, p->report[0], &rep);
                f->ns = HOST_NS_BLOCKED;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "uid %u and gid %u cannot be mapped into a new user namespace (%s).%s",
                         (unsigned) geteuid(), (unsigned) getegid(), strerror(-r),
                         CONTAINER_REMEDY);
                return;
        }
        r = await_child(pid, p->report[0], &rep);
        if (r == -ETIMEDOUT) {
                f->ns = HOST_NS_UNKNOWN;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "the namespace probe did not finish within %d s", NS_TIMEOUT_MS / 1000);
        } else if (r < 0) {
                f->ns = HOST_NS_UNKNOWN;
                host_fmt(f->ns_why, sizeof(f->ns_why),
                         "the namespace probe's child died before it reported");
        } else if (rep.step != NS_STEP_OK) {
                child_failed(f, &rep);
        } else {
                f->ns = HOST_NS_USABLE;
        }
}

void host_probe_namespaces(struct host_facts *ret)
{
        struct ns_pipes p = {{-1, -1}, {-1, -1}};

        if (pipe2(p.go, O_CLOEXEC) < 0 || pipe2(p.report, O_CLOEXEC) < 0) {
                ret->ns = HOST_NS_UNKNOWN;
                host_fmt(ret->ns_why, sizeof(ret->ns_why),
                         "the namespace probe could not start: %s", strerror(errno));
                close_pipes(&p);
                return;
        }
        run_probe(ret, &p);
        close_pipes(&p);
}
