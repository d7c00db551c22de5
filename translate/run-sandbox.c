/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One sandbox's life, driven through bento-runtime's lifecycle verbs
 * rather than its `run`, so bento learns what `run` would hide: whether the
 * runtime failed or the target exited (both could be status 1), the exact
 * signal that killed the target (the container's init is bento's own child:
 * `create` clones it as a sibling), and the OOM kills of its cgroup before
 * `delete` removes it.
 *
 *   exec gate ready (the caller spawned it, when exec is blocked) -> create
 *   -> start -> wait -> state -> delete, and on every path out: delete,
 *   stop the gate.
 *
 * SIGINT and SIGTERM are taken through a signalfd while the target runs:
 * the first one kills the sandbox and the run ends as cancelled; bento
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile.h"
#include "fileio.h"
#include "json.h"
#include "run-spawn.h"
#include "run.h"

#define STATE_MAX_BYTES (4u << 20)
#define LOG_MAX_BYTES   (1u << 20)

struct sandbox {
        const struct run_dir *d;
        const struct run_stdio *io;
        char *runtime;
        struct run_gate *gate;
        char id[48];
        pid_t init_pid;
        int pidfd;
        bool created;
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

static int read_pid(struct sandbox *sb, const char *pid_file, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        long v;
        char *end;

        if (bento_read_file(pid_file, 64, &data, &len, err) < 0)
                return -err->code;
        errno = 0;
        v = strtol(data, &end, 10);
        if (errno || v <= 1 || (*end && *end != '\n'))
                return bento_err_setx(err, EINVAL, "bento-runtime wrote a bad pid file");
        sb->init_pid = (pid_t) v;
        sb->pidfd = (int) syscall(SYS_pidfd_open, sb->init_pid, 0);
        if (sb->pidfd < 0)
                return bento_err_set(err, errno, "cannot watch the sandbox process");
        return 0;
}

static int create(struct sandbox *sb, struct run_outcome *out, struct bento_err *err)
{
        cleanup_free char *pid_file = NULL;
        struct run_spawn_fds fds = {.in = sb->io->in_fd,
                                    .out = sb->io->out_fd,
                                    .err = sb->io->err_fd,
                                    .extra = -1,
                                    .extra_as = -1};
        int status = 0, r;

        if (asprintf(&pid_file, "%s/init.pid", sb->d->path) < 0)
                return bento_err_set(err, ENOMEM, "run");
        r = runtime_call(sb,
                         (const char *const[]){"create", "--bundle", sb->d->bundle, "--pid-file",
                                               pid_file, sb->id, NULL},
                         &fds, &status, err);
        if (r < 0)
                return r;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                out->failure = runtime_error(sb);
                return bento_err_setx(err, EIO, "the sandbox could not be created: %s",
                                      out->failure ? out->failure : "bento-runtime failed");
        }
        sb->created = true;
        return read_pid(sb, pid_file, err);
}

static int start(struct sandbox *sb, struct run_outcome *out, struct bento_err *err)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        int status = 0, r;

        /* The runtime's complaint is in its log, which bento words itself. */
        r = runtime_call(sb, (const char *const[]){"start", sb->id, NULL}, &fds, &status, err);
        if (r < 0)
                return r;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                out->failure = runtime_error(sb);
                return bento_err_setx(err, EIO,
                                      "the sandbox applied its layers but could not start the "
                                      "target: %s. The script never ran, so this exit status is "
                                      "bento's, not the script's; check the entrypoint and the "
                                      "interpreter with `bento validate`",
                                      out->failure ? out->failure : "bento-runtime failed");
        }
        out->started = true;
        return 0;
}

static void kill_sandbox(struct sandbox *sb)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err ignored = {0};
        int status;

        (void) runtime_call(sb, (const char *const[]){"kill", "--all", sb->id, "KILL", NULL}, &fds,
                            &status, &ignored);
        if (sb->init_pid > 0)
                kill(sb->init_pid, SIGKILL);
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

static void drain(struct sandbox *sb, int fd, int stream)
{
        char buf[16384];
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n > 0 && sb->io->on_output)
                sb->io->on_output(stream, buf, (size_t) n, sb->io->userdata);
}

/* Wait for the target; forward output (--json); turn the first SIGINT or
 * SIGTERM into a kill of the whole sandbox. */
static int wait_target(struct sandbox *sb, int sigfd, struct run_outcome *out)
{
        struct pollfd p[4] = {{.fd = sb->pidfd, .events = POLLIN},
                              {.fd = sigfd, .events = POLLIN},
                              {.fd = sb->io->out_pipe, .events = POLLIN},
                              {.fd = sb->io->err_pipe, .events = POLLIN}};
        int status = 0;

        for (;;) {
                if (poll(p, 4, -1) < 0 && errno != EINTR)
                        return -errno;
                if (p[1].revents & POLLIN) {
                        struct signalfd_siginfo si;

                        if (read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
                                out->cancelled = true;
                                default_signals();
                                kill_sandbox(sb);
                                p[1].fd = -1;
                        }
                }
                for (int i = 2; i < 4; i++) {
                        if (p[i].revents & POLLIN)
                                drain(sb, p[i].fd, i - 1);
                        else if (p[i].revents & (POLLHUP | POLLERR))
                                p[i].fd = -1;
                }
                if (p[0].revents & POLLIN)
                        break;
        }
        if (run_wait(sb->init_pid, &status) < 0)
                return -ECHILD;
        /* Reaped: the number may be reused from here on, so nothing signals
         * it again (destroy). */
        sb->init_pid = 0;
        for (int i = 2; i < 4; i++)
                if (p[i].fd >= 0) {
                        /* What the target wrote just before it exited. */
                        int fl = fcntl(p[i].fd, F_GETFL);

                        (void) fcntl(p[i].fd, F_SETFL, fl | O_NONBLOCK);
                        drain(sb, p[i].fd, i - 1);
                }
        if (WIFSIGNALED(status)) {
                out->signal = WTERMSIG(status);
                out->exit_code = 128 + out->signal;
        } else {
                out->exit_code = WEXITSTATUS(status);
        }
        return 0;
}

