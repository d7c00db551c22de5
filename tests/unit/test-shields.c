/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the credential shields (translate/shield-*.c) against fake
 * homes in a private temporary directory: a fake passwd file and a fake
 * environment stand in for the host, so nothing here reads the real home.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "shields/internal.h"
#include "shields/shields.h"
#include "tap.h"

#define UID 4242

/* ASSERT_OK that also shows the error message. */
#define ASSERT_OK_ERR(e)                                                                           \
        do {                                                                                       \
                if ((e) < 0)                                                                       \
                        TAP_FAIL("%s failed: %s", #e, err.msg);                                    \
        } while (0)

static struct bento_err err;
static char dir[] = "/tmp/bento-shields-XXXXXX";
static const char *fake_env[32]; /* "NAME=value" */

/* Paths under the test directory; each stays valid until teardown, so
 * tests can keep them in grant arrays. */
static char *paths[2048];
static size_t n_paths;

static const char *at(const char *name)
{
        char *p = NULL;

        if (n_paths == sizeof(paths) / sizeof(paths[0]) || asprintf(&p, "%s/%s", dir, name) < 0)
                abort();
        paths[n_paths++] = p;
        return p;
}

static const char *env_lookup(const char *name, void *userdata)
{
        size_t n = strlen(name);

        (void) userdata;
        for (size_t i = 0; fake_env[i]; i++)
                if (strncmp(fake_env[i], name, n) == 0 && fake_env[i][n] == '=')
                        return fake_env[i] + n + 1;
        return NULL;
}

static void set_env(const char *const *vars)
{
        size_t i = 0;

        for (; vars && vars[i]; i++)
                fake_env[i] = vars[i];
        fake_env[i] = NULL;
}

static void mkdirs(const char *path)
{
        char buf[512];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++) {
                if (*p == '/') {
                        *p = '\0';
                        mkdir(buf, 0755);
                        *p = '/';
                }
        }
        mkdir(buf, 0755);
}

static void touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

static void write_passwd(const char *home)
{
        FILE *f = fopen(at("passwd"), "we");

        if (!f)
                return;
        fprintf(f, "root:x:0:0:root:/root:/bin/sh\n# comment\nbroken line\n");
        if (home)
                fprintf(f, "u:x:%d:%d:U:%s:/bin/sh\n", UID, UID, home);
        fclose(f);
}

/* at() recycles its buffers, so the env keeps its own copies. */
static struct shield_env make_env(const char *home)
{
        static char home_buf[512], passwd_buf[512];

        snprintf(home_buf, sizeof(home_buf), "%s", home ? home : "");
        snprintf(passwd_buf, sizeof(passwd_buf), "%s", at("passwd"));
        return (struct shield_env){.home = home ? home_buf : NULL,
                                   .home_set = true,
                                   .uid = UID,
                                   .passwd_path = passwd_buf,
                                   .getenv = env_lookup};
}

static const struct shield_rule *rule_at(const struct shield_set *s, const char *path,
                                         enum shield_deny deny, bool is_dir)
{
        for (size_t i = 0; i < s->n_rules; i++)
                if (strcmp(s->rules[i].path, path) == 0 && s->rules[i].deny == deny &&
                    s->rules[i].dir == is_dir)
                        return &s->rules[i];
        return NULL;
}

static size_t count_origin(const struct shield_set *s, enum shield_origin o)
{
        size_t n = 0;

        for (size_t i = 0; i < s->n_rules; i++)
                n += s->rules[i].origin == o;
        return n;
}

static bool reported(const struct shield_set *s, const char *var)
{
        for (size_t i = 0; i < s->n_unshieldable; i++)
                if (strcmp(s->unshieldable[i].variable, var) == 0)
                        return true;
        return false;
}

static ssize_t rule_index(const struct shield_set *s, const char *path)
{
        for (size_t i = 0; i < s->n_rules; i++)
                if (strcmp(s->rules[i].path, path) == 0)
                        return (ssize_t) i;
        return -1;
}

/* The refusals for one read and one write (either may be NULL). */
static int check(const struct shield_set *s, const char *read, const char *write,
                 struct shield_refusal **ret, size_t *n)
{
        struct shield_grant r = {read, NULL}, w = {write, NULL};

        return shields_check_grants(
            s, &(struct shield_grants){&r, read ? 1 : 0, &w, write ? 1 : 0, NULL}, ret, n, &err);
}

/* The first refusal's sentence, "" when none ("" survives ASSERT_CONTAINS
 * of a needle only when the needle is "" too). */
static const char *first_refusal(const struct shield_set *s, const char *read, const char *write,
                                 int *check_no)
{
        static char msg[1024];
        struct shield_refusal *r = NULL;
        size_t n = 0;

        msg[0] = '\0';
        *check_no = 0;
        if (check(s, read, write, &r, &n) < 0)
                return "(error)";
        if (n > 0) {
                snprintf(msg, sizeof(msg), "%s", r[0].message);
                *check_no = (int) r[0].check;
        }
        shield_refusals_free(r, n);
        return msg;
}

static void build_home(void)
{
        mkdirs(at("home/.ssh"));
        touch(at("home/.ssh/id_rsa"));
        touch(at("home/.netrc"));
        touch(at("home/.bashrc"));
        mkdirs(at("home/.claude/projects"));
        touch(at("home/.claude/.credentials.json"));
        mkdirs(at("home/.local/bin"));
        mkdirs(at("home/.config/fish"));
        mkdirs(at("proj/.vscode"));
        mkdirs(at("fake"));
        touch(at("file"));
        if (symlink("loop", at("loop")) < 0)
                perror("symlink");
        write_passwd(at("home"));
}

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
        build_home();
}

