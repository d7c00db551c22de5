/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One sandbox's life, driven through ONE `bento-runtime run --report`:
 * process starts are a large share of a run's cost, and the lifecycle
 * verbs took four (create, start, state, delete).  Plain `run` would hide
 * what bento must know; its --report file (docs/man/bento-runtime.1) says
 * it: whether the sandbox was created and the target started (a runtime
 * failure and a target's exit can both be status 1), the target's exact
 * wait status (an exit with 137 is not a SIGKILL), and the "bento" object
 * `state` would have printed just before the delete (the OOM kills, what
 * was applied).  The runtime's own messages go to its log only (its stderr
 * is the target's); bento words a failure itself from the report and the
 * log.
 *
 *   exec gate ready (the caller spawned it, when exec is blocked) -> run
 *   (create, start, wait, delete, in the runtime; its --exit-fd says when
 *   the target was waited for, and the caller's on_exit starts then,
 *   while the runtime deletes) -> report, and on every
 *   path out: stop the gate, and `delete --force` when no report says
 *   what became of the sandbox.
 *
 * The runtime has a process group of its own, so a Ctrl-C reaches bento
 * alone.  SIGINT and SIGTERM are taken through a signalfd while it runs:
 * the first one is passed to the target, and CANCEL_GRACE_MS later kills
 * the sandbox (`kill --all`, again until the runtime is gone: a sandbox
 * still being created cannot be killed yet), the
 * runtime then deletes it and ends, and the run ends as cancelled; bento
 * restores the default disposition, so a second one ends bento at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "fileio.h"
#include "json.h"
#include "spawn.h"
#include "run.h"
#include "wait-go.h"

#define REPORT_MAX_BYTES (4u << 20)
#define LOG_MAX_BYTES    (1u << 20)
/* After a cancel: how long the target has to end on the signal it was
 * passed before the sandbox is killed, and then how often it is killed
 * again while the runtime is still there (it may still have been creating
 * it). */
#define CANCEL_GRACE_MS 2000
#define KILL_AGAIN_MS   200

struct sandbox {
        const struct run_dir *d;
        const struct run_stdio *io;
        char *runtime;
        char *report; /* report.json beside the state, run --report */
        struct run_gate *gate;
        char id[128];
        const char *cgroup_manager; /* "systemd" (run_opts.systemd_cgroup) or "cgroupfs" */
        pid_t pid;                  /* the runtime's `run`, until reaped */
        int pidfd;
        int exit_fd; /* read end of the runtime's --exit-fd, until its line or EOF */
        /* bento-init's --status-fd pipe (run_opts.init_status), -1 both otherwise:
         * the write end is the container's fd 3 until the runtime is started. */
        int status_rd, status_wr;
        char exit_line[16];
        size_t exit_len;
        const struct run_on_exit *on_exit;
};

/* What the report says (docs/man/bento-runtime.1, run --report). */
struct report {
        bool valid, created, started, waited;
        int exit_code, signal;
};

void run_outcome_done(struct run_outcome *o)
{
        free(o->failure);
        o->failure = NULL;
}

/* {runtime, --root, state, --log, log, --log-format, json, verb, args...} */
static int runtime_call(struct sandbox *sb, const char *const *args,
                        const struct run_spawn_fds *fds, int *status, struct bento_err *err)
{
        const char *argv[16] = {sb->runtime,        "--root",       sb->d->state, "--log",
                                sb->d->runtime_log, "--log-format", "json"};
        size_t n = 7;

        for (; *args && n < 15; args++)
                argv[n++] = *args;
        argv[n] = NULL;
        return run_call((char *const *) argv, fds, status, err);
}

static char *runtime_log_error(const struct sandbox *sb);

/* What a hook (bento-egress) printed, on one line, for a failure message:
 * the hook runs outside the sandbox, but its words may quote what the
 * target sent, so control characters are dropped. */
static char *hooks_said(const struct sandbox *sb)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        size_t len = 0, w = 0;

        if (bento_read_file(sb->d->hooks_log, LOG_MAX_BYTES, &data, &len, &ignored) < 0 || len == 0)
                return NULL;
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char) data[i];

                if (ch == '\n' || ch == '\t')
                        data[w++] = ' ';
                else if (ch >= 0x20 && ch != 0x7f)
                        data[w++] = data[i];
        }
        while (w > 0 && data[w - 1] == ' ')
                w--;
        data[w] = '\0';
        return w ? TAKE_PTR(data) : NULL;
}

