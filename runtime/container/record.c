/* SPDX-License-Identifier: Apache-2.0 */
/* The state record of a new container, read back from /proc (see record.h). */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "passwd.h"
#include "utc.h"
#include "process/landlock.h"
#include "notify.h"
#include "mount/shared-root.h"
#include "base/proc.h"
#include "seccomp/seccomp.h"

static char *now_rfc3339(void)
{
        struct timespec ts;
        char buf[BENTO_UTC_MAX];
        char *out = NULL;

        clock_gettime(CLOCK_REALTIME, &ts);
        bento_utc_format(ts.tv_sec, buf);
        if (asprintf(&out, "%s.%09ldZ", buf, ts.tv_nsec) < 0)
                return NULL;
        return out;
}

/* The caller's user name from the host's /etc/passwd (the number when it
 * has none), read by hand as runc does: NSS would load modules into a
 * runtime that has libc inside it (bundle/passwd.h). */
static char *owner_name(void)
{
        cleanup_free char *data = bento_passwd_read();
        const char *name = data ? bento_passwd_name(data, geteuid()) : NULL;
        char *out = NULL;

        if (name)
                return strdup(name);
        if (asprintf(&out, "%u", (unsigned) geteuid()) < 0)
                return NULL;
        return out;
}

static int add_namespaces(const struct rt_context *ctx, pid_t pid, struct bento_record *rec)
{
        const struct oci_config *cfg = ctx->cfg;

        rec->namespaces = calloc(cfg->linux_.n_namespaces + 1, sizeof(*rec->namespaces));
        if (!rec->namespaces)
                return -ENOMEM;
        for (size_t i = 0; i < cfg->linux_.n_namespaces; i++) {
                const struct oci_namespace *ns = &cfg->linux_.namespaces[i];
                struct bento_applied_ns *a = &rec->namespaces[rec->n_namespaces++];

                a->type = strdup(oci_ns_type_to_string(ns->type));
                a->inode = rt_proc_ns_inode(pid, rt_ns_proc_name(ns->type));
                a->joined = ns->path && ns->path[0];
                a->path = a->joined ? strdup(ns->path) : NULL;
                if (!a->type || (a->joined && !a->path))
                        return -ENOMEM;
        }
        return 0;
}

static char *read_map(pid_t pid, const char *name)
{
        char path[64];
        char *data = NULL;
        size_t len = 0;
        struct bento_err ignored;

        snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, name);
        if (bento_read_file(path, 65536, &data, &len, &ignored) < 0)
                return NULL;
        return data;
}

/* Facts beyond namespaces and mounts: cgroup limits as read back, the
 * seccomp filter installed, the Landlock ABI used. */
static struct bento_json *applied_facts(const struct rt_context *ctx,
                                        const struct rt_cgroup_info *cgroup)
{
        struct bento_json *obj = bento_json_new_object();
        int r = obj ? 0 : -ENOMEM;

        if (r >= 0 && cgroup && cgroup->applied)
                r = bento_json_object_set(obj, "cgroup", bento_json_dup(cgroup->applied));
        if (r >= 0 && ctx->seccomp)
                r = bento_json_object_set(obj, "seccomp", rt_seccomp_describe(ctx->seccomp));
        if (r >= 0)
                r = bento_json_object_set(obj, "landlock",
                                          rt_landlock_describe(ctx->cfg->process->landlock));
        if (r >= 0 && ctx->notify && ctx->notify->inner)
                r = bento_json_object_set(obj, "notify", rt_notify_describe(ctx->notify));
        if (r >= 0 && ctx->shared_root && ctx->shared_root->mnt_id)
                r = bento_json_object_set(obj, "sharedRoot",
                                          rt_shared_root_describe(ctx->shared_root));
        if (r < 0)
                return bento_json_free(obj);
        return obj;
}