TEST(table_counts)
{
        size_t n[2][2] = {{0}};

        ASSERT_EQ(shield_home_rules_n, 544);
        for (size_t i = 0; i < shield_home_rules_n; i++) {
                const struct shield_home_rule *h = &shield_home_rules[i];

                n[h->deny][h->dir]++;
                ASSERT_TRUE(h->rel[0] != '/' && h->rel[0] != '\0');
                /* the row holds the whole path, its NUL too */
                ASSERT_TRUE(strnlen(h->rel, sizeof(h->rel)) <= SHIELD_HOME_REL_MAX);
                ASSERT_TRUE((h->deny == SHIELD_DENY_ALL) == (h->holds != SHIELD_HOLDS_NONE));
        }
        ASSERT_EQ(n[SHIELD_DENY_ALL][1], 232); /* the original's 224 and 8 from `make audit` */
        ASSERT_EQ(n[SHIELD_DENY_ALL][0], 125); /* the 124 listed home rules and the journal key */
        ASSERT_EQ(n[SHIELD_DENY_WRITE][0], 68);
        ASSERT_EQ(n[SHIELD_DENY_WRITE][1], 119);
}

TEST(counts_per_anchor)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));

        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_EQ(s->n_anchors, 1);
        ASSERT_EQ(count_origin(s, SHIELD_ORIGIN_HOME), 544);
        s = shield_set_free(s);

        env = make_env(at("fake"));
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_EQ(s->n_anchors, 2);
        ASSERT_EQ(count_origin(s, SHIELD_ORIGIN_HOME), 2 * 544);
}

TEST(anchors)
{
        cleanup_shield_set struct shield_set *s = NULL;
        cleanup_strv char **a = NULL;
        struct shield_env env = make_env("/");

        set_env(NULL);
        /* HOME=/ cannot move the shields off the passwd home. */
        ASSERT_OK_ERR(shields_find_anchors(&env, &a, &err));
        ASSERT_STREQ(a[0], at("home"));
        ASSERT_TRUE(a[1] == NULL);
        strv_free(TAKE_PTR(a));

        /* A fake HOME is shielded, and so is the real one. */
        env = make_env(at("fake/"));
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_STREQ(s->anchors[0], at("fake"));
        ASSERT_STREQ(s->anchors[1], at("home"));
        ASSERT_TRUE(rule_at(s, at("fake/.ssh"), SHIELD_DENY_ALL, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("home/.ssh"), SHIELD_DENY_ALL, true) != NULL);

        /* Deduplicated after cleaning. */
        env = make_env(at("home//"));
        ASSERT_OK_ERR(shields_find_anchors(&env, &a, &err));
        ASSERT_TRUE(a[0] && !a[1]);
}

