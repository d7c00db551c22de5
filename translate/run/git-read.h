/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the in-process hooks reader (git-hooks-path.c) shares between its
 * files: the work budget, hostile-file reads, git's path rules.  Results
 * are 0 or one of the two failures below (or -ENOENT where a file's
 * absence is an answer).
 */
#ifndef BENTO_RUN_GIT_READ_H
#define BENTO_RUN_GIT_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "gitconfig-parse.h"
#include "git-hooks-path.h"

/* git stops here with an error: its answer is "none". */
#define GIT_FAILS (-2001)
/* This reader cannot tell what git would do. */
#define GIT_UNSURE (-2002)

/* A git config is small; a bigger one is not read ("unknown"). */
#define GIT_FILE_MAX (1u << 20)

struct git_work {
        const struct git_hooks_env *env;
        unsigned files_left;      /* files read, includes counted one by one */
        size_t bytes_left;        /* bytes read in all */
        unsigned long match_left; /* glob steps */
};

/* A regular file (symlinks followed, as git follows them) read whole:
 * -ENOENT when there is nothing at path (or a parent is not a directory),
 * GIT_UNSURE for anything else that is not a small regular file. */
int git_read(struct git_work *w, const char *path, char **text, size_t *len);

/* git's realpath: components resolved one by one, ".." taken from the
 * resolved part.  forgiving: components from the first missing one on are
 * kept as written (git's "forgiving" realpath); otherwise only the last
 * may be missing.  A relative path starts at cwd.  0, GIT_FAILS (git
 * dies), GIT_UNSURE (out of memory). */
int git_realpath(const char *path, const char *cwd, bool forgiving, char **ret);

/* A config path value: "~/" and "~" for HOME (its realpath when
 * real_home), as git expands them.  *ret is NULL where git's expansion
 * fails (no HOME); "~user" and "%(prefix)/" give GIT_UNSURE. */
int git_expand(const struct git_hooks_env *env, const char *value, bool real_home, char **ret);

/* a "/" b, without doubling a slash after "/". */
char *git_join(const char *a, const char *b);

/* The last '/' of path and what is before it, as a new string ("/" for
 * a file at the root). */
char *git_dirname(const char *path);

/* Where git's config sequence reads: system, global (XDG, then
 * ~/.gitconfig), then, with a repository, $commondir/config and (with
 * extensions.worktreeConfig) $gitdir/config.worktree. */
struct git_cfg_where {
        const char *gitdir;     /* NULL: the protected config, read before a repository is taken */
        const char *gitdir_abs; /* the git directory as an absolute path, symlinks unresolved */
        const char *commondir;
        bool worktree_config;
};

/* The whole sequence, includes followed (git-config-read.c); fn sees each
 * setting as git's callbacks do, in order.  0, GIT_FAILS, GIT_UNSURE. */
int git_config_read(struct git_work *w, const struct git_cfg_where *where, gitcfg_entry_fn fn,
                    void *data);

/* One file, includes not followed (the repository format check): -ENOENT
 * when it is not there. */
int git_config_read_file(struct git_work *w, const char *path, gitcfg_entry_fn fn, void *data);

/* The repository git takes for a directory (git-repo.c). */
struct git_repo {
        char *top;        /* where discovery stopped: the worktree's top, or the bare repository */
        char *gitdir;     /* absolute */
        char *gitdir_abs; /* as git spells it for includeIf: symlinks not resolved */
        char *commondir;  /* resolved */
        bool bare;        /* found as a bare repository */
        bool worktree_config;
        int core_bare;       /* -1 unset (as the format check reads it) */
        char *core_worktree; /* or NULL */
};

/* Discovery from dir (resolved) up to the filesystem boundary, the
 * ownership check with safe.directory and safe.bareRepository, and the
 * repository format check.  0, GIT_FAILS (no repository git would use),
 * GIT_UNSURE. */
int git_repo_find(struct git_work *w, const char *dir, struct git_repo *r);
void git_repo_free(struct git_repo *r);

/* What git's config readers do with a value. */
int git_parse_bool(const char *value);                /* 1, 0, or -1 (not a boolean) */
int git_parse_int(const char *value, long long *ret); /* 0 or -1 */

#endif
