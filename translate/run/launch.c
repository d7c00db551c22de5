/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The launcher of the Landlock-only tier (launch.h, docs/degraded.md), in
 * the order its steps must come: descriptors first (nothing of bento's
 * reaches the target), the exec gate's socket while it can still be
 * reached, Landlock, the seccomp fences, and the exec filter last, right
 * before the one execve() the gate lets through.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "argv.h"
#include "cleanup.h"
#include "run.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

static void tell(const struct launch *l, const char *word, const char *text)
{
        char line[1024];
        int n = snprintf(line, sizeof(line), "%s%s%s\n", word, text ? " " : "", text ? text : "");

        if (l->applied_fd >= 0 && n > 0)
                (void) !write(l->applied_fd, line,
                              (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1);
}

static int refuse(const struct launch *l, const char *why)
{
        tell(l, "refused", why);
        return BENTO_EXIT_REFUSED;
}

static int push(const char **v, size_t *n, const char *s)
{
        if (*n >= LAUNCH_PATHS_MAX)
                return -E2BIG;
        v[(*n)++] = s;
        return 0;
}

static int parse_exec(const char *s, enum manifest_exec *ret)
{
        for (int e = MANIFEST_EXEC_NONE; e <= MANIFEST_EXEC_ALL; e++)
                if (strcmp(s, manifest_exec_to_string((enum manifest_exec) e)) == 0) {
                        *ret = (enum manifest_exec) e;
                        return 0;
                }
        return -EINVAL;
}

enum { OPT_EXEC = 1, OPT_APPLIED_FD, OPT_HOLD_FD, OPT_GATE, OPT_CWD, OPT_RO, OPT_RW, OPT_HIDE };

/* The launcher's words, which bento writes (degraded.c): data, so no --help. */
static const struct bento_opt launch_opts[] = {
    {"exec", 0, BENTO_OPT_VALUE, OPT_EXEC, "MODE", NULL},
    {"applied-fd", 0, BENTO_OPT_VALUE, OPT_APPLIED_FD, "N", NULL},
    {"hold-fd", 0, BENTO_OPT_VALUE, OPT_HOLD_FD, "N", NULL},
    {"gate", 0, BENTO_OPT_VALUE, OPT_GATE, "SOCKET", NULL},
    {"cwd", 0, BENTO_OPT_VALUE, OPT_CWD, "DIR", NULL},
    {"ro", 0, BENTO_OPT_VALUE, OPT_RO, "PATH", NULL},
    {"rw", 0, BENTO_OPT_VALUE, OPT_RW, "PATH", NULL},
    {"hide", 0, BENTO_OPT_VALUE, OPT_HIDE, "PATH", NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_fd(const char *s, int *ret)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (s[0] < '0' || s[0] > '9' || errno || *end || v < 3 || v > 65535)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

static int take(struct launch *l, int id, const char *v, bool *exec_set)
{
        switch (id) {
        case OPT_EXEC:
                *exec_set = true;
                return parse_exec(v, &l->exec);
        case OPT_APPLIED_FD:
                return parse_fd(v, &l->applied_fd);
        case OPT_HOLD_FD:
                return parse_fd(v, &l->hold_fd);
        case OPT_GATE:
                l->gate = v;
                return 0;
        case OPT_CWD:
                l->cwd = v;
                return 0;
        case OPT_RO:
                return push(l->ro, &l->n_ro, v);
        case OPT_RW:
                return push(l->rw, &l->n_rw, v);
        case OPT_HIDE:
                return push(l->hide, &l->n_hide, v);
        default:
                return -EINVAL;
        }
}

/* The options, with the parser every bento program shares, then "--" and the
 * target's absolute argv. */
static int parse(int argc, char **argv, struct launch *l)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err ignored = {0};
        bool exec_set = false;
        int r;

        while ((r = bento_argv_next(&a, launch_opts, &h, &ignored)) > 0)
                if (take(l, h.id, h.value, &exec_set) < 0)
                        return -EINVAL;
        if (r < 0 || !exec_set || a.i < 2 || strcmp(argv[a.i - 1], "--") != 0 || a.i >= argc ||
            argv[a.i][0] != '/' || l->applied_fd < 3 ||
            (l->hold_fd != -1 && (l->hold_fd < 3 || l->hold_fd == l->applied_fd)))
                return -EINVAL;
        if (l->exec != MANIFEST_EXEC_ALL && !l->gate)
                return -EINVAL;
        l->target = argv + a.i;
        return 0;
}

static int connect_gate(const char *path, struct bento_err *err)
{
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        cleanup_close int fd = -1;

        if (strlen(path) >= sizeof(addr.sun_path))
                return bento_err_setx(err, ENAMETOOLONG, "the exec gate's socket path is too long");
        memcpy(addr.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return bento_err_set(err, errno, "cannot connect to the exec gate at \"%s\"", path);
        return TAKE_FD(fd);
}

/* The listener to the gate, with the container process state it expects
 * (bundle/exec-gate-message.c): this process is the "init" whose one exec
 * goes through. */
static int hand_over(int sock, int listener, struct bento_err *err)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        char msg[512];
        int pid = (int) getpid();
        int len = snprintf(msg, sizeof(msg),
                           "{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":%d,"
                           "\"state\":{\"ociVersion\":\"1.0.2\",\"id\":\"bento-degraded-%d\","
                           "\"status\":\"creating\",\"pid\":%d,\"bundle\":\"/\"}}",
                           pid, pid, pid);
        struct iovec iov = {.iov_base = msg, .iov_len = (size_t) len};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        struct cmsghdr *cm;
        ssize_t n;

        memset(&ctl, 0, sizeof(ctl));
        cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &listener, sizeof(int));
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t) len)
                return bento_err_set(err, n < 0 ? errno : EIO,
                                     "cannot hand the exec filter to the exec gate");
        return 0;
}

