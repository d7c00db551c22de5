/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Environment relocations (docs/manifest.md, "CREDENTIAL SHIELDS"): when a variable moves a store,
 * the shield follows it, because the tool the sandboxed program runs will read the variable too.
 * The table below is the docs/manifest.md, "CREDENTIAL SHIELDS" table in data form.  A target that
 * cannot be shielded (the root, a home itself, an ancestor of a home) is dropped and reported,
 * never silently: the caller must be able to warn that a store it believes shielded is readable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "internal.h"

enum reloc_list {
        LIST_ONE,   /* the value is one path */
        LIST_COLON, /* a colon-separated list, every element relocates */
        LIST_FIRST, /* a colon-separated list, only the first element counts */
};

/* Sixteen bytes, not 24: the table below is pointers, so every page of it
 * is copied at each start to be relocated, and six targets a row are most
 * of it (16.5 -> 12.4 KiB). */
struct reloc_target {
        const char *sub; /* below the value; "" = the value itself */
        enum shield_deny deny : 8;
        bool dir;
        enum shield_holds holds : 8;
};

struct reloc {
        const char *var;
        const char *defaults[2]; /* below an anchor ("" = the anchor); NULL = none */
        const char *store;       /* skip targets inside <anchor>/<store> */
        enum reloc_list list;
        const char *unless_set; /* ignore var when this one is set */
        struct reloc_target t[6];
};

#define DA_DIR(s, h)                                                                               \
        {                                                                                          \
                s, SHIELD_DENY_ALL, true, SHIELD_HOLDS_##h                                         \
        }
#define DA_FILE(s, h)                                                                              \
        {                                                                                          \
                s, SHIELD_DENY_ALL, false, SHIELD_HOLDS_##h                                        \
        }
#define DW_DIR(s)                                                                                  \
        {                                                                                          \
                s, SHIELD_DENY_WRITE, true, SHIELD_HOLDS_NONE                                      \
        }
#define DW_FILE(s)                                                                                 \
        {                                                                                          \
                s, SHIELD_DENY_WRITE, false, SHIELD_HOLDS_NONE                                     \
        }
#define CRED_DIR(v, d)                                                                             \
        {                                                                                          \
                v, {d}, NULL, LIST_ONE, NULL,                                                      \
                {                                                                                  \
                        DA_DIR("", CREDENTIALS)                                                    \
                }                                                                                  \
        }
#define CRED_IN(v, d, f)                                                                           \
        {                                                                                          \
                v, {d}, NULL, LIST_ONE, NULL,                                                      \
                {                                                                                  \
                        DA_FILE(f, CREDENTIALS)                                                    \
                }                                                                                  \
        }
#define CRED_LIST(v, st, l)                                                                        \
        {                                                                                          \
                v, {NULL}, st, l, NULL,                                                            \
                {                                                                                  \
                        DA_FILE("", CREDENTIALS)                                                   \
                }                                                                                  \
        }
#define HIDDEN_FILE(v, d, h)                                                                       \
        {                                                                                          \
                v, {d}, NULL, LIST_ONE, NULL,                                                      \
                {                                                                                  \
                        DA_FILE("", h)                                                             \
                }                                                                                  \
        }
#define STARTUP(v, d)                                                                              \
        {                                                                                          \
                v, {d}, NULL, LIST_ONE, NULL,                                                      \
                {                                                                                  \
                        DW_FILE("")                                                                \
                }                                                                                  \
        }
#define WDIR(v, d, s1, s2)                                                                         \
        {                                                                                          \
                v, {d}, NULL, LIST_ONE, NULL,                                                      \
                {                                                                                  \
                        DW_DIR(s1), DW_DIR(s2)                                                     \
                }                                                                                  \
        }

