/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workspace shields (docs/manifest.md, "CREDENTIAL SHIELDS"): a write grant on a checkout must not
 * let the program plant something git or an editor will run later for the user (hooks,
 * core.fsmonitor and friends in a config, editor tasks).  Those files stay readable and become
 * read-only.  The checkout root is found by the name `.git` alone; its content is never parsed,
 * because a hostile repository controls it.  Where the walk cannot see (unreadable, too deep, a
 * symlink) it fails closed by shielding the whole spot read-only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "internal.h"

struct ws {
        struct shield_set *s;
        const char *grant;
};

static int ws_add_rule(const struct ws *w, const char *dir, const char *name, bool is_dir,
                       bool reads_as_dot, struct bento_err *err)
{
        cleanup_free char *p = path_join(dir, name);
        int r;

        if (!p)
                return bento_err_set(err, ENOMEM, "workspace shields");
        r = shield_set_add(w->s, p,
                           &(struct shield_rule_spec){.deny = SHIELD_DENY_WRITE,
                                                      .dir = is_dir,
                                                      .holds = SHIELD_HOLDS_NONE,
                                                      .origin = SHIELD_ORIGIN_WORKSPACE,
                                                      .grant = w->grant,
                                                      .reads_as_dot = reads_as_dot},
                           err);
        return r < 0 ? r : 0;
}

static int ws_add(const struct ws *w, const char *dir, const char *name, bool is_dir,
                  struct bento_err *err)
{
        return ws_add_rule(w, dir, name, is_dir, false, err);
}

/* <gitdir>/worktrees/<n>/config.worktree for every linked worktree. */
static int ws_worktrees(const struct ws *w, const char *gitdir, struct bento_err *err)
{
        cleanup_free char *wt = path_join(gitdir, "worktrees");
        cleanup_dir DIR *d = NULL;
        struct dirent *de;
        struct stat st;
        int r = 0;

        if (!wt)
                return bento_err_set(err, ENOMEM, "workspace shields");
        if (path_lstat(wt, &st) < 0)
                return 0;
        if (!S_ISDIR(st.st_mode) || !(d = opendir(wt)))
                return ws_add(w, wt, "", true, err);
        while (r >= 0 && (de = readdir(d))) {
                cleanup_free char *e = NULL;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                e = path_join(wt, de->d_name);
                if (!e)
                        return bento_err_set(err, ENOMEM, "workspace shields");
                if (path_lstat(e, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode))
                        r = ws_add(w, e, "", true, err);
                else if (S_ISDIR(st.st_mode))
                        r = ws_add(w, e, "config.worktree", false, err);
        }
        return r;
}

/* commondir moves the config git reads to another directory: a new one
 * planted in a gitdir points git at a config the sandbox wrote.  Where
 * there is none, the sandbox sees one that says "." (the gitdir itself). */
static int ws_gitdir(const struct ws *w, const char *d, struct bento_err *err)
{
        int r = ws_add(w, d, "config", false, err);

        if (r >= 0)
                r = ws_add(w, d, "hooks", true, err);
        if (r >= 0)
                r = ws_add(w, d, "config.worktree", false, err);
        if (r >= 0)
                r = ws_add_rule(w, d, "commondir", false, true, err);
        if (r >= 0)
                r = ws_worktrees(w, d, err);
        return r;
}

static bool has_regular(const char *dir, const char *name)
{
        cleanup_free char *p = path_join(dir, name);
        struct stat st;

        return p && path_lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int ws_modules(const struct ws *w, const char *dir, unsigned depth, struct bento_err *err);

static int ws_modules_entries(const struct ws *w, const char *dir, DIR *d, unsigned depth,
                              struct bento_err *err)
{
        struct dirent *de;
        int r = 0;

        while (r >= 0 && (de = readdir(d))) {
                cleanup_free char *e = NULL;
                struct stat st;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                e = path_join(dir, de->d_name);
                if (!e)
                        return bento_err_set(err, ENOMEM, "workspace shields");
                if (path_lstat(e, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode))
                        r = ws_add(w, e, "", true, err);
                else if (S_ISDIR(st.st_mode))
                        r = ws_modules(w, e, depth + 1, err);
        }
        return r;
}

/* Every directory below .git/modules holding a regular `config` is a
 * submodule's gitdir; submodules nest, so the walk goes all the way down. */
static int ws_modules(const struct ws *w, const char *dir, unsigned depth, struct bento_err *err)
{
        cleanup_dir DIR *d = NULL;
        struct stat st;
        int r = 0;

        if (path_lstat(dir, &st) < 0 || (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)))
                return 0;
        if (S_ISLNK(st.st_mode) || depth > SHIELD_WALK_DEPTH_MAX || !(d = opendir(dir)))
                return ws_add(w, dir, "", true, err);
        if (has_regular(dir, "config"))
                r = ws_gitdir(w, dir, err);
        if (r >= 0)
                r = ws_modules_entries(w, dir, d, depth, err);
        return r;
}

