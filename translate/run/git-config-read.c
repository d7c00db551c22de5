/* SPDX-License-Identifier: Apache-2.0 */
/*
 * git's config sequence with its includes (git-read.h): include.path and
 * includeIf.<condition>.path, relative to the including file, at most 10
 * deep as in git; the conditions gitdir:, gitdir/i:, onbranch: and
 * hasconfig:remote.*.url: (the last collects every remote URL in a first
 * pass where such includes are taken unconditionally and may not set a
 * remote URL, as git does); an unknown condition is false.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "git-read.h"
#include "git-wildmatch.h"

#define INCLUDE_DEPTH_MAX 10
#define SYMREF_DEPTH_MAX  5

struct cfg_pass {
        struct git_work *w;
        const struct git_cfg_where *where;
        gitcfg_entry_fn fn; /* the caller's, or forbid_remote_url */
        void *data;
        const char *file; /* the file being read */
        int depth;
        bool unconditional; /* the URL-collecting pass */
        char **urls;        /* remote URLs, once collected */
        size_t n_urls;
        bool urls_read;
        char *branch; /* HEAD's branch, once read ("" for none) */
};

static int read_file(struct cfg_pass *c, const char *path);
static int read_sequence(struct cfg_pass *c);

static void pass_free(struct cfg_pass *c)
{
        for (size_t i = 0; i < c->n_urls; i++)
                free(c->urls[i]);
        free(c->urls);
        free(c->branch);
}

static bool is_remote_url(const char *key)
{
        const char *sub, *name;
        size_t section_len, sub_len;

        gitcfg_split(key, &section_len, &sub, &sub_len, &name);
        return section_len == 6 && memcmp(key, "remote", 6) == 0 && sub && !strcmp(name, "url");
}

static int forbid_remote_url(const char *key, const char *value, void *data)
{
        (void) value;
        (void) data;
        return is_remote_url(key) ? GIT_FAILS : 0; /* git refuses such a file */
}

static int collect_url(const char *key, const char *value, void *data)
{
        struct cfg_pass *c = data;
        char **v;

        if (!is_remote_url(key))
                return 0;
        if (!value)
                return GIT_UNSURE; /* git would crash on it */
        v = reallocarray(c->urls, c->n_urls + 1, sizeof(char *));
        if (!v)
                return GIT_UNSURE;
        c->urls = v;
        if (!(v[c->n_urls] = strdup(value)))
                return GIT_UNSURE;
        c->n_urls++;
        return 0;
}

