/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which repository git 2.39 takes for a directory (git-read.h), step by
 * step as its setup does without GIT_DIR, GIT_WORK_TREE,
 * GIT_CEILING_DIRECTORIES or GIT_DISCOVERY_ACROSS_FILESYSTEM: at each
 * level up, ".git" as a gitfile ("gitdir: <path>", relative to the file's
 * directory) or as a git directory, then the level itself as a bare
 * repository; never across a filesystem boundary.  A git directory has a
 * valid HEAD and (in its common directory) objects/ and refs/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "git-read.h"

/* HEAD as git accepts it: a symlink into refs/, "ref: refs/...", or an
 * object name.  1, 0, or GIT_UNSURE (a FIFO git would block on). */
static int valid_head(struct git_work *w, const char *gitdir)
{
        cleanup_free char *path = git_join(gitdir, "HEAD");
        cleanup_free char *text = NULL;
        struct stat st;
        size_t len = 0;
        int r;

        if (!path)
                return GIT_UNSURE;
        if (lstat(path, &st) < 0)
                return 0;
        if (S_ISLNK(st.st_mode)) {
                char buf[256];
                ssize_t n = readlink(path, buf, sizeof(buf) - 1);

                return n >= 5 && !memcmp(buf, "refs/", 5);
        }
        if (S_ISDIR(st.st_mode))
                return 0; /* git's read fails */
        r = git_read(w, path, &text, &len);
        if (r < 0)
                return GIT_UNSURE;
        text[len < 255 ? len : 255] = '\0'; /* git reads 255 bytes */
        if (!strncmp(text, "ref:", 4)) {
                const char *ref = text + 4;

                while (*ref == ' ' || *ref == '\t' || *ref == '\n' || *ref == '\r')
                        ref++;
                if (!strncmp(ref, "refs/", 5))
                        return 1;
        }
        return strspn(text, "0123456789abcdefABCDEF") >= 40;
}

/* The common directory of gitdir: its "commondir" file's path (relative
 * to gitdir), resolved, or gitdir.  *has_common says which. */
static int common_dir(struct git_work *w, const char *gitdir, char **ret, bool *has_common)
{
        cleanup_free char *path = git_join(gitdir, "commondir");
        cleanup_free char *text = NULL, *joined = NULL;
        struct stat st;
        size_t len = 0;
        int r;

        *has_common = false;
        if (!path)
                return GIT_UNSURE;
        if (stat(path, &st) < 0)
                return (*ret = strdup(gitdir)) ? 0 : GIT_UNSURE;
        *has_common = true;
        if (S_ISDIR(st.st_mode))
                return GIT_FAILS; /* git cannot read it and stops */
        r = git_read(w, path, &text, &len);
        if (r < 0)
                return r;
        if (len == 0)
                return GIT_FAILS;
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                text[--len] = '\0';
        joined = text[0] == '/' ? strdup(text) : git_join(gitdir, text);
        if (!joined)
                return GIT_UNSURE;
        return git_realpath(joined, "/", false, ret);
}

/* 1 when path is a git directory, 0 when not. */
static int is_git_dir(struct git_work *w, const char *path)
{
        cleanup_free char *common = NULL, *objects = NULL, *refs = NULL;
        bool has_common;
        int r = valid_head(w, path);

        if (r <= 0)
                return r;
        r = common_dir(w, path, &common, &has_common);
        if (r < 0)
                return r;
        objects = git_join(common, "objects");
        refs = git_join(common, "refs");
        if (!objects || !refs)
                return GIT_UNSURE;
        return access(objects, X_OK) == 0 && access(refs, X_OK) == 0;
}

static bool owned(const struct git_hooks_env *env, const char *path)
{
        struct stat st;
        uid_t uid = env->euid;

        if (lstat(path, &st) < 0)
                return false;
        if (uid == 0 && st.st_uid == 0)
                return true;
        if (uid == 0 && env->sudo_uid && *env->sudo_uid) {
                char *end = NULL;
                unsigned long v;

                errno = 0;
                v = strtoul(env->sudo_uid, &end, 10);
                if (!*end && !errno)
                        uid = (uid_t) v;
        }
        return st.st_uid == uid;
}

struct protected
{
        const struct git_hooks_env *env;
        const char *path; /* what safe.directory must name */
        bool safe;
        int bare_explicit; /* safe.bareRepository: 1 explicit, 0 all */
};