/* The runtime's last error, with what a failed hook said, if anything. */
static char *runtime_error(const struct sandbox *sb)
{
        cleanup_free char *base = runtime_log_error(sb), *hooks = hooks_said(sb);
        char *msg = NULL;

        if (!base || !hooks)
                return base ? TAKE_PTR(base) : NULL;
        if (asprintf(&msg, "%s (the hook said: %s)", base, hooks) < 0)
                return TAKE_PTR(base);
        return msg;
}

/* The runtime's last error, from its JSON log. */
static char *runtime_log_error(const struct sandbox *sb)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        char *last = NULL;
        size_t len = 0;

        if (bento_read_file(sb->d->runtime_log, LOG_MAX_BYTES, &data, &len, &ignored) < 0)
                return strdup("bento-runtime failed and left no log");
        for (char *line = data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                struct bento_json *j = NULL, *msg, *level;

                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (bento_json_parse(line, strlen(line), LOG_MAX_BYTES, &j, &ignored) < 0)
                        continue;
                msg = bento_json_get(j, "msg");
                level = bento_json_get(j, "level");
                if (msg && msg->type == BENTO_JSON_STRING && level &&
                    level->type == BENTO_JSON_STRING && strcmp(level->u.string.s, "error") == 0) {
                        free(last);
                        last = strdup(msg->u.string.s);
                }
                bento_json_free(j);
        }
        return last ? last : strdup("bento-runtime failed without saying why");
}

static void kill_sandbox(struct sandbox *sb)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err ignored = {0};
        int status;

        (void) runtime_call(sb, (const char *const[]){"kill", "--all", sb->id, "KILL", NULL}, &fds,
                            &status, &ignored);
}

/* The first SIGINT or SIGTERM is passed to the target (through the box's
 * process 1, bento-init, which forwards it), so that it can end the way it
 * would on the host; the sandbox is killed CANCEL_GRACE_MS later if it is
 * still there.  A sandbox still being created cannot be signalled yet: the
 * kill then comes after the grace. */
static void signal_sandbox(struct sandbox *sb, int sig)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err ignored = {0};
        int status;

        (void) runtime_call(
            sb, (const char *const[]){"kill", sb->id, sig == SIGINT ? "INT" : "TERM", NULL}, &fds,
            &status, &ignored);
}

/* After the first SIGINT or SIGTERM: a second one ends bento at once, so
 * the signals get their default action back and are no longer blocked. */
static void default_signals(void)
{
        sigset_t set;

        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static ssize_t drain(struct sandbox *sb, int fd, int stream)
{
        char buf[16384];
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n > 0 && sb->io->on_output)
                sb->io->on_output(stream, buf, (size_t) n, sb->io->userdata);
        return n;
}

/* Read what is left in the output pipes (--json): what the target wrote
 * just before it exited. */
static void drain_rest(struct sandbox *sb, const struct pollfd *p)
{
        for (int i = 2; i < 6; i++)
                if ((i < 4 || i == 5) && p[i].fd >= 0) {
                        int fl = fcntl(p[i].fd, F_GETFL);

                        (void) fcntl(p[i].fd, F_SETFL, fl | O_NONBLOCK);
                        /* the observer's report can be longer than one read */
                        for (size_t k = 0; k < (i == 5 ? 4096u : 1u); k++)
                                if (drain(sb, p[i].fd, i == 5 ? RUN_STREAM_OBSERVE : i - 1) <= 0)
                                        break;
                }
}