TEST(no_usable_home)
{
        cleanup_strv char **a = NULL;
        struct shield_env env = make_env("relative/home");

        write_passwd("/");
        set_env(NULL);
        ASSERT_EQ(shields_find_anchors(&env, &a, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "no usable home directory");
        ASSERT_CONTAINS(err.msg, "\"relative/home\"");
        ASSERT_CONTAINS(err.msg, "\"/\"");
        ASSERT_CONTAINS(err.msg, "4242");
        write_passwd(NULL);
        env = make_env(NULL);
        ASSERT_EQ(shields_find_anchors(&env, &a, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "unset");
        ASSERT_CONTAINS(err.msg, "no entry");
        write_passwd(at("home"));
}

/* A passwd file the caller names is read each time (it may change, as
 * here); the system one's answer is kept per uid, handed out as a copy
 * each time, and a uid it has no entry for is no entry, then the kept
 * uid's answer again. */
TEST(passwd_home_named_file_read_each_time_system_one_kept)
{
        cleanup_free char *first = NULL, *second = NULL, *sys = NULL, *again = NULL;
        cleanup_free char *none = NULL, *back = NULL;
        struct bento_err e = {0};

        write_passwd("/first/home");
        ASSERT_OK(shields_passwd_home(at("passwd"), UID, &first, &e));
        write_passwd("/second/home");
        ASSERT_OK(shields_passwd_home(at("passwd"), UID, &second, &e));
        write_passwd(at("home")); /* as the tests after this one want it */
        ASSERT_STREQ(first, "/first/home");
        ASSERT_STREQ(second, "/second/home");
        ASSERT_OK(shields_passwd_home(NULL, 0, &sys, &e));
        ASSERT_OK(shields_passwd_home(NULL, 0, &again, &e));
        ASSERT_TRUE(sys != NULL && again != NULL && sys != again);
        ASSERT_STREQ(sys, again);
        ASSERT_OK(shields_passwd_home(NULL, 4000000000u, &none, &e));
        ASSERT_TRUE(none == NULL);
        ASSERT_OK(shields_passwd_home(NULL, 0, &back, &e));
        ASSERT_STREQ(back, sys);
}

TEST(relocations)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        char buf[16][600];
        const char *vars[] = {
            buf[0], buf[1], buf[2],  buf[3],  buf[4],  buf[5],  buf[6], buf[7],
            buf[8], buf[9], buf[10], buf[11], buf[12], buf[13], NULL,
        };
        const struct shield_rule *r;

        snprintf(buf[0], 600, "GNUPGHOME=%s", at("r/gpg"));
        snprintf(buf[1], 600, "KUBECONFIG=%s:%s:%s", at("r/k1"), at("home/.kube/config"),
                 at("r/k2"));
        snprintf(buf[2], 600, "AWS_SHARED_CREDENTIALS_FILE=%s", at("r/aws"));
        snprintf(buf[3], 600, "DOCKER_CONFIG=%s", at("r/docker"));
        snprintf(buf[4], 600, "HISTFILE=%s", at("r/hist"));
        snprintf(buf[5], 600, "XDG_CONFIG_HOME=%s", at("r/cfg"));
        snprintf(buf[6], 600, "XDG_DATA_HOME=%s", at("r/data"));
        snprintf(buf[7], 600, "XDG_CACHE_HOME=%s", at("r/cache"));
        snprintf(buf[8], 600, "XDG_STATE_HOME=%s", at("r/state"));
        snprintf(buf[9], 600, "ZDOTDIR=%s", at("r/z"));
        snprintf(buf[10], 600, "GIT_CONFIG_GLOBAL=%s", at("r/gitconfig"));
        snprintf(buf[11], 600, "XDG_RUNTIME_DIR=%s", at("r/rt"));
        snprintf(buf[12], 600, "CARGO_HOME=%s", at("r/cargo"));
        snprintf(buf[13], 600, "PASSWORD_STORE_DIR=%s", at("home/.password-store"));
        set_env(vars);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        r = rule_at(s, at("r/gpg"), SHIELD_DENY_ALL, true);
        ASSERT_TRUE(r && r->holds == SHIELD_HOLDS_CREDENTIALS);
        ASSERT_STREQ(r->source, "GNUPGHOME");
        ASSERT_TRUE(rule_at(s, at("r/k1"), SHIELD_DENY_ALL, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/k2"), SHIELD_DENY_ALL, false) != NULL);
        ASSERT_STREQ(rule_at(s, at("r/aws"), SHIELD_DENY_ALL, false)->source,
                     "AWS_SHARED_CREDENTIALS_FILE");
        ASSERT_TRUE(rule_at(s, at("r/docker"), SHIELD_DENY_ALL, true) != NULL);
        r = rule_at(s, at("r/hist"), SHIELD_DENY_ALL, false);
        ASSERT_TRUE(r && r->holds == SHIELD_HOLDS_HISTORY);
        ASSERT_STREQ(rule_at(s, at("r/cfg/gh"), SHIELD_DENY_ALL, true)->source, "XDG_CONFIG_HOME");
        ASSERT_TRUE(rule_at(s, at("r/cfg/git/config"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/data/keyrings"), SHIELD_DENY_ALL, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/cache/git/credential"), SHIELD_DENY_ALL, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/state/nvim"), SHIELD_DENY_ALL, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/z/.zshrc"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/gitconfig"), SHIELD_DENY_WRITE, false) != NULL);
        r = rule_at(s, at("r/rt"), SHIELD_DENY_ALL, true);
        ASSERT_TRUE(r && r->holds == SHIELD_HOLDS_SERVICES);
        ASSERT_STREQ(r->source, "XDG_RUNTIME_DIR");
        ASSERT_TRUE(rule_at(s, at("r/cargo/credentials.toml"), SHIELD_DENY_ALL, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("r/cargo/bin"), SHIELD_DENY_WRITE, true) != NULL);
        /* In its store, or at its default: nothing new, nothing reported. */
        ASSERT_TRUE(rule_at(s, at("home/.kube/config"), SHIELD_DENY_ALL, false) == NULL);
        ASSERT_TRUE(rule_at(s, at("home/.password-store"), SHIELD_DENY_ALL, true)->source == NULL);
        ASSERT_EQ(s->n_unshieldable, 0);
}

TEST(unshieldable_relocations)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        char buf[6][600];
        const char *vars[] = {
            "GNUPGHOME=/",         buf[0], buf[1], buf[2], buf[3], "DOCKER_CONFIG=/dev/null",
            "KUBECONFIG=relative", NULL};

        snprintf(buf[0], 600, "HISTFILE=%s", dir);
        snprintf(buf[1], 600, "XDG_CONFIG_HOME=%s", at("home"));
        snprintf(buf[2], 600, "XDG_RUNTIME_DIR=%s", at("home"));
        snprintf(buf[3], 600, "GIT_CONFIG_GLOBAL=%s", at("home/.gitconfig"));
        set_env(vars);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_TRUE(reported(s, "GNUPGHOME"));
        ASSERT_TRUE(reported(s, "HISTFILE"));
        ASSERT_TRUE(reported(s, "XDG_CONFIG_HOME"));
        ASSERT_TRUE(reported(s, "XDG_RUNTIME_DIR"));
        ASSERT_TRUE(!reported(s, "DOCKER_CONFIG"));
        ASSERT_TRUE(!reported(s, "GIT_CONFIG_GLOBAL"));
        ASSERT_TRUE(!reported(s, "KUBECONFIG"));
        ASSERT_EQ(s->n_unshieldable, 4);
        ASSERT_TRUE(rule_at(s, "/", SHIELD_DENY_ALL, true) == NULL);
}

TEST(covers_boundaries)
{
        struct shield_rule d = {.path = (char *) "/a", .dir = true};
        struct shield_rule f = {.path = (char *) "/a", .dir = false};

        ASSERT_TRUE(shield_rule_covers(&d, "/a"));
        ASSERT_TRUE(shield_rule_covers(&d, "/a/b"));
        ASSERT_TRUE(shield_rule_covers(&d, "/a/b/../c//"));
        ASSERT_TRUE(shield_rule_covers(&d, "/a/"));
        ASSERT_TRUE(!shield_rule_covers(&d, "/ab"));
        ASSERT_TRUE(!shield_rule_covers(&d, "/"));
        ASSERT_TRUE(!shield_rule_covers(&d, "/a/../b"));
        ASSERT_TRUE(shield_rule_covers(&f, "/a"));
        ASSERT_TRUE(!shield_rule_covers(&f, "/a/b"));
}

TEST(strictest_wins)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        struct shield_rule rules[2] = {
            {.path = (char *) "/x", .deny = SHIELD_DENY_ALL, .dir = false},
            {.path = (char *) "/x", .deny = SHIELD_DENY_ALL, .dir = true},
        };
        struct shield_set manual = {.rules = rules, .n_rules = 2};
        const struct shield_rule *r;

        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        r = shields_covering(s, at("home/.claude/.credentials.json"));
        ASSERT_TRUE(r && r->deny == SHIELD_DENY_ALL && !r->dir);
        r = shields_covering(s, at("home/.claude/settings.json"));
        ASSERT_TRUE(r && r->deny == SHIELD_DENY_WRITE && r->dir);
        ASSERT_TRUE(shields_covering(s, at("home/notes.txt")) == NULL);
        ASSERT_TRUE(shields_covering(&manual, "/x")->dir);
}

TEST(symlinked_home)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("homelink"));
        const struct shield_rule *r;
        int c = 0;

        ASSERT_OK(symlink(at("home"), at("homelink")));
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_EQ(s->n_anchors, 2);
        ASSERT_STREQ(s->resolved_anchors[0], at("home"));
        /* Both anchors resolve to one home: one rule per store. */
        ASSERT_EQ(count_origin(s, SHIELD_ORIGIN_HOME), 544);
        r = shields_covering(s, at("home/.ssh/id_rsa"));
        ASSERT_TRUE(r && r->deny == SHIELD_DENY_ALL);
        ASSERT_STREQ(r->literal, at("homelink/.ssh"));
        ASSERT_CONTAINS(first_refusal(s, at("homelink/.ssh/id_rsa"), NULL, &c), "inside");
        ASSERT_EQ(c, SHIELD_CHECK_READ_INSIDE);
        /* The write grant names the link; the shields live at the target. */
        first_refusal(s, NULL, at("homelink"), &c);
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_CONTAINS);
        unlink(at("homelink"));
}