static int protected_entry(const char *key, const char *value, void *data)
{
        struct protected *p = data;
        cleanup_free char *expanded = NULL;
        int r;

        if (!strcmp(key, "safe.barerepository")) {
                if (!value)
                        return GIT_UNSURE; /* git crashes */
                if (strcmp(value, "explicit") != 0 && strcmp(value, "all") != 0)
                        return GIT_FAILS;
                p->bare_explicit = !strcmp(value, "explicit");
                return 0;
        }
        if (strcmp(key, "safe.directory") != 0)
                return 0;
        if (!value || !*value) {
                p->safe = false;
                return 0;
        }
        if (!strcmp(value, "*")) {
                p->safe = true;
                return 0;
        }
        r = git_expand(p->env, value, false, &expanded);
        if (r < 0 || !expanded)
                return r < 0 ? r : GIT_FAILS;
        if (p->path && !strcmp(p->path, expanded))
                p->safe = true;
        return 0;
}

/* The system and global configs (never the repository's): whether
 * safe.directory allows path, and safe.bareRepository. */
static int protected_config(struct git_work *w, const char *path, struct protected *p)
{
        static const struct git_cfg_where none = {0};

        *p = (struct protected){.env = w->env, .path = path};
        return git_config_read(w, &none, protected_entry, p);
}

/* git's ownership check: each path given must be the caller's (root: or
 * root's; root under sudo: or SUDO_UID's), or safe.directory must name
 * the worktree (for a bare repository: the git directory). */
static int ownership(struct git_work *w, const char *gitfile, const char *worktree,
                     const char *gitdir)
{
        struct protected p;
        int r;

        if ((!gitfile || owned(w->env, gitfile)) && (!worktree || owned(w->env, worktree)) &&
            owned(w->env, gitdir))
                return 0;
        r = protected_config(w, worktree ? worktree : gitdir, &p);
        if (r < 0)
                return r;
        return p.safe ? 0 : GIT_FAILS;
}

/* dir/.git as a gitfile: the resolved git directory it names. */
static int gitfile_target(struct git_work *w, const char *dotgit, char **ret)
{
        cleanup_free char *text = NULL, *dir = NULL, *path = NULL;
        size_t len = 0;
        int r;

        r = git_read(w, dotgit, &text, &len);
        if (r < 0)
                return GIT_UNSURE; /* bigger than git reads (it would refuse), or gone */
        if (strncmp(text, "gitdir: ", 8) != 0)
                return GIT_FAILS;
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                text[--len] = '\0';
        if (len < 9)
                return GIT_FAILS;
        dir = git_dirname(dotgit);
        path = text[8] == '/' ? strdup(text + 8) : dir ? git_join(dir, text + 8) : NULL;
        if (!path)
                return GIT_UNSURE;
        r = is_git_dir(w, path);
        if (r <= 0)
                return r < 0 ? r : GIT_FAILS;
        return git_realpath(path, "/", false, ret);
}

/* One level of discovery: 1 with r filled, 0 to go up. */
static int try_level(struct git_work *w, const char *cur, const char *start, struct git_repo *r)
{
        cleanup_free char *dotgit = git_join(cur, ".git");
        struct stat st;
        bool there;
        int k;

        if (!dotgit)
                return GIT_UNSURE;
        /* one stat(2) of .git for both questions: at every level of the
         * walk up to "/" it is most often missing */
        there = stat(dotgit, &st) == 0;
        if (there && S_ISREG(st.st_mode)) {
                k = gitfile_target(w, dotgit, &r->gitdir);
                if (k < 0)
                        return k;
                k = ownership(w, dotgit, cur, r->gitdir);
                r->gitdir_abs = strdup(r->gitdir);
        } else if (there && (k = is_git_dir(w, dotgit)) != 0) {
                if (k < 0)
                        return k;
                k = ownership(w, NULL, cur, dotgit);
                r->gitdir = TAKE_PTR(dotgit);
                r->gitdir_abs = strdup(r->gitdir);
        } else if ((k = is_git_dir(w, cur)) != 0) {
                struct protected p;

                if (k < 0)
                        return k;
                k = protected_config(w, NULL, &p);
                if (k < 0)
                        return k;
                if (p.bare_explicit)
                        return GIT_FAILS;
                k = ownership(w, NULL, NULL, cur);
                r->bare = true;
                r->gitdir = strdup(cur);
                /* git names it "." when discovery started there */
                r->gitdir_abs = strcmp(cur, start) ? strdup(cur) : git_join(cur, ".");
        } else {
                return 0;
        }
        if (k < 0)
                return k;
        r->top = strdup(cur);
        return r->top && r->gitdir && r->gitdir_abs ? 1 : GIT_UNSURE;
}