/* The run's claim (claim.h) stays open in the target, so that the run's
 * directories (its scratch among them) outlive a bento killed while the
 * target runs.  Read-only: the target can let go of it, which costs it
 * its own scratch at the next run, but never write what the sweep reads. */
static int hold_claim(int fd, struct bento_err *err)
{
        int fl = fcntl(fd, F_GETFL);

        if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
                return bento_err_setx(err, EBADF, "the run's claim is not a read-only descriptor");
        if (fcntl(fd, F_SETFD, 0) < 0)
                return bento_err_set(err, errno, "cannot keep the run's claim");
        return 0;
}

/* Everything before the exec; 0, or -errno with err saying which layer. */
static int confine(struct launch *l, struct bento_err *err)
{
        int std[3];
        cleanup_close int gate = -1;
        char abi[24];
        int r, listener;

        /* nothing bento holds may reach the target, but the run's claim */
        if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot close the inherited descriptors");
        if (l->hold_fd >= 0 && hold_claim(l->hold_fd, err) < 0)
                return -err->code;
        if (run_screen_stdio(std, err) < 0)
                return -err->code;
        if (l->cwd && chdir(l->cwd) < 0)
                return bento_err_set(err, errno, "cannot enter \"%s\"", l->cwd);
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return bento_err_set(err, errno, "cannot make the launcher non-dumpable");
        if (l->gate && (gate = connect_gate(l->gate, err)) < 0)
                return gate;
        r = launch_landlock(l, err);
        if (r < 0)
                return r;
        snprintf(abi, sizeof(abi), "%d", r);
        tell(l, "landlock", abi);
        for (size_t i = 0; i < l->n_hide; i++)
                if (l->kept[i]) {
                        snprintf(abi, sizeof(abi), "%zu", i);
                        tell(l, "hidden", abi);
                }
        r = launch_install_fences(l->exec == MANIFEST_EXEC_NONE_STRICT, err);
        if (r < 0 || gate < 0)
                return r;
        listener = launch_install_exec_gate(err);
        if (listener < 0)
                return listener;
        r = hand_over(gate, listener, err);
        close(listener);
        return r;
}

int launch_main(int argc, char **argv)
{
        struct launch *l = calloc(1, sizeof(*l));
        struct bento_err err = {0};
        cleanup_free char *why = NULL;

        if (!l)
                return BENTO_EXIT_REFUSED;
        l->applied_fd = l->hold_fd = -1;
        if (parse(argc, argv, l) < 0) {
                fprintf(stderr, "bento: %s is bento's own; it is not for use by hand\n",
                        LAUNCH_VERB);
                return BENTO_EXIT_REFUSED;
        }
        if (confine(l, &err) < 0)
                return refuse(l, err.msg);
        tell(l, "ok", NULL);
        execve(l->target[0], l->target, environ);
        if (asprintf(&why, "cannot start \"%s\": %s", l->target[0], strerror(errno)) < 0)
                why = NULL;
        tell(l, "unreached", why ? why : "cannot start the target");
        return BENTO_EXIT_REFUSED;
}
