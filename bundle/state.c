/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime's per-container record (state.json) and the OCI state object
 * (state.h).
 *
 * The record is written by the runtime and read back by every later
 * command, so the reader treats it as hostile like config.json: size cap,
 * the JSON-level checks of json.h, every field type-checked with its JSON
 * path in errors, unknown members ignored (so a newer runtime's record
 * still reads).  The writer refuses to write what the reader would refuse.
 */
#include "state.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "jsonr.h"
#include "jsonw.h"
#include "oci-config-internal.h"

static const char *const status_names[_BENTO_STATUS_MAX] = {
    [BENTO_STATUS_CREATING] = "creating", [BENTO_STATUS_CREATED] = "created",
    [BENTO_STATUS_RUNNING] = "running",   [BENTO_STATUS_PAUSED] = "paused",
    [BENTO_STATUS_STOPPED] = "stopped",
};

const char *bento_status_to_string(enum bento_status s)
{
        return (unsigned) s < _BENTO_STATUS_MAX ? status_names[s] : NULL;
}

struct bento_record *bento_record_free(struct bento_record *rec)
{
        if (!rec)
                return NULL;
        free(rec->id);
        free(rec->bundle);
        free(rec->rootfs);
        free(rec->created);
        free(rec->owner);
        free(rec->cgroup_path);
        for (size_t i = 0; rec->namespaces && i < rec->n_namespaces; i++) {
                free(rec->namespaces[i].type);
                free(rec->namespaces[i].path);
        }
        free(rec->namespaces);
        for (size_t i = 0; rec->mounts && i < rec->n_mounts; i++) {
                free(rec->mounts[i].destination);
                free(rec->mounts[i].type);
                free(rec->mounts[i].source);
                free(rec->mounts[i].options);
        }
        free(rec->mounts);
        free(rec->uid_map);
        free(rec->gid_map);
        bento_json_free(rec->extra);
        free(rec);
        return NULL;
}

/* ---- writing -------------------------------------------------------------- */

static void put_namespaces(struct bento_jsonw *w, const struct bento_record *rec)
{
        bento_jsonw_key(w, "namespaces");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < rec->n_namespaces; i++) {
                const struct bento_applied_ns *ns = &rec->namespaces[i];

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "type", ns->type);
                bento_jsonw_kuint(w, "inode", ns->inode);
                bento_jsonw_kbool(w, "joined", ns->joined);
                bento_jsonw_kstring_opt(w, "path", ns->path);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void put_mounts(struct bento_jsonw *w, const struct bento_record *rec)
{
        bento_jsonw_key(w, "mounts");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < rec->n_mounts; i++) {
                const struct bento_applied_mount *m = &rec->mounts[i];

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "destination", m->destination);
                bento_jsonw_kstring_opt(w, "type", m->type);
                bento_jsonw_kstring_opt(w, "source", m->source);
                bento_jsonw_kstring_opt(w, "options", m->options);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

/* Reject what bento_record_parse would reject, before writing anything. */
static int check_record(const struct bento_record *rec, struct bento_err *err)
{
        static const char *const what = "cannot write the state record";

        if (!rec->id || !rec->id[0])
                return bento_err_setx(err, EINVAL, "%s: id is not set", what);
        if (rec->pid < 0)
                return bento_err_setx(err, EINVAL, "%s: pid %d is negative", what, (int) rec->pid);
        if (!rec->bundle || rec->bundle[0] != '/')
                return bento_err_setx(err, EINVAL, "%s: bundle must be an absolute path", what);
        if (!rec->rootfs || rec->rootfs[0] != '/')
                return bento_err_setx(err, EINVAL, "%s: rootfs must be an absolute path", what);
        if (!rec->created || !rec->owner)
                return bento_err_setx(err, EINVAL, "%s: created and owner must be set", what);
        if (rec->extra && rec->extra->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL, "%s: extra must be a JSON object", what);
        return 0;
}