static const struct reloc relocs[] = {
    CRED_DIR("GNUPGHOME", ".gnupg"),
    CRED_DIR("PASSWORD_STORE_DIR", ".password-store"),
    CRED_DIR("DOCKER_CONFIG", ".docker"),
    CRED_DIR("CLOUDSDK_CONFIG", ".config/gcloud"),
    CRED_DIR("GH_CONFIG_DIR", ".config/gh"),
    CRED_DIR("AZURE_CONFIG_DIR", ".azure"),
    CRED_DIR("INCUS_CONF", ".config/incus"),
    CRED_DIR("LXD_CONF", ".config/lxc"),
    CRED_DIR("ATUIN_DATA_DIR", ".local/share/atuin"),
    CRED_DIR("BORG_KEYS_DIR", ".config/borg/keys"),
    CRED_IN("DBT_PROFILES_DIR", ".dbt", "profiles.yml"),
    CRED_IN("CURL_HOME", "", ".curlrc"),
    CRED_IN("PULUMI_HOME", ".pulumi", "credentials.json"),
    {"CLAUDE_CONFIG_DIR",
     {".claude"},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE(".credentials.json", CREDENTIALS), DW_DIR("")}},
    {"CLAUDE_CONFIG_DIR",
     {""},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE(".claude.json", CREDENTIALS), DA_FILE(".claude.json.backup", CREDENTIALS)}},
    {"CODEX_HOME",
     {".codex"},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE("auth.json", CREDENTIALS), DW_DIR("")}},
    {"STEPPATH", {".step"}, NULL, LIST_ONE, NULL, {DA_DIR("secrets", CREDENTIALS)}},
    {"BORG_CONFIG_DIR", {".config/borg"}, NULL, LIST_ONE, NULL, {DA_DIR("keys", CREDENTIALS)}},
    CRED_LIST("KUBECONFIG", ".kube", LIST_COLON),
    CRED_LIST("AWS_SHARED_CREDENTIALS_FILE", ".aws", LIST_ONE),
    CRED_LIST("AWS_CONFIG_FILE", ".aws", LIST_ONE),
    CRED_LIST("AWS_WEB_IDENTITY_TOKEN_FILE", ".aws", LIST_ONE),
    CRED_LIST("GOOGLE_APPLICATION_CREDENTIALS", ".config/gcloud", LIST_ONE),
    CRED_LIST("REGISTRY_AUTH_FILE", ".config/containers", LIST_ONE),
    HIDDEN_FILE("HISTFILE", NULL, HISTORY),
    HIDDEN_FILE("NPM_CONFIG_USERCONFIG", ".npmrc", CREDENTIALS),
    HIDDEN_FILE("R_ENVIRON_USER", ".Renviron", CREDENTIALS),
    HIDDEN_FILE("LESSHISTFILE", ".lesshst", HISTORY),
    HIDDEN_FILE("MYSQL_HISTFILE", ".mysql_history", HISTORY),
    HIDDEN_FILE("PSQL_HISTORY", ".psql_history", HISTORY),
    HIDDEN_FILE("SQLITE_HISTORY", ".sqlite_history", HISTORY),
    HIDDEN_FILE("REDISCLI_HISTFILE", ".rediscli_history", HISTORY),
    HIDDEN_FILE("NODE_REPL_HISTORY", ".node_repl_history", HISTORY),
    HIDDEN_FILE("TF_CLI_CONFIG_FILE", ".terraformrc", CREDENTIALS),
    HIDDEN_FILE("PGPASSFILE", ".pgpass", CREDENTIALS),
    HIDDEN_FILE("WGETRC", ".wgetrc", CREDENTIALS),
    HIDDEN_FILE("ANSIBLE_CONFIG", ".ansible.cfg", CREDENTIALS),
    HIDDEN_FILE("SOPS_AGE_KEY_FILE", ".config/sops/age/keys.txt", CREDENTIALS),
    HIDDEN_FILE("RCLONE_CONFIG", ".config/rclone/rclone.conf", CREDENTIALS),
    {"HGRCPATH", {NULL}, NULL, LIST_COLON, NULL, {DA_FILE("", CREDENTIALS)}},
    {"ZDOTDIR",
     {""},
     NULL,
     LIST_ONE,
     NULL,
     {DW_FILE(".zshenv"), DW_FILE(".zshrc"), DW_FILE(".zshrc.local"), DW_FILE(".zprofile"),
      DW_FILE(".zlogin"), DW_FILE(".zlogout")}},
    STARTUP("GIT_CONFIG_GLOBAL", ".gitconfig"),
    STARTUP("BASH_ENV", NULL),
    STARTUP("ENV", NULL),
    STARTUP("INPUTRC", ".inputrc"),
    STARTUP("PYTHONSTARTUP", ".pythonrc.py"),
    STARTUP("SCREENRC", ".screenrc"),
    STARTUP("PSQLRC", ".psqlrc"),
    STARTUP("R_PROFILE_USER", ".Rprofile"),
    STARTUP("GOENV", ".config/go/env"),
    STARTUP("MISE_GLOBAL_CONFIG_FILE", ".config/mise/config.toml"),
    STARTUP("MISE_SYSTEM_CONFIG_FILE", NULL),
    STARTUP("MISE_ENV_FILE", NULL),
    {"PIP_CONFIG_FILE",
     {".config/pip/pip.conf", ".pip/pip.conf"},
     NULL,
     LIST_ONE,
     NULL,
     {DW_FILE("")}},
    {"MAILCAPS", {".mailcap"}, NULL, LIST_COLON, NULL, {DW_FILE("")}},
    {"CARGO_HOME",
     {".cargo"},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE("credentials.toml", CREDENTIALS), DA_FILE("credentials", CREDENTIALS),
      DW_FILE("config.toml"), DW_FILE("config"), DW_FILE("env"), DW_DIR("bin")}},
    {"COMPOSER_HOME",
     {".config/composer", ".composer"},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE("auth.json", CREDENTIALS), DW_FILE("config.json"), DW_DIR("vendor/bin")}},
    {"GOPATH", {"go"}, NULL, LIST_FIRST, "GOBIN", {DW_DIR("bin")}},
    {"GRADLE_USER_HOME",
     {".gradle"},
     NULL,
     LIST_ONE,
     NULL,
     {DA_FILE("gradle.properties", CREDENTIALS), DW_DIR("init.d")}},
    WDIR("DIRENV_CONFIG", ".config/direnv", "", NULL),
    WDIR("MISE_STATE_DIR", ".local/state/mise", "trusted-configs", NULL),
    WDIR("MISE_CONFIG_DIR", ".config/mise", "", NULL),
    WDIR("MISE_DATA_DIR", ".local/share/mise", "shims", NULL),
    WDIR("MISE_CACHE_DIR", ".cache/mise", "", NULL),
    WDIR("PRE_COMMIT_HOME", ".cache/pre-commit", "", NULL),
    WDIR("GOBIN", "go/bin", "", NULL),
    WDIR("RUSTUP_HOME", ".rustup", "", NULL),
    WDIR("NVM_DIR", ".nvm", "", NULL),
    WDIR("NPM_CONFIG_PREFIX", ".npm-packages", "", NULL),
    WDIR("PYENV_ROOT", ".pyenv", "bin", "shims"),
    WDIR("RBENV_ROOT", ".rbenv", "bin", "shims"),
    WDIR("NODENV_ROOT", ".nodenv", "bin", "shims"),
    WDIR("ASDF_DIR", ".asdf", "bin", NULL),
    WDIR("ASDF_DATA_DIR", ".asdf", "shims", NULL),
    WDIR("rvm_path", ".rvm", "bin", "scripts"),
    WDIR("VOLTA_HOME", ".volta", "bin", NULL),
    WDIR("BUN_INSTALL", ".bun", "bin", NULL),
    WDIR("KREW_ROOT", ".krew", "bin", NULL),
    WDIR("PUB_CACHE", ".pub-cache", "bin", NULL),
    WDIR("CABAL_DIR", ".cabal", "bin", NULL),
    WDIR("FOUNDRY_DIR", ".foundry", "bin", NULL),
    WDIR("MIX_HOME", ".mix", "escripts", "archives"),
    WDIR("GEM_HOME", NULL, "bin", NULL),
    WDIR("PNPM_HOME", ".local/share/pnpm", "", NULL),
    WDIR("GHCUP_INSTALL_BASE_PREFIX", "", ".ghcup/bin", NULL),
    WDIR("DOTNET_CLI_HOME", "", ".dotnet/tools", NULL),
};

