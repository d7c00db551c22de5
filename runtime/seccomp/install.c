/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The init's side of seccomp: connect to the agent's socket while host paths
 * are still reachable, and load the program compiled in `create`.  Loading
 * is a single seccomp(2) call on memory the init already has.  With
 * SCMP_ACT_NOTIFY rules the kernel returns a listener fd, which goes to the
 * agent in one message together with the "container process state" of the
 * runtime-spec (config-linux.md, "The Container Process State"):
 *
 *   {"ociVersion", "fds": ["seccompFd"], "pid", "metadata"?,
 *    "state": {"ociVersion", "id", "status": "creating", "pid", "bundle",
 *              "annotations"}}
 *
 * That text is built before the filter goes in, so that the filter cannot
 * get in the way of building it; after the filter only sendmsg(2) and
 * close(2) follow.
 */
#include "internal.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "jsonw.h"
#include "state.h"

int rt_seccomp_connect_listener(const struct rt_seccomp *s, struct bento_err *err)
{
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        cleanup_close int fd = -1;

        if (!rt_seccomp_has_listener(s))
                return bento_err_setx(err, EINVAL, "linux.seccomp: no listenerPath");
        /* the length was checked in `create` */
        strncpy(addr.sun_path, s->listener_path, sizeof(addr.sun_path) - 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return bento_err_set(err, errno, "linux.seccomp.listenerPath: socket");
        if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return bento_err_set(err, errno,
                                     "linux.seccomp.listenerPath: cannot connect to the "
                                     "seccomp agent at '%s'",
                                     s->listener_path);
        return TAKE_FD(fd);
}

/* The container process state, compact, as one heap string. */
static int process_state(const struct rt_seccomp *s, const struct oci_config *cfg, const char *id,
                         const char *bundle, pid_t pid, char **ret, struct bento_err *err)
{
        struct bento_oci_state st = {
            .id = id, .status = BENTO_STATUS_CREATING, .pid = pid, .bundle = bundle, .cfg = cfg};
        cleanup_jsonw struct bento_jsonw w = {0};
        size_t len = 0;
        int r;

        r = bento_jsonw_init(&w, false, err);
        if (r < 0)
                return bento_err_prefix(err, "seccomp agent message");
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "ociVersion", BENTO_OCI_VERSION);
        bento_jsonw_key(&w, "fds");
        bento_jsonw_open_array(&w);
        bento_jsonw_string(&w, "seccompFd");
        bento_jsonw_close_array(&w);
        bento_jsonw_kint(&w, "pid", pid);
        bento_jsonw_kstring_opt(&w, "metadata", s->listener_metadata);
        /* the state object straight in, not written, parsed and written again */
        bento_jsonw_key(&w, "state");
        bento_oci_state_put(&w, &st);
        bento_jsonw_close_object(&w);
        r = bento_jsonw_finish(&w, ret, &len);
        return r < 0 ? bento_err_prefix(err, "seccomp agent message") : 0;
}

/* One sendmsg with the text and the listener fd; the rest of a long text
 * follows in plain writes (the socket is a stream). */
static int send_listener(int sock, int listener, const char *msg, struct bento_err *err)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        size_t len = strlen(msg);
        struct iovec iov = {.iov_base = (void *) msg, .iov_len = len};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        ssize_t n;

        memset(&ctl, 0, sizeof(ctl));
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &listener, sizeof(int));
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        while (n >= 0 && (size_t) n < len) {
                ssize_t k = send(sock, msg + n, len - (size_t) n, MSG_NOSIGNAL);

                if (k < 0 && errno == EINTR)
                        continue;
                n = k < 0 ? k : n + k;
        }
        if (n < 0)
                return bento_err_set(err, errno,
                                     "linux.seccomp.listenerPath: cannot hand the listener "
                                     "to the seccomp agent");
        return 0;
}

static unsigned int load_flags(const struct rt_seccomp *s, bool listener)
{
        unsigned int flags = s->flags;

        if (listener) {
                flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
                /* the kernel takes TSYNC with a listener only when a
                 * failed sync is reported as ESRCH; the init has a single
                 * thread, so it never fails */
                if (flags & SECCOMP_FILTER_FLAG_TSYNC)
                        flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
        }
        return flags;
}

uint64_t rt_seccomp_until_exec(const struct rt_seccomp *s, bool no_new_privileges)
{
        return s && !no_new_privileges ? UINT64_C(1) << CAP_SYS_ADMIN : 0;
}

int rt_seccomp_install(const struct rt_seccomp *s, int listener_fd, const struct oci_config *cfg,
                       const char *id, const char *bundle, pid_t host_pid, struct bento_err *err)
{
        bool listener = rt_seccomp_has_listener(s);
        cleanup_free char *msg = NULL;
        long fd;
        int r;

        if (listener && listener_fd < 0)
                return bento_err_setx(err, EINVAL, "linux.seccomp: the agent is not connected");
        if (listener) {
                r = process_state(s, cfg, id, bundle, host_pid, &msg, err);
                if (r < 0)
                        return r;
                if (!msg)
                        return bento_err_setx(err, ENOMEM, "seccomp agent message");
        }
        fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, load_flags(s, listener), &s->prog);
        if (fd < 0)
                return bento_err_set(err, errno, "linux.seccomp: loading the filter (flags %#x)",
                                     load_flags(s, listener));
        if (!listener)
                return 0;
        r = send_listener(listener_fd, (int) fd, msg, err);
        /* both are O_CLOEXEC, so a close the filter refuses leaks nothing
         * into the target */
        close((int) fd);
        close(listener_fd);
        return r;
}