/* The runtime's --exit-fd: a whole line (the target's wait status) calls
 * on_exit; end of file (or a full buffer) before one does not.  Either
 * way the descriptor is closed then. */
static void read_exit_fd(struct sandbox *sb, struct pollfd *p)
{
        size_t room = sizeof(sb->exit_line) - 1 - sb->exit_len;
        ssize_t n = read(sb->exit_fd, sb->exit_line + sb->exit_len, room);
        bool whole;

        if (n < 0 && errno == EINTR)
                return;
        if (n > 0)
                sb->exit_len += (size_t) n;
        whole = memchr(sb->exit_line, '\n', sb->exit_len) != NULL;
        if (n > 0 && !whole && (size_t) n < room)
                return; /* the rest of the line is still coming */
        if (whole && sb->on_exit && sb->on_exit->fn)
                sb->on_exit->fn(sb->on_exit->userdata);
        close(sb->exit_fd);
        sb->exit_fd = -1;
        p->fd = -1;
}

/* Wait for the runtime; forward output (--json); turn the first SIGINT or
 * SIGTERM into a kill of the whole sandbox, repeated until the runtime is
 * gone. */
static int wait_runtime(struct sandbox *sb, int sigfd, struct run_outcome *out)
{
        struct pollfd p[6] = {{.fd = sb->pidfd, .events = POLLIN},
                              {.fd = sigfd, .events = POLLIN},
                              {.fd = sb->io->out_pipe, .events = POLLIN},
                              {.fd = sb->io->err_pipe, .events = POLLIN},
                              {.fd = sb->exit_fd, .events = POLLIN},
                              {.fd = sb->io->observe_pipe, .events = POLLIN}};
        long kill_at = 0;
        int status = 0;

        for (;;) {
                long left = kill_at - run_now_ms();
                int n = poll(p, 6, !out->cancelled ? -1 : left > 0 ? (int) left : 0);
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (out->cancelled && run_now_ms() >= kill_at) {
                        kill_sandbox(sb);
                        kill_at = run_now_ms() + KILL_AGAIN_MS;
                }
                if (n > 0 && (p[1].revents & POLLIN)) {
                        struct signalfd_siginfo si;

                        if (read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
                                out->cancelled = true;
                                default_signals();
                                signal_sandbox(sb, (int) si.ssi_signo);
                                kill_at = run_now_ms() + CANCEL_GRACE_MS;
                                p[1].fd = -1;
                        }
                }
                for (int i = 2; n > 0 && i < 4; i++) {
                        if (p[i].revents & POLLIN)
                                drain(sb, p[i].fd, i - 1);
                        else if (p[i].revents & (POLLHUP | POLLERR))
                                p[i].fd = -1;
                }
                if (n > 0 && (p[4].revents & (POLLIN | POLLHUP | POLLERR)))
                        read_exit_fd(sb, &p[4]);
                if (n > 0 && (p[5].revents & POLLIN))
                        drain(sb, p[5].fd, RUN_STREAM_OBSERVE);
                else if (n > 0 && (p[5].revents & (POLLHUP | POLLERR)))
                        p[5].fd = -1;
                if (n > 0 && (p[0].revents & POLLIN))
                        break;
        }
        if (run_wait(sb->pid, &status) < 0)
                return -ECHILD;
        sb->pid = 0;
        drain_rest(sb, p);
        return 0;
}

static bool json_true(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_BOOL && v->u.boolean;
}

static bool json_int(const struct bento_json *obj, const char *key, long *ret)
{
        const struct bento_json *v = obj ? bento_json_get(obj, key) : NULL;

        if (!v || v->type != BENTO_JSON_NUMBER || !v->u.number.fits_i64)
                return false;
        *ret = (long) v->u.number.i;
        return true;
}