/* XDG base variables: every home rule under the default base moves. */
static const struct {
        const char *var;
        const char *base;
} xdg_bases[] = {
    {"XDG_CONFIG_HOME", ".config"},
    {"XDG_DATA_HOME", ".local/share"},
    {"XDG_STATE_HOME", ".local/state"},
    {"XDG_CACHE_HOME", ".cache"},
};

/* Is path where the variable points by default under some anchor (then the
 * home rules already cover it and nothing is exposed)? */
static bool is_default(const struct shield_set *s, const char *const *defaults, const char *sub,
                       const char *path)
{
        for (size_t d = 0; d < 2 && defaults[d]; d++) {
                for (size_t a = 0; a < s->n_anchors; a++) {
                        cleanup_free char *base = path_join(s->anchors[a], defaults[d]);
                        cleanup_free char *def = base ? path_join(base, sub) : NULL;

                        if (def && strcmp(def, path) == 0)
                                return true;
                }
        }
        return false;
}

static bool inside_store(const struct shield_set *s, const char *store, const char *path)
{
        for (size_t a = 0; store && a < s->n_anchors; a++) {
                cleanup_free char *st = path_join(s->anchors[a], store);

                if (st && path_within(st, path))
                        return true;
        }
        return false;
}

/* A redundant rule inside an emitted DenyAll dir would survive an opt-in
 * of that store, so it is not emitted. */
static bool inside_deny_all_dir(const struct shield_set *s, const char *path)
{
        for (size_t i = 0; i < s->n_rules; i++) {
                const struct shield_rule *r = &s->rules[i];

                if (r->deny == SHIELD_DENY_ALL && r->dir &&
                    (path_within(r->literal, path) || path_within(r->path, path)))
                        return true;
        }
        return false;
}

