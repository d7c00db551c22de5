/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json → struct oci_config (oci-config.h), plus the model's free,
 * load and lookup helpers and its enum string tables.
 *
 * The document is first parsed into a bento_json tree (which already
 * refused duplicate keys, NUL characters, bad UTF-8 and deep nesting), then
 * walked with the typed readers of jsonr.h, which keep the JSON path of the
 * value under inspection for error messages.  Per runtime-spec, properties
 * this model does not know are ignored and known ones with invalid values
 * are rejected; a JSON null counts as an absent property.  The linux
 * section is in oci-config-linux.c.
 */
#include "oci-config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "jsonr.h"
#include "oci-config-internal.h"

static const char *const ns_names[_OCI_NS_MAX] = {
    [OCI_NS_PID] = "pid",       [OCI_NS_NETWORK] = "network", [OCI_NS_MOUNT] = "mount",
    [OCI_NS_IPC] = "ipc",       [OCI_NS_UTS] = "uts",         [OCI_NS_USER] = "user",
    [OCI_NS_CGROUP] = "cgroup", [OCI_NS_TIME] = "time",
};

static const char *const hook_names[_OCI_HOOK_KIND_MAX] = {
    [OCI_HOOK_PRESTART] = "prestart",
    [OCI_HOOK_CREATE_RUNTIME] = "createRuntime",
    [OCI_HOOK_CREATE_CONTAINER] = "createContainer",
    [OCI_HOOK_START_CONTAINER] = "startContainer",
    [OCI_HOOK_POSTSTART] = "poststart",
    [OCI_HOOK_POSTSTOP] = "poststop",
};

static const char *const cap_set_names[_OCI_CAP_SET_MAX] = {
    [OCI_CAP_BOUNDING] = "bounding",       [OCI_CAP_EFFECTIVE] = "effective",
    [OCI_CAP_INHERITABLE] = "inheritable", [OCI_CAP_PERMITTED] = "permitted",
    [OCI_CAP_AMBIENT] = "ambient",
};

const char *oci_ns_type_to_string(enum oci_ns_type t)
{
        return (unsigned) t < _OCI_NS_MAX ? ns_names[t] : NULL;
}

int oci_ns_type_from_string(const char *s)
{
        for (int i = 0; s && i < _OCI_NS_MAX; i++)
                if (strcmp(s, ns_names[i]) == 0)
                        return i;
        return -1;
}

const char *oci_hook_kind_to_string(enum oci_hook_kind k)
{
        return (unsigned) k < _OCI_HOOK_KIND_MAX ? hook_names[k] : NULL;
}

const char *oci_cap_set_to_string(enum oci_cap_set s)
{
        return (unsigned) s < _OCI_CAP_SET_MAX ? cap_set_names[s] : NULL;
}

/* ---- freeing ------------------------------------------------------------ */

static void kv_free(struct oci_kv *kv, size_t n)
{
        for (size_t i = 0; kv && i < n; i++) {
                free(kv[i].key);
                free(kv[i].value);
        }
        free(kv);
}

struct oci_process *oci_process_free(struct oci_process *p)
{
        if (!p)
                return NULL;
        free(p->user.additional_gids);
        bento_strv_free_n(p->args, p->n_args);
        bento_strv_free_n(p->env, p->n_env);
        free(p->cwd);
        if (p->capabilities)
                for (int s = 0; s < _OCI_CAP_SET_MAX; s++)
                        bento_strv_free_n(p->capabilities->set[s], p->capabilities->n[s]);
        free(p->capabilities);
        for (size_t i = 0; p->rlimits && i < p->n_rlimits; i++)
                free(p->rlimits[i].type);
        free(p->rlimits);
        free(p->apparmor_profile);
        free(p->selinux_label);
        bento_json_free(p->landlock);
        oci_process_attrs_free(p);
        free(p);
        return NULL;
}

