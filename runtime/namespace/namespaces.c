/* SPDX-License-Identifier: Apache-2.0 */
/* Namespace planning, joining and user-namespace maps (see namespaces.h). */
#include "namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "base/clone.h"
#include "base/rootless.h"

static const struct {
        unsigned long flag;
        const char *proc_name;
} ns_info[_OCI_NS_MAX] = {
    [OCI_NS_PID] = {CLONE_NEWPID, "pid"},          [OCI_NS_NETWORK] = {CLONE_NEWNET, "net"},
    [OCI_NS_MOUNT] = {CLONE_NEWNS, "mnt"},         [OCI_NS_IPC] = {CLONE_NEWIPC, "ipc"},
    [OCI_NS_UTS] = {CLONE_NEWUTS, "uts"},          [OCI_NS_USER] = {CLONE_NEWUSER, "user"},
    [OCI_NS_CGROUP] = {CLONE_NEWCGROUP, "cgroup"}, [OCI_NS_TIME] = {CLONE_NEWTIME, "time"},
};

const char *rt_ns_proc_name(enum oci_ns_type t)
{
        return (unsigned) t < _OCI_NS_MAX ? ns_info[t].proc_name : NULL;
}

static int open_join(const struct oci_namespace *ns, size_t idx, struct bento_err *err)
{
        cleanup_close int fd = -1;
        int type;

        fd = open(ns->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "linux.namespaces[%zu].path: cannot open '%s'",
                                     idx, ns->path);
        type = ioctl(fd, NS_GET_NSTYPE);
        if (type < 0)
                return bento_err_setx(err, EINVAL,
                                      "linux.namespaces[%zu].path: '%s' is not a "
                                      "namespace file",
                                      idx, ns->path);
        if ((unsigned long) type != ns_info[ns->type].flag)
                return bento_err_setx(err, EINVAL,
                                      "linux.namespaces[%zu].path: '%s' is not a %s "
                                      "namespace",
                                      idx, ns->path, oci_ns_type_to_string(ns->type));
        return TAKE_FD(fd);
}

int rt_ns_plan_make(const struct oci_config *cfg, struct rt_context *ctx, struct rt_ns_plan *plan,
                    struct bento_err *err)
{
        plan->clone_flags = 0;
        plan->any_join = false;
        for (int i = 0; i < _OCI_NS_MAX; i++)
                plan->join_fd[i] = -1;

        for (size_t i = 0; i < cfg->linux_.n_namespaces; i++) {
                const struct oci_namespace *ns = &cfg->linux_.namespaces[i];

                if (ns->type == OCI_NS_TIME)
                        return bento_err_setx(err, ENOTSUP,
                                              "linux.namespaces[%zu]: the time "
                                              "namespace is not supported by bento-runtime",
                                              i);
                ctx->has_ns[ns->type] = true;
                if (!ns->path || !ns->path[0]) {
                        ctx->new_ns[ns->type] = true;
                        plan->clone_flags |= ns_info[ns->type].flag;
                        continue;
                }
                int fd = open_join(ns, i, err);
                if (fd < 0) {
                        rt_ns_plan_close(plan);
                        return fd;
                }
                plan->join_fd[ns->type] = fd;
                plan->any_join = true;
        }
        ctx->in_userns = ctx->has_ns[OCI_NS_USER] || !rt_in_initial_userns();
        if (ctx->rootless && !ctx->new_ns[OCI_NS_USER] && plan->join_fd[OCI_NS_USER] < 0)
                return bento_err_setx(err, EPERM,
                                      "linux.namespaces: running without root needs "
                                      "a user namespace (add {\"type\": \"user\"} with "
                                      "uidMappings and gidMappings)");
        /* without a mount namespace of its own (none listed, or one joined
         * by path) the container runs chrooted in that namespace, its
         * mounts beneath one recorded tree (mount/shared-root.h) */
        return 0;
}

void rt_ns_plan_close(struct rt_ns_plan *plan)
{
        for (int i = 0; i < _OCI_NS_MAX; i++) {
                if (plan->join_fd[i] >= 0)
                        close(plan->join_fd[i]);
                plan->join_fd[i] = -1;
        }
}

int rt_ns_join_all(const struct rt_ns_plan *plan, struct bento_err *err)
{
        /* the user namespace first: it grants the rights to join the rest */
        static const enum oci_ns_type order[] = {OCI_NS_USER, OCI_NS_PID, OCI_NS_NETWORK,
                                                 OCI_NS_IPC,  OCI_NS_UTS, OCI_NS_CGROUP,
                                                 OCI_NS_MOUNT};

        for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
                enum oci_ns_type t = order[i];
                if (plan->join_fd[t] < 0)
                        continue;
                if (setns(plan->join_fd[t], (int) ns_info[t].flag) < 0)
                        return bento_err_set(err, errno, "cannot join the %s namespace",
                                             oci_ns_type_to_string(t));
        }
        return 0;
}

