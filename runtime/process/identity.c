/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The identity switch of the container process, the last step before exec
 * (rt_identity_apply() in process.h).  The order is forced by the kernel:
 * groups and gid must change while CAP_SETGID is still held, the uid change
 * would clear the permitted set unless PR_SET_KEEPCAPS is on, and the final
 * capability sets are computed from what survived the switch.
 * noNewPrivileges comes last so that nothing before it is affected.
 * The seccomp filter is not loaded here but just before execve (see
 * container/init.c): rt_seccomp_until_exec() names the capability that load needs.
 */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "cleanup.h"

_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "additionalGids are handed to setgroups as is");

/* True when this user namespace has setgroups() turned off for good
 * (an unprivileged gid_map writer had to write "deny" first). */
static bool setgroups_denied(void)
{
        cleanup_close int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
        char buf[16];
        ssize_t n;

        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        return strncmp(buf, "deny", 4) == 0;
}

/* Always call setgroups(), even with no additional gids: otherwise the
 * runtime's own supplementary groups would leak into the container. */
static int set_groups(const struct oci_user *u, struct bento_err *err)
{
        if (setgroups(u->n_additional_gids, (const gid_t *) u->additional_gids) == 0)
                return 0;
        /* Where setgroups is denied the list cannot be changed by anyone;
         * asking for no extra groups is then the best that can be had.  A
         * faked /proc cannot do harm here: the kernel refused anyway. */
        if (errno == EPERM && u->n_additional_gids == 0 && setgroups_denied())
                return 0;
        if (errno == EPERM && setgroups_denied())
                return bento_err_setx(err, EPERM,
                                      "process.user.additionalGids: setgroups is denied in this "
                                      "user namespace, %zu additional gid(s) cannot be set",
                                      u->n_additional_gids);
        return bento_err_set(err, errno, "process.user.additionalGids: setgroups");
}

int rt_identity_apply(const struct oci_process *proc, uint64_t until_exec, struct bento_err *err)
{
        const struct oci_user *u = &proc->user;
        int r;

        if (u->has_umask)
                umask((mode_t) (u->umask & 0777));
        if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                return bento_err_set(err, errno, "prctl(PR_SET_KEEPCAPS)");
        r = set_groups(u, err);
        if (r < 0)
                return r;
        if (setresgid(u->gid, u->gid, u->gid) < 0)
                return bento_err_set(err, errno, "process.user.gid: setresgid(%u)", u->gid);
        if (setresuid(u->uid, u->uid, u->uid) < 0)
                return bento_err_set(err, errno, "process.user.uid: setresuid(%u)", u->uid);
        /* Capabilities must not survive a later uid change made by the
         * container's own programs unless they ask for it. */
        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
                return bento_err_set(err, errno, "prctl(PR_SET_KEEPCAPS)");
        /* runtime-spec: no capabilities object means no capabilities;
         * rt_caps_apply() empties every set for NULL. */
        r = rt_caps_apply(proc->capabilities, until_exec, err);
        if (r < 0)
                return r;
        if (proc->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return bento_err_set(err, errno, "process.noNewPrivileges: prctl");
        return 0;
}
