/* SPDX-License-Identifier: Apache-2.0 */
/*
 * translate/run/git-hooks-path.c against git itself: every row builds a
 * real repository layout in a fresh directory with a shell script (git
 * init, worktrees, configs, includes, a repository chowned to another
 * user), then asks both `git rev-parse --path-format=absolute --git-path
 * hooks` (run in the row's directory with every GIT_* variable removed, as
 * bento ran it) and the in-process reader, and requires the same answer:
 * the same directory, or "none" from both where git fails.  Each row also
 * states the answer it expects, so a row where both fail for a reason of
 * the test's own cannot pass.
 *
 * HOME (and XDG_CONFIG_HOME where a row says so) point into the row's
 * directory, so the host's ~/.gitconfig plays no part; /etc/gitconfig is
 * read by both.  GIT_DIR and GIT_CONFIG_PARAMETERS are set in this
 * process's environment throughout: neither side may be swayed by them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "run/git-hooks-path.h"
#include "tap.h"

extern char **environ;

struct row {
        const char *setup; /* sh script, run in the row's directory $C */
        const char *dir;   /* where git is asked, relative to $C */
        const char *want;  /* the hooks directory, relative to $C unless absolute; NULL: none */
        bool xdg;          /* XDG_CONFIG_HOME=$C/xdg (else unset) */
        const char *sudo_uid;
};

/* The environment without GIT_* (what bento gave git). */
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

/* Run argv in dir with GIT_* removed; its first line of output in out
 * (empty when it failed). */
static int run_in(const char *dir, char *const argv[], char *out, size_t size)
{
        cleanup_free char **env = env_without_git();
        int fd[2], status;
        ssize_t n, len = 0;
        pid_t pid;

        out[0] = '\0';
        if (!env || pipe(fd) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);

                dup2(fd[1], 1);
                if (strcmp(argv[0], "git") == 0)
                        dup2(null, 2);
                if (chdir(dir) < 0)
                        _exit(127);
                execvpe(argv[0], argv, env);
                _exit(127);
        }
        close(fd[1]);
        while (len < (ssize_t) size - 1 &&
               (n = read(fd[0], out + len, size - 1 - (size_t) len)) > 0)
                len += n;
        close(fd[0]);
        out[len] = '\0';
        out[strcspn(out, "\n")] = '\0';
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                out[0] = '\0';
                return -1;
        }
        return 0;
}

static char top[PATH_MAX];

static void check_row(const char *name, const struct row *row)
{
        char c[PATH_MAX * 2], dir[PATH_MAX * 3], git_says[PATH_MAX * 3], want[PATH_MAX * 4];
        char home[PATH_MAX * 3], xdg[PATH_MAX * 3];
        char *sh[] = {"sh", "-ec", (char *) row->setup, NULL};
        char *git[] = {"git", "rev-parse", "--path-format=absolute", "--git-path", "hooks", NULL};
        cleanup_free char *mine = NULL;
        struct git_hooks_env env;
        enum git_hooks k;

        snprintf(c, sizeof(c), "%s/%s", top, name);
        snprintf(home, sizeof(home), "%s/home", c);
        snprintf(xdg, sizeof(xdg), "%s/xdg", c);
        if (mkdir(c, 0755) < 0 || mkdir(home, 0755) < 0 || mkdir(xdg, 0755) < 0)
                TAP_FAIL("cannot make %s", c);
        setenv("C", c, 1);
        setenv("HOME", home, 1);
        if (row->xdg)
                setenv("XDG_CONFIG_HOME", xdg, 1);
        else
                unsetenv("XDG_CONFIG_HOME");
        if (row->sudo_uid)
                setenv("SUDO_UID", row->sudo_uid, 1);
        else
                unsetenv("SUDO_UID");
        if (run_in(c, sh, git_says, sizeof(git_says)) < 0)
                TAP_FAIL("the setup of %s failed", name);
        snprintf(dir, sizeof(dir), "%s/%s", c, row->dir);
        if (row->want)
                snprintf(want, sizeof(want), "%s%s%s", row->want[0] == '/' ? "" : c,
                         row->want[0] == '/' ? "" : "/", row->want);
        (void) run_in(dir, git, git_says, sizeof(git_says));
        env = git_hooks_env_of_process();
        k = git_hooks_path(dir, &env, &mine);
        printf("# %s: git \"%s\", bento %s \"%s\"\n", name, git_says,
               k == GIT_HOOKS_FOUND  ? "found"
               : k == GIT_HOOKS_NONE ? "none"
                                     : "unknown",
               mine ? mine : "");
        /* the row's own expectation: git agrees with it */
        if (row->want)
                ASSERT_STREQ(git_says, want);
        else
                ASSERT_STREQ(git_says, "");
        /* and the reader agrees with git */
        if (!git_says[0]) {
                ASSERT_EQ(k, GIT_HOOKS_NONE);
        } else {
                ASSERT_EQ(k, GIT_HOOKS_FOUND);
                ASSERT_STREQ(mine, git_says);
        }
}

