/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json "process": the target's argv with resolved absolute paths,
 * its working directory (the entrypoint's), exactly the environment of
 * docs/manifest.md, "ENVIRONMENT", the caller's own uid and gid, no capability in any set,
 * noNewPrivileges, and the Landlock backstop (docs/doctor.md, "What the probe does, and what it
 * costs"): read-only beneath /, read-write beneath what the mounts left writable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"

/* Removed from a passed-through environment when bento runs the proxy, so
 * its values are the only ones the target sees (docs/egress.md, "How it works"). */
static const char *const proxy_vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",   "FTP_PROXY",
                                         "NO_PROXY",   "http_proxy",  "https_proxy", "all_proxy",
                                         "ftp_proxy",  "no_proxy",    NULL};

/* What bento sets when it runs the proxy (docs/egress.md, "How it works"), besides NO_PROXY. */
static const char *const proxy_set[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"};

static bool is_proxy_var(const char *name)
{
        for (const char *const *v = proxy_vars; *v; v++)
                if (strcmp(*v, name) == 0)
                        return true;
        return false;
}

/* The --env override for name, or NULL. */
static const char * override(const struct compile_opts *o, const char *name)
{
        size_t len = strlen(name);

        for (size_t i = o->n_env_overrides; i-- > 0;)
                if (strncmp(o->env_overrides[i], name, len) == 0 && o->env_overrides[i][len] == '=')
                        return o->env_overrides[i] + len + 1;
        return NULL;
}

static int push(char ***v, size_t *n, const char *name, const char *value)
{
        char **nv = reallocarray(*v, *n + 2, sizeof(char *));

        if (!nv)
                return -ENOMEM;
        *v = nv;
        if (asprintf(&nv[*n], "%s=%s", name, value) < 0)
                return -ENOMEM;
        nv[++*n] = NULL;
        return 0;
}

static bool has(char *const *v, size_t n, const char *name)
{
        size_t len = strlen(name);

        for (size_t i = 0; i < n; i++)
                if (strncmp(v[i], name, len) == 0 && v[i][len] == '=')
                        return true;
        return false;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

int compile_env(const struct policy *p, const struct compile_opts *o, char ***ret,
                struct bento_err *err)
{
        bool egress = compile_has_egress(p, o);
        cleanup_strv char **v = calloc(1, sizeof(char *));
        size_t n = 0;
        int r = v ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < p->m->n_env; i++) {
                const char *name = p->m->env[i];
                const char *value = override(o, name);

                if (!value)
                        value = getenv(name);
                /* Unset and not overridden: omitted, never passed empty. */
                if (!value || has(v, n, name) || (egress && is_proxy_var(name)))
                        continue;
                r = push(&v, &n, name, value);
        }
        if (r >= 0 && !has(v, n, "PATH"))
                r = push(&v, &n, "PATH", "/usr/bin:/bin");
        if (r >= 0 && !has(v, n, "HOME"))
                r = push(&v, &n, "HOME", "/tmp");
        for (size_t i = 0; r >= 0 && egress && i < 4; i++)
                r = push(&v, &n, proxy_set[i], COMPILE_PROXY_ADDRESS);
        if (r >= 0 && egress)
                r = push(&v, &n, "NO_PROXY", "localhost,127.0.0.1,::1");
        if (r >= 0 && egress)
                r = push(&v, &n, "no_proxy", "localhost,127.0.0.1,::1");
        if (r < 0)
                return bento_err_set(err, ENOMEM, "environment");
        qsort(v, n, sizeof(char *), cmp_str);
        *ret = TAKE_PTR(v);
        return 0;
}

static void write_args(struct bento_jsonw *w, const struct policy *p, const struct compile_opts *o)
{
        const struct manifest *m = p->m;

        bento_jsonw_key(w, "args");
        bento_jsonw_open_array(w);
        /* Profiling: the observer is the container's process and runs the target under
         * ptrace, its report on the descriptor bento-runtime passes through. */
        if (o->profile) {
                bento_jsonw_string(w, COMPILE_OBSERVE_BOX_PATH);
                bento_jsonw_string(w, "--report-fd");
                bento_jsonw_string(w, COMPILE_OBSERVE_FD);
                for (size_t i = 0; o->profile->no_result && o->profile->no_result[i]; i++) {
                        bento_jsonw_string(w, "--no-result-under");
                        bento_jsonw_string(w, o->profile->no_result[i]);
                }
                if (o->profile->shim) {
                        bento_jsonw_string(w, "--shim");
                        bento_jsonw_string(w, COMPILE_OBSERVE_SHIM_BOX_PATH);
                }
                bento_jsonw_string(w, "--");
        }
        /* Everywhere else the target runs under bento-init, the box's process 1, so
         * it is not process 1 itself (docs/hooks/bento-init.md). */
        if (compile_has_init(p, o)) {
                bento_jsonw_string(w, COMPILE_INIT_BOX_PATH);
                if (o->init_status) {
                        bento_jsonw_string(w, "--status-fd");
                        bento_jsonw_string(w, COMPILE_INIT_STATUS_FD);
                }
                bento_jsonw_string(w, "--");
        }
        if (m->interpreter[0]) {
                bento_jsonw_string(w, p->interpreter.real ? p->interpreter.real
                                                          : p->interpreter.expanded);
                for (size_t i = 0; i < m->n_interpreter_args; i++)
                        bento_jsonw_string(w, m->interpreter_args[i]);
        }
        bento_jsonw_string(w, p->entrypoint.real);
        for (size_t i = 0; i < m->n_args; i++)
                bento_jsonw_string(w, m->args[i]);
        bento_jsonw_close_array(w);
}

static void write_caps(struct bento_jsonw *w)
{
        static const char *const sets[] = {"bounding", "effective", "inheritable", "permitted",
                                           "ambient"};

        bento_jsonw_key(w, "capabilities");
        bento_jsonw_open_object(w);
        for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
                bento_jsonw_kstrv(w, sets[i], NULL, 0);
        bento_jsonw_close_object(w);
}

static const char *const ll_read[] = {"execute", "read_file", "read_dir", "ioctl_dev", NULL};
static const char *const ll_all[] = {
    "execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
    "make_sym",  "refer",      "truncate",  "ioctl_dev", NULL};

static void write_rights(struct bento_jsonw *w, const char *key, const char *const *rights)
{
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (; *rights; rights++)
                bento_jsonw_string(w, *rights);
        bento_jsonw_close_array(w);
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* docs/doctor.md, "What the probe does, and what it costs" full-tier backstop: writes confined to
 * exactly what the mounts left writable, even if a mount were missing. */
static void write_landlock(struct bento_jsonw *w, const struct policy *p)
{
        static const char *const fixed[] = {"/dev", "/proc", "/tmp"};
        cleanup_free const char **rw = calloc(p->n_writes + 4, sizeof(char *));
        size_t n = 0;

        if (!rw) {
                bento_jsonw_fail(w, -ENOMEM, "landlock");
                return;
        }
        for (size_t i = 0; i < 3; i++)
                rw[n++] = fixed[i];
        for (size_t i = 0; i < p->n_writes; i++)
                rw[n++] = p->writes[i].real;
        qsort(rw, n, sizeof(char *), cmp_cstr);
        bento_jsonw_key(w, "landlock");
        bento_jsonw_open_object(w);
        bento_jsonw_key(w, "handledAccess");
        bento_jsonw_open_object(w);
        write_rights(w, "handledAccessFS", ll_all);
        bento_jsonw_close_object(w);
        bento_jsonw_key(w, "rules");
        bento_jsonw_open_object(w);
        bento_jsonw_key(w, "pathBeneath");
        bento_jsonw_open_array(w);
        bento_jsonw_open_object(w);
        write_rights(w, "allowedAccess", ll_read);
        bento_jsonw_kstrv(w, "paths", (char *const[]){"/"}, 1);
        bento_jsonw_close_object(w);
        bento_jsonw_open_object(w);
        write_rights(w, "allowedAccess", ll_all);
        bento_jsonw_key(w, "paths");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++)
                if (i == 0 || strcmp(rw[i], rw[i - 1]) != 0)
                        bento_jsonw_string(w, rw[i]);
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
        bento_jsonw_close_object(w);
}

static char *dir_of(const char *path)
{
        char *d = strdup(path);
        char *slash = d ? strrchr(d, '/') : NULL;

        if (slash)
                *(slash == d ? slash + 1 : slash) = '\0';
        return d;
}

void compile_write_process(struct bento_jsonw *w, const struct policy *p,
                           const struct compile_opts *o, char *const *env)
{
        cleanup_free char *cwd = dir_of(p->entrypoint.real);
        size_t n_env = 0;

        while (env[n_env])
                n_env++;
        bento_jsonw_key(w, "process");
        bento_jsonw_open_object(w);
        bento_jsonw_kbool(w, "terminal", o->terminal);
        bento_jsonw_key(w, "user");
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "uid", getuid());
        bento_jsonw_kuint(w, "gid", getgid());
        bento_jsonw_close_object(w);
        write_args(w, p, o);
        bento_jsonw_kstrv(w, "env", env, n_env);
        bento_jsonw_kstring(w, "cwd", cwd);
        write_caps(w);
        bento_jsonw_kbool(w, "noNewPrivileges", true);
        /* Profiling has no Landlock: the observer must see each access as the kernel
         * would answer it without bento's backstop (the mounts still confine writes). */
        if (!o->profile)
                write_landlock(w, p);
        bento_jsonw_close_object(w);
}
