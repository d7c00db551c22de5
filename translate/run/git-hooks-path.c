/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hooks directory of a checkout, in-process (git-hooks-path.h): the
 * repository (git-repo.c), its config (git-config-read.c), then
 * core.hooksPath or $commondir/hooks, made absolute from the directory git
 * works in once set up, and resolved as git's forgiving realpath does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "git-read.h"
#include "manifest/self.h"

#define FILES_MAX       256
#define BYTES_MAX       (8u << 20)
#define MATCH_STEPS_MAX 1000000ul

struct git_hooks_env git_hooks_env_of_process(void)
{
        return (struct git_hooks_env){.home = getenv("HOME"),
                                      .xdg_config_home = getenv("XDG_CONFIG_HOME"),
                                      .sudo_uid = getenv("SUDO_UID"),
                                      .system_config = "/etc/gitconfig",
                                      .euid = bento_euid()};
}

struct hooks_setting {
        const struct git_hooks_env *env;
        char *value; /* core.hooksPath, expanded, last one wins */
};

static int hooks_entry(const char *key, const char *value, void *data)
{
        struct hooks_setting *h = data;
        char *expanded = NULL;
        int r;

        if (strcmp(key, "core.hookspath") != 0)
                return 0;
        if (!value)
                return GIT_FAILS; /* git: a path needs a value */
        r = git_expand(h->env, value, false, &expanded);
        if (r < 0 || !expanded)
                return r < 0 ? r : GIT_FAILS;
        free(h->value);
        h->value = expanded;
        return 0;
}

/* 1 when path is dir or below it. */
static bool inside(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(dir, "/"));
}

/* The directory git works in after its setup, which a relative
 * core.hooksPath is taken from: the worktree's top; the directory it was
 * started in for a bare repository or core.bare; with core.worktree, that
 * worktree when started inside it. */
static int git_cwd(const struct git_repo *r, const char *start, char **ret)
{
        cleanup_free char *wt = NULL;
        int k;

        if (!r->core_worktree || r->core_bare > 0) {
                const char *cwd = r->bare || r->core_bare > 0 ? start : r->top;

                return (*ret = strdup(cwd)) ? 0 : GIT_UNSURE;
        }
        k = git_realpath(r->core_worktree, r->gitdir, false, &wt);
        if (k < 0)
                return k; /* git cannot enter it and stops */
        *ret = strdup(inside(start, wt) ? wt : start);
        return *ret ? 0 : GIT_UNSURE;
}

static enum git_hooks answer(int k)
{
        return k == GIT_FAILS ? GIT_HOOKS_NONE : GIT_HOOKS_UNKNOWN;
}

enum git_hooks git_hooks_path(const char *dir, const struct git_hooks_env *env, char **ret)
{
        struct git_work w = {.env = env,
                             .files_left = FILES_MAX,
                             .bytes_left = BYTES_MAX,
                             .match_left = MATCH_STEPS_MAX};
        struct hooks_setting h = {.env = env};
        cleanup_free char *start = NULL, *cwd = NULL;
        struct git_repo repo;
        int k;

        *ret = NULL;
        k = git_realpath(dir, "/", false, &start);
        if (k < 0)
                return answer(k);
        k = git_repo_find(&w, start, &repo);
        if (k >= 0) {
                struct git_cfg_where where = {.gitdir = repo.gitdir,
                                              .gitdir_abs = repo.gitdir_abs,
                                              .commondir = repo.commondir,
                                              .worktree_config = repo.worktree_config};

                k = git_config_read(&w, &where, hooks_entry, &h);
        }
        if (k >= 0)
                k = git_cwd(&repo, start, &cwd);
        if (k >= 0 && h.value && !h.value[0])
                k = GIT_FAILS; /* git: the empty string is not a valid path */
        if (k >= 0 && !h.value && !(h.value = git_join(repo.commondir, "hooks")))
                k = GIT_UNSURE;
        if (k >= 0)
                k = git_realpath(h.value, cwd, true, ret);
        free(h.value);
        git_repo_free(&repo);
        return k < 0 ? answer(k) : GIT_HOOKS_FOUND;
}