#define ROW(name, ...)                                                                             \
        TEST(name)                                                                                 \
        {                                                                                          \
                static const struct row r = {__VA_ARGS__};                                         \
                check_row(#name, &r);                                                              \
        }

#define INIT   "git init -q -b main r\n"
#define COMMIT "git -C r -c user.name=t -c user.email=t@t commit -q --allow-empty -m x\n"
#define OTHER  "12345"

/* --- discovery --- */
ROW(plain_repository, .setup = INIT, .dir = "r", .want = "r/.git/hooks")
ROW(subdirectory, .setup = INIT "mkdir -p r/a/b\n", .dir = "r/a/b", .want = "r/.git/hooks")
ROW(no_repository, .setup = "mkdir d\n", .dir = "d", .want = NULL)
ROW(gitfile_relative,
    .setup = INIT "mv r/.git store.git\nprintf 'gitdir: ../store.git\\n' > r/.git\n", .dir = "r",
    .want = "store.git/hooks")
ROW(gitfile_absolute,
    .setup = INIT "mv r/.git s.git\nprintf 'gitdir: %s/s.git\\r\\n' \"$C\" > r/.git\n", .dir = "r",
    .want = "s.git/hooks")
ROW(gitfile_garbage, .setup = INIT "mkdir -p r/x\nprintf 'not a gitfile\\n' > r/x/.git\n",
    .dir = "r/x", .want = NULL)
ROW(gitfile_to_no_repository,
    .setup = INIT "mkdir -p r/x e\nprintf 'gitdir: ../../e\\n' > r/x/.git\n", .dir = "r/x",
    .want = NULL)
ROW(empty_dot_git_dir_is_passed, .setup = INIT "mkdir -p r/x/.git\n", .dir = "r/x",
    .want = "r/.git/hooks")
ROW(dot_git_fifo_is_passed, .setup = INIT "mkdir -p r/x\nmkfifo r/x/.git\n", .dir = "r/x",
    .want = "r/.git/hooks")
ROW(head_invalid_is_not_a_repository,
    .setup = INIT "mkdir -p r/x/.git/objects r/x/.git/refs\necho junk > r/x/.git/HEAD\n",
    .dir = "r/x", .want = "r/.git/hooks")
ROW(linked_worktree, .setup = INIT COMMIT "git -C r worktree add -q ../w\n", .dir = "w",
    .want = "r/.git/hooks")
ROW(bare_repository, .setup = "git init -q --bare b.git\n", .dir = "b.git", .want = "b.git/hooks")
ROW(inside_dot_git_is_bare, .setup = INIT, .dir = "r/.git/refs", .want = "r/.git/hooks")
ROW(bare_refused_by_safe_bare_repository,
    .setup = "git init -q --bare b.git\nprintf '[safe]\\n\\tbareRepository = explicit\\n' > "
             "home/.gitconfig\n",
    .dir = "b.git", .want = NULL)

/* --- ownership and safe.directory --- */
ROW(owned_by_someone_else, .setup = INIT "chown -R " OTHER " r\n", .dir = "r", .want = NULL)
ROW(safe_directory_names_it,
    .setup = INIT "chown -R " OTHER
                  " r\nprintf '[safe]\\n\\tdirectory = %s/r\\n' \"$C\" > home/.gitconfig\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(safe_directory_star,
    .setup = INIT "chown -R " OTHER " r\nprintf '[safe]\\n\\tdirectory = *\\n' > home/.gitconfig\n",
    .dir = "r/", .want = "r/.git/hooks")
ROW(safe_directory_reset_by_empty,
    .setup = INIT "chown -R " OTHER
                  " r\nprintf '[safe]\\ndirectory = *\\ndirectory =\\n' > home/.gitconfig\n",
    .dir = "r", .want = NULL)
ROW(safe_directory_in_repository_config_ignored,
    .setup = INIT "printf '[safe]\\n\\tdirectory = *\\n' >> r/.git/config\nchown -R " OTHER " r\n",
    .dir = "r", .want = NULL)
ROW(safe_directory_through_include,
    .setup = INIT "chown -R " OTHER " r\nprintf '[include]\\npath = s.cfg\\n' > home/.gitconfig\n"
                  "printf '[safe]\\ndirectory = %s/r\\n' \"$C\" > home/s.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(only_the_dot_git_owned_by_someone_else, .setup = INIT "chown " OTHER " r/.git\n", .dir = "r",
    .want = NULL)
ROW(sudo_uid_owner, .setup = INIT "chown -R " OTHER " r\n", .dir = "r", .want = "r/.git/hooks",
    .sudo_uid = OTHER)

/* --- config sources --- */
ROW(hookspath_absolute, .setup = INIT "git -C r config core.hooksPath /opt/h/hooks\n", .dir = "r",
    .want = "/opt/h/hooks")
ROW(hookspath_relative_to_the_top, .setup = INIT "mkdir r/s\ngit -C r config core.hooksPath hk\n",
    .dir = "r/s", .want = "r/hk")
ROW(hookspath_relative_in_bare_is_from_where_asked,
    .setup = "git init -q --bare b.git\ngit -C b.git config core.hooksPath hk\n",
    .dir = "b.git/refs", .want = "b.git/refs/hk")
ROW(hookspath_tilde, .setup = INIT "git -C r config core.hooksPath '~/hk'\n", .dir = "r",
    .want = "home/hk")
ROW(hookspath_empty_fails, .setup = INIT "git -C r config core.hooksPath ''\n", .dir = "r",
    .want = NULL)
ROW(hookspath_without_value_fails,
    .setup = INIT "printf '[core]\\n\\thooksPath\\n' >> r/.git/config\n", .dir = "r", .want = NULL)
ROW(hookspath_through_symlink,
    .setup = INIT "mkdir real\nln -s ../real r/ln\ngit -C r config core.hooksPath ln/x/../hk\n",
    .dir = "r", .want = "real/hk")
ROW(global_hookspath, .setup = INIT "printf '[core]\\nhooksPath = /g\\n' > home/.gitconfig\n",
    .dir = "r", .want = "/g")
ROW(xdg_hookspath,
    .setup = INIT "mkdir -p xdg/git\nprintf '[core]\\nhooksPath = /x\\n' > xdg/git/config\n",
    .dir = "r", .want = "/x", .xdg = true)
ROW(xdg_default_under_home,
    .setup = INIT
    "mkdir -p home/.config/git\nprintf '[core]\\nhooksPath = /hx\\n' > home/.config/git/config\n",
    .dir = "r", .want = "/hx")
ROW(gitconfig_after_xdg,
    .setup = INIT "mkdir -p xdg/git\nprintf '[core]\\nhooksPath = /x\\n' > xdg/git/config\n"
                  "printf '[core]\\nhooksPath = /u\\n' > home/.gitconfig\n",
    .dir = "r", .want = "/u", .xdg = true)
ROW(repository_after_global,
    .setup = INIT
    "printf '[core]\\nhooksPath = /u\\n' > home/.gitconfig\ngit -C r config core.hooksPath /r\n",
    .dir = "r", .want = "/r")
ROW(worktree_config_when_enabled,
    .setup = INIT COMMIT
    "git -C r worktree add -q ../w\ngit -C r config extensions.worktreeConfig true\n"
    "git -C w config --worktree core.hooksPath /wt\n",
    .dir = "w", .want = "/wt")
ROW(worktree_config_ignored_when_not_enabled,
    .setup = INIT "printf '[core]\\nhooksPath = /wt\\n' > r/.git/config.worktree\n", .dir = "r",
    .want = "r/.git/hooks")

/* --- includes --- */
ROW(include_relative_to_the_file,
    .setup = INIT "printf '[include]\\npath = ../inc.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /inc\\n' > r/inc.cfg\n",
    .dir = "r", .want = "/inc")
ROW(include_tilde,
    .setup = INIT "printf '[include]\\npath = ~/i.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /ti\\n' > home/i.cfg\n",
    .dir = "r", .want = "/ti")
ROW(include_missing_is_skipped,
    .setup = INIT "printf '[include]\\npath = nothere\\n' >> r/.git/config\n", .dir = "r",
    .want = "r/.git/hooks")
ROW(include_then_override,
    .setup = INIT
    "printf '[include]\\npath = ../inc.cfg\\n[core]\\nhooksPath = /after\\n' >> r/.git/config\n"
    "printf '[core]\\nhooksPath = /inc\\n' > r/inc.cfg\n",
    .dir = "r", .want = "/after")
ROW(include_ten_deep,
    .setup = INIT
    "printf '[include]\\npath = ../i1\\n' >> r/.git/config\n"
    "for i in 1 2 3 4 5 6 7 8 9; do printf '[include]\\npath = i%d\\n' $((i+1)) > r/i$i; done\n"
    "printf '[core]\\nhooksPath = /deep\\n' > r/i10\n",
    .dir = "r", .want = "/deep")
ROW(include_eleven_deep_fails,
    .setup = INIT
    "printf '[include]\\npath = ../i1\\n' >> r/.git/config\n"
    "for i in 1 2 3 4 5 6 7 8 9 10; do printf '[include]\\npath = i%d\\n' $((i+1)) > r/i$i; done\n"
    "printf '[core]\\nhooksPath = /deep\\n' > r/i11\n",
    .dir = "r", .want = NULL)
ROW(include_loop_fails, .setup = INIT "printf '[include]\\npath = config\\n' >> r/.git/config\n",
    .dir = "r", .want = NULL)
ROW(includeif_gitdir,
    .setup = INIT
    "printf '[includeIf \"gitdir:%s/r/\"]\\npath = %s/i.cfg\\n' \"$C\" \"$C\" > home/.gitconfig\n"
    "printf '[core]\\nhooksPath = /gd\\n' > i.cfg\n",
    .dir = "r", .want = "/gd")
ROW(includeif_gitdir_other,
    .setup = INIT "printf '[includeIf \"gitdir:%s/other/\"]\\npath = %s/i.cfg\\n' \"$C\" \"$C\" > "
                  "home/.gitconfig\n"
                  "printf '[core]\\nhooksPath = /gd\\n' > i.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_gitdir_glob,
    .setup = INIT
    "printf '[includeIf \"gitdir:r/.git\"]\\npath = %s/i.cfg\\n' \"$C\" > home/.gitconfig\n"
    "printf '[core]\\nhooksPath = /gg\\n' > i.cfg\n",
    .dir = "r", .want = "/gg")
ROW(includeif_gitdir_star_stays_in_one_level,
    .setup = INIT
    "printf '[includeIf \"gitdir:/*/r/\"]\\npath = %s/i.cfg\\n' \"$C\" > home/.gitconfig\n"
    "printf '[core]\\nhooksPath = /gg\\n' > i.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_gitdir_case,
    .setup = INIT
    "printf '[includeIf \"gitdir:%s/R/\"]\\npath = %s/i.cfg\\n' \"$C\" \"$C\" > home/.gitconfig\n"
    "printf '[core]\\nhooksPath = /gc\\n' > i.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_gitdir_i,
    .setup = INIT
    "printf '[includeIf \"gitdir/i:%s/R/\"]\\npath = %s/i.cfg\\n' \"$C\" \"$C\" > home/.gitconfig\n"
    "printf '[core]\\nhooksPath = /gi\\n' > i.cfg\n",
    .dir = "r", .want = "/gi")
ROW(includeif_gitdir_dot_slash,
    .setup = "git init -q -b main home/r\nprintf '[includeIf \"gitdir:./r/\"]\\npath = i.cfg\\n' > "
             "home/.gitconfig\n"
             "printf '[core]\\nhooksPath = /ds\\n' > home/i.cfg\n",
    .dir = "home/r", .want = "/ds")
ROW(includeif_gitdir_tilde,
    .setup = "git init -q -b main home/r\nprintf '[includeIf \"gitdir:~/\"]\\npath = i.cfg\\n' > "
             "home/.gitconfig\n"
             "printf '[core]\\nhooksPath = /tl\\n' > home/i.cfg\n",
    .dir = "home/r", .want = "/tl")
ROW(includeif_gitdir_of_a_linked_worktree,
    .setup = INIT COMMIT "git -C r worktree add -q ../w\n"
                         "printf '[includeIf \"gitdir:%s/r/.git/worktrees/w\"]\\npath = "
                         "%s/i.cfg\\n' \"$C\" \"$C\" > home/.gitconfig\n"
                         "printf '[core]\\nhooksPath = /lw\\n' > i.cfg\n",
    .dir = "w", .want = "/lw")
ROW(includeif_gitdir_through_symlinked_parent,
    .setup = "mkdir real\nln -s real link\ngit init -q -b main real/r\n"
             "printf '[includeIf \"gitdir:%s/real/r/\"]\\npath = %s/i.cfg\\n' \"$C\" \"$C\" > "
             "home/.gitconfig\n"
             "printf '[core]\\nhooksPath = /sl\\n' > i.cfg\n",
    .dir = "link/r", .want = "/sl")
ROW(includeif_onbranch,
    .setup = INIT "printf '[includeIf \"onbranch:main\"]\\npath = ../b.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /br\\n' > r/b.cfg\n",
    .dir = "r", .want = "/br")
ROW(includeif_onbranch_slash,
    .setup = INIT "git -C r symbolic-ref HEAD refs/heads/feat/x\n"
                  "printf '[includeIf \"onbranch:feat/\"]\\npath = ../b.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /fb\\n' > r/b.cfg\n",
    .dir = "r", .want = "/fb")
ROW(includeif_onbranch_other,
    .setup = INIT "printf '[includeIf \"onbranch:dev\"]\\npath = ../b.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /br\\n' > r/b.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_onbranch_detached,
    .setup = INIT COMMIT
    "git -C r checkout -q --detach\n"
    "printf '[includeIf \"onbranch:main\"]\\npath = ../b.cfg\\n' >> r/.git/config\n"
    "printf '[core]\\nhooksPath = /br\\n' > r/b.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_hasconfig_remote_url,
    .setup = INIT "git -C r remote add o https://example.com/a/b.git\n"
                  "printf '[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\\npath = "
                  "h.cfg\\n' > home/.gitconfig\n"
                  "printf '[core]\\nhooksPath = /hc\\n' > home/h.cfg\n",
    .dir = "r", .want = "/hc")
ROW(includeif_hasconfig_no_match,
    .setup = INIT "git -C r remote add o https://example.org/a.git\n"
                  "printf '[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\\npath = "
                  "h.cfg\\n' > home/.gitconfig\n"
                  "printf '[core]\\nhooksPath = /hc\\n' > home/h.cfg\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(includeif_hasconfig_file_may_not_set_a_url,
    .setup = INIT "git -C r remote add o https://example.com/a.git\n"
                  "printf '[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\\npath = "
                  "h.cfg\\n' > home/.gitconfig\n"
                  "printf '[remote \"x\"]\\nurl = https://x\\n' > home/h.cfg\n",
    .dir = "r", .want = NULL)
ROW(includeif_unknown_condition,
    .setup = INIT "printf '[includeIf \"whatever:x\"]\\npath = ../b.cfg\\n' >> r/.git/config\n"
                  "printf '[core]\\nhooksPath = /uk\\n' > r/b.cfg\n",
    .dir = "r", .want = "r/.git/hooks")

/* --- the repository format --- */
ROW(format_version_two_fails, .setup = INIT "git -C r config core.repositoryformatversion 2\n",
    .dir = "r", .want = NULL)
ROW(format_unknown_extension_in_v1_fails,
    .setup = INIT
    "git -C r config core.repositoryformatversion 1\ngit -C r config extensions.frob x\n",
    .dir = "r", .want = NULL)
ROW(format_unknown_extension_in_v0_ignored, .setup = INIT "git -C r config extensions.frob x\n",
    .dir = "r", .want = "r/.git/hooks")
ROW(core_worktree_relative_hookspath_inside,
    .setup = INIT "mkdir -p r/w2/s\ngit -C r config core.worktree \"$C/r/w2\"\ngit -C r config "
                  "core.hooksPath hk\n",
    .dir = "r/w2/s", .want = "r/w2/hk")
ROW(core_worktree_relative_hookspath_outside,
    .setup = INIT "mkdir -p r/w2 r/o\ngit -C r config core.worktree \"$C/r/w2\"\ngit -C r config "
                  "core.hooksPath hk\n",
    .dir = "r/o", .want = "r/o/hk")
ROW(core_bare_relative_hookspath,
    .setup = INIT
    "mkdir -p r/s\ngit -C r config core.bare true\ngit -C r config core.hooksPath hk\n",
    .dir = "r/s", .want = "r/s/hk")

/* --- syntax --- */
ROW(syntax_quotes_escapes_continuation,
    .setup = INIT
    "printf '[Core]\\n\\tHooksPath = \"/a b\"\\\\\\n/c\\\\t ; comment\\n' >> r/.git/config\n",
    .dir = "r", .want = "/a b/c\t")
ROW(syntax_key_on_the_header_line,
    .setup = INIT "printf '[core] hooksPath = /hl # c\\n' >> r/.git/config\n", .dir = "r",
    .want = "/hl")
ROW(syntax_old_style_subsection_is_not_core,
    .setup = INIT "printf '[core.x]\\nhooksPath = /old\\n' >> r/.git/config\n", .dir = "r",
    .want = "r/.git/hooks")
ROW(syntax_error_fails, .setup = INIT "printf '[core\\nhooksPath = /e\\n' >> r/.git/config\n",
    .dir = "r", .want = NULL)
ROW(syntax_bad_escape_fails,
    .setup = INIT "printf '[core]\\nhooksPath = /a\\\\q\\n' >> r/.git/config\n", .dir = "r",
    .want = NULL)
/* a NUL ends the value as git's C string does; bytes above 0x7f are value
 * bytes like any other */
ROW(syntax_nul_and_invalid_utf8,
    .setup = INIT "printf '[core]\\nhooksPath = /n\\0x\\377\\n' >> r/.git/config\n", .dir = "r",
    .want = "/n")
ROW(syntax_crlf_and_bom,
    .setup = INIT "printf '\\357\\273\\277[core]\\r\\nhooksPath = /bom\\r\\n' > home/.gitconfig\n",
    .dir = "r", .want = "/bom")

/* --- hostile files: where git would block, or the work is beyond the
 * reader's caps, the answer is "unknown" (the report then says it could not
 * tell), never a hang and never "none". */

static enum git_hooks reader_after(const char *name, const char *setup, const char *dir)
{
        char c[PATH_MAX * 2], d[PATH_MAX * 3], home[PATH_MAX * 3], out[8];
        char *sh[] = {"sh", "-ec", (char *) setup, NULL};
        cleanup_free char *found = NULL;
        struct git_hooks_env env;

        snprintf(c, sizeof(c), "%s/%s", top, name);
        snprintf(home, sizeof(home), "%s/home", c);
        if (mkdir(c, 0755) < 0 || mkdir(home, 0755) < 0)
                return GIT_HOOKS_FOUND;
        setenv("C", c, 1);
        setenv("HOME", home, 1);
        unsetenv("XDG_CONFIG_HOME");
        unsetenv("SUDO_UID");
        if (run_in(c, sh, out, sizeof(out)) < 0)
                return GIT_HOOKS_FOUND;
        snprintf(d, sizeof(d), "%s/%s", c, dir);
        env = git_hooks_env_of_process();
        return git_hooks_path(d, &env, &found);
}

TEST(a_fifo_as_an_included_config_is_unknown)
{
        ASSERT_EQ(reader_after("fifo_include",
                               INIT
                               "printf '[include]\\npath = ../f\\n' >> r/.git/config\nmkfifo r/f\n",
                               "r"),
                  GIT_HOOKS_UNKNOWN);
}

TEST(a_fifo_as_head_is_unknown)
{
        ASSERT_EQ(reader_after("fifo_head", INIT "rm r/.git/HEAD\nmkfifo r/.git/HEAD\n", "r"),
                  GIT_HOOKS_UNKNOWN);
}

TEST(a_device_as_global_config_is_unknown)
{
        ASSERT_EQ(reader_after("device_config", INIT "ln -s /dev/zero home/.gitconfig\n", "r"),
                  GIT_HOOKS_UNKNOWN);
}

TEST(a_config_over_the_size_cap_is_unknown)
{
        ASSERT_EQ(reader_after("huge_config",
                               INIT "head -c 1100000 /dev/zero | tr '\\0' '#' >> r/.git/config\n",
                               "r"),
                  GIT_HOOKS_UNKNOWN);
}

TEST(an_include_fan_out_over_the_file_cap_is_unknown)
{
        /* each file includes the next twice: 2^10 reads, more than the cap */
        ASSERT_EQ(
            reader_after(
                "fan_out",
                INIT
                "printf '[include]\\npath = ../i1\\n' >> r/.git/config\n"
                "for i in 1 2 3 4 5 6 7 8 9; do printf '[include]\\npath = i%d\\npath = i%d\\n' "
                "$((i+1)) $((i+1)) > r/i$i; done\ntouch r/i10\n",
                "r"),
            GIT_HOOKS_UNKNOWN);
}

/* Before the rows: their common directory, and the caller's GIT_* that
 * neither side may be swayed by. */
__attribute__((constructor)) static void setup(void)
{
        char tmpl[] = "/tmp/bento-git-hooks-XXXXXX";

        /* git is what the rows are judged against: `make check` installs it
         * (contrib/install-deps.sh), so its absence is a failure, not a skip */
        if (access("/usr/bin/git", X_OK) != 0) {
                printf("Bail out! /usr/bin/git is not installed (contrib/install-deps.sh)\n");
                exit(1);
        }
        if (geteuid() != 0)
                SKIP_ALL("the ownership rows chown a repository: run as root");
        if (!mkdtemp(tmpl) || !realpath(tmpl, top)) {
                printf("Bail out! a temporary directory under /tmp: %s\n", strerror(errno));
                exit(1);
        }
        setenv("GIT_DIR", "/nonexistent", 1);
        setenv("GIT_CONFIG_PARAMETERS", "'core.hookspath'='/from-the-environment'", 1);
        setenv("GIT_CONFIG_GLOBAL", "/nonexistent", 1);
        setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
}

__attribute__((destructor)) static void cleanup(void)
{
        if (top[0]) {
                char *rm[] = {"rm", "-rf", top, NULL};
                char ignored[8];

                (void) run_in("/", rm, ignored, sizeof(ignored));
        }
}

TAP_MAIN()