static void linux_free(struct oci_linux *l)
{
        for (size_t i = 0; l->namespaces && i < l->n_namespaces; i++)
                free(l->namespaces[i].path);
        free(l->namespaces);
        free(l->uid_mappings);
        free(l->gid_mappings);
        for (size_t i = 0; l->devices && i < l->n_devices; i++)
                free(l->devices[i].path);
        free(l->devices);
        kv_free(l->sysctl, l->n_sysctl);
        free(l->cgroups_path);
        free(l->rootfs_propagation);
        bento_strv_free_n(l->masked_paths, l->n_masked_paths);
        bento_strv_free_n(l->readonly_paths, l->n_readonly_paths);
        free(l->mount_label);
        bento_json_free(l->resources);
        bento_json_free(l->seccomp);
        oci_linux_attrs_free(l);
}

static void hook_free(struct oci_hook *h)
{
        free(h->path);
        bento_strv_free_n(h->args, h->n_args);
        bento_strv_free_n(h->env, h->n_env);
}

struct oci_config *oci_config_free(struct oci_config *cfg)
{
        if (!cfg)
                return NULL;
        free(cfg->oci_version);
        oci_process_free(cfg->process);
        free(cfg->root.path);
        free(cfg->hostname);
        free(cfg->domainname);
        for (size_t i = 0; cfg->mounts && i < cfg->n_mounts; i++) {
                free(cfg->mounts[i].destination);
                free(cfg->mounts[i].source);
                free(cfg->mounts[i].type);
                bento_strv_free_n(cfg->mounts[i].options, cfg->mounts[i].n_options);
                free(cfg->mounts[i].uid_mappings);
                free(cfg->mounts[i].gid_mappings);
        }
        free(cfg->mounts);
        for (int k = 0; k < _OCI_HOOK_KIND_MAX; k++) {
                for (size_t i = 0; cfg->hooks[k] && i < cfg->n_hooks[k]; i++)
                        hook_free(&cfg->hooks[k][i]);
                free(cfg->hooks[k]);
        }
        kv_free(cfg->annotations, cfg->n_annotations);
        linux_free(&cfg->linux_);
        bento_strv_free_n(cfg->unmodelled, cfg->n_unmodelled);
        free(cfg);
        return NULL;
}

/* ---- helpers shared with oci-config-linux.c -------------------------------- */

static int cmp_kv(const void *a, const void *b)
{
        return strcmp(((const struct oci_kv *) a)->key, ((const struct oci_kv *) b)->key);
}

int oci_conv_kv(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                struct oci_kv **ret, size_t *ret_n)
{
        const struct bento_json *map = NULL;
        struct oci_kv *kv;
        size_t mark, n;
        int k = bento_jsonr_member(r, obj, key, BENTO_JSON_OBJECT, false, &map);

        if (k <= 0 || map->u.object.n == 0)
                return k;
        n = map->u.object.n;
        kv = calloc(n, sizeof(*kv));
        if (!kv)
                return bento_err_set(r->err, ENOMEM, "%s", key);
        *ret = kv;
        *ret_n = n;
        mark = bento_jsonr_push_key(r, key);
        for (size_t i = 0; i < n; i++) {
                size_t vmark = bento_jsonr_push_key(r, map->u.object.keys[i]);

                JSONR_TRY(bento_jsonr_string_value(r, map->u.object.values[i], &kv[i].value));
                kv[i].key = strdup(map->u.object.keys[i]);
                if (!kv[i].key)
                        return bento_err_set(r->err, ENOMEM, "%s", key);
                bento_jsonr_pop(r, vmark);
        }
        bento_jsonr_pop(r, mark);
        /* Sorted, so that lookups and the writer do not depend on the order
         * the document happened to use. */
        qsort(kv, n, sizeof(*kv), cmp_kv);
        return 1;
}

/* ---- process -------------------------------------------------------------- */

