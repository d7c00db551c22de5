/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Landlock-only tier, bento's side (degraded.h).  There is no
 * bento-runtime here: bento starts its own launcher (bento
 * __launch-degraded, launch.h) in a process group of its own, with the
 * exec gate when exec is blocked, waits for it while forwarding output
 * (--json) and Ctrl-C, and kills the whole group when the target ends, so
 * no process the target started in its group outlives the run.
 *
 * The sets:
 *   read    the system paths, the read grants, the entrypoint and the
 *           interpreter, /dev/urandom, /dev/random, /dev/zero;
 *   write   the write grants, the scratch directory, /dev/null;
 *   hidden  every shield a full run would hide (p->shield_mounts, DenyAll)
 *           that lies below a read path: the launcher grants its siblings
 *           instead of the directory holding it.
 */
#include "degraded.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "escapees.h"
#include "launch.h"
#include "manifest/path.h"
#include "spawn.h"

#define APPLIED_MAX 65536
#define ARGV_MAX    (3 * LAUNCH_PATHS_MAX + 16)

char *run_degraded_refusal(const struct policy *p)
{
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const struct shield_rule *r = p->shield_mounts[i].rule;
                char *msg = NULL;

                /* a write grant's own workspace files (.git/hooks, .vscode, ...)
                 * are left writable and reported instead (run_degraded_exposure()):
                 * refusing them would refuse every project directory */
                if (r->deny != SHIELD_DENY_WRITE || r->origin == SHIELD_ORIGIN_WORKSPACE)
                        continue;
                for (size_t k = 0; k < p->n_writes; k++) {
                        if (!p->writes[k].real || !path_within(p->writes[k].real, r->path))
                                continue;
                        if (asprintf(&msg,
                                     "write grant \"%s\" contains the write-shielded path \"%s\", "
                                     "which the degraded tier cannot shield: without a mount "
                                     "namespace it cannot be made read-only inside a writable "
                                     "directory; grant a narrower directory, or run where user "
                                     "namespaces work",
                                     p->writes[k].written, r->literal) < 0)
                                return strdup("a write grant contains a write-shielded path, "
                                              "which the degraded tier cannot shield");
                        return msg;
                }
        }
        return NULL;
}

static int set_var(char ***env, const char *name, const char *value)
{
        size_t n = 0, len = strlen(name);
        char *entry = NULL, **nv;

        if (asprintf(&entry, "%s=%s", name, value) < 0)
                return -ENOMEM;
        for (; (*env)[n]; n++)
                if (strncmp((*env)[n], name, len) == 0 && (*env)[n][len] == '=') {
                        free((*env)[n]);
                        (*env)[n] = entry;
                        return 0;
                }
        nv = reallocarray(*env, n + 2, sizeof(char *));
        if (!nv) {
                free(entry);
                return -ENOMEM;
        }
        nv[n] = entry;
        nv[n + 1] = NULL;
        *env = nv;
        return 0;
}

int run_degraded_env(struct run_degraded *dg, const struct run_dir *d, const struct policy *p,
                     const struct run_opts *o, char ***env, struct bento_err *err)
{
        static const char *const tmp_vars[] = {"TMPDIR", "TMP", "TEMP"};
        int r = 0;

        dg->claim = &d->claim;
        dg->scratch = path_join(d->path, "scratch");
        if (!dg->scratch)
                return bento_err_set(err, ENOMEM, "scratch directory");
        /* inside the 0700 run directory, removed with it (dir.c: no symlink
         * is followed, the walk stays on its file system) */
        if (mkdir(dg->scratch, 0700) < 0)
                return bento_err_set(err, errno, "cannot create the scratch directory \"%s\"",
                                     dg->scratch);
        if (!run_passed_value(p->m, o, "HOME"))
                r = set_var(env, "HOME", dg->scratch);
        for (size_t i = 0; r >= 0 && i < 3; i++)
                r = set_var(env, tmp_vars[i], dg->scratch);
        return r < 0 ? bento_err_set(err, ENOMEM, "environment") : 0;
}

