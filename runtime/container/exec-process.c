/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process `exec` runs (see exec.h): read whole from --process, or made
 * from the container's own process (in the config copy of its state
 * directory) changed by the command line, as runc does: the arguments
 * replace the container's, --env entries replace a variable of the same
 * name or are appended, --user replaces uid (and gid when given), --cap
 * adds to the bounding, effective and permitted sets, --no-new-privs sets
 * noNewPrivileges, and --tty decides about the terminal.
 */
#include "exec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "jsonr.h"
#include "oci-config.h"

/* A NULL-terminated copy, so the result can go to execve() as it is. */
static char **strv_copy(char *const *v, size_t n)
{
        char **out = calloc(n + 1, sizeof(char *));

        for (size_t i = 0; out && i < n; i++) {
                out[i] = strdup(v[i]);
                if (!out[i]) {
                        bento_strv_free_n(out, i);
                        return NULL;
                }
        }
        return out;
}

static int set_env(struct oci_process *p, const char *kv, struct bento_err *err)
{
        const char *eq = strchr(kv, '=');
        size_t keylen;

        if (!eq || eq == kv)
                return bento_err_setx(err, EINVAL, "--env '%s': expected KEY=VALUE", kv);
        keylen = (size_t) (eq - kv) + 1;
        for (size_t i = 0; i < p->n_env; i++) {
                if (strncmp(p->env[i], kv, keylen) != 0)
                        continue;
                char *copy = strdup(kv);
                if (!copy)
                        return bento_err_set(err, ENOMEM, "--env");
                free(p->env[i]);
                p->env[i] = copy;
                return 0;
        }
        if (bento_strv_append(&p->env, &p->n_env, kv) < 0)
                return bento_err_set(err, ENOMEM, "--env");
        return 0;
}

static bool strv_has(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcasecmp(v[i], s) == 0)
                        return true;
        return false;
}

static int add_cap(struct oci_process *p, const char *name, struct bento_err *err)
{
        static const enum oci_cap_set sets[] = {OCI_CAP_BOUNDING, OCI_CAP_EFFECTIVE,
                                                OCI_CAP_PERMITTED};
        struct oci_capabilities *c = p->capabilities;

        if (!c) {
                c = p->capabilities = calloc(1, sizeof(*c));
                if (!c)
                        return bento_err_set(err, ENOMEM, "--cap");
        }
        for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
                enum oci_cap_set s = sets[i];
                c->present[s] = true;
                if (!strv_has(c->set[s], c->n[s], name) &&
                    bento_strv_append(&c->set[s], &c->n[s], name))
                        return bento_err_set(err, ENOMEM, "--cap");
        }
        return 0;
}

static int apply_cli(struct oci_process *p, const struct rt_exec_opts *o, struct bento_err *err)
{
        char **args = strv_copy(o->args, o->n_args);
        int r;

        if (!args)
                return bento_err_set(err, ENOMEM, "exec arguments");
        bento_strv_free_n(p->args, p->n_args);
        p->args = args;
        p->n_args = o->n_args;
        if (o->cwd) {
                char *cwd = strdup(o->cwd);
                if (!cwd)
                        return bento_err_set(err, ENOMEM, "--cwd");
                free(p->cwd);
                p->cwd = cwd;
        }
        for (size_t i = 0; i < o->n_env; i++) {
                r = set_env(p, o->env[i], err);
                if (r < 0)
                        return r;
        }
        if (o->has_user)
                p->user.uid = o->uid;
        if (o->has_gid)
                p->user.gid = o->gid;
        for (size_t i = 0; i < o->n_caps; i++) {
                r = add_cap(p, o->caps[i], err);
                if (r < 0)
                        return r;
        }
        p->no_new_privileges = p->no_new_privileges || o->no_new_privs;
        p->terminal = o->tty;
        return 0;
}

static int from_container(const struct rt_container_dir *dir, const struct rt_exec_opts *o,
                          struct oci_process **ret, struct bento_err *err)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_oci_process struct oci_process *p = NULL;
        int r;

        r = rt_container_config_load(dir, &cfg, err);
        if (r < 0)
                return r;
        if (!cfg->process)
                return bento_err_setx(err, EINVAL, "the container's configuration has no process");
        p = TAKE_PTR(cfg->process);
        r = apply_cli(p, o, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

static int from_file(const struct rt_exec_opts *o, struct oci_process **ret, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        r = bento_read_file(o->process_file, OCI_CONFIG_MAX_BYTES, &data, &len, err);
        if (r < 0)
                return bento_err_prefix(err, "--process");
        r = oci_process_parse(data, len, ret, err);
        if (r < 0)
                return bento_err_prefix(err, "--process %s", o->process_file);
        /* conmon passes --tty next to the file */
        if (o->tty)
                (*ret)->terminal = true;
        return 0;
}

int rt_exec_process_build(const struct rt_container_dir *dir, const struct rt_exec_opts *o,
                          struct oci_process **ret, struct bento_err *err)
{
        if (o->process_file)
                return from_file(o, ret, err);
        return from_container(dir, o, ret, err);
}