static int ws_root(const struct ws *w, const char *root, struct bento_err *err)
{
        static const char *const dirs[] = {".vscode", ".idea"};
        static const char *const files[] = {".cargo/config.toml", ".cargo/config"};
        cleanup_free char *git = path_join(root, ".git");
        cleanup_free char *modules = NULL;
        struct stat st;
        int r = 0;

        if (!git)
                return bento_err_set(err, ENOMEM, "workspace shields");
        if (path_lstat(git, &st) == 0 && S_ISREG(st.st_mode)) {
                /* A gitfile: the real gitdir is elsewhere; pin the pointer. */
                r = ws_add(w, git, "", false, err);
        } else {
                r = ws_gitdir(w, git, err);
                if (r >= 0) {
                        modules = path_join(git, "modules");
                        r = modules ? ws_modules(w, modules, 1, err)
                                    : bento_err_set(err, ENOMEM, "workspace shields");
                }
        }
        for (size_t i = 0; r >= 0 && i < 2; i++)
                r = ws_add(w, root, dirs[i], true, err);
        for (size_t i = 0; r >= 0 && i < 2; i++)
                r = ws_add(w, root, files[i], false, err);
        return r;
}

/* The nearest ancestor-or-self holding an entry named .git, else dir. */
static char *checkout_root(const char *dir)
{
        cleanup_free char *cur = strdup(dir);

        if (!cur)
                return NULL;
        for (;;) {
                cleanup_free char *git = path_join(cur, ".git");
                struct stat st;
                char *slash;

                if (!git)
                        return NULL;
                if (path_lstat(git, &st) == 0)
                        break;
                if (strcmp(cur, "/") == 0)
                        return strdup(dir);
                /* dir is absolute (path_resolve()), so every cur has a '/'. */
                slash = strrchr(cur, '/');
                slash[slash == cur ? 1 : 0] = '\0';
        }
        return TAKE_PTR(cur);
}

/* The write grants that are directories, resolved (grants[k]), and the
 * checkout root of each (roots[k]): n of them, in grant order. */
struct ws_grants {
        char **grants, **roots;
        size_t n;
};

static void ws_grants_done(struct ws_grants *wg)
{
        strv_free(wg->grants);
        strv_free(wg->roots);
}

static int ws_grants_find(struct ws_grants *wg, const char *const *writes, size_t n_writes)
{
        wg->grants = calloc(n_writes + 1, sizeof(char *));
        wg->roots = calloc(n_writes + 1, sizeof(char *));
        if (!wg->grants || !wg->roots)
                return -ENOMEM;
        for (size_t i = 0; i < n_writes; i++) {
                cleanup_free char *g = NULL;
                struct stat st;

                if (path_resolve(writes[i], &g) < 0)
                        return -ENOMEM;
                if (path_stat(g, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                /* .git, .vscode, .idea and .cargo are asked of it, and the
                 * alias scan walks it: one listing for all of them */
                path_list_soon(g);
                if (!(wg->roots[wg->n] = checkout_root(g)))
                        return -ENOMEM;
                wg->grants[wg->n++] = TAKE_PTR(g);
        }
        return 0;
}

int shields_add_workspace(struct shield_set *s, const char *const *writes, size_t n_writes,
                          struct bento_err *err)
{
        struct ws_grants wg = {0};
        struct path_index ix = {0};
        int r = 0;

        if (ws_grants_find(&wg, writes, n_writes) < 0 ||
            path_index_init(&ix, (const char *const *) wg.roots, wg.n) < 0)
                r = bento_err_set(err, ENOMEM, "workspace shields");
        /* A checkout shielded once for the first grant inside it: the rules
         * name that grant. */
        for (size_t k = 0; r >= 0 && k < wg.n; k++)
                if (path_index_first(&ix, wg.roots[k]) == k)
                        r = ws_root(&(struct ws){s, wg.grants[k]}, wg.roots[k], err);
        path_index_done(&ix);
        ws_grants_done(&wg);
        return r < 0 ? r : 0;
}