int rt_record_start(const struct rt_context *ctx, struct bento_record **ret, struct bento_err *err)
{
        struct bento_record *rec = calloc(1, sizeof(*rec));

        if (!rec)
                return bento_err_set(err, ENOMEM, "state record");
        rec->id = strdup(ctx->id);
        rec->bundle = strdup(ctx->bundle);
        rec->rootfs = strdup(ctx->rootfs);
        rec->created = now_rfc3339();
        rec->owner = owner_name();
        if (!rec->id || !rec->bundle || !rec->rootfs || !rec->created || !rec->owner) {
                bento_record_free(rec);
                return bento_err_set(err, ENOMEM, "state record");
        }
        *ret = rec;
        return 0;
}

int rt_record_intend_cgroup(struct bento_record *rec, const struct bento_json *cgroup,
                            const char *primary, struct bento_err *err)
{
        free(rec->cgroup_path);
        bento_json_free(rec->extra);
        rec->creating = true;
        rec->cgroup_path = strdup(primary);
        rec->extra = bento_json_new_object();
        if (!rec->cgroup_path || !rec->extra ||
            bento_json_object_set(rec->extra, "cgroup", bento_json_dup(cgroup)) < 0)
                return bento_err_set(err, ENOMEM, "state record");
        return 0;
}

int rt_record_intend_shared_root(struct bento_record *rec, const struct bento_json *desc,
                                 struct bento_err *err)
{
        rec->creating = true;
        if (!rec->extra)
                rec->extra = bento_json_new_object();
        if (!rec->extra ||
            bento_json_object_set(rec->extra, "sharedRoot", bento_json_dup(desc)) < 0)
                return bento_err_set(err, ENOMEM, "state record");
        return 0;
}

int rt_record_intend_pid(const struct rt_context *ctx, pid_t pid, struct bento_record *rec,
                         struct bento_err *err)
{
        struct bento_applied_ns *ns;

        rec->creating = true;
        rec->pid = pid;
        if (rt_proc_stat(pid, &rec->start_time, NULL) < 0)
                return bento_err_setx(err, ESRCH, "the container process exited during setup");
        if (!ctx->new_ns[OCI_NS_PID] || rec->n_namespaces)
                return 0;
        /* made by the clone itself (never deferred to the init) */
        ns = calloc(1, sizeof(*ns));
        if (!ns || !(ns->type = strdup("pid"))) {
                free(ns);
                return bento_err_set(err, ENOMEM, "state record");
        }
        ns->inode = rt_proc_ns_inode(pid, "pid");
        rec->namespaces = ns;
        rec->n_namespaces = 1;
        return 0;
}

/* What an intent record held, replaced by what the kernel reports. */
static void drop_intent(struct bento_record *rec)
{
        for (size_t i = 0; i < rec->n_namespaces; i++) {
                free(rec->namespaces[i].type);
                free(rec->namespaces[i].path);
        }
        free(rec->namespaces);
        rec->namespaces = NULL;
        rec->n_namespaces = 0;
        free(rec->cgroup_path);
        rec->cgroup_path = NULL;
        rec->extra = bento_json_free(rec->extra);
        rec->creating = false;
}

int rt_record_finish(const struct rt_context *ctx, pid_t pid, const struct rt_cgroup_info *cgroup,
                     struct bento_record *rec, struct bento_err *err)
{
        int r;

        drop_intent(rec);
        rec->pid = pid;
        r = rt_proc_stat(pid, &rec->start_time, NULL);
        if (r < 0)
                return bento_err_setx(err, ESRCH, "the container process exited during setup");
        if (add_namespaces(ctx, pid, rec) < 0)
                return bento_err_set(err, ENOMEM, "state record");
        if (ctx->has_ns[OCI_NS_USER]) {
                rec->uid_map = read_map(pid, "uid_map");
                rec->gid_map = read_map(pid, "gid_map");
        }
        if (cgroup && cgroup->path) {
                rec->cgroup_path = strdup(cgroup->path);
                rec->systemd_cgroup = cgroup->systemd;
                if (!rec->cgroup_path)
                        return bento_err_set(err, ENOMEM, "state record");
        }
        rec->extra = applied_facts(ctx, cgroup);
        if (!rec->extra)
                return bento_err_set(err, ENOMEM, "state record");
        return 0;
}
