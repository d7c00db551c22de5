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

/* Options come in pairs up to "--"; bento wrote them (degraded.c). */
static int parse(int argc, char **argv, struct launch *l)
{
        bool exec_set = false;
        int i = 1, r = 0;

        for (; r == 0 && i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
                const char *k = argv[i], *v = argv[i + 1];

                if (strcmp(k, "--exec") == 0)
                        r = parse_exec(v, &l->exec), exec_set = true;
                else if (strcmp(k, "--applied-fd") == 0)
                        l->applied_fd = atoi(v);
                else if (strcmp(k, "--gate") == 0)
                        l->gate = v;
                else if (strcmp(k, "--cwd") == 0)
                        l->cwd = v;
                else if (strcmp(k, "--ro") == 0)
                        r = push(l->ro, &l->n_ro, v);
                else if (strcmp(k, "--rw") == 0)
                        r = push(l->rw, &l->n_rw, v);
                else if (strcmp(k, "--hide") == 0)
                        r = push(l->hide, &l->n_hide, v);
                else
                        r = -EINVAL;
        }
        if (r < 0 || !exec_set || i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc ||
            argv[i + 1][0] != '/' || l->applied_fd < 3)
                return -EINVAL;
        if (l->exec != MANIFEST_EXEC_ALL && !l->gate)
                return -EINVAL;
        l->target = argv + i + 1;
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
 * (hooks/exec-gate/message.c): this process is the "init" whose one exec
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

/* Everything before the exec; 0, or -errno with err saying which layer. */
static int confine(struct launch *l, struct bento_err *err)
{
        int std[3];
        cleanup_close int gate = -1;
        char abi[16];
        int r, listener;

        /* nothing bento holds may reach the target */
        if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot close the inherited descriptors");
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
        l->applied_fd = -1;
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