/* The target's end, from the report's "status". */
static void read_status(const struct bento_json *j, struct report *rep)
{
        const struct bento_json *st = bento_json_get(j, "status");
        long v;

        if (!st || st->type != BENTO_JSON_OBJECT)
                return;
        if (json_int(st, "signaled", &v) && v > 0 && v < 128) {
                rep->signal = (int) v;
                rep->exit_code = 128 + rep->signal;
                rep->waited = true;
        } else if (json_int(st, "exited", &v) && v >= 0 && v <= 255) {
                rep->exit_code = (int) v;
                rep->waited = true;
        }
}

/* bento-init exits with 128+N when the target died of signal N (process 1
 * cannot die of it in its place); its status line says whether that was a
 * signal or the target's own exit with that number.  Taken only when it
 * agrees with the status the runtime saw. */
static void read_init_status(const struct sandbox *sb, struct report *rep)
{
        char line[32];
        ssize_t n;
        int sig = 0;
        char nl = 0;

        if (sb->status_rd < 0 || rep->signal)
                return;
        n = read(sb->status_rd, line, sizeof(line) - 1);
        if (n <= 0)
                return;
        line[n] = '\0';
        if (sscanf(line, "signal %d%c", &sig, &nl) == 2 && nl == '\n' && sig > 0 && sig < 128 &&
            rep->exit_code == 128 + sig)
                rep->signal = sig;
}

/* The runtime's report: what became of the sandbox, and the runtime's
 * account of it (OOM kills, what was applied). */
static void read_report(const struct sandbox *sb, struct report *rep, struct run_outcome *out)
{
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        struct bento_json *j = NULL, *b, *v;
        size_t len = 0;
        long n;

        *rep = (struct report){.valid = false};
        out->oom_kills = -1;
        if (bento_read_file(sb->report, REPORT_MAX_BYTES, &data, &len, &ignored) < 0 ||
            bento_json_parse(data, len, REPORT_MAX_BYTES, &j, &ignored) < 0)
                return;
        rep->valid = j->type == BENTO_JSON_OBJECT;
        rep->created = rep->valid && json_true(j, "created");
        rep->started = rep->created && json_true(j, "started");
        if (rep->started)
                read_status(j, rep);
        if (rep->waited)
                read_init_status(sb, rep);
        b = rep->created ? bento_json_get(j, "bento") : NULL;
        if (b && b->type == BENTO_JSON_OBJECT) {
                if (json_int(b, "oomKills", &n))
                        out->oom_kills = n;
                out->seccomp_applied = bento_json_get(b, "seccomp");
                v = bento_json_get(b, "landlock");
                out->landlock_applied = v && bento_json_get(v, "abi");
        }
        bento_json_free(j);
}

/* The sandbox's outcome in bento's words, from the report. */
static int judge(struct sandbox *sb, const struct report *rep, struct run_outcome *out,
                 struct bento_err *err)
{
        if (!rep->valid || !rep->created) {
                out->failure = runtime_error(sb);
                return bento_err_setx(err, EIO, "the sandbox could not be created: %s",
                                      out->failure ? out->failure : "bento-runtime failed");
        }
        if (!rep->started) {
                out->failure = runtime_error(sb);
                return bento_err_setx(err, EIO,
                                      "the sandbox applied its layers but could not start the "
                                      "target: %s. The script never ran, so this exit status is "
                                      "bento's, not the script's; check the entrypoint and the "
                                      "interpreter with `bento validate`",
                                      out->failure ? out->failure : "bento-runtime failed");
        }
        out->started = true;
        if (!rep->waited) {
                out->failure = runtime_error(sb);
                return bento_err_setx(err, EIO, "bento-runtime lost the target: %s",
                                      out->failure ? out->failure : "bento-runtime failed");
        }
        out->exit_code = rep->exit_code;
        out->signal = rep->signal;
        return 0;
}