struct argv_build {
        const char *v[ARGV_MAX];
        size_t n;
        bool full;
};

static void arg(struct argv_build *a, const char *s)
{
        if (a->n + 1 >= ARGV_MAX || !s) {
                a->full = true;
                return;
        }
        a->v[a->n++] = s;
}

static void arg_pair(struct argv_build *a, const char *k, const char *v)
{
        arg(a, k);
        arg(a, v);
}

/* Below (or at) one of the read paths the launcher is given. */
static bool under_read(const struct policy *p, const char *path)
{
        for (size_t i = 0; i < p->n_system_paths; i++)
                if (path_within(p->system_paths[i], path))
                        return true;
        for (size_t i = 0; i < p->n_reads; i++)
                if (p->reads[i].exists && path_within(p->reads[i].real, path))
                        return true;
        return false;
}

static void read_set(struct argv_build *a, const struct policy *p)
{
        static const char *const devs[] = {"/dev/urandom", "/dev/random", "/dev/zero"};

        for (size_t i = 0; i < p->n_system_paths; i++)
                arg_pair(a, "--ro", p->system_paths[i]);
        for (size_t i = 0; i < p->n_reads; i++)
                if (p->reads[i].exists)
                        arg_pair(a, "--ro", p->reads[i].real);
        arg_pair(a, "--ro", p->entrypoint.real);
        if (p->interpreter.real && p->interpreter.written[0])
                arg_pair(a, "--ro", p->interpreter.real);
        for (size_t i = 0; i < 3; i++)
                arg_pair(a, "--ro", devs[i]);
}

/* The hidden shields below the read set, in p->shield_mounts order: the
 * launcher's "hidden N" counts them from 0. */
static void hide_set(struct argv_build *a, struct run_degraded *dg, const struct policy *p)
{
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const struct shield_rule *r = p->shield_mounts[i].rule;

                if (r->deny == SHIELD_DENY_ALL && under_read(p, r->path)) {
                        arg_pair(a, "--hide", r->path);
                        dg->hidden[dg->n_hidden++] = r;
                }
        }
}

static int build_argv(struct argv_build *a, struct run_degraded *dg, const struct policy *p,
                      const char *gate_socket, const char *self, struct bento_err *err)
{
        const struct manifest *m = p->m;

        arg(a, self);
        arg(a, LAUNCH_VERB);
        arg_pair(a, "--exec", manifest_exec_to_string(m->exec));
        arg_pair(a, "--applied-fd", "3");
        if (dg->hold_fd >= 0) {
                snprintf(dg->hold_arg, sizeof(dg->hold_arg), "%d", dg->hold_fd);
                arg_pair(a, "--hold-fd", dg->hold_arg);
        }
        if (m->exec != MANIFEST_EXEC_ALL)
                arg_pair(a, "--gate", gate_socket);
        read_set(a, p);
        for (size_t i = 0; i < p->n_writes; i++)
                arg_pair(a, "--rw", p->writes[i].real);
        arg_pair(a, "--rw", dg->scratch);
        arg_pair(a, "--rw", "/dev/null");
        dg->hidden = calloc(p->n_shield_mounts + 1, sizeof(*dg->hidden));
        dg->kept = calloc(p->n_shield_mounts + 1, sizeof(*dg->kept));
        if (!dg->hidden || !dg->kept)
                return bento_err_set(err, ENOMEM, "launcher");
        hide_set(a, dg, p);
        arg(a, "--");
        if (m->interpreter[0]) {
                arg(a, p->interpreter.real ? p->interpreter.real : p->interpreter.expanded);
                for (size_t i = 0; i < m->n_interpreter_args; i++)
                        arg(a, m->interpreter_args[i]);
        }
        arg(a, p->entrypoint.real);
        for (size_t i = 0; i < m->n_args; i++)
                arg(a, m->args[i]);
        if (a->full)
                return bento_err_setx(err, E2BIG, "too many paths for the Landlock-only launcher");
        a->v[a->n] = NULL;
        return 0;
}