static int include(struct cfg_pass *c, const char *value)
{
        cleanup_free char *expanded = NULL, *dir = NULL, *path = NULL;
        struct stat st;
        int r;

        if (!value)
                return GIT_FAILS;
        r = git_expand(c->w->env, value, false, &expanded);
        if (r < 0 || !expanded)
                return r < 0 ? r : GIT_FAILS;
        if (expanded[0] != '/') {
                dir = git_dirname(c->file);
                path = dir ? git_join(dir, expanded) : NULL;
        } else {
                path = TAKE_PTR(expanded);
        }
        if (!path)
                return GIT_UNSURE;
        if (stat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : GIT_UNSURE;
        if (++c->depth > INCLUDE_DEPTH_MAX)
                return GIT_FAILS;
        r = read_file(c, path);
        c->depth--;
        return r;
}

static enum git_wild wild(struct cfg_pass *c, const char *pattern, const char *text, bool icase)
{
        return git_wildmatch(pattern, text, icase, &c->w->match_left);
}

/* One try of a gitdir pattern (prefix: bytes compared literally) against
 * a form of the git directory. */
static int gitdir_try(struct cfg_pass *c, const char *pattern, size_t prefix, const char *text,
                      bool icase)
{
        enum git_wild m;
        bool same_prefix =
            strlen(text) >= prefix &&
            (icase ? strncasecmp(pattern, text, prefix) == 0 : strncmp(pattern, text, prefix) == 0);

        if (prefix && !same_prefix)
                return 0;
        m = wild(c, pattern + prefix, text + prefix, icase);
        return m == GIT_WILD_TOO_HARD ? GIT_UNSURE : m == GIT_WILD_YES;
}

static int by_gitdir(struct cfg_pass *c, const char *cond, size_t len, bool icase)
{
        cleanup_free char *pat = strndup(cond, len), *expanded = NULL, *real = NULL;
        cleanup_free char *file = NULL, *full = NULL;
        size_t prefix = 0;
        int r;

        if (!c->where->gitdir)
                return 0;
        if (!pat)
                return GIT_UNSURE;
        r = git_expand(c->w->env, pat, true, &expanded);
        if (r < 0)
                return r;
        if (expanded) {
                free(pat);
                pat = TAKE_PTR(expanded);
        }
        if (pat[0] == '.' && pat[1] == '/') {
                cleanup_free char *dir = NULL;

                r = git_realpath(c->file, "/", false, &file);
                if (r < 0)
                        return r;
                dir = git_dirname(file);
                if (!dir || asprintf(&full, "%s%s", dir, pat + 1) < 0)
                        return GIT_UNSURE;
                prefix = strlen(dir) + 1;
        } else if (asprintf(&full, "%s%s", pat[0] == '/' ? "" : "**/", pat) < 0) {
                return GIT_UNSURE;
        }
        if (full[0] && full[strlen(full) - 1] == '/') {
                char *more = NULL;

                if (asprintf(&more, "%s**", full) < 0)
                        return GIT_UNSURE;
                free(full);
                full = more;
        }
        r = git_realpath(c->where->gitdir, "/", false, &real);
        if (r < 0)
                return r;
        r = gitdir_try(c, full, prefix, real, icase);
        return r != 0 ? r : gitdir_try(c, full, prefix, c->where->gitdir_abs, icase);
}

/* The branch HEAD names, following symbolic refs as git does; "" when
 * HEAD is detached or names no branch. */
static int head_branch(struct cfg_pass *c, char **ret)
{
        cleanup_free char *ref = NULL;
        char buf[4096];
        struct stat st;

        for (int depth = 0; depth <= SYMREF_DEPTH_MAX; depth++) {
                cleanup_free char *path =
                    git_join(depth ? c->where->commondir : c->where->gitdir, depth ? ref : "HEAD");
                cleanup_free char *text = NULL;
                size_t len = 0;
                char *name;
                int r;

                if (!path)
                        return GIT_UNSURE;
                if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                        ssize_t n = readlink(path, buf, sizeof(buf) - 1);

                        if (n < 5 || memcmp(buf, "refs/", 5) != 0)
                                return GIT_UNSURE;
                        buf[n] = '\0';
                        free(ref);
                        ref = strdup(buf);
                        continue;
                }
                r = git_read(c->w, path, &text, &len);
                if (r == -ENOENT && depth)
                        break; /* an unborn branch */
                if (r < 0)
                        return r == -ENOENT ? GIT_UNSURE : r;
                if (strncmp(text, "ref:", 4) != 0)
                        break; /* an object name */
                for (name = text + 4; *name == ' ' || *name == '\t'; name++)
                        ;
                name[strcspn(name, " \t\r\n")] = '\0';
                free(ref);
                ref = strdup(name);
                if (!ref)
                        return GIT_UNSURE;
        }
        if (!ref || strncmp(ref, "refs/heads/", 11) != 0)
                return (*ret = strdup("")) ? 0 : GIT_UNSURE;
        return (*ret = strdup(ref + 11)) ? 0 : GIT_UNSURE;
}

static int by_branch(struct cfg_pass *c, const char *cond, size_t len)
{
        cleanup_free char *pat = NULL;
        enum git_wild m;

        if (!c->where->gitdir)
                return 0;
        if (!c->branch) {
                int r = head_branch(c, &c->branch);

                if (r < 0)
                        return r;
        }
        if (!c->branch[0])
                return 0;
        if (asprintf(&pat, "%.*s%s", (int) len, cond, len && cond[len - 1] == '/' ? "**" : "") < 0)
                return GIT_UNSURE;
        m = wild(c, pat, c->branch, false);
        return m == GIT_WILD_TOO_HARD ? GIT_UNSURE : m == GIT_WILD_YES;
}

