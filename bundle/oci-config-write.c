/* SPDX-License-Identifier: Apache-2.0 */
/*
 * struct oci_config → config.json, deterministically: a fixed key order
 * (runtime-spec's own order where it has one), annotations and sysctl sorted
 * by key, absent and empty optional members left out, raw subtrees
 * (resources, seccomp, landlock) written as they were read.  Same model,
 * same bytes, so bundles can be diffed; and what is written reads back into
 * the same model, so parse → write is idempotent after the first pass.
 */
#include "oci-config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "jsonw.h"
#include "oci-config-internal.h"

static int cmp_kv_ptr(const void *a, const void *b)
{
        const struct oci_kv *x = *(const struct oci_kv *const *) a;
        const struct oci_kv *y = *(const struct oci_kv *const *) b;

        return strcmp(x->key, y->key);
}

/* A string→string object sorted by key.  A duplicate key would make a
 * document our own reader refuses, so it is an error here. */
void oci_write_kv(struct bento_jsonw *w, const char *key, const struct oci_kv *kv, size_t n,
                  bool always)
{
        cleanup_free const struct oci_kv **sorted = NULL;

        if (n == 0) {
                if (always) {
                        bento_jsonw_key(w, key);
                        bento_jsonw_open_object(w);
                        bento_jsonw_close_object(w);
                }
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (!kv[i].key || !kv[i].value) {
                        bento_jsonw_fail(w, EINVAL, "cannot write %s: entry %zu is not set", key,
                                         i);
                        return;
                }
        sorted = calloc(n, sizeof(*sorted));
        if (!sorted) {
                bento_jsonw_fail(w, ENOMEM, "cannot write %s", key);
                return;
        }
        for (size_t i = 0; i < n; i++)
                sorted[i] = &kv[i];
        qsort(sorted, n, sizeof(*sorted), cmp_kv_ptr);
        bento_jsonw_key(w, key);
        bento_jsonw_open_object(w);
        for (size_t i = 0; i < n; i++) {
                if (i > 0 && strcmp(sorted[i]->key, sorted[i - 1]->key) == 0) {
                        bento_jsonw_fail(w, EINVAL, "cannot write %s: duplicate key \"%.100s\"",
                                         key, sorted[i]->key);
                        return;
                }
                bento_jsonw_kstring(w, sorted[i]->key, sorted[i]->value);
        }
        bento_jsonw_close_object(w);
}

static void put_strv_opt(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        if (n > 0)
                bento_jsonw_kstrv(w, key, v, n);
}

static void put_user(struct bento_jsonw *w, const struct oci_user *u)
{
        bento_jsonw_key(w, "user");
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "uid", u->uid);
        bento_jsonw_kuint(w, "gid", u->gid);
        if (u->has_umask)
                bento_jsonw_kuint(w, "umask", u->umask);
        if (u->n_additional_gids > 0) {
                bento_jsonw_key(w, "additionalGids");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < u->n_additional_gids; i++)
                        bento_jsonw_uint(w, u->additional_gids[i]);
                bento_jsonw_close_array(w);
        }
        bento_jsonw_close_object(w);
}

static void put_capabilities(struct bento_jsonw *w, const struct oci_capabilities *c)
{
        if (!c)
                return;
        bento_jsonw_key(w, "capabilities");
        bento_jsonw_open_object(w);
        for (int s = 0; s < _OCI_CAP_SET_MAX; s++)
                if (c->present[s] || c->n[s] > 0)
                        bento_jsonw_kstrv(w, oci_cap_set_to_string(s), c->set[s], c->n[s]);
        bento_jsonw_close_object(w);
}

static void put_rlimits(struct bento_jsonw *w, const struct oci_process *p)
{
        if (p->n_rlimits == 0)
                return;
        bento_jsonw_key(w, "rlimits");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < p->n_rlimits; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "type", p->rlimits[i].type);
                bento_jsonw_kuint(w, "hard", p->rlimits[i].hard);
                bento_jsonw_kuint(w, "soft", p->rlimits[i].soft);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_process(struct bento_jsonw *w, const struct oci_process *p)
{
        if (!p)
                return;
        bento_jsonw_key(w, "process");
        bento_jsonw_open_object(w);
        bento_jsonw_kbool(w, "terminal", p->terminal);
        if (p->has_console_size) {
                bento_jsonw_key(w, "consoleSize");
                bento_jsonw_open_object(w);
                bento_jsonw_kuint(w, "height", p->console_height);
                bento_jsonw_kuint(w, "width", p->console_width);
                bento_jsonw_close_object(w);
        }
        put_user(w, &p->user);
        bento_jsonw_kstrv(w, "args", p->args, p->n_args);
        put_strv_opt(w, "env", p->env, p->n_env);
        bento_jsonw_kstring(w, "cwd", p->cwd);
        put_capabilities(w, p->capabilities);
        put_rlimits(w, p);
        bento_jsonw_kbool(w, "noNewPrivileges", p->no_new_privileges);
        if (p->has_oom_score_adj)
                bento_jsonw_kint(w, "oomScoreAdj", p->oom_score_adj);
        bento_jsonw_kstring_opt(w, "apparmorProfile", p->apparmor_profile);
        bento_jsonw_kstring_opt(w, "selinuxLabel", p->selinux_label);
        bento_jsonw_ktree_opt(w, "landlock", p->landlock);
        oci_write_process_attrs(w, p);
        bento_jsonw_close_object(w);
}

