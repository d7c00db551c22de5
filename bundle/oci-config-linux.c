/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "linux" section of config.json → struct oci_linux, and the RLIMIT_*
 * name table.  Split from oci-config.c only to keep files short; the rules
 * are the same (see there and oci-config.h).
 */
#include "oci-config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci-config-internal.h"

static const struct {
        const char *name;
        int resource;
} rlimits[] = {
    {"RLIMIT_CPU", RLIMIT_CPU},           {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_DATA", RLIMIT_DATA},         {"RLIMIT_STACK", RLIMIT_STACK},
    {"RLIMIT_CORE", RLIMIT_CORE},         {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_NPROC", RLIMIT_NPROC},       {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},   {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},       {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},     {"RLIMIT_RTTIME", RLIMIT_RTTIME},
};

int oci_rlimit_from_string(const char *name)
{
        for (size_t i = 0; name && i < sizeof(rlimits) / sizeof(rlimits[0]); i++)
                if (strcmp(name, rlimits[i].name) == 0)
                        return rlimits[i].resource;
        return -1;
}

const char *oci_rlimit_to_string(int resource)
{
        for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++)
                if (rlimits[i].resource == resource)
                        return rlimits[i].name;
        return NULL;
}

static int conv_namespace(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_namespace *ns = elem;
        char *type = NULL;
        int t;

        JSONR_TRY(bento_jsonr_string(r, item, "type", true, &type));
        t = oci_ns_type_from_string(type);
        if (t < 0) {
                bento_jsonr_push_key(r, "type");
                bento_jsonr_fail(r, "unknown namespace type \"%.64s\"", type);
                free(type);
                return -EINVAL;
        }
        free(type);
        ns->type = (enum oci_ns_type) t;
        /* runtime-spec: an absolute path in the runtime's mount namespace. */
        return bento_jsonr_abs_path(r, item, "path", false, &ns->path);
}

static int conv_namespaces(struct bento_jsonr *r, const struct bento_json *lnx, struct oci_linux *l)
{
        JSONR_TRY(bento_jsonr_objects(r, lnx, "namespaces", sizeof(struct oci_namespace),
                                      (void **) &l->namespaces, &l->n_namespaces, conv_namespace));
        for (size_t i = 1; i < l->n_namespaces; i++)
                for (size_t j = 0; j < i; j++) {
                        if (l->namespaces[i].type != l->namespaces[j].type)
                                continue;
                        bento_jsonr_push_key(r, "namespaces");
                        bento_jsonr_push_index(r, i);
                        bento_jsonr_push_key(r, "type");
                        return bento_jsonr_fail(
                            r, "duplicate namespace type \"%s\" (also namespaces[%zu])",
                            oci_ns_type_to_string(l->namespaces[i].type), j);
                }
        return 0;
}

int oci_conv_mapping(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_id_mapping *m = elem;

        JSONR_TRY(bento_jsonr_u32(r, item, "containerID", true, &m->container_id));
        JSONR_TRY(bento_jsonr_u32(r, item, "hostID", true, &m->host_id));
        JSONR_TRY(bento_jsonr_u32(r, item, "size", true, &m->size));
        /* The kernel refuses empty ranges and ranges that wrap around. */
        if (m->size == 0) {
                bento_jsonr_push_key(r, "size");
                return bento_jsonr_fail(r, "must be greater than zero");
        }
        if ((uint64_t) m->container_id + m->size - 1 > UINT32_MAX ||
            (uint64_t) m->host_id + m->size - 1 > UINT32_MAX)
                return bento_jsonr_fail(r,
                                        "range of %" PRIu32 " ids starting at %" PRIu32
                                        " -> %" PRIu32 " goes past 4294967295",
                                        m->size, m->container_id, m->host_id);
        return 0;
}

/* major or minor of a device: required for c, b and u; absent is -1. */
static int conv_devnum(struct bento_jsonr *r, const struct bento_json *item, const char *key,
                       char type, int64_t *ret)
{
        uint32_t v = 0;
        int k;

        if (type != 'p' && !bento_jsonr_get(item, key)) {
                bento_jsonr_push_key(r, key);
                return bento_jsonr_fail(r, "required property is missing (for type \"%c\")", type);
        }
        JSONR_TRY(k = bento_jsonr_u32(r, item, key, false, &v));
        *ret = k > 0 ? (int64_t) v : -1;
        return 0;
}

static int conv_device(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct oci_device *d = elem;
        char *type = NULL;
        int k;

        JSONR_TRY(bento_jsonr_string(r, item, "type", true, &type));
        if (strlen(type) != 1 || !strchr("cbup", type[0])) {
                bento_jsonr_push_key(r, "type");
                bento_jsonr_fail(r, "expected one of \"c\", \"b\", \"u\", \"p\", got \"%.32s\"",
                                 type);
                free(type);
                return -EINVAL;
        }
        d->type = type[0];
        free(type);
        JSONR_TRY(bento_jsonr_abs_path(r, item, "path", true, &d->path));
        JSONR_TRY(conv_devnum(r, item, "major", d->type, &d->major));
        JSONR_TRY(conv_devnum(r, item, "minor", d->type, &d->minor));
        JSONR_TRY(k = bento_jsonr_u32(r, item, "fileMode", false, &d->file_mode));
        d->has_file_mode = k > 0;
        JSONR_TRY(k = bento_jsonr_u32(r, item, "uid", false, &d->uid));
        d->has_uid = k > 0;
        JSONR_TRY(k = bento_jsonr_u32(r, item, "gid", false, &d->gid));
        d->has_gid = k > 0;
        return 0;
}

static int conv_propagation(struct bento_jsonr *r, const struct bento_json *lnx,
                            struct oci_linux *l)
{
        static const char *const allowed[] = {"shared",  "slave",  "private",  "unbindable",
                                              "rshared", "rslave", "rprivate", "runbindable"};
        int k = bento_jsonr_string(r, lnx, "rootfsPropagation", false, &l->rootfs_propagation);

        if (k <= 0)
                return k;
        for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
                if (strcmp(l->rootfs_propagation, allowed[i]) == 0)
                        return 1;
        bento_jsonr_push_key(r, "rootfsPropagation");
        return bento_jsonr_fail(r,
                                "unknown propagation \"%.32s\" (expected shared, slave, "
                                "private or unbindable, or an r- form)",
                                l->rootfs_propagation);
}

/* maskedPaths and readonlyPaths: runtime-spec wants absolute paths. */
static int conv_paths(struct bento_jsonr *r, const struct bento_json *lnx, const char *key,
                      char ***ret, size_t *ret_n)
{
        int k = bento_jsonr_strv(r, lnx, key, ret, ret_n);

        if (k <= 0)
                return k;
        for (size_t i = 0; i < *ret_n; i++) {
                if ((*ret)[i][0] == '/')
                        continue;
                bento_jsonr_push_key(r, key);
                bento_jsonr_push_index(r, i);
                return bento_jsonr_fail(r, "must be an absolute path, got \"%.200s\"", (*ret)[i]);
        }
        return 1;
}

int oci_conv_linux(struct bento_jsonr *r, const struct bento_json *doc, struct oci_config *cfg)
{
        const struct bento_json *lnx = NULL;
        struct oci_linux *l = &cfg->linux_;
        size_t mark;
        int k = bento_jsonr_member(r, doc, "linux", BENTO_JSON_OBJECT, false, &lnx);

        if (k <= 0)
                return k;
        cfg->has_linux = true;
        mark = bento_jsonr_push_key(r, "linux");
        JSONR_TRY(conv_namespaces(r, lnx, l));
        JSONR_TRY(bento_jsonr_objects(r, lnx, "uidMappings", sizeof(struct oci_id_mapping),
                                      (void **) &l->uid_mappings, &l->n_uid_mappings,
                                      oci_conv_mapping));
        JSONR_TRY(bento_jsonr_objects(r, lnx, "gidMappings", sizeof(struct oci_id_mapping),
                                      (void **) &l->gid_mappings, &l->n_gid_mappings,
                                      oci_conv_mapping));
        JSONR_TRY(bento_jsonr_objects(r, lnx, "devices", sizeof(struct oci_device),
                                      (void **) &l->devices, &l->n_devices, conv_device));
        JSONR_TRY(oci_conv_kv(r, lnx, "sysctl", &l->sysctl, &l->n_sysctl));
        JSONR_TRY(bento_jsonr_string(r, lnx, "cgroupsPath", false, &l->cgroups_path));
        JSONR_TRY(conv_propagation(r, lnx, l));
        JSONR_TRY(conv_paths(r, lnx, "maskedPaths", &l->masked_paths, &l->n_masked_paths));
        JSONR_TRY(conv_paths(r, lnx, "readonlyPaths", &l->readonly_paths, &l->n_readonly_paths));
        JSONR_TRY(bento_jsonr_string(r, lnx, "mountLabel", false, &l->mount_label));
        JSONR_TRY(bento_jsonr_raw_object(r, lnx, "resources", &l->resources));
        JSONR_TRY(bento_jsonr_raw_object(r, lnx, "seccomp", &l->seccomp));
        JSONR_TRY(oci_conv_linux_attrs(r, lnx, l));
        bento_jsonr_pop(r, mark);
        return 1;
}