TEST(credential_link_expansion)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        const struct shield_rule *r;

        mkdirs(at("home/dotfiles/gpg-private"));
        touch(at("home/dotfiles/ssh-config"));
        mkdirs(at("home/.gnupg/deep/er"));
        ASSERT_OK(symlink(at("home/dotfiles/ssh-config"), at("home/.ssh/config")));
        ASSERT_OK(symlink("../../../dotfiles/gpg-private", at("home/.gnupg/deep/er/private")));
        ASSERT_OK(symlink("/usr/share", at("home/.ssh/outside")));
        ASSERT_OK(symlink(at("home"), at("home/.ssh/home")));
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        r = rule_at(s, at("home/dotfiles/ssh-config"), SHIELD_DENY_ALL, false);
        ASSERT_TRUE(r && r->origin == SHIELD_ORIGIN_LINK && r->holds == SHIELD_HOLDS_CREDENTIALS);
        r = rule_at(s, at("home/dotfiles/gpg-private"), SHIELD_DENY_ALL, true);
        ASSERT_TRUE(r && r->origin == SHIELD_ORIGIN_LINK);
        ASSERT_TRUE(rule_index(s, "/usr/share") < 0);
        ASSERT_TRUE(rule_at(s, at("home"), SHIELD_DENY_ALL, true) == NULL);
        unlink(at("home/.ssh/config"));
        unlink(at("home/.ssh/outside"));
        unlink(at("home/.ssh/home"));
}

TEST(workspace_repo_and_submodules)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        const char *writes[] = {at("repo/src")};
        const struct shield_rule *r;

        mkdirs(at("repo/src"));
        mkdirs(at("repo/.git/hooks"));
        touch(at("repo/.git/config"));
        mkdirs(at("repo/.git/worktrees/wt1"));
        mkdirs(at("repo/.git/modules/sub/hooks"));
        touch(at("repo/.git/modules/sub/config"));
        mkdirs(at("repo/.git/modules/sub/worktrees/w2"));
        mkdirs(at("repo/.git/modules/a/modules/b"));
        touch(at("repo/.git/modules/a/modules/b/config"));
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_OK_ERR(shields_add_workspace(s, writes, 1, &err));
        r = rule_at(s, at("repo/.git/hooks"), SHIELD_DENY_WRITE, true);
        ASSERT_TRUE(r && r->origin == SHIELD_ORIGIN_WORKSPACE);
        ASSERT_STREQ(r->grant, at("repo/src"));
        ASSERT_TRUE(rule_at(s, at("repo/.git/config"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.git/config.worktree"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.vscode"), SHIELD_DENY_WRITE, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.idea"), SHIELD_DENY_WRITE, true) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.cargo/config.toml"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.cargo/config"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.git/worktrees/wt1/config.worktree"), SHIELD_DENY_WRITE,
                            false) != NULL);
        ASSERT_TRUE(rule_at(s, at("repo/.git/modules/sub/config"), SHIELD_DENY_WRITE, false));
        ASSERT_TRUE(rule_at(s, at("repo/.git/modules/sub/hooks"), SHIELD_DENY_WRITE, true));
        ASSERT_TRUE(rule_at(s, at("repo/.git/modules/sub/worktrees/w2/config.worktree"),
                            SHIELD_DENY_WRITE, false));
        ASSERT_TRUE(
            rule_at(s, at("repo/.git/modules/a/modules/b/config"), SHIELD_DENY_WRITE, false));
        ASSERT_TRUE(rule_at(s, at("repo/.git/modules/a/config"), SHIELD_DENY_WRITE, false) == NULL);
}

TEST(workspace_gitfile_and_symlink)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        const char *writes[] = {at("wt"), at("evil")};
        struct shield_refusal *ref = NULL;
        struct shield_grant w = {at("evil"), "./evil"};
        size_t n = 0;

        mkdirs(at("wt"));
        touch(at("wt/.git"));
        mkdirs(at("evil/.git/modules"));
        mkdirs(at("elsewhere"));
        ASSERT_OK(symlink(at("elsewhere"), at("evil/.git/modules/m")));
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_OK_ERR(shields_add_workspace(s, writes, 2, &err));
        ASSERT_TRUE(rule_at(s, at("wt/.git"), SHIELD_DENY_WRITE, false) != NULL);
        ASSERT_TRUE(rule_index(s, at("wt/.git/hooks")) < 0);
        ASSERT_TRUE(rule_at(s, at("wt/.vscode"), SHIELD_DENY_WRITE, true) != NULL);
        /* The symlinked entry is shielded where it points, and refused. */
        ASSERT_TRUE(rule_at(s, at("elsewhere"), SHIELD_DENY_WRITE, true) != NULL);
        ASSERT_OK_ERR(
            shields_check_grants(s, &(struct shield_grants){NULL, 0, &w, 1, NULL}, &ref, &n, &err));
        ASSERT_EQ(n, 1);
        ASSERT_EQ(ref[0].check, SHIELD_CHECK_WORKSPACE_REDIRECT);
        ASSERT_STREQ(ref[0].grant, "./evil");
        ASSERT_CONTAINS(ref[0].message, "write grant \"./evil\" shields \"");
        ASSERT_CONTAINS(ref[0].message, "but a symlinked directory component redirects it to");
        shield_refusals_free(ref, n);
}