static int by_remote_url(struct cfg_pass *c, const char *cond, size_t len)
{
        cleanup_free char *pat = strndup(cond, len);

        if (c->unconditional)
                return 1;
        if (!pat)
                return GIT_UNSURE;
        if (!c->urls_read) {
                struct cfg_pass first = {.w = c->w, .where = c->where, .unconditional = true};
                int r;

                first.fn = collect_url;
                first.data = c;
                r = read_sequence(&first);
                pass_free(&first);
                if (r < 0)
                        return r;
                c->urls_read = true;
        }
        for (size_t i = 0; i < c->n_urls; i++) {
                enum git_wild m = wild(c, pat, c->urls[i], false);

                if (m != GIT_WILD_NO)
                        return m == GIT_WILD_YES ? 1 : GIT_UNSURE;
        }
        return 0;
}

static int condition(struct cfg_pass *c, const char *cond, size_t len)
{
        static const char url[] = "hasconfig:remote.*.url:";

        if (len >= 7 && !memcmp(cond, "gitdir:", 7))
                return by_gitdir(c, cond + 7, len - 7, false);
        if (len >= 9 && !memcmp(cond, "gitdir/i:", 9))
                return by_gitdir(c, cond + 9, len - 9, true);
        if (len >= 9 && !memcmp(cond, "onbranch:", 9))
                return by_branch(c, cond + 9, len - 9);
        if (len >= sizeof(url) - 1 && !memcmp(cond, url, sizeof(url) - 1))
                return by_remote_url(c, cond + sizeof(url) - 1, len - (sizeof(url) - 1));
        return 0;
}

static int on_entry(const char *key, const char *value, void *data)
{
        struct cfg_pass *c = data;
        const char *sub, *name;
        size_t section_len, sub_len;
        int r = c->fn(key, value, c->data);

        if (r < 0)
                return r;
        if (!strcmp(key, "include.path"))
                return include(c, value);
        gitcfg_split(key, &section_len, &sub, &sub_len, &name);
        if (section_len == 9 && !memcmp(key, "includeif", 9) && sub) {
                gitcfg_entry_fn fn = c->fn;

                r = condition(c, sub, sub_len);
                if (r <= 0 || strcmp(name, "path") != 0)
                        return r;
                if (c->unconditional)
                        c->fn = forbid_remote_url;
                r = include(c, value);
                c->fn = fn;
        }
        return r;
}

/* path parsed with git's syntax: -ENOENT when it is not there. */
static int parse_file(struct git_work *w, const char *path, gitcfg_entry_fn fn, void *data)
{
        cleanup_free char *text = NULL;
        size_t len = 0;
        int r = git_read(w, path, &text, &len);

        if (r < 0)
                return r;
        r = gitcfg_parse(text, len, false, fn, data);
        return r == GITCFG_SYNTAX ? GIT_FAILS : r == -ENOMEM ? GIT_UNSURE : r;
}

static int read_file(struct cfg_pass *c, const char *path)
{
        const char *outer = c->file;
        int r;

        c->file = path;
        r = parse_file(c->w, path, on_entry, c);
        c->file = outer;
        return r == -ENOENT ? 0 : r;
}

static int read_sequence(struct cfg_pass *c)
{
        const struct git_hooks_env *env = c->w->env;
        cleanup_free char *xdg = NULL, *user = NULL, *repo = NULL, *worktree = NULL;
        int r = 0;

        if (env->xdg_config_home && *env->xdg_config_home)
                xdg = git_join(env->xdg_config_home, "git/config");
        else if (env->home)
                xdg = git_join(env->home, ".config/git/config");
        if (env->home)
                user = git_join(env->home, ".gitconfig");
        if (c->where->gitdir) {
                repo = git_join(c->where->commondir, "config");
                if (c->where->worktree_config)
                        worktree = git_join(c->where->gitdir, "config.worktree");
        }
        if ((!xdg && env->home) || (!user && env->home) || (!repo && c->where->gitdir) ||
            (!worktree && c->where->gitdir && c->where->worktree_config))
                return GIT_UNSURE;
        const char *files[] = {env->system_config, xdg, user, repo, worktree};

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && r >= 0; i++)
                if (files[i])
                        r = read_file(c, files[i]);
        return r;
}

int git_config_read(struct git_work *w, const struct git_cfg_where *where, gitcfg_entry_fn fn,
                    void *data)
{
        struct cfg_pass c = {.w = w, .where = where, .fn = fn, .data = data};
        int r = read_sequence(&c);

        pass_free(&c);
        return r;
}

int git_config_read_file(struct git_work *w, const char *path, gitcfg_entry_fn fn, void *data)
{
        return parse_file(w, path, fn, data);
}
