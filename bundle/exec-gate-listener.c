/* SPDX-License-Identifier: Apache-2.0 */
/* The gate's listening socket (see listener.h). */
#include "exec-gate-listener.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

int gate_listener_open(struct gate_listener *l, const char *path, struct bento_err *err)
{
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        cleanup_close int fd = -1;
        struct stat st;
        mode_t old_mask;
        int r;

        *l = (struct gate_listener){.fd = -1};
        if (strlen(path) >= sizeof(addr.sun_path))
                return bento_err_setx(err, ENAMETOOLONG,
                                      "socket path '%s' is longer than a unix socket address "
                                      "can be (%zu bytes)",
                                      path, sizeof(addr.sun_path) - 1);
        if (lstat(path, &st) == 0)
                return bento_err_setx(err, EADDRINUSE,
                                      "'%s' already exists: another gate may be serving it; "
                                      "if it was left by a gate that was killed, remove it",
                                      path);
        memcpy(addr.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return bento_err_set(err, errno, "socket");
        /* the mode comes from the umask: owner only, with no window in
         * which the socket is open to others */
        old_mask = umask(0077);
        r = bind(fd, (struct sockaddr *) &addr, sizeof(addr));
        umask(old_mask);
        if (r < 0)
                return bento_err_set(err, errno, "cannot bind '%s'", path);
        if (lstat(path, &st) < 0) {
                r = -errno;
                (void) unlink(path);
                return bento_err_set(err, -r, "'%s'", path);
        }
        if (listen(fd, 4) < 0) {
                r = -errno;
                (void) unlink(path);
                return bento_err_set(err, -r, "cannot listen on '%s'", path);
        }
        memcpy(l->path, path, strlen(path) + 1);
        l->dev = st.st_dev;
        l->ino = st.st_ino;
        l->fd = TAKE_FD(fd);
        return 0;
}

int gate_listener_accept(struct gate_listener *l, struct gate_peer *ret_peer, struct bento_err *err)
{
        cleanup_close int conn = -1;
        struct ucred cred;
        socklen_t len = sizeof(cred);

        do
                conn = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        while (conn < 0 && errno == EINTR);
        if (conn < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED))
                return -EAGAIN;
        if (conn < 0)
                return bento_err_set(err, errno, "accept on '%s'", l->path);
        if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return bento_err_set(err, errno, "reading the peer's credentials");
        if (cred.uid != geteuid() && cred.uid != 0)
                return bento_err_setx(err, EPERM,
                                      "turned away a connection from pid %d: uid %u is neither "
                                      "the gate's (%u) nor root",
                                      (int) cred.pid, (unsigned) cred.uid, (unsigned) geteuid());
        *ret_peer = (struct gate_peer){.pid = cred.pid, .uid = cred.uid};
        return TAKE_FD(conn);
}

void gate_listener_close(struct gate_listener *l)
{
        struct stat st;

        if (l->fd < 0)
                return;
        close(l->fd);
        l->fd = -1;
        /* someone may have put something else there meanwhile: leave it */
        if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == l->dev &&
            st.st_ino == l->ino)
                (void) unlink(l->path);
}
