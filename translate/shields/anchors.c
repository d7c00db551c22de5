/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Home anchors (docs/manifest.md, "CREDENTIAL SHIELDS") and the top of the shield build.  The
 * passwd home is read by parsing the passwd file ourselves: getpwuid(3) goes through NSS modules
 * that LD_PRELOAD or nsswitch.conf can steer (docs/cli/bento-version.md), and the whole point of
 * the second anchor is that the caller's environment cannot move the shields off the real stores.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "passwd.h"
#include "internal.h"

#define PASSWD_DEFAULT "/etc/passwd"

static int read_home(const char *path, uid_t uid, char **ret, struct bento_err *err)
{
        cleanup_fclose FILE *f = fopen(path, "re");
        cleanup_free char *line = NULL;
        size_t cap = 0;

        if (!f) {
                if (errno == ENOENT) {
                        *ret = NULL;
                        return 0;
                }
                return bento_err_set(err, errno, "open %s", path);
        }
        while (getline(&line, &cap, f) >= 0) {
                char *home = line[0] == '#' ? NULL : bento_passwd_line_home(line, uid);

                if (home) {
                        *ret = strdup(home);
                        return *ret ? 0 : bento_err_set(err, ENOMEM, "read %s", path);
                }
        }
        if (ferror(f))
                return bento_err_set(err, EIO, "read %s", path);
        *ret = NULL;
        return 0;
}

/* The system file's answer for one uid, kept: a run asks it twice (the
 * journal key's home, then the shields' anchor) and bento never writes
 * the file.  A file the caller names (the tests' fake one) is read each
 * time, and a failure is never kept. */
static struct {
        pthread_mutex_t lock;
        bool have;
        uid_t uid;
        char *home;
} kept = {.lock = PTHREAD_MUTEX_INITIALIZER};

int shields_passwd_home(const char *passwd_path, uid_t uid, char **ret, struct bento_err *err)
{
        int r = 0;

        if (passwd_path)
                return read_home(passwd_path, uid, ret, err);
        pthread_mutex_lock(&kept.lock);
        if (!kept.have || kept.uid != uid) {
                free(kept.home);
                kept.home = NULL;
                r = read_home(PASSWD_DEFAULT, uid, &kept.home, err);
                kept.have = r == 0;
                kept.uid = uid;
        }
        *ret = NULL;
        if (r == 0 && kept.home && !(*ret = strdup(kept.home)))
                r = bento_err_set(err, ENOMEM, "read %s", PASSWD_DEFAULT);
        pthread_mutex_unlock(&kept.lock);
        return r;
}

/* Append a cleaned candidate when it is absolute, not "/" and new. */
static int add_anchor(char **v, size_t *n, const char *candidate)
{
        cleanup_free char *c = NULL;

        if (!candidate || candidate[0] != '/')
                return 0;
        c = path_clean(candidate);
        if (!c)
                return -ENOMEM;
        if (strcmp(c, "/") == 0)
                return 0;
        for (size_t i = 0; i < *n; i++)
                if (strcmp(v[i], c) == 0)
                        return 0;
        v[(*n)++] = TAKE_PTR(c);
        return 0;
}

int shields_find_anchors(const struct shield_env *env, char ***ret, struct bento_err *err)
{
        const char *home = env->home_set ? env->home : shield_env_get(env, "HOME");
        cleanup_free char *pw = NULL;
        cleanup_strv char **v = calloc(3, sizeof(char *));
        size_t n = 0;
        int r;

        if (!v)
                return bento_err_set(err, ENOMEM, "home anchors");
        r = shields_passwd_home(env->passwd_path, env->uid, &pw, err);
        if (r < 0)
                /* cppcheck 2.10 ignores __attribute__((cleanup)): cleanup_strv
                 * frees v here. */
                /* cppcheck-suppress memleak */
                return r;
        if (add_anchor(v, &n, home) < 0 || add_anchor(v, &n, pw) < 0)
                return bento_err_set(err, ENOMEM, "home anchors");
        if (n == 0)
                return bento_err_setx(err, ENOENT,
                                      "no usable home directory: $HOME is %s%s%s, the passwd "
                                      "database gives %s%s%s for uid %ju",
                                      home ? "\"" : "", home ? home : "unset", home ? "\"" : "",
                                      pw ? "\"" : "", pw ? pw : "no entry", pw ? "\"" : "",
                                      (uintmax_t) env->uid);
        *ret = TAKE_PTR(v);
        return 0;
}

