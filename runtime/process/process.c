/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Process attributes of config.json that are not about identity (see
 * process.h; identity.c has the uid/gid/capability switch): validation in
 * `create`, and inside the container init the sysctls, hostname and
 * domainname, rlimits and the session keyring.  Sysctl keys are checked
 * against a short allow-list of namespaced ones, because a write to any
 * other /proc/sys file would change the host, not the container.
 */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "cleanup.h"

/* Long enough for any real sysctl; the buffer lives on the init's stack. */
#define SYSCTL_PATH_MAX 256

enum sysctl_kind {
        SYSCTL_NET,
        SYSCTL_IPC,
        SYSCTL_DOMAINNAME,
        SYSCTL_HOSTNAME,
        SYSCTL_OTHER,
};

static bool sysctl_char_ok(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '/' || c == '-';
}

/* A /proc/sys-relative path must not climb, and empty or "." components
 * would make two spellings of one key look different to the checks. */
static bool path_components_ok(const char *path)
{
        const char *start = path;

        for (const char *p = path;; p++) {
                size_t len;

                if (*p != '/' && *p != '\0')
                        continue;
                len = (size_t) (p - start);
                /* len 1 compares ".", len 2 compares ".." */
                if (len == 0 || (len <= 2 && strncmp(start, "..", len) == 0))
                        return false;
                if (*p == '\0')
                        return true;
                start = p + 1;
        }
}

/* Turn a key into its path below /proc/sys.  sysctl.d(5) rule: when the first
 * separator is '.', dots and slashes swap ("net.ipv4.conf.eth0/100.forwarding"
 * is interface "eth0.100"); when it is '/', the key already is a path. */
static int sysctl_key_to_path(const char *key, char *buf, size_t size)
{
        size_t len = strlen(key);
        const char *sep = strpbrk(key, "./");
        bool swap = sep && *sep == '.';

        if (len == 0 || len >= size || strstr(key, ".."))
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                char c = key[i];

                if (!sysctl_char_ok(c))
                        return -EINVAL;
                if (swap && c == '.')
                        c = '/';
                else if (swap && c == '/')
                        c = '.';
                buf[i] = c;
        }
        buf[len] = '\0';
        return path_components_ok(buf) ? 0 : -EINVAL;
}

static enum sysctl_kind sysctl_classify(const char *path)
{
        static const char *const ipc_keys[] = {
            "kernel/msgmax", "kernel/msgmnb", "kernel/msgmni", "kernel/sem",
            "kernel/shmall", "kernel/shmmax", "kernel/shmmni", "kernel/shm_rmid_forced",
        };

        if (strncmp(path, "net/", 4) == 0)
                return SYSCTL_NET;
        if (strncmp(path, "fs/mqueue/", 10) == 0)
                return SYSCTL_IPC;
        for (size_t i = 0; i < sizeof(ipc_keys) / sizeof(ipc_keys[0]); i++)
                if (strcmp(path, ipc_keys[i]) == 0)
                        return SYSCTL_IPC;
        if (strcmp(path, "kernel/domainname") == 0)
                return SYSCTL_DOMAINNAME;
        if (strcmp(path, "kernel/hostname") == 0)
                return SYSCTL_HOSTNAME;
        return SYSCTL_OTHER;
}

static int validate_sysctl(const struct oci_config *cfg, const struct oci_kv *kv,
                           struct bento_err *err)
{
        char path[SYSCTL_PATH_MAX];

