/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The auto-exec change report (docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT"): files inside
 * write grants that the host runs later without anyone reading them first (package manifests, CI
 * workflows, git hooks, build scripts).  A run may legitimately write a write grant, so this is a
 * hint, not a fence: bento records (size, mtime) of those names before the run and lists the ones
 * that changed or appeared afterwards, so a person looks before the next
 * build, commit or push.  git's hooks directory is asked of git itself
 * (core.hooksPath can move it), with GIT_* removed from its environment so
 * the caller's settings cannot point it elsewhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "manifest/path.h"
#include "spawn.h"
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

#define GIT_OUTPUT_MAX 4096

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

/* Whether dir or one of its ancestors holds a .git entry: without one git
 * has nothing to answer, and asking it costs a fork and an exec. */
static bool in_a_repository(const char *dir)
{
        cleanup_free char *cur = strdup(dir);

        while (cur) {
                cleanup_free char *dotgit = path_join(cur, ".git");
                struct stat st;
                char *slash;

                if (dotgit && lstat(dotgit, &st) == 0)
                        return true;
                if (strcmp(cur, "/") == 0)
                        return false;
                slash = strrchr(cur, '/');
                *(slash == cur ? slash + 1 : slash) = '\0';
        }
        return true; /* out of memory: let git decide */
}

/* bento's environment without a single GIT_* variable (GIT_DIR,
 * GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT/KEY_n/VALUE_n, ... could each
 * point git's answer elsewhere).  The strings are environ's own. */
static char **env_without_git(void)
{
        size_t n = 0, k = 0;
        char **v;

        while (environ[n])
                n++;
        v = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; v && i < n; i++)
                if (strncmp(environ[i], "GIT_", 4) != 0)
                        v[k++] = environ[i];
        return v;
}

/* Start `git rev-parse --git-path hooks` in dir, with GIT_* removed.
 * q->pid stays 0 when there is nothing to ask (no repository around dir)
 * or git cannot be started: the answer is then "none".  posix_spawn, not
 * fork: bento's heap is large by now, and copying its page tables cost
 * more than git's own start. */
static void git_ask(const char *dir, struct run_git_query *q)
{
        static char *const argv[] = {"git",        "rev-parse", "--path-format=absolute",
                                     "--git-path", "hooks",     NULL};
        cleanup_free char **env = NULL;
        struct bento_err ignored = {0};
        struct run_spawn_fds fds = RUN_SPAWN_FDS_NULL;
        int pipefd[2];
        pid_t pid = 0;

        *q = (struct run_git_query){.pid = 0, .fd = -1};
        if (!in_a_repository(dir) || !(env = env_without_git()) || pipe2(pipefd, O_CLOEXEC) < 0)
                return;
        fds.out = pipefd[1];
        fds.cwd = dir;
        fds.env = env;
        fds.own_group = true; /* a Ctrl-C is bento's to handle (git_drop) */
        if (run_spawn(argv, &fds, &pid, &ignored) < 0) {
                close(pipefd[0]);
                close(pipefd[1]);
                return;
        }
        close(pipefd[1]);
        *q = (struct run_git_query){.pid = pid, .fd = pipefd[0]};
}

/* git's answer to q (waited for); NULL when git did not answer. */
static char *git_answer(struct run_git_query *q)
{
        char buf[GIT_OUTPUT_MAX];
        ssize_t n, len = 0;
        int status;
        bool ok;

        if (q->pid <= 0)
                return NULL;
        while (len < (ssize_t) sizeof(buf) - 1 &&
               (n = read(q->fd, buf + len, sizeof(buf) - 1 - (size_t) len)) > 0)
                len += n;
        close(q->fd);
        ok = run_wait(q->pid, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
             len > 0;
        *q = (struct run_git_query){.pid = 0, .fd = -1};
        if (!ok)
                return NULL;
        buf[len] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return buf[0] == '/' ? path_clean(buf) : NULL;
}

/* A query nobody will read: stopped and reaped. */
static void git_drop(struct run_git_query *q)
{
        int status;

        if (q->pid <= 0)
                return;
        kill(q->pid, SIGKILL);
        close(q->fd);
        (void) run_wait(q->pid, &status);
        *q = (struct run_git_query){.pid = 0, .fd = -1};
}

static char *git_hooks_dir(const char *dir)
{
        struct run_git_query q;

        git_ask(dir, &q);
        return git_answer(&q);
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

int run_autoexec_ask(const struct policy *p, struct run_autoexec *a, struct bento_err *err)
{
        a->asked = calloc(p->n_writes + 1, sizeof(*a->asked));
        if (!a->asked)
                return bento_err_set(err, ENOMEM, "auto-exec report");
        a->n_asked = p->n_writes;
        for (size_t g = 0; g < p->n_writes; g++) {
                a->asked[g] = (struct run_git_query){.pid = 0, .fd = -1};
                if (p->writes[g].exists)
                        git_ask(p->writes[g].real, &a->asked[g]);
        }
        return 0;
}

/* The hooks directory of write grant g before the run: the answer to the
 * question asked early, or asked now (a grant created since). */
static char *hooks_before(const struct policy *p, struct run_autoexec *a, size_t g)
{
        if (g < a->n_asked && a->asked[g].pid > 0)
                return git_answer(&a->asked[g]);
        return p->writes[g].exists ? git_hooks_dir(p->writes[g].real) : NULL;
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
                a->hooks[g] = hooks_before(p, a, g);
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

/* Does the comparison ask git about write grant g? */
static bool ask_after(const struct policy *p, const struct run_autoexec *a, size_t g)
{
        return p->writes[g].exists || (a->hooks && g < a->n_hooks && a->hooks[g]);
}

void run_autoexec_ask_after(const struct policy *p, struct run_autoexec *a)
{
        if (a->after || !a->hooks)
                return;
        a->after = calloc(p->n_writes + 1, sizeof(*a->after));
        if (!a->after)
                return;
        a->n_after = p->n_writes;
        for (size_t g = 0; g < p->n_writes; g++) {
                a->after[g] = (struct run_git_query){.pid = 0, .fd = -1};
                if (ask_after(p, a, g))
                        git_ask(p->writes[g].real, &a->after[g]);
        }
}

/* The hooks directory of write grant g after the run: the answer to the
 * question run_autoexec_ask_after() started, or asked now. */
static char *hooks_after(const struct policy *p, struct run_autoexec *a, size_t g)
{
        if (g < a->n_after)
                return git_answer(&a->after[g]); /* NULL: no repository, or no answer */
        return ask_after(p, a, g) ? git_hooks_dir(p->writes[g].real) : NULL;
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
        for (size_t g = 0; r >= 0 && g < p->n_writes; g++) {
                cleanup_free char *now = hooks_after(p, a, g);

                if (a->hooks[g] && now && strcmp(now, a->hooks[g]) != 0)
                        r = push_str(&a->redirected, &a->n_redirected, now);
        }
        return r < 0 ? bento_err_set(err, ENOMEM, "auto-exec report") : 0;
}

void run_autoexec_done(struct run_autoexec *a)
{
        for (size_t g = 0; g < a->n_asked; g++)
                git_drop(&a->asked[g]);
        free(a->asked);
        for (size_t g = 0; g < a->n_after; g++)
                git_drop(&a->after[g]);
        free(a->after);
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
