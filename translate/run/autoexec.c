/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The auto-exec change report (docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT"): files inside
 * write grants that the host runs later without anyone reading them first (package manifests, CI
 * workflows, git hooks, build scripts).  A run may legitimately write a write grant, so this is a
 * hint, not a fence: bento records (size, mtime) of those names before the run and lists the ones
 * that changed or appeared afterwards, so a person looks before the next
 * build, commit or push.  git's hooks directory (core.hooksPath can move
 * it) is read in-process the way git answers it, with none of the caller's
 * GIT_* settings (git-hooks-path.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "git-hooks-path.h"
#include "manifest/path.h"
#include "run.h"

static const char *const root_names[] = {"package.json",
                                         ".npmrc",
                                         ".yarnrc",
                                         ".yarnrc.yml",
                                         ".pnpmfile.cjs",
                                         ".pnpmfile.js",
                                         ".pre-commit-config.yaml",
                                         "eslint.config.js",
                                         "eslint.config.mjs",
                                         "conftest.py",
                                         "setup.py",
                                         "build.rs",
                                         "mvnw",
                                         "gradlew",
                                         ".mvn/extensions.xml",
                                         ".mvn/jvm.config",
                                         "gradle/wrapper/gradle-wrapper.properties"};
static const char *const listed_dirs[] = {".github/workflows", ".husky", ".husky/_"};
/* Inside a checkout's .git: the config files (their settings are compared
 * key by key, gitconfig.c), and the files that point git at another
 * config or at filters (commondir moves the config elsewhere). */
static const char *const git_configs[] = {".git/config", ".git/config.worktree"};
static const char *const git_names[] = {".git/commondir", ".git/info/attributes"};

/* A git config is small; a bigger one is reported as changed, unread. */
#define GIT_CONFIG_MAX (1u << 20)

static struct run_file_facts facts_of(int r, const struct stat *st)
{
        if (r < 0)
                return (struct run_file_facts){.present = false};
        return (struct run_file_facts){.present = true,
                                       .type = st->st_mode & S_IFMT,
                                       .dev = st->st_dev,
                                       .ino = st->st_ino,
                                       .size = st->st_size,
                                       .mtime = st->st_mtim};
}

static bool same_facts(const struct run_file_facts *x, const struct run_file_facts *y)
{
        return x->present == y->present &&
               (!x->present ||
                (x->type == y->type && x->dev == y->dev && x->ino == y->ino && x->size == y->size &&
                 x->mtime.tv_sec == y->mtime.tv_sec && x->mtime.tv_nsec == y->mtime.tv_nsec));
}

/* The name as it is now: itself, and what it leads to. */
static void look(const char *path, struct run_file_facts *self, struct run_file_facts *target)
{
        struct stat st;
        int r = lstat(path, &st);

        *self = facts_of(r, &st);
        if (r == 0 && S_ISLNK(st.st_mode))
                r = stat(path, &st);
        *target = facts_of(r, &st);
}

static int add_entry(struct run_autoexec *a, const char *path)
{
        struct run_autoexec_entry *v;

        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->entries[i].path, path) == 0)
                        return 0;
        v = reallocarray(a->entries, a->n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        a->entries = v;
        v[a->n] = (struct run_autoexec_entry){.path = strdup(path)};
        if (!v[a->n].path)
                return -ENOMEM;
        look(path, &v[a->n].self, &v[a->n].target);
        a->n++;
        return 0;
}

