/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the cgroupfs/systemd drivers land: no cgroup of its
 * own unless asked for, and a clear refusal when asked for. */
#include "cgroup.h"

#include <errno.h>
#include <stdlib.h>

int rt_cgroup_enter(const struct rt_context *ctx, pid_t pid, struct rt_cgroup_info *ret,
                    struct bento_err *err)
{
        const struct bento_json *res = ctx->cfg->linux_.resources;

        (void) pid;
        ret->path = NULL;
        ret->systemd = false;
        ret->applied = NULL;
        if (ctx->systemd_cgroup)
                return bento_err_setx(err, ENOTSUP, "--systemd-cgroup: not supported yet");
        if (ctx->cfg->linux_.cgroups_path)
                return bento_err_setx(err, ENOTSUP, "linux.cgroupsPath: not supported yet");
        if (res && res->type == BENTO_JSON_OBJECT && res->u.object.n > 0)
                return bento_err_setx(err, ENOTSUP,
                                      "linux.resources: cgroup limits are not "
                                      "supported yet; refusing to run without them");
        return 0;
}

void rt_cgroup_info_done(struct rt_cgroup_info *info)
{
        free(info->path);
        info->path = NULL;
        info->applied = bento_json_free(info->applied);
}

int rt_cgroup_remove(const struct bento_record *rec, struct bento_err *err)
{
        (void) rec;
        (void) err;
        return 0;
}

int rt_cgroup_is_frozen(const struct bento_record *rec)
{
        (void) rec;
        return 0;
}

int rt_cgroup_freeze(const struct bento_record *rec, bool freeze, struct bento_err *err)
{
        (void) rec;
        (void) freeze;
        return bento_err_setx(err, ENOTSUP, "the container has no cgroup to freeze");
}

int rt_cgroup_pids(const struct bento_record *rec, pid_t **ret, size_t *ret_n,
                   struct bento_err *err)
{
        (void) rec;
        (void) ret;
        (void) ret_n;
        return bento_err_setx(err, ENOTSUP, "the container has no cgroup");
}

int rt_cgroup_signal_all(const struct bento_record *rec, int sig, struct bento_err *err)
{
        (void) rec;
        (void) sig;
        return bento_err_setx(err, ENOTSUP, "the container has no cgroup");
}

int rt_cgroup_update(const struct bento_record *rec, const struct bento_json *resources,
                     struct bento_json **ret_applied, struct bento_err *err)
{
        (void) rec;
        (void) resources;
        (void) ret_applied;
        return bento_err_setx(err, ENOTSUP, "the container has no cgroup to update");
}

int rt_cgroup_attach(const struct bento_record *rec, pid_t pid, struct bento_err *err)
{
        (void) pid;
        if (rec->cgroup_path)
                return bento_err_setx(err, ENOTSUP, "cgroup attach");
        return 0;
}

long rt_cgroup_oom_kills(const struct bento_record *rec)
{
        (void) rec;
        return 0;
}