static int write_proc_file(pid_t pid, const char *name, const char *data, struct bento_err *err)
{
        char path[64];
        const char *step = NULL;
        int r;

        snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, name);
        r = bento_write_value(path, data, 0, &step);
        return r < 0 ? bento_err_set(err, -r, "cannot %s %s", step, path) : 0;
}

static int format_map(const struct oci_id_mapping *m, size_t n, unsigned self, char *buf,
                      size_t size, const char *field, struct bento_err *err)
{
        size_t off = 0;

        if (n == 0) {
                snprintf(buf, size, "0 %u 1\n", self);
                return 0;
        }
        if (n > 340)
                return bento_err_setx(err, EINVAL, "%s: at most 340 entries", field);
        for (size_t i = 0; i < n; i++) {
                int w = snprintf(buf + off, size - off, "%u %u %u\n", m[i].container_id,
                                 m[i].host_id, m[i].size);
                if (w < 0 || (size_t) w >= size - off)
                        return bento_err_setx(err, E2BIG, "%s: too many entries", field);
                off += (size_t) w;
        }
        return 0;
}

int rt_ns_write_maps(pid_t pid, const struct oci_config *cfg, bool rootless, struct bento_err *err)
{
        char uid_map[16384];
        char gid_map[16384];
        int r;

        r = format_map(cfg->linux_.uid_mappings, cfg->linux_.n_uid_mappings, geteuid(), uid_map,
                       sizeof(uid_map), "linux.uidMappings", err);
        if (r < 0)
                return r;
        r = format_map(cfg->linux_.gid_mappings, cfg->linux_.n_gid_mappings, getegid(), gid_map,
                       sizeof(gid_map), "linux.gidMappings", err);
        if (r < 0)
                return r;
        /* an unprivileged writer may only map its own gid after denying
         * setgroups, which would otherwise let the container drop groups
         * that deny it access */
        if (rootless) {
                r = write_proc_file(pid, "setgroups", "deny", err);
                if (r < 0)
                        return r;
        }
        r = write_proc_file(pid, "uid_map", uid_map, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.uidMappings");
        r = write_proc_file(pid, "gid_map", gid_map, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.gidMappings");
        return 0;
}

/* Write both maps of the user namespace of pid; field names the config
 * entry in errors ("mounts[2]"). */
static int write_idmap(pid_t pid, const struct oci_id_mapping *uid, size_t n_uid,
                       const struct oci_id_mapping *gid, size_t n_gid, const char *field,
                       struct bento_err *err)
{
        char map[16384], what[64];
        int r;

        snprintf(what, sizeof(what), "%s.uidMappings", field);
        r = format_map(uid, n_uid, 0, map, sizeof(map), what, err);
        if (r < 0)
                return r;
        if (write_proc_file(pid, "uid_map", map, err) < 0)
                return bento_err_prefix(err, "%s", what);
        snprintf(what, sizeof(what), "%s.gidMappings", field);
        r = format_map(gid, n_gid, 0, map, sizeof(map), what, err);
        if (r < 0)
                return r;
        if (write_proc_file(pid, "gid_map", map, err) < 0)
                return bento_err_prefix(err, "%s", what);
        return 0;
}

int rt_ns_idmap_userns(const struct oci_id_mapping *uid, size_t n_uid,
                       const struct oci_id_mapping *gid, size_t n_gid, const char *field,
                       struct bento_err *err)
{
        int pidfd = -1, fd = -1, r;
        pid_t pid;

        /* a process is the only way to a new user namespace without
         * entering it: it waits to be killed while its maps are written */
        pid = rt_clone3(CLONE_NEWUSER, &pidfd);
        if (pid < 0)
                return bento_err_set(err, errno, "%s: cannot create a user namespace for the idmap",
                                     field);
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                        pause();
        }
        r = write_idmap(pid, uid, n_uid, gid, n_gid, field, err);
        if (r >= 0) {
                char path[64];

                snprintf(path, sizeof(path), "/proc/%d/ns/user", (int) pid);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        r = bento_err_set(err, errno, "%s: open %s", field, path);
        }
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        (void) waitpid(pid, NULL, 0);
        close(pidfd);
        return r < 0 ? r : fd;
}

int rt_ns_loopback_up(struct bento_err *err)
{
        struct ifreq ifr;
        cleanup_close int fd = -1;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return bento_err_set(err, errno, "socket for loopback");
        memset(&ifr, 0, sizeof(ifr));
        strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                return bento_err_set(err, errno, "cannot read loopback flags");
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                return bento_err_set(err, errno, "cannot bring loopback up");
        return 0;
}