        if (sysctl_key_to_path(kv->key, path, sizeof(path)) < 0)
                return bento_err_setx(err, EINVAL, "linux.sysctl.\"%s\": invalid key", kv->key);
        switch (sysctl_classify(path)) {
        case SYSCTL_NET:
                if (!oci_config_namespace(cfg, OCI_NS_NETWORK))
                        return bento_err_setx(
                            err, EINVAL, "linux.sysctl.\"%s\": needs a network namespace", kv->key);
                return 0;
        case SYSCTL_IPC:
                if (!oci_config_namespace(cfg, OCI_NS_IPC))
                        return bento_err_setx(
                            err, EINVAL, "linux.sysctl.\"%s\": needs an ipc namespace", kv->key);
                return 0;
        case SYSCTL_DOMAINNAME:
                if (!oci_config_namespace(cfg, OCI_NS_UTS))
                        return bento_err_setx(
                            err, EINVAL, "linux.sysctl.\"%s\": needs a uts namespace", kv->key);
                if (cfg->domainname && strcmp(cfg->domainname, kv->value) != 0)
                        return bento_err_setx(err, EINVAL,
                                              "linux.sysctl.\"%s\": \"%s\" contradicts "
                                              "domainname \"%s\"",
                                              kv->key, kv->value, cfg->domainname);
                return 0;
        case SYSCTL_HOSTNAME:
                return bento_err_setx(
                    err, EINVAL, "linux.sysctl.\"%s\": refused, use the hostname field", kv->key);
        case SYSCTL_OTHER:
        default:
                return bento_err_setx(err, EINVAL, "linux.sysctl.\"%s\": not namespaced, refused",
                                      kv->key);
        }
}

static int validate_rlimits(const struct oci_process *proc, struct bento_err *err)
{
        for (size_t i = 0; i < proc->n_rlimits; i++) {
                const struct oci_rlimit *rl = &proc->rlimits[i];

                if (rl->resource < 0 || rl->resource >= RLIM_NLIMITS)
                        return bento_err_setx(err, EINVAL, "process.rlimits[%zu] (%s): unknown", i,
                                              rl->type);
                if (rl->soft > rl->hard)
                        return bento_err_setx(err, EINVAL,
                                              "process.rlimits[%zu] (%s): soft limit %llu is "
                                              "above the hard limit %llu",
                                              i, rl->type, (unsigned long long) rl->soft,
                                              (unsigned long long) rl->hard);
                /* The parser rejects duplicates too; a model built in code
                 * does not pass through it. */
                for (size_t j = 0; j < i; j++)
                        if (proc->rlimits[j].resource == rl->resource)
                                return bento_err_setx(err, EINVAL,
                                                      "process.rlimits[%zu] (%s): duplicate of "
                                                      "process.rlimits[%zu]",
                                                      i, rl->type, j);
        }
        return 0;
}

int rt_process_validate(const struct oci_config *cfg, char *ret_warning, size_t warning_size,
                        struct bento_err *err)
{
        const struct oci_process *proc = cfg->process;
        int r;

        if (ret_warning && warning_size > 0)
                ret_warning[0] = '\0';
        if (cfg->hostname && !oci_config_namespace(cfg, OCI_NS_UTS))
                return bento_err_setx(err, EINVAL, "hostname: needs a uts namespace");
        if (cfg->domainname && !oci_config_namespace(cfg, OCI_NS_UTS))
                return bento_err_setx(err, EINVAL, "domainname: needs a uts namespace");
        for (size_t i = 0; i < cfg->linux_.n_sysctl; i++) {
                r = validate_sysctl(cfg, &cfg->linux_.sysctl[i], err);
                if (r < 0)
                        return r;
        }
        if (!proc)
                return 0;
        r = validate_rlimits(proc, err);
        if (r < 0)
                return r;
        /* Without a user namespace of its own the init keeps the runtime's
         * bounding set, so what is missing there can be predicted now. */
        rt_caps_validate(proc->capabilities, !oci_config_namespace(cfg, OCI_NS_USER), ret_warning,
                         warning_size);
        return 0;
}

/* openat2() refusing every symlink (and staying below dirfd when one is
 * given); plain O_NOFOLLOW on kernels without openat2. */
static int open_no_symlinks(int dirfd, const char *path, int flags)
{
        struct open_how how = {
            .flags = (uint64_t) flags | O_CLOEXEC,
            .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                       (dirfd != AT_FDCWD ? RESOLVE_BENEATH : 0),
        };
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

        if (fd < 0 && errno == ENOSYS)
                return openat(dirfd, path, flags | O_CLOEXEC | O_NOFOLLOW);
        return (int) fd;
}