/* Every name one level inside dir. */
static int add_dir(struct run_autoexec *a, const char *dir)
{
        cleanup_dir DIR *d = opendir(dir);
        struct dirent *de;
        int r = 0;

        while (d && r >= 0 && (de = readdir(d))) {
                cleanup_free char *p = NULL;

                if (de->d_name[0] == '.' &&
                    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
                        continue;
                p = path_join(dir, de->d_name);
                r = p ? add_entry(a, p) : -ENOMEM;
        }
        return r;
}

/* The hooks directory git would use for dir, or NULL; *unknown (when
 * asked) says the reader could not tell. */
static char *hooks_of(const struct run_autoexec *a, const char *dir, bool *unknown)
{
        struct git_hooks_env env = git_hooks_env_of_process();
        cleanup_free char *found = NULL;
        enum git_hooks k;

        if (a->without_git)
                return NULL; /* no git here to run a hook: unresolved, as before */
        k = git_hooks_path(dir, &env, &found);
        if (unknown)
                *unknown = k == GIT_HOOKS_UNKNOWN;
        return k == GIT_HOOKS_FOUND ? path_clean(found) : NULL;
}

static bool inside_write(const struct policy *p, const char *path)
{
        for (size_t i = 0; i < p->n_writes; i++)
                if (path_within(p->writes[i].real, path))
                        return true;
        return false;
}

static int push_str(char ***v, size_t *n, const char *s)
{
        char **nv = reallocarray(*v, *n + 2, sizeof(char *));

        if (!nv)
                return -ENOMEM;
        *v = nv;
        nv[*n] = strdup(s);
        if (!nv[*n])
                return -ENOMEM;
        nv[++*n] = NULL;
        return 0;
}

/* The settings that run code in the config at path; none when it cannot
 * be read as a regular file (a symlink, a FIFO, too big: the file list
 * reports the change itself). */
static int settings_of(const char *path, char ***ret, size_t *ret_n)
{
        cleanup_free char *text = NULL;
        struct bento_err ignored = {0};
        size_t len;

        *ret = NULL;
        *ret_n = 0;
        if (bento_read_file(path, GIT_CONFIG_MAX, &text, &len, &ignored) < 0)
                return 0;
        return run_git_settings(text, len, ret, ret_n);
}

static int add_git_config(struct run_autoexec *a, const char *path)
{
        struct run_git_config *v = reallocarray(a->configs, a->n_configs + 1, sizeof(*v));

        if (!v)
                return -ENOMEM;
        a->configs = v;
        v[a->n_configs] = (struct run_git_config){.path = strdup(path)};
        if (!v[a->n_configs].path)
                return -ENOMEM;
        a->n_configs++;
        return settings_of(path, &v[a->n_configs - 1].before, &v[a->n_configs - 1].n_before);
}

/* The files of root's .git that make git run something, when .git is a
 * directory (a gitfile's target is elsewhere, and pinned by its shield). */
static int add_git_files(struct run_autoexec *a, const char *root)
{
        cleanup_free char *dotgit = path_join(root, ".git");
        struct stat st;
        int r = 0;

        if (!dotgit)
                return -ENOMEM;
        if (lstat(dotgit, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        for (size_t i = 0; r >= 0 && i < sizeof(git_configs) / sizeof(git_configs[0]); i++) {
                cleanup_free char *f = path_join(root, git_configs[i]);

                r = f ? add_entry(a, f) : -ENOMEM;
                if (r >= 0)
                        r = add_git_config(a, f);
        }
        for (size_t i = 0; r >= 0 && i < sizeof(git_names) / sizeof(git_names[0]); i++) {
                cleanup_free char *f = path_join(root, git_names[i]);

                r = f ? add_entry(a, f) : -ENOMEM;
        }
        return r;
}

int run_autoexec_snapshot(const struct policy *p, struct run_autoexec *a, struct bento_err *err)
{
        int r = 0;

        a->hooks = calloc(p->n_writes + 1, sizeof(char *));
        if (!a->hooks)
                return bento_err_set(err, ENOMEM, "auto-exec report");
        for (size_t g = 0; r >= 0 && g < p->n_writes; g++) {
                const char *root = p->writes[g].real;

                for (size_t i = 0; r >= 0 && i < sizeof(root_names) / sizeof(root_names[0]); i++) {
                        cleanup_free char *f = path_join(root, root_names[i]);

                        r = f ? add_entry(a, f) : -ENOMEM;
                }
                for (size_t i = 0; r >= 0 && i < sizeof(listed_dirs) / sizeof(listed_dirs[0]);
                     i++) {
                        cleanup_free char *d = path_join(root, listed_dirs[i]);

                        r = d ? add_dir(a, d) : -ENOMEM;
                }
                if (r >= 0)
                        r = add_git_files(a, root);
                if (p->writes[g].exists)
                        a->hooks[g] = hooks_of(a, root, NULL);
                if (r >= 0 && a->hooks[g] && inside_write(p, a->hooks[g]))
                        r = add_dir(a, a->hooks[g]);
                else if (r >= 0 && !a->hooks[g] && p->writes[g].exists)
                        r = push_str(&a->unresolved, &a->n_unresolved, p->writes[g].real);
        }
        a->n_hooks = p->n_writes;
        return r < 0 ? bento_err_set(err, ENOMEM, "auto-exec report") : 0;
}

/* Changed: the name now leads to a regular file (something the host can
 * run), and either the name itself or that file is not what it was. */
static bool changed(const struct run_autoexec_entry *e)
{
        struct run_file_facts self, target;

        look(e->path, &self, &target);
        if (!target.present || target.type != S_IFREG)
                return false; /* gone, dangling or not a file: nothing to run */
        return !same_facts(&self, &e->self) || !same_facts(&target, &e->target);
}

static bool listed(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

static int push_unique(char ***v, size_t *n, const char *s)
{
        return listed(*v, *n, s) ? 0 : push_str(v, n, s);
}

/* The hooks directory of write grant g now, against the one before: a
 * new place is a redirect; no answer where there was one, or an answer
 * the reader could not give, is unresolved (the report cannot say the
 * hooks are unchanged). */
static int compare_hooks(const struct policy *p, struct run_autoexec *a, size_t g)
{
        const char *root = p->writes[g].real;
        cleanup_free char *now = NULL;
        bool unknown = false;

        if (!p->writes[g].exists && !a->hooks[g])
                return 0;
        /* With no hooks directory before, all that asking again can add is
         * the grant to the unresolved, where the snapshot put it already:
         * git's discovery (a walk up to "/") is not made again for
         * nothing. */
        if (!a->hooks[g] && listed(a->unresolved, a->n_unresolved, root))
                return 0;
        now = hooks_of(a, root, &unknown);
        if (now && a->hooks[g] && strcmp(now, a->hooks[g]) != 0)
                return push_str(&a->redirected, &a->n_redirected, now);
        if (unknown || (!now && a->hooks[g]))
                return push_unique(&a->unresolved, &a->n_unresolved, root);
        return 0;
}

/* The settings of config c that the run added or changed. */
static int compare_settings(struct run_autoexec *a, const struct run_git_config *c)
{
        cleanup_strv char **after = NULL;
        size_t n_after = 0;
        int r = settings_of(c->path, &after, &n_after);

        for (size_t i = 0; r >= 0 && i < n_after; i++) {
                cleanup_free char *line = NULL;
                bool old = false;

                for (size_t j = 0; j < c->n_before && !old; j++)
                        old = strcmp(c->before[j], after[i]) == 0;
                if (old)
                        continue;
                if (asprintf(&line, "%s: %s", c->path, after[i]) < 0)
                        return -ENOMEM;
                r = push_str(&a->settings, &a->n_settings, line);
        }
        return r;
}

int run_autoexec_compare(const struct policy *p, struct run_autoexec *a, struct bento_err *err)
{
        size_t before = a->n;
        int r = 0;

        /* Files that appeared in the watched directories during the run. */
        for (size_t g = 0; r >= 0 && g < p->n_writes; g++) {
                for (size_t i = 0; r >= 0 && i < sizeof(listed_dirs) / sizeof(listed_dirs[0]);
                     i++) {
                        cleanup_free char *d = path_join(p->writes[g].real, listed_dirs[i]);

                        r = d ? add_dir(a, d) : -ENOMEM;
                }
                if (r >= 0 && a->hooks[g] && inside_write(p, a->hooks[g]))
                        r = add_dir(a, a->hooks[g]);
        }
        /* add_entry() recorded the new ones as they are now: mark them new. */
        for (size_t i = before; i < a->n; i++)
                a->entries[i].self = a->entries[i].target = (struct run_file_facts){0};
        for (size_t i = 0; r >= 0 && i < a->n; i++)
                if (changed(&a->entries[i]))
                        r = push_str(&a->changed, &a->n_changed, a->entries[i].path);
        for (size_t i = 0; r >= 0 && i < a->n_configs; i++)
                r = compare_settings(a, &a->configs[i]);
        for (size_t g = 0; r >= 0 && g < p->n_writes; g++)
                r = compare_hooks(p, a, g);
        return r < 0 ? bento_err_set(err, ENOMEM, "auto-exec report") : 0;
}

void run_autoexec_done(struct run_autoexec *a)
{
        for (size_t i = 0; i < a->n; i++)
                free(a->entries[i].path);
        free(a->entries);
        for (size_t i = 0; a->hooks && i < a->n_hooks; i++)
                free(a->hooks[i]);
        free(a->hooks);
        for (size_t i = 0; i < a->n_configs; i++) {
                free(a->configs[i].path);
                strv_free(a->configs[i].before);
        }
        free(a->configs);
        strv_free(a->settings);
        strv_free(a->changed);
        strv_free(a->redirected);
        strv_free(a->unresolved);
        *a = (struct run_autoexec){0};
}
