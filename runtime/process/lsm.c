/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AppArmor and SELinux exec labels through /proc/thread-self/attr, and the
 * host-side check whether either LSM is enabled (see lsm.h).  The write is
 * the last thing the runtime does to the process's security state before
 * execve, and takes effect at that execve.
 */
#include "lsm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "mountinfo.h"

const char *rt_lsm_name(enum rt_lsm lsm)
{
        return lsm == RT_LSM_APPARMOR ? "AppArmor" : "SELinux";
}

static bool is_dir(const char *root, const char *path)
{
        char p[4096];
        struct stat st;

        snprintf(p, sizeof(p), "%s%s", root, path);
        return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *root, const char *path)
{
        char p[4096];
        struct stat st;

        snprintf(p, sizeof(p), "%s%s", root, path);
        return lstat(p, &st) == 0;
}

static bool apparmor_enabled(const char *root)
{
        char p[4096], c = 0;
        cleanup_close int fd = -1;

        snprintf(p, sizeof(p), "%s/sys/module/apparmor/parameters/enabled", root);
        fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || read(fd, &c, 1) != 1 || c != 'Y')
                return false;
        return is_dir(root, "/sys/kernel/security/apparmor");
}

/* A selinuxfs in our mount table, wherever it is mounted. */
static bool selinuxfs_mounted(const char *root)
{
        cleanup_free char *data = NULL;
        struct bento_err err = {0};
        struct bento_mountinfo mi;
        char p[4096], *pos;
        int r;

        snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
        if (bento_mountinfo_read(p, &data, &err) < 0)
                return false;
        pos = data;
        while ((r = bento_mountinfo_next(&pos, &mi)) != 0)
                if (r > 0 && strcmp(mi.fstype, "selinuxfs") == 0)
                        return true;
        return false;
}

bool rt_lsm_enabled(enum rt_lsm lsm, const char *root)
{
        if (lsm == RT_LSM_APPARMOR)
                return apparmor_enabled(root);
        return exists(root, "/sys/fs/selinux/enforce") || selinuxfs_mounted(root);
}

const char *rt_lsm_disabled_reason(enum rt_lsm lsm)
{
        if (lsm == RT_LSM_APPARMOR)
                return "/sys/module/apparmor/parameters/enabled is not Y or "
                       "/sys/kernel/security/apparmor is missing";
        return "/sys/fs/selinux/enforce is missing and no selinuxfs is mounted";
}

int rt_lsm_exec_value(enum rt_lsm lsm, const char *label, char *out, size_t size)
{
        int n = lsm == RT_LSM_APPARMOR ? snprintf(out, size, "exec %s", label)
                                       : snprintf(out, size, "%s", label);

        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

int rt_lsm_write_attr(int fd, const char *value, const char *what, struct bento_err *err)
{
        size_t len = strlen(value);
        ssize_t n;

        do
                n = write(fd, value, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return bento_err_set(err, errno, "%s: the kernel refused \"%.200s\"", what, value);
        if ((size_t) n != len)
                return bento_err_setx(err, EIO,
                                      "%s: the kernel took %zd of %zu bytes of \"%.200s\"", what, n,
                                      len, value);
        return 0;
}

/* The exec attribute, opened for writing and checked to be procfs's. */
static int open_exec_attr(enum rt_lsm lsm, const char *what, struct bento_err *err)
{
        static const char *const apparmor[] = {"/proc/thread-self/attr/apparmor/exec",
                                               "/proc/thread-self/attr/exec", NULL};
        static const char *const selinux[] = {"/proc/thread-self/attr/exec", NULL};
        const char *const *paths = lsm == RT_LSM_APPARMOR ? apparmor : selinux;
        struct statfs sfs;
        int fd = -1;

        for (size_t i = 0; fd < 0 && paths[i]; i++) {
                fd = open(paths[i], O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno != ENOENT)
                        return bento_err_set(err, errno, "%s: cannot open %s", what, paths[i]);
        }
        if (fd < 0)
                return bento_err_setx(err, ENOENT,
                                      "%s: no /proc/thread-self/attr exec attribute in the "
                                      "container (is procfs mounted on /proc?)",
                                      what);
        if (fstatfs(fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) {
                close(fd);
                return bento_err_setx(err, EXDEV,
                                      "%s: /proc in the container is not procfs; refusing to "
                                      "write the label elsewhere",
                                      what);
        }
        return fd;
}

int rt_lsm_set_exec_label(enum rt_lsm lsm, const char *label, const char *what,
                          struct bento_err *err)
{
        cleanup_close int fd = -1;
        char value[4096];

        if (rt_lsm_exec_value(lsm, label, value, sizeof(value)) < 0)
                return bento_err_setx(err, ENAMETOOLONG, "%s: label too long", what);
        fd = open_exec_attr(lsm, what, err);
        if (fd < 0)
                return fd;
        return rt_lsm_write_attr(fd, value, what, err);
}

int rt_lsm_mount_data(const char *fstype, const char *data, const char *label, char *out,
                      size_t size, const char **ret)
{
        static const char *const unlabelled[] = {"proc", "sysfs", "cgroup", "cgroup2", "mqueue"};
        int n;

        *ret = data;
        if (!label || !label[0])
                return 0;
        for (size_t i = 0; i < sizeof(unlabelled) / sizeof(unlabelled[0]); i++)
                if (strcmp(fstype, unlabelled[i]) == 0)
                        return 0;
        n = snprintf(out, size, "%s%scontext=\"%s\"", data ? data : "", data ? "," : "", label);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        *ret = out;
        return 0;
}