static bool is_procfs(int fd)
{
        struct statfs sfs;

        return fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

static int write_sysctl(int dirfd, const struct oci_kv *kv, struct bento_err *err)
{
        char path[SYSCTL_PATH_MAX];
        cleanup_close int fd = -1;
        size_t len = strlen(kv->value);
        ssize_t n;

        if (sysctl_key_to_path(kv->key, path, sizeof(path)) < 0)
                return bento_err_setx(err, EINVAL, "linux.sysctl.\"%s\": invalid key", kv->key);
        fd = open_no_symlinks(dirfd, path, O_WRONLY | O_NOFOLLOW);
        if (fd < 0)
                return bento_err_set(err, errno, "linux.sysctl.\"%s\": open /proc/sys/%s", kv->key,
                                     path);
        /* A config mount placed over a /proc/sys file must not receive the
         * value in its place. */
        if (!is_procfs(fd))
                return bento_err_setx(err, EXDEV,
                                      "linux.sysctl.\"%s\": /proc/sys/%s is not on procfs", kv->key,
                                      path);
        n = write(fd, kv->value, len);
        if (n < 0)
                return bento_err_set(err, errno, "linux.sysctl.\"%s\": write /proc/sys/%s", kv->key,
                                     path);
        if ((size_t) n != len)
                return bento_err_setx(err, EIO, "linux.sysctl.\"%s\": short write to /proc/sys/%s",
                                      kv->key, path);
        return 0;
}

int rt_sysctl_apply(const struct rt_context *ctx, struct bento_err *err)
{
        const struct oci_linux *lx = &ctx->cfg->linux_;
        cleanup_close int dirfd = -1;

        if (lx->n_sysctl == 0)
                return 0;
        /* After pivot_root "/proc" is whatever the container mounted there:
         * insist on a real procfs reached without any symlink. */
        dirfd = open_no_symlinks(AT_FDCWD, "/proc/sys", O_PATH | O_DIRECTORY);
        if (dirfd < 0)
                return bento_err_set(err, errno, "linux.sysctl: open /proc/sys");
        if (!is_procfs(dirfd))
                return bento_err_setx(err, EXDEV, "linux.sysctl: /proc/sys is not on procfs");
        for (size_t i = 0; i < lx->n_sysctl; i++) {
                int r = write_sysctl(dirfd, &lx->sysctl[i], err);

                if (r < 0)
                        return r;
        }
        return 0;
}

int rt_hostname_apply(const struct rt_context *ctx, struct bento_err *err)
{
        const struct oci_config *cfg = ctx->cfg;

        if (cfg->hostname && sethostname(cfg->hostname, strlen(cfg->hostname)) < 0)
                return bento_err_set(err, errno, "hostname: sethostname(\"%s\")", cfg->hostname);
        if (cfg->domainname && setdomainname(cfg->domainname, strlen(cfg->domainname)) < 0)
                return bento_err_set(err, errno, "domainname: setdomainname(\"%s\")",
                                     cfg->domainname);
        return 0;
}

int rt_rlimits_apply(const struct oci_process *proc, struct bento_err *err)
{
        for (size_t i = 0; i < proc->n_rlimits; i++) {
                const struct oci_rlimit *rl = &proc->rlimits[i];
                /* UINT64_MAX is RLIM_INFINITY: rlim_t is 64 bits here. */
                struct rlimit lim = {.rlim_cur = rl->soft, .rlim_max = rl->hard};

                if (setrlimit(rl->resource, &lim) == 0)
                        continue;
                if (errno == EPERM)
                        return bento_err_setx(err, EPERM,
                                              "process.rlimits[%zu] (%s): setrlimit: %s (the "
                                              "host's hard limit may be lower: raising it needs "
                                              "CAP_SYS_RESOURCE)",
                                              i, rl->type, strerror(EPERM));
                return bento_err_set(err, errno, "process.rlimits[%zu] (%s): setrlimit", i,
                                     rl->type);
        }
        return 0;
}

int rt_keyring_join(const struct rt_context *ctx, struct bento_err *err)
{
        if (ctx->no_new_keyring)
                return 0;
        /* Named after the container so it is recognisable in /proc/keys;
         * a fresh session keyring hides the caller's session keys. */
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, ctx->id, 0, 0, 0) >= 0)
                return 0;
        /* Keys are optional: kernels without them (or a seccomp profile)
         * give ENOSYS, and a user namespace may be denied with EACCES. */
        if (errno == ENOSYS || (errno == EACCES && ctx->in_userns))
                return 0;
        return bento_err_set(err, errno, "joining a session keyring");
}