struct format {
        long long version;
        bool worktree_config, unknown, v1_only;
        int core_bare;
        char *core_worktree;
};

static int format_entry(const char *key, const char *value, void *data)
{
        struct format *f = data;

        if (!strcmp(key, "core.repositoryformatversion"))
                return git_parse_int(value, &f->version) < 0 ? GIT_FAILS : 0;
        if (!strncmp(key, "extensions.", 11)) {
                const char *ext = key + 11;

                if (!strcmp(ext, "noop"))
                        return 0;
                if (!strcmp(ext, "preciousobjects") || !strcmp(ext, "worktreeconfig")) {
                        int b = git_parse_bool(value);

                        if (b < 0)
                                return GIT_FAILS;
                        if (ext[0] == 'w')
                                f->worktree_config = b;
                        return 0;
                }
                if (!strcmp(ext, "partialclone"))
                        return value ? 0 : GIT_UNSURE;
                if (!strcmp(ext, "objectformat") &&
                    (!value || (strcmp(value, "sha1") != 0 && strcmp(value, "sha256") != 0)))
                        return GIT_FAILS;
                if (!strcmp(ext, "objectformat") || !strcmp(ext, "noop-v1"))
                        f->v1_only = true;
                else
                        f->unknown = true;
                return 0;
        }
        if (!strcmp(key, "core.bare")) {
                f->core_bare = git_parse_bool(value);
                return f->core_bare < 0 ? GIT_FAILS : 0;
        }
        if (!strcmp(key, "core.worktree")) {
                if (!value)
                        return GIT_FAILS;
                free(f->core_worktree);
                return (f->core_worktree = strdup(value)) ? 0 : GIT_UNSURE;
        }
        return 0;
}

/* git's repository format check: version, extensions, and core.bare and
 * core.worktree as it takes them (from the per-worktree config when
 * extensions.worktreeConfig is on; not from a linked worktree's common
 * config). */
static int check_format(struct git_work *w, struct git_repo *r)
{
        struct format f = {.version = -1, .core_bare = -1};
        cleanup_free char *config = NULL;
        bool has_common;
        int k = common_dir(w, r->gitdir, &r->commondir, &has_common);

        if (k >= 0 && !(config = git_join(r->commondir, "config")))
                k = GIT_UNSURE;
        if (k >= 0) {
                k = git_config_read_file(w, config, format_entry, &f);
                if (k == -ENOENT)
                        k = 0;
        }
        if (k >= 0 && f.version >= 0) {
                if (f.version > 1 || (f.version >= 1 && f.unknown) || (f.version == 0 && f.v1_only))
                        k = GIT_FAILS;
                r->worktree_config = f.worktree_config;
        }
        if (k >= 0 && f.version >= 0 && f.worktree_config) {
                cleanup_free char *wt = git_join(r->gitdir, "config.worktree");

                k = wt ? git_config_read_file(w, wt, format_entry, &f) : GIT_UNSURE;
                if (k == -ENOENT)
                        k = 0;
                has_common = false;
        }
        if (k >= 0 && f.version >= 0 && !has_common) {
                r->core_bare = f.core_bare;
                r->core_worktree = TAKE_PTR(f.core_worktree);
        }
        free(f.core_worktree);
        return k;
}

int git_repo_find(struct git_work *w, const char *dir, struct git_repo *r)
{
        cleanup_free char *cur = strdup(dir);
        struct stat st;
        dev_t dev;
        int k;

        *r = (struct git_repo){.core_bare = -1};
        if (!cur)
                return GIT_UNSURE;
        if (stat(cur, &st) < 0)
                return GIT_FAILS;
        dev = st.st_dev;
        while ((k = try_level(w, cur, dir, r)) == 0) {
                if (strcmp(cur, "/") == 0)
                        return GIT_FAILS; /* not a repository */
                *(strrchr(cur, '/') == cur ? cur + 1 : strrchr(cur, '/')) = '\0';
                if (stat(cur, &st) < 0 || st.st_dev != dev)
                        return GIT_FAILS; /* git stops at a filesystem boundary */
        }
        return k < 0 ? k : check_format(w, r);
}

void git_repo_free(struct git_repo *r)
{
        free(r->top);
        free(r->gitdir);
        free(r->gitdir_abs);
        free(r->commondir);
        free(r->core_worktree);
        *r = (struct git_repo){0};
}