/* On every path out: a runtime that is still there (bento failed while
 * waiting) is killed with its sandbox, and a sandbox no report accounts
 * for is deleted; then the gate goes. */
static void destroy(struct sandbox *sb, const struct report *rep)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err ignored = {0};
        int status;

        if (sb->pid > 0) {
                kill_sandbox(sb);
                kill(sb->pid, SIGKILL);
                (void) run_wait(sb->pid, &status);
                sb->pid = 0;
        }
        if (!rep->valid) {
                fds.err = STDERR_FILENO;
                (void) runtime_call(sb, (const char *const[]){"delete", "--force", sb->id, NULL},
                                    &fds, &status, &ignored);
        }
        if (sb->pidfd >= 0)
                close(sb->pidfd);
        sb->pidfd = -1;
        if (sb->exit_fd >= 0)
                close(sb->exit_fd);
        sb->exit_fd = -1;
        /* It leaves by itself once no sandboxed process is left; if it
         * does not, the sandbox is gone anyway (the runtime deleted it). */
        run_gate_stop(sb->gate);
}

/* The runtime holds the mount point locks and the run's claim too: a bento
 * killed while the sandbox lives leaves them held until the runtime has
 * deleted it (policy/point-locks.h, claim.h); its container gets none of
 * them.  It gets copies (sharing the locks) above its own descriptors, 0-2,
 * --exit-fd 3 (4 when profiling, with the observer's report at 3), which
 * would otherwise be dup2()ed over one of them. */
static int lock_copies(const struct run_dir *d, int *keep, struct bento_err *err)
{
        cleanup_free int *fds = calloc(d->locks.n + 1, sizeof(*fds));
        size_t n = fds ? point_locks_fds(&d->locks, fds, d->locks.n) : 0;

        if (!fds)
                return bento_err_set(err, ENOMEM, "mount point locks");
        if (run_claim_fd(&d->claim) >= 0)
                fds[n++] = run_claim_fd(&d->claim);
        for (size_t i = 0; i < n; i++) {
                keep[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 5);
                if (keep[i] < 0) {
                        int e = errno;

                        while (i-- > 0)
                                close(keep[i]);
                        if (e == EMFILE)
                                return bento_err_setx(err, EMFILE,
                                                      "cannot pass the %zu mount point locks on "
                                                      "to bento-runtime: the open file limit "
                                                      "(RLIMIT_NOFILE) is too low for them",
                                                      n);
                        return bento_err_set(err, e, "cannot pass the mount point locks on");
                }
        }
        return (int) n;
}

/* One `bento-runtime run --report --exit-fd 3`, in a process group of its
 * own, holding the n_keep descriptors in keep; with wait_fd (one of keep)
 * it waits there for its go (--wait-fd) before it reads the bundle. */
static int spawn_runtime_with(struct sandbox *sb, const int *keep, size_t n_keep, int wait_fd,
                              struct bento_err *err)
{
        /* The observer's report pipe (profiling) or bento-init's status pipe. */
        int fd3 = sb->io->observe_fd >= 0 ? sb->io->observe_fd : sb->status_wr;
        bool observe = fd3 >= 0;
        /* Either is the container's fd 3 (--preserve-fds 1), so the exit notice
         * moves above it, where the runtime wants it. */
        /* 16 here, --preserve-fds 1, --wait-fd N, the id and NULL */
        char wait_arg[16];
        const char *argv[22] = {
            sb->runtime,        "--root",       sb->d->state, "--log",
            sb->d->runtime_log, "--log-format", "json",       "--cgroup-manager",
            sb->cgroup_manager, "run",          "--bundle",   sb->d->bundle,
            "--report",         sb->report,     "--exit-fd",  observe ? "4" : "3"};
        size_t n = 16;
        cleanup_free char **env = run_spawn_env_for_runtime();
        struct run_spawn_fds fds = {.in = sb->io->in_fd,
                                    .out = sb->io->out_fd,
                                    .err = sb->io->err_fd,
                                    .extra = -1,
                                    .extra_as = observe ? 4 : 3,
                                    .extra2 = -1,
                                    .extra2_as = 3,
                                    .keep = keep,
                                    .n_keep = n_keep,
                                    .own_group = true,
                                    .env = env};
        cleanup_close int report_copy = -1;
        int pipefd[2];
        int r;

