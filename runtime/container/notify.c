/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NOTIFY_SOCKET proxy (see notify.h): the container's side is a
 * directory of ours in the state directory, opened without following
 * symlinks and checked against the identity `create` recorded before
 * anything is bound in it or removed from it.
 */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "base/log.h"
#include "base/proc.h"

#define DIR_NAME    "notify"
#define SOCKET_NAME "notify"
/* where an abstract caller socket is shown in the container (runc's place) */
#define ABSTRACT_INNER "/run/notify"

const char *rt_notify_caller(void)
{
        const char *s = getenv("NOTIFY_SOCKET");

        return s && s[0] ? s : NULL;
}

/* The address of `name` (a path, or '@' for the abstract namespace). */
static int caller_addr(const char *name, struct sockaddr_un *addr, socklen_t *len,
                       struct bento_err *err)
{
        size_t n = strlen(name);

        if ((name[0] != '/' && name[0] != '@') || n < 2)
                return bento_err_setx(err, EINVAL,
                                      "NOTIFY_SOCKET '%s': expected an absolute path or an "
                                      "@abstract name",
                                      name);
        if (n >= sizeof(addr->sun_path))
                return bento_err_setx(err, ENAMETOOLONG,
                                      "NOTIFY_SOCKET '%s': longer than a socket address can be",
                                      name);
        memset(addr, 0, sizeof(*addr));
        addr->sun_family = AF_UNIX;
        memcpy(addr->sun_path, name, n);
        if (name[0] == '@')
                addr->sun_path[0] = '\0';
        *len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n);
        return 0;
}

/* The caller's path is also where the container finds its directory
 * (crun's choice): it must be a plain absolute path, and the socket path
 * in it must fit a socket address. */
static int inner_path(const char *caller, char **ret, struct bento_err *err)
{
        struct sockaddr_un addr;
        socklen_t len = 0;
        int r = caller_addr(caller, &addr, &len, err);

        if (r < 0)
                return r;
        if (caller[0] == '@')
                caller = ABSTRACT_INNER;
        if (strstr(caller, "//") || strstr(caller, "/./") || strstr(caller, "/../") ||
            caller[strlen(caller) - 1] == '/' ||
            (strlen(caller) >= 3 && !strcmp(caller + strlen(caller) - 3, "/..")) ||
            (strlen(caller) >= 2 && !strcmp(caller + strlen(caller) - 2, "/.")))
                return bento_err_setx(err, EINVAL,
                                      "NOTIFY_SOCKET '%s': expected a path without '.', '..' "
                                      "or empty components",
                                      caller);
        if (strlen(caller) + sizeof("/" SOCKET_NAME) > sizeof(addr.sun_path))
                return bento_err_setx(err, ENAMETOOLONG,
                                      "NOTIFY_SOCKET '%s': too long for the container's "
                                      "socket path (%s/" SOCKET_NAME ")",
                                      caller, caller);
        *ret = strdup(caller);
        return *ret ? 0 : bento_err_set(err, ENOMEM, "NOTIFY_SOCKET");
}