static int conv_user(struct bento_jsonr *r, const struct bento_json *proc, struct oci_user *u)
{
        const struct bento_json *user = NULL, *gids = NULL;
        size_t mark;
        int k;

        JSONR_TRY(bento_jsonr_member(r, proc, "user", BENTO_JSON_OBJECT, true, &user));
        mark = bento_jsonr_push_key(r, "user");
        JSONR_TRY(bento_jsonr_u32(r, user, "uid", true, &u->uid));
        JSONR_TRY(bento_jsonr_u32(r, user, "gid", true, &u->gid));
        JSONR_TRY(k = bento_jsonr_u32(r, user, "umask", false, &u->umask));
        u->has_umask = k > 0;
        JSONR_TRY(
            k = bento_jsonr_member(r, user, "additionalGids", BENTO_JSON_ARRAY, false, &gids));
        if (k > 0 && gids->u.array.n > 0) {
                size_t gmark = bento_jsonr_push_key(r, "additionalGids");

                u->additional_gids = calloc(gids->u.array.n, sizeof(uint32_t));
                if (!u->additional_gids)
                        return bento_err_set(r->err, ENOMEM, "additionalGids");
                for (size_t i = 0; i < gids->u.array.n; i++) {
                        size_t imark = bento_jsonr_push_index(r, i);
                        uint64_t g = 0;

                        JSONR_TRY(
                            bento_jsonr_uint_value(r, gids->u.array.items[i], UINT32_MAX, &g));
                        u->additional_gids[i] = (uint32_t) g;
                        u->n_additional_gids++;
                        bento_jsonr_pop(r, imark);
                }
                bento_jsonr_pop(r, gmark);
        }
        bento_jsonr_pop(r, mark);
        return 0;
}

static int conv_capabilities(struct bento_jsonr *r, const struct bento_json *proc,
                             struct oci_capabilities **ret)
{
        const struct bento_json *caps = NULL;
        struct oci_capabilities *c;
        size_t mark;
        int k = bento_jsonr_member(r, proc, "capabilities", BENTO_JSON_OBJECT, false, &caps);

        if (k <= 0)
                return k;
        c = calloc(1, sizeof(*c));
        if (!c)
                return bento_err_set(r->err, ENOMEM, "capabilities");
        *ret = c;
        mark = bento_jsonr_push_key(r, "capabilities");
        for (int s = 0; s < _OCI_CAP_SET_MAX; s++) {
                JSONR_TRY(k = bento_jsonr_strv(r, caps, cap_set_names[s], &c->set[s], &c->n[s]));
                c->present[s] = k > 0;
        }
        bento_jsonr_pop(r, mark);
        return 1;
}

static int conv_rlimit(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_rlimit *rl = elem;

        JSONR_TRY(bento_jsonr_string(r, item, "type", true, &rl->type));
        rl->resource = oci_rlimit_from_string(rl->type);
        if (rl->resource < 0) {
                bento_jsonr_push_key(r, "type");
                return bento_jsonr_fail(r, "unknown rlimit \"%.64s\"", rl->type);
        }
        JSONR_TRY(bento_jsonr_uint(r, item, "soft", true, UINT64_MAX, &rl->soft));
        JSONR_TRY(bento_jsonr_uint(r, item, "hard", true, UINT64_MAX, &rl->hard));
        /* setrlimit() refuses this; say so now, with the path. */
        if (rl->soft > rl->hard)
                return bento_jsonr_fail(r, "soft limit %" PRIu64 " is above hard limit %" PRIu64,
                                        rl->soft, rl->hard);
        return 0;
}