        if (!env)
                return bento_err_set(err, ENOMEM, "cannot start bento-runtime");
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot start bento-runtime");
        if (observe) {
                argv[n++] = "--preserve-fds";
                argv[n++] = "1";
        }
        if (wait_fd >= 0) {
                snprintf(wait_arg, sizeof(wait_arg), "%d", wait_fd);
                argv[n++] = "--wait-fd";
                argv[n++] = wait_arg;
        }
        argv[n++] = sb->id;
        argv[n] = NULL;
        sb->exit_fd = pipefd[0];
        /* Both sources above 4, so that neither dup2 lands on the other's source. */
        fds.extra = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 5);
        close(pipefd[1]);
        if (observe)
                fds.extra2 = report_copy = fcntl(fd3, F_DUPFD_CLOEXEC, 5);
        if (fds.extra < 0 || (observe && report_copy < 0))
                r = bento_err_set(err, errno, "cannot start bento-runtime");
        else
                r = run_spawn((char *const *) argv, &fds, &sb->pid, err);
        if (fds.extra >= 0)
                close(fds.extra);
        return r;
}

/* bento-init's status pipe.  Non-blocking: read once the runtime has ended,
 * whoever else might still hold a copy. */
static int status_pipe(struct sandbox *sb, struct bento_err *err)
{
        int p[2];

        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                return bento_err_set(err, errno, "cannot start bento-runtime");
        sb->status_rd = p[0];
        sb->status_wr = p[1];
        return 0;
}

/* The runtime's end comes as its pidfd's readiness. */
static int watch_runtime(struct sandbox *sb, struct bento_err *err)
{
        sb->pidfd = (int) syscall(SYS_pidfd_open, sb->pid, 0);
        if (sb->pidfd < 0)
                return bento_err_set(err, errno, "cannot watch bento-runtime");
        return 0;
}

static int spawn_runtime(struct sandbox *sb, struct bento_err *err)
{
        /* one per mount point lock and the claim: lock_copies() fills the first n */
        cleanup_free int *keep = calloc(sb->d->locks.n + 1, sizeof(*keep));
        int n, r;

        if (!keep)
                return bento_err_set(err, ENOMEM, "spawn");
        n = r = lock_copies(sb->d, keep, err);
        if (r < 0)
                return r;
        r = spawn_runtime_with(sb, keep, (size_t) n, -1, err);
        for (int i = 0; i < n; i++)
                close(keep[i]);
        if (sb->status_wr >= 0)
                close(sb->status_wr);
        sb->status_wr = -1;
        return r < 0 ? r : watch_runtime(sb, err);
}

void run_sandbox_id(const struct run_opts *o, const struct run_dir *d, char *buf, size_t size)
{
        if (o->run_id)
                snprintf(buf, size, "bento-run-%s", o->run_id);
        else
                snprintf(buf, size, "bento-run-%s", run_dir_suffix(d));
}

char *run_sandbox_cgroups_path(const struct run_opts *o, const struct run_dir *d)
{
        char id[128];
        char *path = NULL;

        if (!o->systemd_cgroup)
                return NULL;
        /* "slice:prefix:name" with neither slice nor prefix: the unit is
         * "name.scope" in the slice bento-runtime picks for this caller
         * (system.slice as root, user.slice of the user's manager). */
        run_sandbox_id(o, d, id, sizeof(id));
        return asprintf(&path, "::%s", id) < 0 ? NULL : path;
}