static int add_mount(struct oci_config *cfg, const char *state_dir, const char *inner)
{
        static const char *const options[] = {"bind", "nosuid", "noexec", "nodev", "ro"};
        const size_t n_opt = sizeof(options) / sizeof(options[0]);
        struct oci_mount *grown, *m;

        if (!inner)
                return -EINVAL;
        grown = realloc(cfg->mounts, (cfg->n_mounts + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        cfg->mounts = grown;
        m = &grown[cfg->n_mounts];
        memset(m, 0, sizeof(*m));
        m->destination = strdup(inner);
        m->type = strdup("bind");
        m->options = calloc(n_opt + 1, sizeof(char *));
        if (asprintf(&m->source, "%s/" DIR_NAME, state_dir) < 0)
                m->source = NULL;
        /* counted even when incomplete, so oci_config_free frees it */
        cfg->n_mounts++;
        if (!m->destination || !m->type || !m->options || !m->source)
                return -ENOMEM;
        for (; m->n_options < n_opt; m->n_options++)
                if (!(m->options[m->n_options] = strdup(options[m->n_options])))
                        return -ENOMEM;
        return 0;
}

/* process.env gets NOTIFY_SOCKET=<inner>/notify, replacing one the config
 * has: the container must talk to our socket, not to a path of its own. */
static int set_env(struct oci_process *p, const char *inner)
{
        char *entry = NULL;
        char **grown;

        if (asprintf(&entry, "NOTIFY_SOCKET=%s/" SOCKET_NAME, inner) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_env; i++)
                if (!strncmp(p->env[i], "NOTIFY_SOCKET=", 14)) {
                        free(p->env[i]);
                        p->env[i] = entry;
                        return 0;
                }
        grown = realloc(p->env, (p->n_env + 2) * sizeof(char *));
        if (!grown) {
                free(entry);
                return -ENOMEM;
        }
        p->env = grown;
        p->env[p->n_env++] = entry;
        p->env[p->n_env] = NULL;
        return 0;
}

int rt_notify_plan(struct oci_config *cfg, const char *state_dir, struct rt_notify *ret,
                   struct bento_err *err)
{
        const char *caller = rt_notify_caller();
        int r;

        ret->inner = NULL;
        if (!caller || !cfg->process)
                return 0;
        r = inner_path(caller, &ret->inner, err);
        if (r < 0)
                return r;
        if (add_mount(cfg, state_dir, ret->inner) < 0 || set_env(cfg->process, ret->inner) < 0)
                return bento_err_set(err, ENOMEM, "NOTIFY_SOCKET");
        rt_log_debug("NOTIFY_SOCKET %s: the container's is %s/" SOCKET_NAME, caller, ret->inner);
        return 0;
}

int rt_notify_make_dir(int state_dir_fd, struct rt_notify *n, struct bento_err *err)
{
        cleanup_close int fd = -1;
        struct stat st;

        if (!n->inner)
                return 0;
        if (mkdirat(state_dir_fd, DIR_NAME, 0755) < 0)
                return bento_err_set(err, errno, "cannot make the notify directory");
        fd = openat(state_dir_fd, DIR_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* 0755 whatever the umask: the container's user must reach the socket */
        if (fd < 0 || fchmod(fd, 0755) < 0 || fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "notify directory");
        n->dev = (uint64_t) st.st_dev;
        n->ino = (uint64_t) st.st_ino;
        return 0;
}

void rt_notify_done(struct rt_notify *n)
{
        free(n->inner);
        n->inner = NULL;
}

struct bento_json *rt_notify_describe(const struct rt_notify *n)
{
        struct bento_json *obj;

        if (!n || !n->inner)
                return NULL;
        obj = bento_json_new_object();
        if (!obj || bento_json_object_set(obj, "path", bento_json_new_string(n->inner)) < 0 ||
            bento_json_object_set(obj, "dev", bento_json_new_uint(n->dev)) < 0 ||
            bento_json_object_set(obj, "ino", bento_json_new_uint(n->ino)) < 0)
                return bento_json_free(obj);
        return obj;
}

static bool json_u64(const struct bento_json *obj, const char *key, uint64_t *ret)
{
        const struct bento_json *v = bento_json_get(obj, key);

        if (!v || v->type != BENTO_JSON_NUMBER || !v->u.number.fits_u64)
                return false;
        *ret = v->u.number.u;
        return true;
}

/* Open <state dir>/notify (never through a symlink) and check it is the
 * directory the record names, or without a record one that is ours.
 * -ENOENT when there is none. */
static int open_dir(int state_dir_fd, const struct bento_record *rec, struct bento_err *err)
{
        const struct bento_json *want = rec ? bento_json_get(rec->extra, "notify") : NULL;
        int fd = openat(state_dir_fd, DIR_NAME, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        uint64_t dev = 0, ino = 0;
        struct stat st;

        if (fd < 0)
                return errno == ENOENT ? -ENOENT
                                       : bento_err_set(err, errno, "notify directory: not ours");
        if (fstat(fd, &st) < 0) {
                close(fd);
                return bento_err_set(err, errno, "notify directory");
        }
        if (want ? !json_u64(want, "dev", &dev) || !json_u64(want, "ino", &ino) ||
                       dev != (uint64_t) st.st_dev || ino != (uint64_t) st.st_ino
                 : st.st_uid != geteuid()) {
                close(fd);
                return bento_err_setx(err, EPERM,
                                      "notify directory: not the one create made; left alone");
        }
        return fd;
}

/* Remove the socket (only a socket) from the directory held by fd. */
static int remove_socket(int fd, struct bento_err *err)
{
        struct stat st;

        if (fstatat(fd, SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : bento_err_set(err, errno, "notify socket");
        if (!S_ISSOCK(st.st_mode))
                return bento_err_setx(
                    err, EPERM, "notify directory: '" SOCKET_NAME "' is not a socket; left alone");
        if (unlinkat(fd, SOCKET_NAME, 0) < 0 && errno != ENOENT)
                return bento_err_set(err, errno, "cannot remove the notify socket");
        return 0;
}

int rt_notify_remove(int state_dir_fd, const struct bento_record *rec, struct bento_err *err)
{
        cleanup_close int fd = open_dir(state_dir_fd, rec, err);
        int r;

        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        r = remove_socket(fd, err);
        if (r >= 0 && unlinkat(state_dir_fd, DIR_NAME, AT_REMOVEDIR) < 0 && errno != ENOENT)
                r = bento_err_set(err, errno, "cannot remove the notify directory");
        return r;
}

/* Bind the socket in the directory held by dfd.  The path goes through
 * /proc/self/fd, so it fits a socket address whatever the state root's
 * length, and is resolved from the directory we checked.  The umask is
 * cleared for the bind: the socket must be writable by the container's
 * user, which may be any uid. */
static int bind_in(int dfd, struct bento_err *err)
{
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        cleanup_close int fd = -1;
        mode_t old;
        int r;

        r = remove_socket(dfd, err);
        if (r < 0)
                return r;
        snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d/" SOCKET_NAME, dfd);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return bento_err_set(err, errno, "notify socket");
        old = umask(0);
        r = bind(fd, (struct sockaddr *) &addr, sizeof(addr));
        umask(old);
        if (r < 0)
                return bento_err_set(err, errno, "cannot bind the notify socket");
        return TAKE_FD(fd);
}

int rt_notify_bind(struct rt_store *store, const char *id, struct rt_notify_link *ret,
                   struct bento_err *err)
{
        struct rt_container_dir dir = {.path = NULL, .fd = -1};
        cleanup_bento_record struct bento_record *rec = NULL;
        cleanup_close int dfd = -1;
        int r;

        ret->fd = -1;
        r = rt_container_dir_open(store, id, false, &dir, err);
        if (r >= 0)
                r = rt_container_record_load(&dir, &rec, err);
        if (r >= 0 && !bento_json_get(rec->extra, "notify")) {
                rt_log_debug("NOTIFY_SOCKET: container %s was created without it", id);
                rt_container_dir_close(&dir);
                return 0;
        }
        if (r >= 0)
                r = dfd = open_dir(dir.fd, rec, err);
        if (r >= 0)
                r = ret->fd = bind_in(dfd, err);
        if (r >= 0) {
                ret->pid = rec->pid;
                ret->start_time = rec->start_time;
        }
        rt_container_dir_close(&dir);
        return r < 0 ? r : 0;
}

static bool says_ready(const char *buf)
{
        for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (!strncmp(l, "READY=1", 7) && (l[7] == '\n' || l[7] == '\0'))
                        return true;
        return false;
}

static int send_caller(const char *caller, pid_t pid, struct bento_err *err)
{
        struct sockaddr_un addr;
        cleanup_close int fd = -1;
        char mainpid[32];
        socklen_t len = 0;
        int r = caller_addr(caller, &addr, &len, err);

        if (r < 0)
                return r;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return bento_err_set(err, errno, "NOTIFY_SOCKET");
        snprintf(mainpid, sizeof(mainpid), "MAINPID=%d", (int) pid);
        /* READY=1 alone first (what crun sends), then the pid (what runc
         * adds): a reader that takes one datagram sees READY=1 */
        if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *) &addr, len) < 0 ||
            sendto(fd, mainpid, strlen(mainpid), 0, (struct sockaddr *) &addr, len) < 0)
                return bento_err_set(err, errno, "cannot notify NOTIFY_SOCKET %s", caller);
        return 0;
}

int rt_notify_relay(struct rt_notify_link *l, const char *caller, struct bento_err *err)
{
        struct bento_err ignored;
        cleanup_close int pidfd = rt_pidfd_open_checked(l->pid, l->start_time, &ignored);
        char buf[4096];
        bool ready = false;

        while (!ready) {
                struct pollfd p[2] = {{.fd = l->fd, .events = POLLIN},
                                      {.fd = pidfd, .events = POLLIN}};
                ssize_t n;

                if (poll(p, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 0) < 0 && errno != EINTR)
                        break;
                n = recv(l->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
                if (n >= 0) {
                        buf[n] = '\0';
                        ready = says_ready(buf);
                } else if (pidfd < 0 || (p[1].revents & POLLIN)) {
                        /* nothing queued and the init is gone */
                        break;
                }
        }
        rt_notify_link_close(l);
        if (!ready) {
                rt_log_warning("NOTIFY_SOCKET: the container's init exited before READY=1");
                return 0;
        }
        return send_caller(caller, l->pid, err);
}

void rt_notify_link_close(struct rt_notify_link *l)
{
        if (l->fd >= 0)
                close(l->fd);
        l->fd = -1;
}
