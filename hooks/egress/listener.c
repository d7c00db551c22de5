/* SPDX-License-Identifier: Apache-2.0 */
/* The listening socket inside the container's netns (see listener.h). */
#include "listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"

static int if_flags(int sock, const char *name, short *ret)
{
        struct ifreq ifr;

        memset(&ifr, 0, sizeof(ifr));
        strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                return -errno;
        *ret = ifr.ifr_flags;
        return 0;
}

static int loopback_up(int sock, struct bento_err *err)
{
        struct ifreq ifr;

        memset(&ifr, 0, sizeof(ifr));
        strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                return bento_err_set(err, errno, "cannot read the flags of lo in the container");
        if (ifr.ifr_flags & IFF_UP)
                return 0;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0)
                return bento_err_set(err, errno, "cannot bring lo up in the container");
        return 0;
}

/* Refuse a namespace where some interface besides lo is up. */
static int only_loopback(int sock, struct bento_err *err)
{
        struct if_nameindex *ifs = if_nameindex();
        int r = 0;

        if (!ifs)
                return bento_err_set(err, errno, "cannot list the container's interfaces");
        for (struct if_nameindex *i = ifs; i->if_index != 0 && r == 0; i++) {
                short flags = 0;

                if (strcmp(i->if_name, "lo") == 0 || if_flags(sock, i->if_name, &flags) < 0)
                        continue;
                if (flags & IFF_UP)
                        r = bento_err_setx(err, EEXIST,
                                           "the container's network namespace has interface "
                                           "'%s' up, so programs could bypass the proxy: give "
                                           "the container an empty network namespace (podman: "
                                           "--network none)",
                                           i->if_name);
        }
        if_freenameindex(ifs);
        return r;
}

static int bind_proxy(struct bento_err *err)
{
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(EGRESS_LISTEN_PORT)};
        cleanup_close int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1;

        if (fd < 0)
                return bento_err_set(err, errno, "cannot create the proxy socket");
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return bento_err_set(err, errno,
                                     "cannot listen on 127.0.0.1:%d in the container (is another "
                                     "egress hook already attached?)",
                                     EGRESS_LISTEN_PORT);
        if (listen(fd, SOMAXCONN) < 0)
                return bento_err_set(err, errno, "cannot listen on 127.0.0.1:%d",
                                     EGRESS_LISTEN_PORT);
        return TAKE_FD(fd);
}

/* The part that runs inside the container's namespace. */
static int inside(bool allow_interfaces, struct bento_err *err)
{
        cleanup_close int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        int r;

        if (sock < 0)
                return bento_err_set(err, errno, "cannot create a socket in the container");
        r = loopback_up(sock, err);
        if (r >= 0 && !allow_interfaces)
                r = only_loopback(sock, err);
        if (r < 0)
                return r;
        return bind_proxy(err);
}

int egress_listener_create(int netns_fd, bool allow_interfaces, struct bento_err *err)
{
        cleanup_close int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        int fd;

        if (home < 0)
                return bento_err_set(err, errno, "cannot open our own network namespace");
        if (setns(netns_fd, CLONE_NEWNET) < 0)
                return bento_err_set(err, errno,
                                     "cannot enter the container's network namespace (the hook "
                                     "needs CAP_SYS_ADMIN over it: run it as root)");
        fd = inside(allow_interfaces, err);
        if (setns(home, CLONE_NEWNET) < 0) {
                /* stuck in the container's namespace: dialling from here
                 * would be wrong, and there is no way back */
                if (fd >= 0)
                        close(fd);
                return bento_err_set(err, errno, "cannot return to the host's network namespace");
        }
        return fd;
}