struct launched {
        pid_t pid;
        int pidfd, applied;
        bool adopted; /* bento is the subreaper of what it starts */
        char *said;   /* the launcher's lines */
        size_t len;
};

static void read_applied(struct launched *l)
{
        char buf[4096];
        ssize_t n = read(l->applied, buf, sizeof(buf));
        char *grown;

        if (n <= 0 || l->len + (size_t) n > APPLIED_MAX) {
                if (n < 0 && errno == EINTR)
                        return;
                close(l->applied);
                l->applied = -1;
                return;
        }
        grown = realloc(l->said, l->len + (size_t) n + 1);
        if (!grown)
                return;
        memcpy(grown + l->len, buf, (size_t) n);
        l->len += (size_t) n;
        grown[l->len] = '\0';
        l->said = grown;
}

static void forward(const struct run_stdio *io, struct pollfd *p, int stream)
{
        char buf[16384];
        ssize_t n = read(p->fd, buf, sizeof(buf));

        if (n > 0 && io->on_output)
                io->on_output(stream, buf, (size_t) n, io->userdata);
        else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                p->fd = -1;
}

/* Until the launcher (the target, once it exec'd) has ended; the first
 * SIGINT or SIGTERM kills its group, and the run ends as cancelled. */
static int wait_launched(struct launched *l, const struct run_stdio *io, int sigfd,
                         struct run_outcome *out, int *status)
{
        struct pollfd p[5] = {{.fd = l->pidfd, .events = POLLIN},
                              {.fd = sigfd, .events = POLLIN},
                              {.fd = io->out_pipe, .events = POLLIN},
                              {.fd = io->err_pipe, .events = POLLIN},
                              {.fd = l->applied, .events = POLLIN}};

        for (;;) {
                int n = poll(p, 5, -1);

                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n <= 0)
                        continue;
                if (p[1].revents & POLLIN) {
                        struct signalfd_siginfo si;

                        if (read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
                                out->cancelled = true;
                                kill(-l->pid, SIGKILL);
                                p[1].fd = -1;
                        }
                }
                for (int i = 2; i < 4; i++)
                        if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
                                forward(io, &p[i], i - 1);
                if (p[4].revents & (POLLIN | POLLHUP | POLLERR)) {
                        read_applied(l);
                        p[4].fd = l->applied;
                }
                if (p[0].revents & POLLIN)
                        break;
        }
        /* the group goes with its leader: nothing the target left running in
         * it outlives the run */
        kill(-l->pid, SIGKILL);
        if (run_wait(l->pid, status) < 0)
                return -ECHILD;
        l->pid = 0;
        for (int i = 2; i < 4; i++)
                if (p[i].fd >= 0) {
                        (void) fcntl(p[i].fd, F_SETFL, fcntl(p[i].fd, F_GETFL) | O_NONBLOCK);
                        forward(io, &p[i], i - 1);
                }
        while (l->applied >= 0)
                read_applied(l);
        return 0;
}

/* "hidden N": the launcher found hide number N and left it out. */
static void confirm(struct run_degraded *dg, const char *num)
{
        char *end = NULL;
        unsigned long i = strtoul(num, &end, 10);

        if (end != num && *end == '\0' && i < dg->n_hidden)
                dg->kept[i] = true;
}

/* The launcher's last word: "refused ..." or "unreached ..." explain a
 * failure, "ok" that the target was started. */
static int judge(struct run_degraded *dg, const struct launched *l, int status,
                 struct run_outcome *out, struct bento_err *err)
{
        const char *refused = NULL, *unreached = NULL;
        bool ok = false;