int bento_record_write(const struct bento_record *rec, char **ret_buf, size_t *ret_len,
                       struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        JSONR_TRY(check_record(rec, err));
        if (bento_jsonw_init(&w, true, err) < 0)
                return w.r;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "id", rec->id);
        bento_jsonw_kint(&w, "pid", rec->pid);
        bento_jsonw_kuint(&w, "startTime", rec->start_time);
        bento_jsonw_kstring(&w, "bundle", rec->bundle);
        bento_jsonw_kstring(&w, "rootfs", rec->rootfs);
        bento_jsonw_kstring(&w, "created", rec->created);
        bento_jsonw_kstring(&w, "owner", rec->owner);
        bento_jsonw_kstring_opt(&w, "cgroupPath", rec->cgroup_path);
        bento_jsonw_kbool(&w, "systemdCgroup", rec->systemd_cgroup);
        put_namespaces(&w, rec);
        /* No mounts: they are the container's to read at `state` time. */
        bento_jsonw_kstring_opt(&w, "uidMap", rec->uid_map);
        bento_jsonw_kstring_opt(&w, "gidMap", rec->gid_map);
        bento_jsonw_ktree_opt(&w, "applied", rec->extra);
        if (rec->creating)
                bento_jsonw_kbool(&w, "creating", true);
        bento_jsonw_close_object(&w);
        JSONR_TRY(bento_jsonw_finish(&w, ret_buf, ret_len));
        if (*ret_len > BENTO_STATE_MAX_BYTES) {
                size_t len = *ret_len;

                free(*ret_buf);
                *ret_buf = NULL;
                *ret_len = 0;
                return bento_err_too_big(err, "cannot write the state record: it", len, false,
                                         BENTO_STATE_MAX_BYTES);
        }
        return 0;
}

/* ---- reading -------------------------------------------------------------- */

static int conv_ns(struct bento_jsonr *r, const struct bento_json *item, void *elem)
{
        struct bento_applied_ns *ns = elem;

        JSONR_TRY(bento_jsonr_string(r, item, "type", true, &ns->type));
        JSONR_TRY(bento_jsonr_uint(r, item, "inode", true, UINT64_MAX, &ns->inode));
        JSONR_TRY(bento_jsonr_bool(r, item, "joined", &ns->joined));
        JSONR_TRY(bento_jsonr_string(r, item, "path", false, &ns->path));
        return 0;
}

static int conv_identity(struct bento_jsonr *r, const struct bento_json *doc,
                         struct bento_record *rec)
{
        int64_t pid = 0;

        JSONR_TRY(bento_jsonr_string(r, doc, "id", true, &rec->id));
        if (rec->id[0] == '\0') {
                bento_jsonr_push_key(r, "id");
                return bento_jsonr_fail(r, "must not be empty");
        }
        JSONR_TRY(bento_jsonr_int(r, doc, "pid", true, 0, INT32_MAX, &pid));
        rec->pid = (pid_t) pid;
        JSONR_TRY(bento_jsonr_uint(r, doc, "startTime", true, UINT64_MAX, &rec->start_time));
        JSONR_TRY(bento_jsonr_abs_path(r, doc, "bundle", true, &rec->bundle));
        JSONR_TRY(bento_jsonr_abs_path(r, doc, "rootfs", true, &rec->rootfs));
        JSONR_TRY(bento_jsonr_string(r, doc, "created", true, &rec->created));
        JSONR_TRY(bento_jsonr_string(r, doc, "owner", true, &rec->owner));
        return 0;
}

static int conv_record(struct bento_jsonr *r, const struct bento_json *doc,
                       struct bento_record *rec)
{
        JSONR_TRY(conv_identity(r, doc, rec));
        JSONR_TRY(bento_jsonr_string(r, doc, "cgroupPath", false, &rec->cgroup_path));
        JSONR_TRY(bento_jsonr_bool(r, doc, "systemdCgroup", &rec->systemd_cgroup));
        JSONR_TRY(bento_jsonr_objects(r, doc, "namespaces", sizeof(struct bento_applied_ns),
                                      (void **) &rec->namespaces, &rec->n_namespaces, conv_ns));
        JSONR_TRY(bento_jsonr_string(r, doc, "uidMap", false, &rec->uid_map));
        JSONR_TRY(bento_jsonr_string(r, doc, "gidMap", false, &rec->gid_map));
        JSONR_TRY(bento_jsonr_raw_object(r, doc, "applied", &rec->extra));
        JSONR_TRY(bento_jsonr_bool(r, doc, "creating", &rec->creating));
        return 0;
}