/* Room for the runtime rules and the relocations, which follow the home
 * rules. */
#define SHIELD_RULES_BESIDE_HOME 64

static int add_home_rules(struct shield_set *s, struct bento_err *err)
{
        if (shield_set_reserve(s, s->n_anchors * shield_home_rules_n + SHIELD_RULES_BESIDE_HOME) <
            0)
                return bento_err_set(err, ENOMEM, "home rules");
        for (size_t a = 0; a < s->n_anchors; a++) {
                shields_list_busy_dirs(s->anchors[a]);
                for (size_t i = 0; i < shield_home_rules_n; i++) {
                        const struct shield_home_rule *h = &shield_home_rules[i];
                        char *p = path_join(s->anchors[a], h->rel); /* clean */
                        int r;

                        if (!p)
                                return bento_err_set(err, ENOMEM, "home rules");
                        r = shield_set_take(
                            s, p,
                            &(struct shield_rule_spec){.deny = h->deny,
                                                       .dir = h->dir,
                                                       .holds = h->holds,
                                                       .origin = SHIELD_ORIGIN_HOME},
                            err);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": /run and /var/run (usually the same directory once
 * resolved). */
static int add_runtime_rules(struct shield_set *s, struct bento_err *err)
{
        static const char *const runs[] = {"/run", "/var/run"};

        for (size_t i = 0; i < 2; i++) {
                int r = shield_set_add(s, runs[i],
                                       &(struct shield_rule_spec){.deny = SHIELD_DENY_ALL,
                                                                  .dir = true,
                                                                  .holds = SHIELD_HOLDS_SERVICES,
                                                                  .origin = SHIELD_ORIGIN_RUNTIME},
                                       err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int set_anchors(struct shield_set *s, const struct shield_env *env, struct bento_err *err)
{
        const char *xdg = shield_env_get(env, "XDG_RUNTIME_DIR");
        int r = shields_find_anchors(env, &s->anchors, err);

        if (r < 0)
                return r;
        /* r >= 0 means s->anchors is set; the analyzer cannot see that the
         * err.c setters always return < 0, so it also tries r >= 0 after a
         * failure. */
        /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
        while (s->anchors[s->n_anchors])
                s->n_anchors++;
        s->resolved_anchors = calloc(s->n_anchors + 1, sizeof(char *));
        if (!s->resolved_anchors)
                return bento_err_set(err, ENOMEM, "home anchors");
        for (size_t i = 0; i < s->n_anchors; i++)
                if (path_resolve(s->anchors[i], &s->resolved_anchors[i]) < 0)
                        return bento_err_set(err, ENOMEM, "home anchors");
        if (xdg && xdg[0] == '/' && !(s->runtime_dir = path_clean(xdg)))
                return bento_err_set(err, ENOMEM, "runtime dir");
        return 0;
}

int shields_build(const struct shield_env *env, struct shield_set **ret, struct bento_err *err)
{
        cleanup_shield_set struct shield_set *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return bento_err_set(err, ENOMEM, "shields");
        r = set_anchors(s, env, err);
        if (r >= 0)
                r = add_home_rules(s, err);
        if (r >= 0)
                r = add_runtime_rules(s, err);
        if (r >= 0)
                r = shields_add_relocations(s, env, err);
        if (r >= 0)
                r = shields_expand_links(s, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}