        for (char *line = l->said, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (strncmp(line, "landlock ", 9) == 0)
                        dg->landlock_abi = atoi(line + 9);
                else if (strncmp(line, "hidden ", 7) == 0)
                        confirm(dg, line + 7);
                else if (strncmp(line, "refused ", 8) == 0)
                        refused = line + 8;
                else if (strncmp(line, "unreached ", 10) == 0)
                        unreached = line + 10;
                else if (strcmp(line, "ok") == 0)
                        ok = true;
        }
        out->landlock_applied = dg->landlock_abi > 0;
        out->seccomp_applied = ok;
        if (refused || !ok) {
                out->failure = strdup(refused ? refused : "the launcher ended without a word");
                return bento_err_setx(err, EPERM,
                                      "the Landlock-only tier could not confine the target, so it "
                                      "was not started: %s",
                                      out->failure ? out->failure : "out of memory");
        }
        if (unreached) {
                out->failure = strdup(unreached);
                return bento_err_setx(err, EIO,
                                      "the launcher applied every layer but could not start the "
                                      "target: %s. The script never ran, so this exit status is "
                                      "bento's; check the entrypoint and the interpreter with "
                                      "`bento validate`",
                                      unreached);
        }
        dg->started = out->started = true;
        out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        return 0;
}

static int spawn_launcher(struct launched *l, const struct argv_build *a, int hold_fd,
                          const struct run_stdio *io, char **env, struct bento_err *err)
{
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        int pipefd[2];
        int r;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot start the launcher");
        l->applied = pipefd[0];
        fds.in = io->in_fd;
        fds.out = io->out_fd;
        fds.err = io->err_fd;
        /* above 2 and 3, so that the dup2 to 3 cannot land on a source */
        fds.extra = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 5);
        fds.extra_as = 3;
        fds.own_group = true;
        fds.env = env;
        fds.keep = &hold_fd;
        fds.n_keep = hold_fd >= 0 ? 1 : 0;
        close(pipefd[1]);
        if (fds.extra < 0)
                return bento_err_set(err, errno, "cannot start the launcher");
        r = run_spawn((char *const *) a->v, &fds, &l->pid, err);
        close(fds.extra);
        if (r < 0)
                return r;
        l->pidfd = (int) syscall(SYS_pidfd_open, l->pid, 0);
        if (l->pidfd < 0)
                return bento_err_set(err, errno, "cannot watch the launcher");
        return 0;
}

/* On every path out: a launcher still there (bento failed while waiting)
 * is killed with its group and reaped, and so is every process of the run
 * that left the group and was orphaned to bento (escapees.c); the gate,
 * bento's other child, is stopped by its owner. */
static long launched_done(struct launched *l, const struct run_gate *gate)
{
        long escapees = 0;
        int status;

        if (l->pid > 0) {
                kill(-l->pid, SIGKILL);
                (void) run_wait(l->pid, &status);
        }
        if (l->adopted)
                escapees = run_escapees_kill(&gate->pid, gate->pid > 0 ? 1 : 0);
        if (l->pidfd >= 0)
                close(l->pidfd);
        if (l->applied >= 0)
                close(l->applied);
        free(l->said);
        return escapees;
}

int run_degraded(struct run_degraded *dg, const struct policy *p, struct run_gate *gate,
                 const struct run_stdio *io, char **env, struct run_outcome *out,
                 struct bento_err *err)
{
        struct argv_build *a = calloc(1, sizeof(*a));
        struct launched l = {.pidfd = -1, .applied = -1};
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        cleanup_close int sigfd = -1, hold = -1;
        int status = 0, r;
        sigset_t old;