static int conv_rlimits(struct bento_jsonr *r, const struct bento_json *proc, struct oci_process *p)
{
        JSONR_TRY(bento_jsonr_objects(r, proc, "rlimits", sizeof(struct oci_rlimit),
                                      (void **) &p->rlimits, &p->n_rlimits, conv_rlimit));
        for (size_t i = 1; i < p->n_rlimits; i++)
                for (size_t j = 0; j < i; j++) {
                        if (p->rlimits[i].resource != p->rlimits[j].resource)
                                continue;
                        bento_jsonr_push_key(r, "rlimits");
                        bento_jsonr_push_index(r, i);
                        bento_jsonr_push_key(r, "type");
                        return bento_jsonr_fail(r, "duplicate rlimit \"%s\" (also rlimits[%zu])",
                                                p->rlimits[i].type, j);
                }
        return 0;
}

static int conv_console_size(struct bento_jsonr *r, const struct bento_json *proc,
                             struct oci_process *p)
{
        const struct bento_json *cs = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, proc, "consoleSize", BENTO_JSON_OBJECT, false, &cs);

        if (k <= 0)
                return k;
        mark = bento_jsonr_push_key(r, "consoleSize");
        JSONR_TRY(bento_jsonr_u32(r, cs, "height", true, &p->console_height));
        JSONR_TRY(bento_jsonr_u32(r, cs, "width", true, &p->console_width));
        bento_jsonr_pop(r, mark);
        p->has_console_size = true;
        return 1;
}

static int conv_process_misc(struct bento_jsonr *r, const struct bento_json *proc,
                             struct oci_process *p)
{
        int64_t adj = 0;
        int k;

        JSONR_TRY(bento_jsonr_bool(r, proc, "terminal", &p->terminal));
        JSONR_TRY(bento_jsonr_bool(r, proc, "noNewPrivileges", &p->no_new_privileges));
        JSONR_TRY(k = bento_jsonr_int(r, proc, "oomScoreAdj", false, INT32_MIN, INT32_MAX, &adj));
        if (k > 0 && (adj < -1000 || adj > 1000)) {
                bento_jsonr_push_key(r, "oomScoreAdj");
                return bento_jsonr_fail(r, "must be between -1000 and 1000, got %" PRId64, adj);
        }
        p->has_oom_score_adj = k > 0;
        p->oom_score_adj = (int) adj;
        JSONR_TRY(bento_jsonr_string(r, proc, "apparmorProfile", false, &p->apparmor_profile));
        JSONR_TRY(bento_jsonr_string(r, proc, "selinuxLabel", false, &p->selinux_label));
        JSONR_TRY(bento_jsonr_raw_object(r, proc, "landlock", &p->landlock));
        return 0;
}

/* A process object at the reader's current path: config.json's "process"
 * member, or the whole document of `exec --process`. */
static int conv_process_object(struct bento_jsonr *r, const struct bento_json *proc,
                               struct oci_process **ret)
{
        struct oci_process *p;
        int k;

        p = calloc(1, sizeof(*p));
        if (!p)
                return bento_err_set(r->err, ENOMEM, "process");
        *ret = p;
        JSONR_TRY(conv_user(r, proc, &p->user));
        JSONR_TRY(k = bento_jsonr_strv(r, proc, "args", &p->args, &p->n_args));
        if (k == 0 || p->n_args == 0) {
                bento_jsonr_push_key(r, "args");
                return bento_jsonr_fail(r, k == 0 ? "required property is missing"
                                                  : "must have at least one entry");
        }
        JSONR_TRY(bento_jsonr_strv(r, proc, "env", &p->env, &p->n_env));
        JSONR_TRY(bento_jsonr_abs_path(r, proc, "cwd", true, &p->cwd));
        JSONR_TRY(conv_console_size(r, proc, p));
        JSONR_TRY(conv_capabilities(r, proc, &p->capabilities));
        JSONR_TRY(conv_rlimits(r, proc, p));
        JSONR_TRY(conv_process_misc(r, proc, p));
        JSONR_TRY(oci_conv_process_attrs(r, proc, p));
        return 1;
}