/* What the runtime is started as: the same for a launch and for the run. */
static int sandbox_init(struct sandbox *sb, const struct run_opts *o, const struct run_dir *d)
{
        sb->runtime = compile_helper_path("BENTO_RUNTIME", "bento-runtime");
        if (!sb->runtime ||
            asprintf(&sb->report, "%s/report.json", d->shm ? d->shm : d->path) < 0) {
                free(sb->runtime);
                sb->runtime = NULL;
                return -ENOMEM;
        }
        run_sandbox_id(o, d, sb->id, sizeof(sb->id));
        sb->cgroup_manager = o->systemd_cgroup ? "systemd" : o->no_cgroup ? "disabled" : "cgroupfs";
        return 0;
}

int run_sandbox_launch(const struct run_opts *o, const struct run_dir *d,
                       const struct run_stdio *io, struct run_launch *l, struct bento_err *err)
{
        struct sandbox sb = {
            .d = d, .io = io, .pidfd = -1, .exit_fd = -1, .status_rd = -1, .status_wr = -1};
        cleanup_close int mine = -1, theirs = -1;
        int sv[2], r;

        *l = (struct run_launch) RUN_LAUNCH_INIT;
        if (sandbox_init(&sb, o, d) < 0)
                return bento_err_set(err, ENOMEM, "run");
        r = o->init_status ? status_pipe(&sb, err) : 0;
        if (r >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                r = bento_err_set(err, errno, "cannot start bento-runtime");
        if (r >= 0) {
                mine = sv[0];
                /* above the runtime's 3 and 4, as the lock copies */
                theirs = fcntl(sv[1], F_DUPFD_CLOEXEC, 5);
                close(sv[1]);
                r = theirs < 0 ? bento_err_set(err, errno, "cannot start bento-runtime")
                               : spawn_runtime_with(&sb, &theirs, 1, theirs, err);
        }
        if (sb.status_wr >= 0)
                close(sb.status_wr);
        free(sb.runtime);
        free(sb.report);
        if (r < 0) {
                if (sb.status_rd >= 0)
                        close(sb.status_rd);
                if (sb.exit_fd >= 0)
                        close(sb.exit_fd);
                return r;
        }
        *l = (struct run_launch){
            .pid = sb.pid, .go = TAKE_FD(mine), .exit_fd = sb.exit_fd, .status_rd = sb.status_rd};
        return 0;
}

void run_launch_cancel(struct run_launch *l)
{
        int status;

        /* end-of-file on its --wait-fd: it ends, having made nothing */
        if (l->go >= 0)
                close(l->go);
        if (l->pid > 0)
                (void) run_wait(l->pid, &status);
        if (l->exit_fd >= 0)
                close(l->exit_fd);
        if (l->status_rd >= 0)
                close(l->status_rd);
        *l = (struct run_launch) RUN_LAUNCH_INIT;
}

/* One message of the go (wait-go.h): byte, with n descriptors. */
static int run_go_send(int sock, char byte, const int *fds, int n, struct bento_err *err)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(WAIT_GO_FDS * sizeof(int))];
        } c;
        struct iovec io = {.iov_base = &byte, .iov_len = 1};
        struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1};
        ssize_t w;

        if (n > 0) {
                memset(&c, 0, sizeof(c));
                m.msg_control = c.buf;
                m.msg_controllen = CMSG_SPACE((size_t) n * sizeof(int));
                c.h.cmsg_level = SOL_SOCKET;
                c.h.cmsg_type = SCM_RIGHTS;
                c.h.cmsg_len = CMSG_LEN((size_t) n * sizeof(int));
                memcpy(CMSG_DATA(&c.h), fds, (size_t) n * sizeof(int));
        }
        do
                w = sendmsg(sock, &m, MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        return w == 1 ? 0 : bento_err_set(err, w < 0 ? errno : EIO, "cannot start bento-runtime");
}

