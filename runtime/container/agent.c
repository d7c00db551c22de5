/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec gate of a bento bundle, started by `create` when nobody serves
 * it (docs/exec-gate.md, "Started by bento-runtime"), so that
 * `bento translate m.yaml -o b/` then `bento-runtime run -b b/ ID` works
 * without the bento-exec-gate wrapper.  Only when all of these hold:
 *
 *   - linux.seccomp has notify rules and a listenerPath, and its
 *     listenerMetadata names bento-exec-gate ("bento-exec-gate/..."): a
 *     bundle that names any other agent is left to that agent, and fails
 *     closed as before when it is not there;
 *   - the listener's directory is the bundle directory itself (same device
 *     and inode), so a bundle cannot have a gate made anywhere else;
 *   - nothing exists at listenerPath: a socket there is someone's gate (the
 *     wrapper's), which one probing connection would use up, so it is never
 *     touched; a stale one makes the init's connect fail, closed.
 *
 * A bundle that was moved after `bento translate` still has the old
 * absolute listenerPath (crun takes no relative one).  When nothing exists
 * there, it is not in the bundle, and its file name is the one the
 * org.bento.exec-gate.socket annotation gives (a plain file name), the
 * listener becomes that name in the bundle and the rules above apply to it.  The
 * container is gated all the same, by a gate with the bundle's own policy.
 *
 * The gate is the bento-exec-gate in bento-runtime's own directory (never
 * one found through PATH or named by the bundle), started in daemon mode
 * in a session of its own and not as the runtime's child, so it outlives
 * `create` and serves the container until its last process is gone.  The
 * runtime waits (bounded) for its ready byte; no byte is an error.
 */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/beside.h"
#include "base/log.h"
#include "cleanup.h"
#include "exec-gate-socket.h"

#define GATE_PROGRAM  "bento-exec-gate"
#define GATE_METADATA "bento-exec-gate/"
#define GATE_READY_MS 10000
#define GATE_READY_FD 3

/* bento-exec-gate beside this very bento-runtime; heap, or NULL. */
static char *gate_beside_self(struct bento_err *err)
{
        char *gate = rt_program_beside_self(GATE_PROGRAM, err);
        struct stat st;

        if (!gate)
                return NULL;
        if (stat(gate, &st) < 0 || !S_ISREG(st.st_mode) || access(gate, X_OK) < 0) {
                bento_err_set(err, errno ? errno : EACCES,
                              "linux.seccomp: the bundle names " GATE_PROGRAM
                              " as its agent and nothing listens at listenerPath, but there is "
                              "no %s to start",
                              gate);
                free(gate);
                return NULL;
        }
        return gate;
}

/* The listener's directory is the bundle directory (device and inode). */
static bool inside_bundle(const char *listener, const char *bundle)
{
        char dir[PATH_MAX];
        char *slash;
        struct stat a, b;

        if (snprintf(dir, sizeof(dir), "%s", listener) >= (int) sizeof(dir))
                return false;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir || !slash[1] || strcmp(slash + 1, ".") == 0 ||
            strcmp(slash + 1, "..") == 0)
                return false;
        *slash = '\0';
        return stat(dir, &a) == 0 && stat(bundle, &b) == 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
}

/* The grandchild: the gate, in a session of its own, its ready byte on
 * GATE_READY_FD and nothing else of the runtime's.  Its standard streams are
 * /dev/null: it outlives `create`, and a caller that reads the runtime's
 * stderr to its end (an engine) would otherwise wait for the container's
 * end.  A gate that cannot serve fails closed all the same (the init's
 * connect or exec fails and says so).  Never returns. */
static void exec_gate(const char *gate, const char *socket_path, int ready)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);

        if (setsid() < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
            dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0 ||
            dup2(ready, GATE_READY_FD) < 0)
                _exit(127);
        /* descriptors the caller handed the runtime for the container */
        (void) close_range(GATE_READY_FD + 1, ~0U, 0);
        execl(gate, GATE_PROGRAM, "--socket", socket_path, "--ready-fd", "3", (char *) NULL);
        _exit(127);
}