TEST(grant_checks)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        const char *writes[] = {at("repo")};
        int c = 0;

        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_OK_ERR(shields_add_workspace(s, writes, 1, &err));
        ASSERT_CONTAINS(first_refusal(s, NULL, "/", &c),
                        "write grant \"/\" would make the entire host root writable; grant a "
                        "specific directory");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_ROOT);
        ASSERT_CONTAINS(first_refusal(s, at("home/.ssh/id_rsa"), NULL, &c),
                        "is inside the always-shielded path");
        ASSERT_EQ(c, SHIELD_CHECK_READ_INSIDE);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home/.aws/x"), &c),
                        "there is no opt-in for a write");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_INSIDE_DENY_ALL);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home/.ssh"), &c), "always-shielded");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_INSIDE_DENY_ALL);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home/.local/bin"), &c),
                        "is at or inside the write-shielded path");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_DENY_WRITE);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home/.config/fish/x"), &c),
                        "the shield is read-only and there is no opt-in");
        first_refusal(s, NULL, at("repo/.git/hooks"), &c);
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_DENY_WRITE);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home"), &c),
                        "contains the always-shielded path");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_CONTAINS);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("home/.config"), &c),
                        "grant a narrower directory instead");
        ASSERT_STREQ(first_refusal(s, NULL, at("proj"), &c), "");
        ASSERT_CONTAINS(first_refusal(s, "/proc/self", NULL, &c),
                        "a host process's directory in /proc");
        ASSERT_EQ(c, SHIELD_CHECK_PROC_PID);
        ASSERT_CONTAINS(first_refusal(s, "/proc", NULL, &c),
                        "a pseudo-filesystem the sandbox mounts fresh");
        ASSERT_EQ(c, SHIELD_CHECK_MANAGED_MOUNT);
        first_refusal(s, "/tmp/", NULL, &c);
        ASSERT_EQ(c, SHIELD_CHECK_MANAGED_MOUNT);
        ASSERT_STREQ(first_refusal(s, "/proc/cpuinfo", "/tmp/bento-no-such-dir", &c), "");
        ASSERT_CONTAINS(first_refusal(s, at("loop"), NULL, &c), "loops through itself on the host");
        ASSERT_EQ(c, SHIELD_CHECK_LOOP);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("file"), &c),
                        "is a file; grant its parent directory instead");
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_NOT_DIR);
        ASSERT_CONTAINS(first_refusal(s, NULL, at("file/sub"), &c),
                        "cannot be checked on this host");
}

TEST(case_folded_alias)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        int c = 0;

        /* A hard link stands in for a case-insensitive filesystem. */
        ASSERT_OK(link(at("home/.netrc"), at("home/.NETRC")));
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_CONTAINS(first_refusal(s, at("home"), NULL, &c), "on a case-insensitive filesystem");
        ASSERT_EQ(c, SHIELD_CHECK_CASE_FOLDED);
        unlink(at("home/.NETRC"));
        ASSERT_STREQ(first_refusal(s, at("home"), NULL, &c), "");
}

TEST(read_opt_in)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        cleanup_free bool *opted = NULL;
        cleanup_free struct shield_mount *m = NULL;
        const char *reads[] = {at("home/.ssh")};
        const char *exposed[] = {at("home/.ssh")};
        ssize_t ssh;
        size_t n = 0;
        int c = 0;

        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ssh = rule_index(s, at("home/.ssh"));
        ASSERT_TRUE(ssh >= 0);
        ASSERT_STREQ(first_refusal(s, at("home/.ssh"), NULL, &c), "");
        ASSERT_CONTAINS(first_refusal(s, at("home/.ssh/id_rsa"), NULL, &c), "always-shielded");
        ASSERT_STREQ(first_refusal(s, at("home"), NULL, &c), "");
        /* No write opt-in, and a trailing slash is not the literal spelling. */
        first_refusal(s, NULL, at("home/.ssh"), &c);
        ASSERT_EQ(c, SHIELD_CHECK_WRITE_INSIDE_DENY_ALL);
        ASSERT_CONTAINS(first_refusal(s, at("home/.ssh/"), NULL, &c), "always-shielded");

        ASSERT_OK_ERR(shields_opt_ins(s, reads, 1, &opted, &err));
        ASSERT_TRUE(opted[ssh]);
        ASSERT_OK_ERR(
            shields_needed(s, &(struct shield_exposure){exposed, 1, NULL, 0, opted}, &m, &n, &err));
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(m[i].rule != &s->rules[ssh]);
        free(TAKE_PTR(m));
        /* read: ~ leaves ~/.ssh shielded. */
        exposed[0] = at("home");
        ASSERT_OK_ERR(
            shields_needed(s, &(struct shield_exposure){exposed, 1, NULL, 0, NULL}, &m, &n, &err));
        ASSERT_TRUE(n > 0);
        for (size_t i = 0; i < n; i++)
                if (m[i].rule == &s->rules[ssh])
                        ASSERT_EQ(m[i].kind, SHIELD_MOUNT_HIDDEN_DIR);
}

static const struct shield_mount *mount_of(const struct shield_mount *m, size_t n, const char *p)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(m[i].path, p) == 0)
                        return &m[i];
        return NULL;
}

static size_t mounts_at(const struct shield_mount *m, size_t n, const char *p)
{
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                k += strcmp(m[i].path, p) == 0;
        return k;
}