static int conv_process(struct bento_jsonr *r, const struct bento_json *doc,
                        struct oci_process **ret)
{
        const struct bento_json *proc = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, doc, "process", BENTO_JSON_OBJECT, false, &proc);

        if (k <= 0)
                return k;
        mark = bento_jsonr_push_key(r, "process");
        JSONR_TRY(conv_process_object(r, proc, ret));
        bento_jsonr_pop(r, mark);
        return 1;
}

/* ---- root, mounts, hooks ---------------------------------------------------- */

static int conv_root(struct bento_jsonr *r, const struct bento_json *doc, struct oci_root *root)
{
        const struct bento_json *obj = NULL;
        size_t mark;

        /* Optional in runtime-spec in general, but a Linux container needs one. */
        JSONR_TRY(bento_jsonr_member(r, doc, "root", BENTO_JSON_OBJECT, true, &obj));
        mark = bento_jsonr_push_key(r, "root");
        JSONR_TRY(bento_jsonr_string(r, obj, "path", true, &root->path));
        if (root->path[0] == '\0') {
                bento_jsonr_push_key(r, "path");
                return bento_jsonr_fail(r, "must not be empty");
        }
        JSONR_TRY(bento_jsonr_bool(r, obj, "readonly", &root->readonly));
        bento_jsonr_pop(r, mark);
        return 0;
}

static int conv_mount(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_mount *m = elem;

        /* Relative destinations are deprecated but allowed (against "/"). */
        JSONR_TRY(bento_jsonr_string(r, item, "destination", true, &m->destination));
        if (m->destination[0] == '\0') {
                bento_jsonr_push_key(r, "destination");
                return bento_jsonr_fail(r, "must not be empty");
        }
        JSONR_TRY(bento_jsonr_string(r, item, "source", false, &m->source));
        JSONR_TRY(bento_jsonr_string(r, item, "type", false, &m->type));
        JSONR_TRY(bento_jsonr_strv(r, item, "options", &m->options, &m->n_options));
        JSONR_TRY(bento_jsonr_objects(r, item, "uidMappings", sizeof(struct oci_id_mapping),
                                      (void **) &m->uid_mappings, &m->n_uid_mappings,
                                      oci_conv_mapping));
        JSONR_TRY(bento_jsonr_objects(r, item, "gidMappings", sizeof(struct oci_id_mapping),
                                      (void **) &m->gid_mappings, &m->n_gid_mappings,
                                      oci_conv_mapping));
        return 0;
}

static int conv_hook(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_hook *h = elem;
        int64_t timeout = 0;
        int k;

        JSONR_TRY(bento_jsonr_abs_path(r, item, "path", true, &h->path));
        JSONR_TRY(bento_jsonr_strv(r, item, "args", &h->args, &h->n_args));
        JSONR_TRY(k = bento_jsonr_strv(r, item, "env", &h->env, &h->n_env));
        h->has_env = k > 0;
        JSONR_TRY(k = bento_jsonr_int(r, item, "timeout", false, INT32_MIN, INT32_MAX, &timeout));
        if (k > 0 && timeout <= 0) {
                bento_jsonr_push_key(r, "timeout");
                return bento_jsonr_fail(r, "must be greater than zero, got %" PRId64, timeout);
        }
        h->has_timeout = k > 0;
        h->timeout = (int) timeout;
        return 0;
}

static int conv_hooks(struct bento_jsonr *r, const struct bento_json *doc, struct oci_config *cfg)
{
        const struct bento_json *hooks = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, doc, "hooks", BENTO_JSON_OBJECT, false, &hooks);

        if (k <= 0)
                return k;
        mark = bento_jsonr_push_key(r, "hooks");
        for (int h = 0; h < _OCI_HOOK_KIND_MAX; h++)
                JSONR_TRY(bento_jsonr_objects(r, hooks, hook_names[h], sizeof(struct oci_hook),
                                              (void **) &cfg->hooks[h], &cfg->n_hooks[h],
                                              conv_hook));
        bento_jsonr_pop(r, mark);
        return 1;
}

