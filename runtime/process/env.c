/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process setup runc and crun do without config.json asking for it
 * (see env.h).  Everything here but rt_listen_fds() runs inside
 * the container: its root is "/", so the paths below name the container's
 * own files, written by the image's author and treated as hostile input
 * (bounded reads, no blocking opens, nothing but one field taken from it).
 */
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "jsonr.h"
#include "passwd.h"
#include "base/safe-path.h"

/* A decimal number from 1 to max, nothing else; 0 otherwise. */
static long positive_number(const char *s, long max)
{
        char *end = NULL;
        long v;

        if (!s || *s < '0' || *s > '9')
                return 0;
        errno = 0;
        v = strtol(s, &end, 10);
        return errno || *end || v < 1 || v > max ? 0 : v;
}

int rt_listen_fds(int preserve_fds, int *ret_open)
{
        const char *pid = getenv("LISTEN_PID");
        int n = (int) positive_number(getenv("LISTEN_FDS"), RT_LISTEN_FDS_MAX);
        int open = 0;

        /* sd_listen_fds(3): the descriptors are for the process LISTEN_PID
         * names; left over from an ancestor, they are not ours to pass */
        if (pid && positive_number(pid, INT32_MAX) != (long) getpid())
                n = 0;
        while (open < n && fcntl(3 + preserve_fds + open, F_GETFD) >= 0)
                open++;
        *ret_open = open;
        return n;
}

void rt_process_make_cwd(const struct oci_process *proc)
{
        cleanup_rt_root struct rt_root root = {.fd = -1};
        cleanup_rt_target struct rt_target t = {.fd = -1};

        if (!proc || !proc->cwd || rt_root_open(&root, "/") < 0)
                return;
        /* the walk creates each missing component with mkdirat() and opens
         * every existing one with O_NOFOLLOW, interpreting symlinks as if
         * "/" were the root, which after pivot_root it is */
        (void) rt_safe_resolve(&root, proc->cwd, RT_SP_MKDIR, 0, &t);
}

static bool env_has(const struct oci_process *proc, const char *key)
{
        size_t len = strlen(key);

        for (size_t i = 0; i < proc->n_env; i++)
                if (!strncmp(proc->env[i], key, len) && proc->env[i][len] == '=')
                        return true;
        return false;
}

static int env_add(struct oci_process *proc, const char *key, const char *value,
                   struct bento_err *err)
{
        cleanup_free char *kv = NULL;

        if (asprintf(&kv, "%s=%s", key, value) < 0 ||
            bento_strv_append(&proc->env, &proc->n_env, kv) < 0)
                return bento_err_set(err, ENOMEM, "process.env: %s", key);
        return 0;
}

/* runc and crun: the home directory of process.user.uid in the
 * container's /etc/passwd, "/" when there is none. */
static int set_home(struct oci_process *proc, struct bento_err *err)
{
        cleanup_free char *data = bento_passwd_read();
        const char *home = data ? bento_passwd_home(data, proc->user.uid) : NULL;

        return env_add(proc, "HOME", home && home[0] ? home : "/", err);
}

/* A process that is not root must be able to reopen its standard streams
 * (/dev/stdout, /proc/self/fd/1): runc and crun give them to the
 * container's uid.  Only anonymous pipes (pipefs) are handed over, never
 * a file, FIFO or device of the host that a stream may be; the gid stays,
 * as runc leaves it.  EINVAL (uid not mapped), EPERM (the pipe's owner is
 * not mapped in our user namespace) and EROFS leave the stream as it is. */
static int chown_stdio_pipes(uid_t uid, struct bento_err *err)
{
        for (int fd = 0; fd < 3; fd++) {
                struct statfs fs;
                struct stat st;

                if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid == uid ||
                    fstatfs(fd, &fs) < 0 || fs.f_type != PIPEFS_MAGIC)
                        continue;
                if (fchown(fd, uid, (gid_t) -1) < 0 && errno != EINVAL && errno != EPERM &&
                    errno != EROFS)
                        return bento_err_set(err, errno, "fchown of standard stream %d", fd);
        }
        return 0;
}

int rt_process_inside(struct oci_process *proc, int listen_fds, struct bento_err *err)
{
        char num[16];
        int r = 0;

        if (!env_has(proc, "HOME"))
                r = set_home(proc, err);
        /* runc: LISTEN_FDS and LISTEN_PID, each unless the config has it;
         * the pid is the init's own, as its program will see it */
        if (r >= 0 && listen_fds > 0 && !env_has(proc, "LISTEN_FDS")) {
                snprintf(num, sizeof(num), "%d", listen_fds);
                r = env_add(proc, "LISTEN_FDS", num, err);
        }
        if (r >= 0 && listen_fds > 0 && !env_has(proc, "LISTEN_PID")) {
                snprintf(num, sizeof(num), "%d", (int) getpid());
                r = env_add(proc, "LISTEN_PID", num, err);
        }
        /* with a terminal, fds 0-2 are the pty (and before its setup the
         * runtime's own streams, which are not the process's) */
        if (r >= 0 && !proc->terminal)
                r = chown_stdio_pipes(proc->user.uid, err);
        return r;
}