TEST(needed_decisions)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        cleanup_free struct shield_mount *m = NULL;
        char hist[600];
        const char *vars[] = {hist, NULL};
        const char *writes[] = {at("proj")};
        const char *exposed[] = {at("home"), at("proj")};
        const struct shield_mount *x;
        size_t n = 0;
        bool seen_all = false;

        snprintf(hist, sizeof(hist), "HISTFILE=%s", at("proj/hist"));
        set_env(vars);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_OK_ERR(shields_add_workspace(s, writes, 1, &err));
        ASSERT_OK_ERR(shields_needed(s, &(struct shield_exposure){exposed, 2, writes, 1, NULL}, &m,
                                     &n, &err));
        ASSERT_EQ(mount_of(m, n, at("home/.ssh"))->kind, SHIELD_MOUNT_HIDDEN_DIR);
        ASSERT_EQ(mount_of(m, n, at("home/.netrc"))->kind, SHIELD_MOUNT_HIDDEN_FILE);
        ASSERT_TRUE(mount_of(m, n, at("home/.aws")) == NULL);    /* missing, not writable */
        ASSERT_TRUE(mount_of(m, n, at("home/.bashrc")) == NULL); /* read-only grant suffices */
        ASSERT_EQ(mount_of(m, n, at("proj/.vscode"))->kind, SHIELD_MOUNT_READ_ONLY);
        ASSERT_EQ(mount_of(m, n, at("proj/.idea"))->kind, SHIELD_MOUNT_DISCARDED);
        /* .cargo is missing too: one scratch mount at .cargo for both of its
         * rules, so no plain directory is made above a mount point. */
        ASSERT_TRUE(mount_of(m, n, at("proj/.cargo/config.toml")) == NULL);
        x = mount_of(m, n, at("proj/.cargo"));
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_DISCARDED && x->lifted);
        ASSERT_EQ(mounts_at(m, n, at("proj/.cargo")), 1);
        x = mount_of(m, n, at("proj/hist"));
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_HIDDEN_FILE); /* creatable through the grant */
        ASSERT_STREQ(shield_mount_kind_to_string(SHIELD_MOUNT_DISCARDED), "discarded");
        for (size_t i = 0; i < n; i++) {
                if (m[i].rule->deny == SHIELD_DENY_ALL)
                        seen_all = true;
                else
                        ASSERT_TRUE(!seen_all); /* DenyWrite mounts come first */
        }
        free(TAKE_PTR(m));

        /* A hidden store inside a needed read-only tree is force-emitted. */
        writes[0] = exposed[0] = at("home/.claude/projects");
        ASSERT_OK_ERR(shields_needed(s, &(struct shield_exposure){exposed, 1, writes, 1, NULL}, &m,
                                     &n, &err));
        ASSERT_EQ(mount_of(m, n, at("home/.claude"))->kind, SHIELD_MOUNT_READ_ONLY);
        ASSERT_EQ(mount_of(m, n, at("home/.claude/.credentials.json"))->kind,
                  SHIELD_MOUNT_HIDDEN_FILE);
        ASSERT_TRUE(mount_of(m, n, at("home/.ssh")) == NULL);
}

/* The needed mounts of the home's own rules for exposures seen from inside
 * the home (decided once per anchor for the rules inside it): a key inside
 * the home reaches the rules it holds or lies beneath and no other, a key
 * holding the home reaches them all, and so do many keys inside it (then
 * asked of the index itself). */
static bool needs(const struct shield_set *s, const char *const *exposed, size_t n_exposed,
                  const char *const *writes, size_t n_writes, const char *path)
{
        cleanup_free struct shield_mount *m = NULL;
        size_t n = 0;

        if (shields_needed(s, &(struct shield_exposure){exposed, n_exposed, writes, n_writes, NULL},
                           &m, &n, &err) < 0)
                return false;
        return mount_of(m, n, path) != NULL;
}

TEST(needed_seen_from_inside_the_home)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        char many[10][600];
        const char *exposed[10];
        const char *vars[] = {NULL};

        set_env(vars);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        exposed[0] = at("home/work");
        ASSERT_TRUE(!needs(s, exposed, 1, NULL, 0, at("home/.ssh")));
        ASSERT_TRUE(!needs(s, exposed, 1, NULL, 0, at("home/.netrc")));
        exposed[0] = at("home/.ssh/keys"); /* beneath a store */
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.ssh")));
        ASSERT_TRUE(!needs(s, exposed, 1, NULL, 0, at("home/.netrc")));
        exposed[0] = at("home/.claude"); /* holds a store's file */
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.claude/.credentials.json")));
        ASSERT_TRUE(!needs(s, exposed, 1, NULL, 0, at("home/.ssh")));
        exposed[0] = at("home/.netrc"); /* the rule itself */
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.netrc")));
        exposed[0] = at("home");
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.ssh")));
        exposed[0] = at(""); /* holds the home */
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.ssh")));
        ASSERT_TRUE(needs(s, exposed, 1, NULL, 0, at("home/.netrc")));
        /* a missing store is needed where a write grant inside it could
         * create it, and not for a write grant beside it */
        exposed[0] = at("home/.aws/x");
        ASSERT_TRUE(needs(s, exposed, 1, exposed, 1, at("home/.aws")));
        exposed[0] = at("home/work");
        ASSERT_TRUE(!needs(s, exposed, 1, exposed, 1, at("home/.aws")));
        /* ten keys inside the home: the index answers, the same way */
        for (int i = 0; i < 9; i++) {
                snprintf(many[i], sizeof(many[i]), "%s/w%d", at("home"), i);
                exposed[i] = many[i];
        }
        exposed[9] = at("home/.ssh/keys");
        ASSERT_TRUE(needs(s, exposed, 10, NULL, 0, at("home/.ssh")));
        ASSERT_TRUE(!needs(s, exposed, 10, NULL, 0, at("home/.netrc")));
}

/* The home's busy directories (the anchor and those holding six rules or
 * more, .config among them) are listed before any rule is looked up, so a
 * name made there afterwards is missing for the rest of the scope, as a
 * listing says; a busy directory that is a symlink is never listed, and
 * the names through it stay the host's. */
TEST(busy_directories_are_listed_first)
{
        mkdirs(at("busy/.config"));
        mkdirs(at("busy-elsewhere/cache"));
        ASSERT_OK(symlink(at("busy-elsewhere/cache"), at("busy/.cache")));
        path_cache_begin();
        shields_list_busy_dirs(at("busy"));
        touch(at("busy/.config/late"));
        touch(at("busy/late"));
        touch(at("busy-elsewhere/cache/late"));
        ASSERT_TRUE(path_type(at("busy/.config/late"), &(mode_t){0}) < 0 && errno == ENOENT);
        ASSERT_TRUE(path_type(at("busy/late"), &(mode_t){0}) < 0 && errno == ENOENT);
        ASSERT_OK(path_type(at("busy/.cache/late"), &(mode_t){0}));
        path_cache_end();
        ASSERT_OK(path_type(at("busy/.config/late"), &(mode_t){0}));
}

