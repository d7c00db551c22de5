/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small kernel and host facts of the probe: seccomp (filters, user
 * notification, the kill-process action), the Landlock ABI with the errata
 * rule of docs/doctor.md, "What the probe does, and what it costs", systemd and its bus, git on
 * PATH.  Each is a handful of syscalls or stat()s; nothing here changes the process (the seccomp
 * questions are asked with a NULL program, which the kernel answers with EFAULT exactly when it
 * accepts the mode and flags).
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "landlock-abi.h"
#include "manifest/self.h"

/* The erratum that fixes signal scoping (ABI 6) across threads. */
#define LL_ERRATUM_SIGNAL_SCOPE 0x2

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif

static long seccomp_call(unsigned op, unsigned flags, void *arg)
{
        return syscall(SYS_seccomp, op, flags, arg);
}

static bool action_avail(unsigned action)
{
        unsigned a = action;

        return seccomp_call(SECCOMP_GET_ACTION_AVAIL, 0, &a) == 0;
}

void host_probe_seccomp(struct host_facts *ret)
{
        struct seccomp_notif_sizes sizes;
        int e;

        e = seccomp_call(SECCOMP_SET_MODE_FILTER, 0, NULL) < 0 ? errno : 0;
        ret->seccomp_filter = e == EFAULT;
        if (!ret->seccomp_filter) {
                host_fmt(ret->seccomp_why, sizeof(ret->seccomp_why),
                         "seccomp filters are not available to this process (%s).",
                         e == EINVAL ? "the kernel was built without them" : strerror(e));
                return;
        }
        ret->seccomp_kill_pr = action_avail(SECCOMP_RET_KILL_PROCESS);
        e = seccomp_call(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL) < 0
                ? errno
                : 0;
        if (e != EFAULT) {
                host_fmt(ret->seccomp_why, sizeof(ret->seccomp_why),
                         "this kernel takes seccomp filters but not a user-notification listener "
                         "(SECCOMP_FILTER_FLAG_NEW_LISTENER: %s).",
                         strerror(e ? e : EINVAL));
                return;
        }
        if (seccomp_call(SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0 ||
            !action_avail(SECCOMP_RET_USER_NOTIF)) {
                host_fmt(ret->seccomp_why, sizeof(ret->seccomp_why),
                         "this kernel takes seccomp filters but cannot deliver user "
                         "notifications (SECCOMP_GET_NOTIF_SIZES / SECCOMP_RET_USER_NOTIF: %s).",
                         strerror(errno));
                return;
        }
        ret->seccomp_notify = true;
}

int host_landlock_effective_abi(long abi, long errata)
{
        if (abi < 1)
                return 0;
        if (abi > 1000)
                abi = 1000;
        /* the kernel cannot tell its errata (before the flag existed): none */
        if (errata < 0)
                errata = 0;
        return abi >= 6 && !(errata & LL_ERRATUM_SIGNAL_SCOPE) ? 5 : (int) abi;
}

void host_probe_landlock(struct host_facts *ret)
{
        long abi = bento_landlock_query(BENTO_LL_CREATE_RULESET_VERSION);
        long errata = bento_landlock_query(BENTO_LL_CREATE_RULESET_ERRATA);

        ret->landlock_abi_kernel = abi > 0 && abi <= 1000 ? (int) abi : 0;
        ret->landlock_errata = errata > 0 && errata <= 0xffff ? (int) errata : 0;
        ret->landlock_abi = host_landlock_effective_abi(abi, errata);
}

static bool is_socket(const char *path)
{
        struct stat st;

        return path && stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The bus bento-runtime --systemd-cgroup would talk to: the system bus as
 * root, the user's bus otherwise. */
static const char *find_bus(char *buf, size_t size)
{
        const char *addr = getenv("DBUS_SESSION_BUS_ADDRESS");
        const char *xdg = getenv("XDG_RUNTIME_DIR");

        if (bento_euid() == 0) {
                if (is_socket("/run/systemd/private"))
                        return "/run/systemd/private";
                return is_socket("/run/dbus/system_bus_socket") ? "/run/dbus/system_bus_socket"
                                                                : NULL;
        }
        if (addr && strncmp(addr, "unix:path=", 10) == 0) {
                host_fmt(buf, size, "%.*s", (int) strcspn(addr + 10, ","), addr + 10);
                if (is_socket(buf))
                        return buf;
        }
        if (xdg && xdg[0] == '/') {
                host_fmt(buf, size, "%s/bus", xdg);
                if (is_socket(buf))
                        return buf;
        }
        return NULL;
}

void host_probe_systemd(struct host_facts *ret)
{
        char comm[64] = "", bus[PATH_MAX];
        cleanup_close int fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
        struct stat st;
        const char *where;

        comm[n > 0 ? n : 0] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        ret->systemd_running = stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
        where = find_bus(bus, sizeof(bus));
        ret->systemd_bus = ret->systemd_running && where;
        if (!ret->systemd_running)
                host_fmt(ret->systemd_detail, sizeof(ret->systemd_detail),
                         "not running (PID 1 is \"%s\"), so there is no systemd bus; limits use "
                         "bento-runtime's cgroupfs driver, and its --systemd-cgroup driver cannot "
                         "be used here",
                         comm[0] ? comm : "unknown");
        else if (!where)
                host_fmt(ret->systemd_detail, sizeof(ret->systemd_detail),
                         "running, but no %s bus socket was found; limits use bento-runtime's "
                         "cgroupfs driver",
                         bento_euid() == 0 ? "system" : "user");
        else
                host_fmt(ret->systemd_detail, sizeof(ret->systemd_detail),
                         "running, bus at %s; on a pure cgroup v2 host limits go in a transient "
                         "scope of it (bento-runtime --systemd-cgroup), elsewhere in a cgroup "
                         "bento-runtime makes itself",
                         where);
}

/* Does the ':'-separated list hold entry[0..n) before entry (a PATH that
 * names a directory twice: its answer was had the first time)? */
static bool named_before(const char *list, const char *entry, size_t n)
{
        for (const char *p = list; p < entry;) {
                size_t k = strcspn(p, ":");

                if (k == n && !memcmp(p, entry, n))
                        return true;
                p += k + (p[k] == ':');
        }
        return false;
}

void host_probe_git(struct host_facts *ret)
{
        const char *path = getenv("PATH");

        if (!path || !path[0])
                path = "/usr/bin:/bin";
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, ":");

                if (n > 0 && p[0] == '/' && !named_before(path, p, n)) {
                        host_fmt(ret->git_path, sizeof(ret->git_path), "%.*s/git", (int) n, p);
                        if (access(ret->git_path, X_OK) == 0) {
                                ret->git = true;
                                return;
                        }
                }
                p += n + (p[n] == ':');
        }
        ret->git_path[0] = '\0';
}