/* ---- the document ------------------------------------------------------------ */

static int conv_config(struct bento_jsonr *r, const struct bento_json *doc, struct oci_config *cfg)
{
        JSONR_TRY(bento_jsonr_string(r, doc, "ociVersion", true, &cfg->oci_version));
        if (cfg->oci_version[0] == '\0') {
                bento_jsonr_push_key(r, "ociVersion");
                return bento_jsonr_fail(r, "must not be empty");
        }
        JSONR_TRY(conv_root(r, doc, &cfg->root));
        JSONR_TRY(conv_process(r, doc, &cfg->process));
        JSONR_TRY(bento_jsonr_string(r, doc, "hostname", false, &cfg->hostname));
        JSONR_TRY(bento_jsonr_string(r, doc, "domainname", false, &cfg->domainname));
        JSONR_TRY(bento_jsonr_objects(r, doc, "mounts", sizeof(struct oci_mount),
                                      (void **) &cfg->mounts, &cfg->n_mounts, conv_mount));
        JSONR_TRY(conv_hooks(r, doc, cfg));
        JSONR_TRY(oci_conv_kv(r, doc, "annotations", &cfg->annotations, &cfg->n_annotations));
        JSONR_TRY(oci_conv_linux(r, doc, cfg));
        return oci_note_unmodelled(r, doc, cfg);
}

int oci_config_parse(const char *data, size_t len, struct oci_config **ret, struct bento_err *err)
{
        cleanup_bento_json struct bento_json *doc = NULL;
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct bento_jsonr r;

        JSONR_TRY(bento_json_parse(data, len, OCI_CONFIG_MAX_BYTES, &doc, err));
        if (doc->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL,
                                      "expected a JSON object at the top level, got %s",
                                      bento_json_type_name(doc->type));
        cfg = calloc(1, sizeof(*cfg));
        if (!cfg)
                return bento_err_set(err, ENOMEM, "config");
        bento_jsonr_init(&r, err);
        JSONR_TRY(conv_config(&r, doc, cfg));
        *ret = TAKE_PTR(cfg);
        return 0;
}

int oci_process_parse(const char *data, size_t len, struct oci_process **ret, struct bento_err *err)
{
        cleanup_bento_json struct bento_json *doc = NULL;
        cleanup_oci_process struct oci_process *p = NULL;
        struct bento_jsonr r;

        JSONR_TRY(bento_json_parse(data, len, OCI_CONFIG_MAX_BYTES, &doc, err));
        if (doc->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL,
                                      "expected a JSON object at the top level, got %s",
                                      bento_json_type_name(doc->type));
        bento_jsonr_init(&r, err);
        JSONR_TRY(conv_process_object(&r, doc, &p));
        *ret = TAKE_PTR(p);
        return 0;
}

int oci_config_load(const char *path, struct oci_config **ret, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        JSONR_TRY(bento_read_file(path, OCI_CONFIG_MAX_BYTES, &data, &len, err));
        r = oci_config_parse(data, len, ret, err);
        if (r < 0)
                return bento_err_prefix(err, "%s", path);
        return 0;
}

const char *oci_config_annotation(const struct oci_config *cfg, const char *key)
{
        /* Linear: models built in code need not be sorted. */
        for (size_t i = 0; cfg && i < cfg->n_annotations; i++)
                if (cfg->annotations[i].key && strcmp(cfg->annotations[i].key, key) == 0)
                        return cfg->annotations[i].value;
        return NULL;
}

const struct oci_namespace *oci_config_namespace(const struct oci_config *cfg,
                                                 enum oci_ns_type type)
{
        for (size_t i = 0; cfg && i < cfg->linux_.n_namespaces; i++)
                if (cfg->linux_.namespaces[i].type == type)
                        return &cfg->linux_.namespaces[i];
        return NULL;
}