/* Many write grants: a checkout two of them share is shielded once, for
 * the first; every other grant gets its own rules, found by covering
 * through their parents, and its own mount where two rules lift to one
 * directory (the stricter kind kept); a path beside the shields stays
 * uncovered. */
TEST(workspace_many_grants)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct shield_env env = make_env(at("home"));
        cleanup_free struct shield_mount *m = NULL;
        char hist[600];
        const char *vars[] = {hist, NULL};
        const char *writes[] = {at("many/d0"), at("many/repo/a"), at("many/d1"), at("many/repo/b"),
                                at("many/d2")};
        const struct shield_rule *r;
        size_t n = 0;

        for (size_t i = 0; i < 5; i++)
                mkdirs(writes[i]);
        mkdirs(at("many/repo/.git/hooks"));
        snprintf(hist, sizeof(hist), "HISTFILE=%s", at("many/d1/.cargo/hist"));
        set_env(vars);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_OK_ERR(shields_add_workspace(s, writes, 5, &err));
        r = rule_at(s, at("many/repo/.git/hooks"), SHIELD_DENY_WRITE, true);
        ASSERT_TRUE(r && strcmp(r->grant, at("many/repo/a")) == 0);
        ASSERT_TRUE(rule_at(s, at("many/repo/a/.vscode"), SHIELD_DENY_WRITE, true) == NULL);
        r = shields_covering(s, at("many/d2/.git/hooks/pre-commit"));
        ASSERT_TRUE(r && r->deny == SHIELD_DENY_WRITE && r->dir);
        ASSERT_STREQ(r->grant, at("many/d2"));
        r = shields_covering(s, at("many/d0/.cargo/config"));
        ASSERT_TRUE(r && !r->dir && strcmp(r->grant, at("many/d0")) == 0);
        r = shields_covering(s, at("many/d1/.cargo/hist"));
        ASSERT_TRUE(r && r->deny == SHIELD_DENY_ALL && !r->dir);
        ASSERT_TRUE(shields_covering(s, at("many/d2/src")) == NULL);
        ASSERT_TRUE(shields_covering(s, at("many/d2/.cargo")) == NULL); /* file rules only */
        ASSERT_OK_ERR(
            shields_needed(s, &(struct shield_exposure){writes, 5, writes, 5, NULL}, &m, &n, &err));
        for (size_t i = 0; i < 3; i++) {
                const char *cargo = at(i == 0   ? "many/d0/.cargo"
                                       : i == 1 ? "many/d1/.cargo"
                                                : "many/d2/.cargo");
                const struct shield_mount *x = mount_of(m, n, cargo);

                ASSERT_EQ(mounts_at(m, n, cargo), 1);
                ASSERT_TRUE(x->lifted);
                ASSERT_EQ(x->kind, i == 1 ? SHIELD_MOUNT_HIDDEN_DIR : SHIELD_MOUNT_DISCARDED);
        }
        ASSERT_TRUE(mount_of(m, n, at("many/d0/.cargo/config")) == NULL);
}

/* Inside a scope the memo replays what the host said, until a reset; 0 or
 * the line that failed. */
static int memo_checks(const char *resolved)
{
        cleanup_free char *r = NULL;
        struct stat st;

        if (path_lstat(at("memo/new"), &st) == 0 || errno != ENOENT ||
            path_stat(at("memo/new/deeper"), &st) == 0 || errno != ENOENT ||
            mkdir(at("memo/new"), 0755) < 0)
                return __LINE__;
        if (path_lstat(at("memo/new"), &st) == 0 || errno != ENOENT) /* replayed */
                return __LINE__;
        if (path_stat(at("memo/link"), &st) < 0 || !S_ISDIR(st.st_mode) ||
            path_resolve(at("memo/link/x"), &r) < 0 || strcmp(r, resolved) != 0)
                return __LINE__;
        path_cache_reset();
        return path_lstat(at("memo/new"), &st) == 0 && S_ISDIR(st.st_mode) ? 0 : __LINE__;
}

TEST(path_memo)
{
        cleanup_free char *r = NULL;
        int bad;

        mkdirs(at("memo/real"));
        ASSERT_OK(symlink(at("memo/real"), at("memo/link")));
        path_cache_begin();
        bad = memo_checks(at("memo/real/x"));
        path_cache_end();
        ASSERT_EQ(bad, 0);
        ASSERT_OK(path_resolve(at("memo/link/x"), &r));
        ASSERT_STREQ(r, at("memo/real/x"));
}

static void count_runs(size_t lo, size_t hi, bool whole, void *userdata)
{
        size_t *n = userdata;

        n[0] += hi - lo;
        n[1] += whole ? hi - lo : 0;
}

TEST(path_index)
{
        const char *keys[] = {"/a/b", "/a", "/a/b/c", "/ab", "/a", "/", "/a/bc"};
        struct path_index ix;
        size_t lo, hi, n[2] = {0, 0};

        ASSERT_OK(path_index_init(&ix, keys, 7));
        path_index_equal(&ix, "/a/x", 2, &lo, &hi); /* "/a": ids in order */
        ASSERT_TRUE(hi - lo == 2 && ix.e[lo].id == 1 && ix.e[lo + 1].id == 4);
        path_index_beneath(&ix, "/a", &lo, &hi); /* not "/ab", not "/a" */
        ASSERT_EQ(hi - lo, 3);
        path_index_beneath(&ix, "/", &lo, &hi);
        ASSERT_EQ(hi - lo, 6);
        path_index_within(&ix, "/a/b/c", count_runs, n); /* "/", "/a" x2, "/a/b", itself */
        ASSERT_TRUE(n[0] == 5 && n[1] == 1);
        ASSERT_EQ(path_index_first(&ix, "/a"), 1); /* the first of ids 1 and 4 */
        ASSERT_EQ(path_index_first(&ix, "/a/b/c"), 2);
        ASSERT_TRUE(path_index_first(&ix, "/a/b/c/d") == SIZE_MAX);
        path_index_done(&ix);
}