static void put_mappings(struct bento_jsonw *w, const char *key, const struct oci_id_mapping *m,
                         size_t n)
{
        if (n == 0)
                return;
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kuint(w, "containerID", m[i].container_id);
                bento_jsonw_kuint(w, "hostID", m[i].host_id);
                bento_jsonw_kuint(w, "size", m[i].size);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_mounts(struct bento_jsonw *w, const struct oci_config *cfg)
{
        if (cfg->n_mounts == 0)
                return;
        bento_jsonw_key(w, "mounts");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < cfg->n_mounts; i++) {
                const struct oci_mount *m = &cfg->mounts[i];

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "destination", m->destination);
                bento_jsonw_kstring_opt(w, "type", m->type);
                bento_jsonw_kstring_opt(w, "source", m->source);
                put_strv_opt(w, "options", m->options, m->n_options);
                put_mappings(w, "uidMappings", m->uid_mappings, m->n_uid_mappings);
                put_mappings(w, "gidMappings", m->gid_mappings, m->n_gid_mappings);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_hooks(struct bento_jsonw *w, const struct oci_config *cfg)
{
        bool any = false;

        for (int k = 0; k < _OCI_HOOK_KIND_MAX; k++)
                any = any || cfg->n_hooks[k] > 0;
        if (!any)
                return;
        bento_jsonw_key(w, "hooks");
        bento_jsonw_open_object(w);
        for (int k = 0; k < _OCI_HOOK_KIND_MAX; k++) {
                if (cfg->n_hooks[k] == 0)
                        continue;
                bento_jsonw_key(w, oci_hook_kind_to_string(k));
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < cfg->n_hooks[k]; i++) {
                        const struct oci_hook *h = &cfg->hooks[k][i];

                        bento_jsonw_open_object(w);
                        bento_jsonw_kstring(w, "path", h->path);
                        put_strv_opt(w, "args", h->args, h->n_args);
                        /* An empty env means "no environment"; absent means
                         * "the runtime's": keep the difference. */
                        if (h->has_env || h->n_env > 0)
                                bento_jsonw_kstrv(w, "env", h->env, h->n_env);
                        if (h->has_timeout)
                                bento_jsonw_kint(w, "timeout", h->timeout);
                        bento_jsonw_close_object(w);
                }
                bento_jsonw_close_array(w);
        }
        bento_jsonw_close_object(w);
}

static void put_namespaces(struct bento_jsonw *w, const struct oci_linux *l)
{
        if (l->n_namespaces == 0)
                return;
        bento_jsonw_key(w, "namespaces");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < l->n_namespaces; i++) {
                const char *type = oci_ns_type_to_string(l->namespaces[i].type);

                if (!type) {
                        bento_jsonw_fail(w, EINVAL, "cannot write linux.namespaces[%zu]: bad type",
                                         i);
                        return;
                }
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "type", type);
                bento_jsonw_kstring_opt(w, "path", l->namespaces[i].path);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_devices(struct bento_jsonw *w, const struct oci_linux *l)
{
        if (l->n_devices == 0)
                return;
        bento_jsonw_key(w, "devices");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < l->n_devices; i++) {
                const struct oci_device *d = &l->devices[i];
                char type[2] = {d->type, '\0'};

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "type", type);
                bento_jsonw_kstring(w, "path", d->path);
                if (d->major >= 0)
                        bento_jsonw_kint(w, "major", d->major);
                if (d->minor >= 0)
                        bento_jsonw_kint(w, "minor", d->minor);
                if (d->has_file_mode)
                        bento_jsonw_kuint(w, "fileMode", d->file_mode);
                if (d->has_uid)
                        bento_jsonw_kuint(w, "uid", d->uid);
                if (d->has_gid)
                        bento_jsonw_kuint(w, "gid", d->gid);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_linux(struct bento_jsonw *w, const struct oci_config *cfg)
{
        const struct oci_linux *l = &cfg->linux_;

        if (!cfg->has_linux)
                return;
        bento_jsonw_key(w, "linux");
        bento_jsonw_open_object(w);
        put_namespaces(w, l);
        put_mappings(w, "uidMappings", l->uid_mappings, l->n_uid_mappings);
        put_mappings(w, "gidMappings", l->gid_mappings, l->n_gid_mappings);
        put_devices(w, l);
        oci_write_kv(w, "sysctl", l->sysctl, l->n_sysctl, false);
        bento_jsonw_kstring_opt(w, "cgroupsPath", l->cgroups_path);
        bento_jsonw_ktree_opt(w, "resources", l->resources);
        bento_jsonw_kstring_opt(w, "rootfsPropagation", l->rootfs_propagation);
        bento_jsonw_ktree_opt(w, "seccomp", l->seccomp);
        put_strv_opt(w, "maskedPaths", l->masked_paths, l->n_masked_paths);
        put_strv_opt(w, "readonlyPaths", l->readonly_paths, l->n_readonly_paths);
        bento_jsonw_kstring_opt(w, "mountLabel", l->mount_label);
        oci_write_linux_attrs(w, l);
        bento_jsonw_close_object(w);
}

int oci_config_write(const struct oci_config *cfg, char **ret_buf, size_t *ret_len,
                     struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (bento_jsonw_init(&w, true, err) < 0)
                return w.r;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "ociVersion", cfg->oci_version);
        put_process(&w, cfg->process);
        bento_jsonw_key(&w, "root");
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "path", cfg->root.path);
        bento_jsonw_kbool(&w, "readonly", cfg->root.readonly);
        bento_jsonw_close_object(&w);
        bento_jsonw_kstring_opt(&w, "hostname", cfg->hostname);
        bento_jsonw_kstring_opt(&w, "domainname", cfg->domainname);
        put_mounts(&w, cfg);
        put_hooks(&w, cfg);
        oci_write_kv(&w, "annotations", cfg->annotations, cfg->n_annotations, false);
        put_linux(&w, cfg);
        bento_jsonw_close_object(&w);
        return bento_jsonw_finish(&w, ret_buf, ret_len);
}
