/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where git keeps the hooks of a checkout, answered in-process the way
 * `git rev-parse --path-format=absolute --git-path hooks` (git 2.39) answers
 * it in that directory with every GIT_* variable removed: repository
 * discovery up to the filesystem boundary (.git directories, gitfiles,
 * linked worktrees, bare repositories), the ownership check and
 * safe.directory, the repository format check, the system, global,
 * repository and worktree configs with include.path and includeIf
 * (gitdir:, gitdir/i:, onbranch:, hasconfig:remote.*.url:), and
 * core.hooksPath (absolute, "~/", or relative to git's working directory).
 *
 * The files are the run's: hostile.  Nothing is written; a FIFO or device
 * is never opened; every file, the number of files and the work spent on
 * globs are capped.  Past a cap, or where git would do something this
 * reader does not model (a "~user/" path, a FIFO git would block on), the
 * answer is GIT_HOOKS_UNKNOWN, and the caller must say it could not tell.
 * GIT_HOOKS_NONE is given only where git itself fails: no repository,
 * an owner safe.directory does not allow, a config git refuses to parse.
 * Where a config is one git would refuse for a reason this reader does not
 * check (a bad value of an unrelated key), the reader still names a
 * directory: watching one more directory is the safe side.
 */
#ifndef BENTO_RUN_GIT_HOOKS_PATH_H
#define BENTO_RUN_GIT_HOOKS_PATH_H

#include <sys/types.h>

enum git_hooks { GIT_HOOKS_NONE, GIT_HOOKS_FOUND, GIT_HOOKS_UNKNOWN };

/* What git would take from its environment once GIT_* is removed. */
struct git_hooks_env {
        const char *home;            /* $HOME, or NULL */
        const char *xdg_config_home; /* $XDG_CONFIG_HOME, or NULL */
        const char *sudo_uid;        /* $SUDO_UID (only read when euid is 0), or NULL */
        const char *system_config;   /* /etc/gitconfig (Debian's git) */
        uid_t euid;
};

/* The environment of this process. */
struct git_hooks_env git_hooks_env_of_process(void);

/* The hooks directory git would use for dir (*ret, heap, absolute, with
 * symlinks resolved as far as the path exists), when GIT_HOOKS_FOUND. */
enum git_hooks git_hooks_path(const char *dir, const struct git_hooks_env *env, char **ret);

#endif
