/* SPDX-License-Identifier: Apache-2.0 */
/* Container terminals and the console socket (see terminal.h). */
#include "terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "cleanup.h"
#include "base/sync.h"

static int open_pty(int *ret_master, int *ret_slave, char *name, size_t size, struct bento_err *err)
{
        cleanup_close int master = -1;
        int slave;

        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0)
                return bento_err_set(err, errno,
                                     "process.terminal: cannot open /dev/ptmx "
                                     "(is a devpts mounted with newinstance?)");
        if (unlockpt(master) < 0 || ptsname_r(master, name, size) != 0)
                return bento_err_set(err, errno, "process.terminal: cannot set up the pty");
        slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0)
                return bento_err_set(err, errno, "process.terminal: cannot open %s", name);
        *ret_master = TAKE_FD(master);
        *ret_slave = slave;
        return 0;
}

static int attach_slave(const struct oci_process *proc, int slave, const char *name,
                        bool bind_console, struct bento_err *err)
{
        if (setsid() < 0)
                return bento_err_set(err, errno, "setsid");
        if (ioctl(slave, TIOCSCTTY, 0) < 0)
                return bento_err_set(err, errno, "process.terminal: TIOCSCTTY");
        if (proc->has_console_size) {
                struct winsize ws = {.ws_row = (unsigned short) proc->console_height,
                                     .ws_col = (unsigned short) proc->console_width};
                if (ioctl(slave, TIOCSWINSZ, &ws) < 0)
                        return bento_err_set(err, errno, "process.consoleSize");
        }
        for (int fd = 0; fd < 3; fd++)
                if (dup2(slave, fd) < 0)
                        return bento_err_set(err, errno, "dup2 of the terminal");
        /* /dev/console was made an empty file by the mount step */
        if (bind_console && access("/dev/console", F_OK) == 0 &&
            mount(name, "/dev/console", NULL, MS_BIND, NULL) < 0)
                return bento_err_set(err, errno, "cannot bind the terminal on /dev/console");
        return 0;
}

static int terminal_setup(const struct oci_process *proc, int sync_fd, bool bind_console,
                          struct bento_err *err)
{
        char name[PATH_MAX];
        cleanup_close int master = -1;
        cleanup_close int slave = -1;
        int r;

        r = open_pty(&master, &slave, name, sizeof(name), err);
        if (r < 0)
                return r;
        r = attach_slave(proc, slave, name, bind_console, err);
        if (r < 0)
                return r;
        if (rt_sync_send(sync_fd, RT_SYNC_PTY, 0, NULL, master) < 0)
                return bento_err_set(err, EPIPE, "cannot pass the terminal to the runtime");
        return 0;
}

int rt_terminal_setup(const struct oci_process *proc, int sync_fd, struct bento_err *err)
{
        return terminal_setup(proc, sync_fd, true, err);
}

/* /dev/console stays the init's: an exec'd process gets a pty of its own
 * and must not take the container's console over. */
int rt_terminal_setup_exec(const struct oci_process *proc, int sync_fd, struct bento_err *err)
{
        return terminal_setup(proc, sync_fd, false, err);
}

int rt_console_send(const char *socket_path, int master_fd, struct bento_err *err)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        cleanup_close int sock = -1;
        /* must live until connect(): the path below goes through it */
        /* cppcheck-suppress variableScope */
        cleanup_close int dirfd = -1;
        cleanup_free char *copy = NULL;
        const char *target = socket_path;
        size_t target_len;
        char viafd[64];
        int r;

        /* long paths do not fit sun_path: go through the directory's fd */
        if (strlen(socket_path) >= sizeof(sa.sun_path)) {
                copy = strdup(socket_path);
                if (!copy)
                        return bento_err_set(err, ENOMEM, "console socket");
                dirfd = open(dirname(copy), O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (dirfd < 0)
                        return bento_err_set(err, errno, "--console-socket '%s'", socket_path);
                snprintf(viafd, sizeof(viafd), "/proc/self/fd/%d/%s", dirfd,
                         strrchr(socket_path, '/') + 1);
                target = viafd;
        }
        target_len = strlen(target);
        if (target_len >= sizeof(sa.sun_path))
                return bento_err_setx(err, ENAMETOOLONG, "--console-socket: path too long");
        memcpy(sa.sun_path, target, target_len + 1);
        sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0)
                return bento_err_set(err, errno, "console socket");
        if (connect(sock, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return bento_err_set(err, errno, "cannot connect to --console-socket '%s'",
                                     socket_path);
        /* conmon and containerd only look at the attached fd */
        r = rt_sync_send_raw_fd(sock, master_fd);
        if (r < 0)
                return bento_err_set(err, -r, "cannot send the terminal to '%s'", socket_path);
        return 0;
}
