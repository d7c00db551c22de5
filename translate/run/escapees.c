/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a Landlock-only run leaves behind (docs/degraded.md, "When the
 * target ends").  That tier has no pid namespace and no cgroup of its own,
 * so killing the launcher's process group does not reach a process that
 * left it (setsid(), setpgid()) and was orphaned on the way, as a daemon
 * does.  bento makes itself the child subreaper of the run before the
 * launcher starts: every such orphan then becomes bento's child instead of
 * the host init's, and at the end bento kills and reaps its children but
 * the ones it keeps (the exec gate), round after round, since each reaped
 * process hands its own children to bento.  A child's pid cannot be reused
 * before bento reaps it, so the kill cannot reach a stranger.
 */
#include "escapees.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "spawn.h"

/* Rounds before giving up: each one kills every child there is, so only
 * a tree deeper than this that keeps forking survives it. */
#define ESCAPEE_ROUNDS 4096
#define STAT_MAX       4096

int run_escapees_adopt(struct bento_err *err)
{
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                return bento_err_set(err, errno, "cannot become the run's child subreaper");
        return 0;
}

/* The parent of pid from /proc/<pid>/stat (the field after the name, whose
 * parentheses may hold anything); -1 when gone. */
static pid_t parent_of(const char *pid)
{
        cleanup_free char *text = NULL;
        struct bento_err ignored = {0};
        const char *close_paren;
        char path[64];
        size_t len = 0;
        int ppid = -1;

        snprintf(path, sizeof(path), "/proc/%s/stat", pid);
        if (bento_read_file(path, STAT_MAX, &text, &len, &ignored) < 0)
                return -1;
        close_paren = strrchr(text, ')');
        if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
                return -1;
        return (pid_t) ppid;
}

static bool kept(pid_t pid, const pid_t *keep, size_t n_keep)
{
        for (size_t i = 0; i < n_keep; i++)
                if (keep[i] == pid)
                        return true;
        return false;
}

/* Kill and reap each child of this process not in keep[]; how many. */
static long one_round(const pid_t *keep, size_t n_keep)
{
        cleanup_dir DIR *d = opendir("/proc");
        pid_t self = getpid();
        struct dirent *e;
        long n = 0;

        if (!d)
                return -errno;
        while ((e = readdir(d))) {
                char *end = NULL;
                long pid = strtol(e->d_name, &end, 10);
                int status;

                if (end == e->d_name || *end || pid <= 0 || parent_of(e->d_name) != self ||
                    kept((pid_t) pid, keep, n_keep))
                        continue;
                kill((pid_t) pid, SIGKILL);
                (void) run_wait((pid_t) pid, &status);
                n++;
        }
        return n;
}

long run_escapees_kill(const pid_t *keep, size_t n_keep)
{
        long total = 0;

        for (int round = 0; round < ESCAPEE_ROUNDS; round++) {
                long n = one_round(keep, n_keep);

                if (n <= 0)
                        return n < 0 ? n : total;
                total += n;
        }
        return -EAGAIN;
}