/* Keys of 63, 64 and more bytes (the index notes the lengths of its keys
 * below 64 one by one, longer ones together): every one must still be found
 * as a parent, as itself and by equality, and a prefix of a length no key
 * has must find nothing. */
TEST(path_index_keys_of_every_length)
{
        char k63[64], k64[65], k100[101], child[160];
        const char *keys[3] = {k63, k64, k100};
        struct path_index ix, none;
        size_t lo, hi, n[2] = {0, 0};

        memset(k63, 'a', sizeof(k63));
        memset(k64, 'b', sizeof(k64));
        memset(k100, 'c', sizeof(k100));
        k63[0] = k64[0] = k100[0] = '/';
        k63[63] = k64[64] = k100[100] = '\0';
        ASSERT_OK(path_index_init(&ix, keys, 3));
        for (size_t i = 0; i < 3; i++) {
                size_t len = strlen(keys[i]);

                snprintf(child, sizeof(child), "%s/x", keys[i]);
                n[0] = n[1] = 0;
                path_index_within(&ix, child, count_runs, n);
                ASSERT_TRUE(n[0] == 1 && n[1] == 0);
                n[0] = n[1] = 0;
                path_index_within(&ix, keys[i], count_runs, n);
                ASSERT_TRUE(n[0] == 1 && n[1] == 1);
                path_index_equal(&ix, child, len, &lo, &hi);
                ASSERT_TRUE(hi - lo == 1 && ix.e[lo].id == i);
                ASSERT_TRUE(path_index_holds(&ix, child));
                /* one byte short of the key: no key that long, no match */
                path_index_equal(&ix, keys[i], len - 1, &lo, &hi);
                ASSERT_EQ(hi - lo, 0);
        }
        ASSERT_TRUE(!path_index_holds(&ix, "/a"));
        ASSERT_TRUE(!path_index_holds(&ix, "/aaaa/x"));
        path_index_done(&ix);
        ASSERT_OK(path_index_init(&none, keys, 0));
        ASSERT_TRUE(!path_index_holds(&none, k100));
        path_index_done(&none);
}

/* The index's order is (key, id) whatever order the keys come in: many
 * equal keys, runs already sorted, reversed, shuffled, and every size
 * from none to a few hundred (the merges of every width and remainder). */
TEST(path_index_orders_by_key_then_id)
{
        static const char *const words[] = {"/", "/a", "/a/b", "/a/b/c", "/ab", "/b", "/b/a"};
        static const char *keys[300];
        unsigned seed = 7;

        for (size_t n = 0; n <= 300; n += n < 40 ? 1 : 37) {
                for (int shape = 0; shape < 3; shape++) {
                        struct path_index ix;

                        for (size_t i = 0; i < n; i++) {
                                size_t w = shape == 0   ? i * 7 / (n ? n : 1)
                                           : shape == 1 ? 6 - i * 7 / (n ? n : 1)
                                                        : (size_t) rand_r(&seed) % 7;

                                keys[i] = words[w];
                        }
                        ASSERT_OK(path_index_init(&ix, keys, n));
                        ASSERT_EQ(ix.n, n);
                        for (size_t i = 1; i < n; i++) {
                                int c = strcmp(ix.e[i - 1].key, ix.e[i].key);

                                if (c > 0 || (c == 0 && ix.e[i - 1].id >= ix.e[i].id))
                                        TAP_FAIL("n %zu shape %d: %s#%zu before %s#%zu", n, shape,
                                                 ix.e[i - 1].key, ix.e[i - 1].id, ix.e[i].key,
                                                 ix.e[i].id);
                        }
                        for (size_t i = 0; i < n; i++)
                                if (keys[ix.e[i].id] != ix.e[i].key)
                                        TAP_FAIL("n %zu: entry %zu lost its id", n, i);
                        path_index_done(&ix);
                }
        }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
        (void) st, (void) flag, (void) f;
        return remove(path);
}

/* The approval journal key (journal-key.h) is hidden wherever a grant
 * reaches it, although its directory is only a DenyWrite one: under a
 * read-only "~", under a write grant of "~" (the directory rebound
 * read-only, the key hidden inside it) and under a grant of the directory
 * itself. */
TEST(the_journal_key_is_hidden_inside_its_read_only_directory)
{
        cleanup_shield_set struct shield_set *s = NULL;
        cleanup_free struct shield_mount *m = NULL;
        struct shield_env env = make_env(at("home"));
        const char *key = at("home/.local/state/bento/journal.key");
        const char *exposed[] = {at("home")};
        const char *writes[] = {at("home")};
        const struct shield_mount *x;
        size_t n = 0;

        mkdirs(at("home/.local/state/bento"));
        touch(key);
        set_env(NULL);
        ASSERT_OK_ERR(shields_build(&env, &s, &err));
        ASSERT_TRUE(rule_at(s, key, SHIELD_DENY_ALL, false) != NULL);
        ASSERT_OK_ERR(
            shields_needed(s, &(struct shield_exposure){exposed, 1, NULL, 0, NULL}, &m, &n, &err));
        x = mount_of(m, n, key);
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_HIDDEN_FILE);
        free(TAKE_PTR(m));

        ASSERT_OK_ERR(shields_needed(s, &(struct shield_exposure){exposed, 1, writes, 1, NULL}, &m,
                                     &n, &err));
        x = mount_of(m, n, at("home/.local/state/bento"));
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_READ_ONLY);
        x = mount_of(m, n, key);
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_HIDDEN_FILE);
        free(TAKE_PTR(m));

        exposed[0] = at("home/.local/state/bento");
        ASSERT_OK_ERR(
            shields_needed(s, &(struct shield_exposure){exposed, 1, NULL, 0, NULL}, &m, &n, &err));
        x = mount_of(m, n, key);
        ASSERT_TRUE(x && x->kind == SHIELD_MOUNT_HIDDEN_FILE);
        ASSERT_OK(unlink(key));
}

TEST(teardown)
{
        ASSERT_OK(nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS));
        for (size_t i = 0; i < n_paths; i++)
                free(paths[i]);
}

TAP_MAIN()