/* Emit one relocated rule at path, reporting value when it cannot be. */
static int emit(struct shield_set *s, const char *var, const char *value, const char *path,
                const struct reloc_target *t, enum shield_origin origin, struct bento_err *err)
{
        int r;

        if (!shield_shieldable_literal(s, path))
                return shield_set_report(s, var, value, err);
        if (inside_deny_all_dir(s, path))
                return 0;
        r = shield_set_add(
            s, path,
            &(struct shield_rule_spec){
                .deny = t->deny, .dir = t->dir, .holds = t->holds, .source = var, .origin = origin},
            err);
        if (r == 1)
                return shield_set_report(s, var, value, err);
        return r;
}

static int reloc_element(struct shield_set *s, const struct reloc *rl, const char *value,
                         struct bento_err *err)
{
        if (value[0] != '/' || strcmp(value, "/dev/null") == 0)
                return 0;
        for (size_t i = 0; i < 6 && rl->t[i].sub; i++) {
                cleanup_free char *path = path_join(value, rl->t[i].sub);
                int r;

                if (!path)
                        return bento_err_set(err, ENOMEM, "%s", rl->var);
                if (is_default(s, rl->defaults, rl->t[i].sub, path) ||
                    inside_store(s, rl->store, path))
                        continue;
                r = emit(s, rl->var, value, path, &rl->t[i], SHIELD_ORIGIN_RELOCATION, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int apply_reloc(struct shield_set *s, const struct shield_env *env, const struct reloc *rl,
                       struct bento_err *err)
{
        const char *value = shield_env_get(env, rl->var);
        cleanup_free char *copy = NULL;
        char *save = NULL;

        if (!value || !value[0] || (rl->unless_set && shield_env_get(env, rl->unless_set)))
                return 0;
        if (rl->list == LIST_ONE)
                return reloc_element(s, rl, value, err);
        copy = strdup(value);
        if (!copy)
                return bento_err_set(err, ENOMEM, "%s", rl->var);
        if (rl->list == LIST_FIRST) {
                copy[strcspn(copy, ":")] = '\0';
                return reloc_element(s, rl, copy, err);
        }
        for (char *e = strtok_r(copy, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
                int r = reloc_element(s, rl, e, err);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* Restate every home rule under the default base below value. */
static int apply_xdg(struct shield_set *s, const char *var, const char *base, const char *value,
                     struct bento_err *err)
{
        const char *const defaults[2] = {base, NULL};
        size_t blen = strlen(base);

        if (value[0] != '/' || is_default(s, defaults, "", value))
                return 0;
        if (!shield_shieldable_literal(s, value))
                return shield_set_report(s, var, value, err);
        for (size_t i = 0; i < shield_home_rules_n; i++) {
                const struct shield_home_rule *h = &shield_home_rules[i];
                struct reloc_target t = {NULL, h->deny, h->dir, h->holds};
                cleanup_free char *path = NULL;
                int r;

                if (strncmp(h->rel, base, blen) != 0 || h->rel[blen] != '/')
                        continue;
                path = path_join(value, h->rel + blen + 1);
                if (!path)
                        return bento_err_set(err, ENOMEM, "%s", var);
                r = emit(s, var, value, path, &t, SHIELD_ORIGIN_RELOCATION, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": XDG_RUNTIME_DIR, unless /run already hides it. */
static int apply_runtime_dir(struct shield_set *s, struct bento_err *err)
{
        static const struct reloc_target t = DA_DIR("", SERVICES);
        const char *rd = s->runtime_dir;

        if (!rd || path_within("/run", rd) || path_within("/var/run", rd))
                return 0;
        return emit(s, "XDG_RUNTIME_DIR", rd, rd, &t, SHIELD_ORIGIN_RUNTIME, err);
}

int shields_add_relocations(struct shield_set *s, const struct shield_env *env,
                            struct bento_err *err)
{
        int r = apply_runtime_dir(s, err);

        for (size_t i = 0; r >= 0 && i < sizeof(xdg_bases) / sizeof(xdg_bases[0]); i++) {
                const char *v = shield_env_get(env, xdg_bases[i].var);

                if (v && v[0])
                        r = apply_xdg(s, xdg_bases[i].var, xdg_bases[i].base, v, err);
        }
        for (size_t i = 0; r >= 0 && i < sizeof(relocs) / sizeof(relocs[0]); i++)
                r = apply_reloc(s, env, &relocs[i], err);
        return r < 0 ? r : 0;
}
