/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library's side of the network gate protocol (docs/embedding.md,
 * "The network gate protocol"): a socket in a fresh private (0700)
 * directory, and a thread that takes the proxy's questions one line at a
 * time and answers each with the caller's callback.  Only root (the proxy
 * runs as root when it connects) or the library's own user may talk to it:
 * anyone else is hung up on unasked.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"

#define GATE_LINE_MAX 512 /* a host name is at most 253 bytes */

static bool peer_trusted(int fd)
{
        struct ucred cred;
        socklen_t len = sizeof(cred);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return false;
        return cred.uid == 0 || cred.uid == geteuid();
}

/* One question line ("<id> <host> <port>") answered on fd; false when the
 * line is not one (the connection is then dropped: the proxy denies). */
static bool answer(const struct embed_gate *g, int fd, char *line)
{
        char *host = strchr(line, ' '), *port = host ? strchr(host + 1, ' ') : NULL;
        char reply[64];
        bool yes;
        int n;

        if (!host || !port || strchr(port + 1, ' ') || host == line)
                return false;
        *host++ = '\0';
        *port++ = '\0';
        if (strspn(line, "0123456789") != strlen(line) || strlen(line) > 20)
                return false;
        yes = g->fn(host, port, g->userdata);
        n = snprintf(reply, sizeof(reply), "%s %s\n", line, yes ? "allow" : "deny");
        return send(fd, reply, (size_t) n, MSG_NOSIGNAL) == n;
}

/* The lines of one connection, the greeting first, until it or the stop
 * pipe closes. */
static void converse(const struct embed_gate *g, int fd)
{
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = g->stop_fd, .events = POLLIN}};
        char buf[GATE_LINE_MAX];
        size_t len = 0;
        bool greeted = false;

        for (;;) {
                char *nl;
                ssize_t n;

                if (poll(p, 2, -1) < 0 && errno != EINTR)
                        return;
                if (p[1].revents)
                        return;
                if (!p[0].revents)
                        continue;
                n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
                if (n <= 0)
                        return;
                len += (size_t) n;
                while ((nl = memchr(buf, '\n', len))) {
                        *nl = '\0';
                        if (!greeted)
                                greeted = strcmp(buf, "bento-network-gate 1") == 0;
                        else if (!answer(g, fd, buf))
                                return;
                        if (!greeted)
                                return; /* another protocol: nothing to say */
                        len -= (size_t) (nl + 1 - buf);
                        memmove(buf, nl + 1, len);
                }
                if (len == sizeof(buf) - 1)
                        return;
        }
}

static void *serve(void *arg)
{
        const struct embed_gate *g = arg;
        struct pollfd p[2] = {{.fd = g->listen_fd, .events = POLLIN},
                              {.fd = g->stop_fd, .events = POLLIN}};

        for (;;) {
                int fd;

                if (poll(p, 2, -1) < 0 && errno != EINTR)
                        return NULL;
                if (p[1].revents)
                        return NULL;
                if (!p[0].revents)
                        continue;
                fd = accept4(g->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0)
                        continue;
                if (peer_trusted(fd))
                        converse(g, fd);
                close(fd);
        }
}

/* The identity of what was just made (the directory when sock is false,
 * else the socket in it), so that removal touches those very objects and
 * nothing put in their place. */
static int remember(struct embed_gate *g, bool sock)
{
        struct stat st;

        if (!sock)
                g->dir_fd = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (g->dir_fd < 0 || (sock ? fstatat(g->dir_fd, "gate.sock", &st, AT_SYMLINK_NOFOLLOW)
                                   : fstat(g->dir_fd, &st)) < 0)
                return -errno;
        if (sock) {
                g->sock_dev = st.st_dev;
                g->sock_ino = st.st_ino;
        } else {
                g->dir_dev = st.st_dev;
                g->dir_ino = st.st_ino;
        }
        return 0;
}

/* Remove the socket and the directory, each only if it is still what
 * remember() saw: never follows a symlink, never removes another file. */
static void remove_made(const struct embed_gate *g)
{
        struct stat st;

        if (g->dir_fd < 0)
                return;
        if (g->sock_ino && fstatat(g->dir_fd, "gate.sock", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_dev == g->sock_dev && st.st_ino == g->sock_ino)
                (void) unlinkat(g->dir_fd, "gate.sock", 0);
        /* rmdir() removes only an empty directory, and only this one */
        if (lstat(g->dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == g->dir_dev &&
            st.st_ino == g->dir_ino)
                (void) rmdir(g->dir);
}

static int listen_on(struct embed_gate *g)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        const char *tmp = getenv("TMPDIR");
        cleanup_free char *tmpl = NULL;
        int r;

        if (!tmp || tmp[0] != '/')
                tmp = "/tmp";
        if (asprintf(&tmpl, "%s/bento-gate-XXXXXX", tmp) < 0)
                return -ENOMEM;
        if (!mkdtemp(tmpl)) /* 0700: nobody else can even reach the socket */
                return -errno;
        g->dir = TAKE_PTR(tmpl);
        r = remember(g, false);
        if (r < 0)
                return r;
        if (asprintf(&g->path, "%s/gate.sock", g->dir) < 0) {
                g->path = NULL;
                return -ENOMEM;
        }
        if (strlen(g->path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, g->path, strlen(g->path) + 1);
        g->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (g->listen_fd < 0)
                return -errno;
        if (bind(g->listen_fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        r = remember(g, true);
        if (r < 0)
                return r;
        return listen(g->listen_fd, 4) < 0 ? -errno : 0;
}

int embed_gate_start(struct embed_gate *g, bento_gate_fn fn, void *userdata)
{
        int p[2];
        pthread_t t;
        int r;

        *g = (struct embed_gate){.listen_fd = -1,
                                 .stop_fd = -1,
                                 .stop_w = -1,
                                 .dir_fd = -1,
                                 .fn = fn,
                                 .userdata = userdata};
        r = listen_on(g);
        if (r < 0)
                return r;
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        g->stop_fd = p[0];
        r = pthread_create(&t, NULL, serve, g);
        if (r != 0) {
                close(p[1]);
                return -r;
        }
        g->thread = t;
        g->started = true;
        g->stop_w = p[1];
        return 0;
}

void embed_gate_stop(struct embed_gate *g)
{
        if (g->started) {
                close(g->stop_w); /* poll() in the thread sees the hang-up */
                pthread_join(g->thread, NULL);
        }
        if (g->listen_fd >= 0)
                close(g->listen_fd);
        if (g->stop_fd >= 0)
                close(g->stop_fd);
        remove_made(g);
        if (g->dir_fd >= 0)
                close(g->dir_fd);
        free(g->path);
        free(g->dir);
        *g = (struct embed_gate){.listen_fd = -1, .stop_fd = -1, .stop_w = -1, .dir_fd = -1};
}