/* Fork twice, so that the gate is nobody's child here. */
static int spawn_gate(const char *gate, const char *socket_path, int ready, struct bento_err *err)
{
        int status = 0;
        pid_t pid = fork();

        if (pid < 0)
                return bento_err_set(err, errno, "cannot start %s", gate);
        if (pid == 0) {
                pid_t g = fork();

                if (g == 0)
                        exec_gate(gate, socket_path, ready);
                _exit(g < 0 ? 1 : 0);
        }
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return bento_err_setx(err, EIO, "cannot start %s", gate);
        return 0;
}

static int wait_ready(int fd, const char *gate, const char *path, struct bento_err *err)
{
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char byte = 0;
        int n;

        do
                n = poll(&p, 1, GATE_READY_MS);
        while (n < 0 && errno == EINTR);
        if (n > 0 && read(fd, &byte, 1) == 1 && byte == 'R')
                return 0;
        return bento_err_setx(err, EIO,
                              "linux.seccomp: %s did not start listening at '%s' within %d s; "
                              "the container cannot be gated",
                              gate, path, GATE_READY_MS / 1000);
}

/* The moved bundle's socket: listenerPath made <bundle>/<annotation> when
 * the annotation is a plain file name, listenerPath ends in that same name
 * (it is the bundle's own socket at its old place, not some other agent's)
 * and nothing is at the old path.  1 when it was moved, 0 when not. */
static int follow_moved_bundle(struct rt_seccomp *s, const struct oci_config *cfg,
                               const char *bundle, struct bento_err *err)
{
        const char *name = oci_config_annotation(cfg, BENTO_GATE_SOCKET_ANNOTATION);
        const char *old = rt_seccomp_listener_path(s);
        const char *old_name = strrchr(old, '/');
        char *moved = NULL;
        struct stat st;
        int r;

        if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
            strcmp(name, "..") == 0)
                return 0;
        if (!old_name || strcmp(old_name + 1, name) != 0)
                return 0;
        if (lstat(old, &st) == 0 || errno != ENOENT)
                return 0;
        if (asprintf(&moved, "%s/%s", bundle, name) < 0)
                return bento_err_set(err, ENOMEM, "linux.seccomp.listenerPath");
        rt_log_debug("listenerPath %s is not in the bundle: using the bundle's %s",
                     rt_seccomp_listener_path(s), moved);
        r = rt_seccomp_set_listener_path(s, moved, err);
        return r < 0 ? r : 1;
}

int rt_agent_start(struct rt_seccomp *s, const struct oci_config *cfg, const char *bundle,
                   struct bento_err *err)
{
        const char *path = rt_seccomp_listener_path(s);
        const char *meta = rt_seccomp_listener_metadata(s);
        cleanup_free char *gate = NULL;
        cleanup_close int rd = -1;
        struct stat st;
        int p[2], r;

        if (!rt_seccomp_has_listener(s) || !meta ||
            strncmp(meta, GATE_METADATA, strlen(GATE_METADATA)) != 0)
                return 0;
        if (!inside_bundle(path, bundle)) {
                /* a path not moved was just found outside: not asked again */
                r = follow_moved_bundle(s, cfg, bundle, err);
                path = rt_seccomp_listener_path(s);
                if (r <= 0 || !inside_bundle(path, bundle))
                        return r < 0 ? r : 0;
        }
        if (lstat(path, &st) == 0 || errno != ENOENT)
                return 0;
        gate = gate_beside_self(err);
        if (!gate)
                return -err->code;
        if (pipe2(p, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot start %s", gate);
        rd = p[0];
        r = spawn_gate(gate, path, p[1], err);
        close(p[1]);
        if (r < 0)
                return r;
        rt_log_debug("started %s for %s", gate, path);
        return wait_ready(rd, gate, path, err);
}