/* The runtime's account of the sandbox: OOM kills, what was applied. */
static void read_state(struct sandbox *sb, struct run_outcome *out)
{
        const char *argv[] = {sb->runtime, "--root", sb->d->state, "state", sb->id, NULL};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        cleanup_close int rd = -1;
        cleanup_free char *data = NULL;
        struct bento_err ignored = {0};
        struct bento_json *j = NULL, *b, *v;
        size_t len = 0;
        int pipefd[2], status;
        pid_t pid;

        out->oom_kills = -1;
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return;
        rd = pipefd[0];
        fds.out = pipefd[1];
        if (run_spawn((char *const *) argv, &fds, &pid, &ignored) < 0) {
                close(pipefd[1]);
                return;
        }
        close(pipefd[1]);
        (void) bento_read_fd(rd, "state", STATE_MAX_BYTES, &data, &len, &ignored);
        (void) run_wait(pid, &status);
        if (!data || bento_json_parse(data, len, STATE_MAX_BYTES, &j, &ignored) < 0)
                return;
        b = bento_json_get(j, "bento");
        v = b ? bento_json_get(b, "oomKills") : NULL;
        if (v && v->type == BENTO_JSON_NUMBER && v->u.number.fits_i64)
                out->oom_kills = (long) v->u.number.i;
        out->seccomp_applied = b && bento_json_get(b, "seccomp");
        v = b ? bento_json_get(b, "landlock") : NULL;
        out->landlock_applied = v && bento_json_get(v, "abi");
        bento_json_free(j);
}

static void destroy(struct sandbox *sb)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        struct bento_err ignored = {0};
        int status;

        if (sb->created) {
                fds.err = STDERR_FILENO;
                (void) runtime_call(sb, (const char *const[]){"delete", "--force", sb->id, NULL},
                                    &fds, &status, &ignored);
                sb->created = false;
        }
        if (sb->init_pid > 0) {
                /* Normally reaped already; after a failed start it is not. */
                kill(sb->init_pid, SIGKILL);
                (void) waitpid(sb->init_pid, &status, 0);
                sb->init_pid = 0;
        }
        if (sb->pidfd >= 0)
                close(sb->pidfd);
        sb->pidfd = -1;
        /* It leaves by itself once no sandboxed process is left; if it
         * does not, the sandbox is gone anyway (delete ran). */
        run_gate_stop(sb->gate);
}

static int block_signals(sigset_t *old, struct bento_err *err)
{
        sigset_t set;
        int fd;

        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &set, old) < 0)
                return bento_err_set(err, errno, "signals");
        fd = signalfd(-1, &set, SFD_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "signals");
        return fd;
}

int run_sandbox(const struct run_opts *o, struct run_dir *d, struct run_gate *gate,
                const struct run_stdio *io, struct run_outcome *out, struct bento_err *err)
{
        struct sandbox sb = {.d = d, .io = io, .gate = gate, .pidfd = -1};
        cleanup_close int sigfd = -1;
        sigset_t old;
        int r;

        sb.runtime = compile_helper_path("BENTO_RUNTIME", "bento-runtime");
        if (!sb.runtime)
                return bento_err_set(err, ENOMEM, "run");
        if (o->run_id)
                snprintf(sb.id, sizeof(sb.id), "bento-run-%s", o->run_id);
        else
                snprintf(sb.id, sizeof(sb.id), "bento-run-%s", strrchr(d->path, '-') + 1);
        sigfd = block_signals(&old, err);
        r = sigfd < 0 ? sigfd : 0;
        if (r >= 0 && gate->pid > 0)
                r = run_gate_ready(gate, err);
        if (r >= 0)
                r = create(&sb, out, err);
        /* The init connects to the gate when it installs its filter, after
         * create: until then a gate has nobody to wait for. */
        gate->in_use = r >= 0 && gate->pid > 0;
        if (r >= 0)
                r = start(&sb, out, err);
        if (r >= 0)
                r = wait_target(&sb, sigfd, out);
        if (r >= 0 || sb.created)
                read_state(&sb, out);
        destroy(&sb);
        if (sigfd >= 0 && !out->cancelled)
                sigprocmask(SIG_SETMASK, &old, NULL);
        free(sb.runtime);
        if (r < 0 && !err->msg[0])
                return bento_err_set(err, -r, "the sandbox could not be run");
        return r;
}