        out->oom_kills = -1;
        if (!a || n <= 0) {
                free(a);
                return bento_err_set(err, a ? errno : ENOMEM, "cannot find bento's own program");
        }
        self[n] = '\0';
        /* above 0-3, which the spawn fills */
        dg->hold_fd = hold = dg->claim ? run_claim_reader(dg->claim, 5) : -1;
        if (dg->claim && hold < 0) {
                free(a);
                return bento_err_set(err, -hold, "cannot hand the run's claim to the launcher");
        }
        r = build_argv(a, dg, p, dg->gate_socket, self, err);
        if (r >= 0)
                r = sigfd = run_block_signals(&old, err);
        if (r >= 0 && gate->on)
                r = run_gate_ready(gate, err);
        if (r >= 0)
                r = run_escapees_adopt(err);
        l.adopted = r >= 0;
        if (r >= 0)
                r = spawn_launcher(&l, a, hold, io, env, err);
        gate->in_use = r >= 0 && gate->on;
        if (r >= 0)
                r = wait_launched(&l, io, sigfd, out, &status);
        if (r >= 0)
                r = judge(dg, &l, status, out, err);
        if (launched_done(&l, gate) < 0 && r >= 0)
                r = bento_err_setx(err, EIO,
                                   "the target left processes running outside its process group "
                                   "that bento could not all stop");
        free(a);
        run_gate_stop(gate);
        if (sigfd >= 0 && !out->cancelled)
                sigprocmask(SIG_SETMASK, &old, NULL);
        if (r < 0 && !err->msg[0])
                return bento_err_set(err, -r, "the Landlock-only tier could not run the target");
        return r;
}

void run_degraded_done(struct run_degraded *dg)
{
        free(dg->scratch);
        free(dg->hidden);
        free(dg->kept);
        free(dg->exposed);
        *dg = (struct run_degraded){0};
}

static bool exists(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0;
}

static bool listed(const struct run_degraded *dg, const struct shield_rule *r)
{
        for (size_t i = 0; i < dg->n_exposed; i++)
                if (dg->exposed[i].rule && strcmp(dg->exposed[i].rule->path, r->path) == 0)
                        return true;
        return false;
}

int run_degraded_exposure(struct run_degraded *dg, const struct policy *p, struct bento_err *err)
{
        size_t cap = dg->n_hidden + p->n_shield_mounts + (p->shields ? p->shields->n_rules : 0) + 1;

        dg->exposed = calloc(cap, sizeof(*dg->exposed));
        if (!dg->exposed)
                return bento_err_set(err, ENOMEM, "exposed shields");
        for (size_t i = 0; i < dg->n_hidden; i++)
                if (!dg->kept[i] && exists(dg->hidden[i]->path))
                        dg->exposed[dg->n_exposed++] = (struct run_exposed){
                            dg->hidden[i], "the launcher did not find it where it looked, so "
                                           "it could not be left out of the read grants"};
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const struct shield_rule *r = p->shield_mounts[i].rule;

                if (r->deny == SHIELD_DENY_WRITE && r->origin == SHIELD_ORIGIN_WORKSPACE &&
                    exists(r->path) && !listed(dg, r))
                        dg->exposed[dg->n_exposed++] = (struct run_exposed){
                            r, "writable: without a mount namespace it cannot be made read-only "
                               "inside its write grant (the auto-exec change report lists what "
                               "the run changed)"};
        }
        /* Connecting to a pathname unix socket is not a file access Landlock
         * checks before ABI 9, and the launcher does not handle ABI 9's
         * right yet: the host's service sockets stay reachable. */
        for (size_t i = 0; p->shields && i < p->shields->n_rules; i++) {
                const struct shield_rule *r = &p->shields->rules[i];

                if (r->deny == SHIELD_DENY_ALL && r->holds == SHIELD_HOLDS_SERVICES &&
                    exists(r->path) && !listed(dg, r))
                        dg->exposed[dg->n_exposed++] = (struct run_exposed){
                            r, "the unix sockets below it can be connected to: the Landlock-only "
                               "tier does not restrict connect() to a socket file"};
        }
        return 0;
}