int bento_record_parse(const char *data, size_t len, struct bento_record **ret,
                       struct bento_err *err)
{
        cleanup_bento_json struct bento_json *doc = NULL;
        cleanup_bento_record struct bento_record *rec = NULL;
        struct bento_jsonr r;

        JSONR_TRY(bento_json_parse(data, len, BENTO_STATE_MAX_BYTES, &doc, err));
        if (doc->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL,
                                      "expected a JSON object at the top level, got %s",
                                      bento_json_type_name(doc->type));
        rec = calloc(1, sizeof(*rec));
        if (!rec)
                return bento_err_set(err, ENOMEM, "state record");
        bento_jsonr_init(&r, err);
        JSONR_TRY(conv_record(&r, doc, rec));
        *ret = TAKE_PTR(rec);
        return 0;
}

/* ---- the OCI state object ---------------------------------------------------- */

/* Members of "bento" that the record's own fields produce; rec->extra may
 * not repeat them (a repeated key would make the output unreadable). */
static bool reserved(const char *key)
{
        return strcmp(key, "namespaces") == 0 || strcmp(key, "mounts") == 0 ||
               strcmp(key, "uidMap") == 0 || strcmp(key, "gidMap") == 0;
}

void bento_record_put_applied(struct bento_jsonw *w, const struct bento_record *rec)
{
        const struct bento_json *extra = rec->extra;

        bento_jsonw_key(w, "bento");
        bento_jsonw_open_object(w);
        put_namespaces(w, rec);
        if (rec->n_mounts > 0)
                put_mounts(w, rec);
        bento_jsonw_kstring_opt(w, "uidMap", rec->uid_map);
        bento_jsonw_kstring_opt(w, "gidMap", rec->gid_map);
        if (extra && extra->type != BENTO_JSON_OBJECT)
                bento_jsonw_fail(w, EINVAL, "cannot write state: extra must be a JSON object");
        for (size_t i = 0; extra && extra->type == BENTO_JSON_OBJECT && i < extra->u.object.n;
             i++) {
                if (reserved(extra->u.object.keys[i]))
                        continue;
                bento_jsonw_key(w, extra->u.object.keys[i]);
                bento_jsonw_tree(w, extra->u.object.values[i]);
        }
        bento_jsonw_close_object(w);
}

void bento_oci_state_put(struct bento_jsonw *w, const struct bento_oci_state *st)
{
        const char *status = bento_status_to_string(st->status);

        if (!status) {
                bento_jsonw_fail(w, EINVAL, "cannot write state: invalid status %d",
                                 (int) st->status);
                return;
        }
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "ociVersion", BENTO_OCI_VERSION);
        bento_jsonw_kstring(w, "id", st->id);
        bento_jsonw_kstring(w, "status", status);
        bento_jsonw_kint(w, "pid", st->pid);
        bento_jsonw_kstring(w, "bundle", st->bundle);
        bento_jsonw_kstring_opt(w, "rootfs", st->rootfs);
        bento_jsonw_kstring_opt(w, "created", st->created);
        bento_jsonw_kstring_opt(w, "owner", st->owner);
        /* Always present: engines decode it as a map and hooks expect it. */
        oci_write_kv(w, "annotations", st->cfg ? st->cfg->annotations : NULL,
                     st->cfg ? st->cfg->n_annotations : 0, true);
        if (st->rec)
                bento_record_put_applied(w, st->rec);
        bento_jsonw_close_object(w);
}

int bento_oci_state_write(const struct bento_oci_state *st, bool pretty, char **ret_buf,
                          size_t *ret_len, struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (!bento_status_to_string(st->status))
                return bento_err_setx(err, EINVAL, "cannot write state: invalid status %d",
                                      (int) st->status);
        if (bento_jsonw_init(&w, pretty, err) < 0)
                return w.r;
        bento_oci_state_put(&w, st);
        return bento_jsonw_finish(&w, ret_buf, ret_len);
}