/* The launched runtime becomes the sandbox's: its go comes with copies of
 * the locks it holds from then on (lock_copies()), in messages of at most
 * WAIT_GO_FDS descriptors. */
static int go_runtime(struct sandbox *sb, int go_fd, struct bento_err *err)
{
        cleanup_free int *keep = calloc(sb->d->locks.n + 1, sizeof(*keep));
        cleanup_close int go = go_fd;
        int n, r;

        if (!keep)
                return bento_err_set(err, ENOMEM, "spawn");
        n = r = lock_copies(sb->d, keep, err);
        for (int at = 0; r >= 0 && at < n; at += WAIT_GO_FDS)
                r = run_go_send(go, WAIT_GO_HOLD, keep + at,
                                n - at < WAIT_GO_FDS ? n - at : WAIT_GO_FDS, err);
        if (r >= 0)
                r = run_go_send(go, WAIT_GO, NULL, 0, err);
        for (int i = 0; i < n; i++)
                close(keep[i]);
        /* a runtime that already ended (it could not start) is waited for
         * and judged like any: its end, not the go, says what went wrong */
        if (r == -EPIPE || r == -ECONNRESET) {
                *err = (struct bento_err){0};
                r = 0;
        }
        return r < 0 ? r : watch_runtime(sb, err);
}

int run_sandbox(const struct run_opts *o, struct run_dir *d, const struct run_ahead *ahead,
                const struct run_stdio *io, const struct run_on_exit *on_exit,
                struct run_outcome *out, struct bento_err *err)
{
        struct run_gate *gate = ahead->gate;
        struct run_launch *l = ahead->launch;
        int go = -1;
        struct sandbox sb = {.d = d,
                             .io = io,
                             .gate = gate,
                             .pidfd = -1,
                             .exit_fd = -1,
                             .status_rd = -1,
                             .status_wr = -1,
                             .on_exit = on_exit};
        struct report rep = {.valid = false};
        cleanup_close int sigfd = -1;
        sigset_t old;
        int r;

        if (sandbox_init(&sb, o, d) < 0)
                return bento_err_set(err, ENOMEM, "run");
        out->oom_kills = -1;
        sigfd = run_block_signals(&old, err);
        r = sigfd < 0 ? sigfd : 0;
        if (r >= 0 && gate->on)
                r = run_gate_ready(gate, err);
        /* A launched runtime is the sandbox's from here on: a failure before
         * its go ends it (destroy() kills and reaps it). */
        if (l && l->pid > 0) {
                sb.pid = l->pid;
                sb.exit_fd = l->exit_fd;
                sb.status_rd = l->status_rd;
                go = l->go;
                *l = (struct run_launch) RUN_LAUNCH_INIT;
        }
        if (r >= 0 && sb.pid > 0)
                r = go_runtime(&sb, go, err);
        else if (go >= 0)
                close(go); /* it ends on end-of-file, or destroy() kills it */
        else if (r >= 0)
                r = o->init_status ? status_pipe(&sb, err) : 0;
        if (r >= 0 && sb.pidfd < 0)
                r = spawn_runtime(&sb, err);
        if (r >= 0)
                r = wait_runtime(&sb, sigfd, out);
        if (r >= 0) {
                read_report(&sb, &rep, out);
                r = judge(&sb, &rep, out, err);
        }
        /* The init connects to the gate when it installs its filter, after
         * create: a gate of a sandbox never created had nobody to wait for. */
        gate->in_use = rep.created && gate->on;
        destroy(&sb, &rep);
        if (sigfd >= 0 && !out->cancelled)
                sigprocmask(SIG_SETMASK, &old, NULL);
        free(sb.runtime);
        free(sb.report);
        if (sb.status_rd >= 0)
                close(sb.status_rd);
        if (sb.status_wr >= 0)
                close(sb.status_wr);
        if (r < 0 && !err->msg[0])
                return bento_err_set(err, -r, "the sandbox could not be run");
        return r;
}
