/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The v1 devices cgroup (see cgroup-internal.h): the policy runc and crun
 * give a container — deny everything, allow the device nodes every
 * container needs (oci.md §2.6) and the ones its config creates — with the
 * config's own rules applied in order on top, so they can narrow the
 * defaults as well as widen them.
 */
#include "cgroup-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"

static const char *const default_allow[] = {
    "c *:* m",   "b *:* m",   "c 1:3 rwm", "c 1:5 rwm", "c 1:7 rwm",   "c 1:8 rwm",
    "c 1:9 rwm", "c 5:0 rwm", "c 5:1 rwm", "c 5:2 rwm", "c 136:* rwm", "c 10:200 rwm",
};

/* devices.allow and devices.deny, each opened once: v1 takes one rule per
 * write(), and the policy is a dozen rules or more. */
struct dev_files {
        const struct cg_hier *h;
        int fd[2]; /* deny, allow; -1 until first used */
};

static void dev_files_close(struct dev_files *f)
{
        for (int i = 0; i < 2; i++)
                if (f->fd[i] >= 0)
                        close(f->fd[i]);
}

static int dev_write(struct dev_files *f, bool allow, const char *line, struct bento_err *err)
{
        const char *name = allow ? "devices.allow" : "devices.deny";
        size_t len = strlen(line);

        if (f->fd[allow] < 0) {
                cleanup_free char *path = cg_file(f->h, name);

                if (!path)
                        return bento_err_set(err, ENOMEM, "cgroup file");
                f->fd[allow] = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
                if (f->fd[allow] < 0)
                        return bento_err_set(err, errno, "cannot open %s", path);
        }
        if (write(f->fd[allow], line, len) != (ssize_t) len) {
                int e = errno ? errno : EIO;
                cleanup_free char *path = cg_file(f->h, name);

                return bento_err_set(err, e, "cannot write '%s' to %s", line, path ? path : name);
        }
        return 0;
}

static void fmt_id(int64_t v, char *buf, size_t size)
{
        if (v < 0)
                snprintf(buf, size, "*");
        else
                snprintf(buf, size, "%" PRId64, v);
}

static int64_t id_of(const struct bento_json *rule, const char *key)
{
        const struct bento_json *v = bento_json_get(rule, key);

        return v && v->type == BENTO_JSON_NUMBER && v->u.number.fits_i64 ? v->u.number.i : -1;
}

/* One OCI rule as a devices.allow/deny line; *ret_all when it is type "a". */
static void rule_line(const struct bento_json *rule, char *buf, size_t size, bool *ret_all)
{
        const struct bento_json *type = bento_json_get(rule, "type");
        const struct bento_json *access = bento_json_get(rule, "access");
        char t = type && type->type == BENTO_JSON_STRING ? type->u.string.s[0] : 'a';
        char maj[24], min[24];

        fmt_id(id_of(rule, "major"), maj, sizeof(maj));
        fmt_id(id_of(rule, "minor"), min, sizeof(min));
        *ret_all = t == 'a';
        snprintf(buf, size, "%c %s:%s %s", t, maj, min,
                 access && access->type == BENTO_JSON_STRING ? access->u.string.s : "rwm");
}

static int allow_config_devices(struct dev_files *f, const struct oci_config *cfg,
                                struct bento_err *err)
{
        for (size_t i = 0; cfg && i < cfg->linux_.n_devices; i++) {
                const struct oci_device *d = &cfg->linux_.devices[i];
                char line[64];
                int r;

                if (d->type == 'p')
                        continue;
                snprintf(line, sizeof(line), "%c %" PRId64 ":%" PRId64 " rwm",
                         d->type == 'b' ? 'b' : 'c', d->major, d->minor);
                r = dev_write(f, true, line, err);
                if (r < 0)
                        return bento_err_prefix(err, "linux.devices[%zu]", i);
        }
        return 0;
}

/* The kernel shows "a *:* rwm" exactly when everything is allowed. */
static int check_default(const struct cg_hier *h, bool want_all, struct bento_err *err)
{
        char buf[8192];
        bool all;
        int r = cg_read(h, "devices.list", buf, sizeof(buf));

        if (r < 0)
                return bento_err_set(err, -r, "cannot read back devices.list");
        all = strncmp(buf, "a *:* rwm", 9) == 0 || strstr(buf, "\na *:* rwm");
        if (all == want_all)
                return 0;
        return bento_err_setx(err, ERANGE,
                              "linux.resources devices: the devices cgroup %s%s %s every device "
                              "although the rules say otherwise",
                              h->mnt, h->path, all ? "allows" : "denies");
}

/* Writing "a" to devices.deny drops every exception: the defaults are
 * given back after it, so rules that follow can still narrow them. */
static int allow_defaults(struct dev_files *f, const struct oci_config *cfg, struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < sizeof(default_allow) / sizeof(default_allow[0]); i++)
                r = dev_write(f, true, default_allow[i], err);
        return r < 0 ? r : allow_config_devices(f, cfg, err);
}

int cg_devices_apply(const struct cg_hier *h, const struct oci_config *cfg,
                     const struct bento_json *rules, struct bento_err *err)
{
        struct dev_files f = {.h = h, .fd = {-1, -1}};
        bool want_all = false;
        int r;

        r = dev_write(&f, false, "a", err);
        if (r >= 0)
                r = allow_defaults(&f, cfg, err);
        for (size_t i = 0; r >= 0 && rules && i < rules->u.array.n; i++) {
                const struct bento_json *rule = rules->u.array.items[i];
                bool allow = bento_json_get(rule, "allow")->u.boolean;
                bool all;
                char line[96];

                rule_line(rule, line, sizeof(line), &all);
                r = dev_write(&f, allow, line, err);
                if (r < 0) {
                        dev_files_close(&f);
                        return bento_err_prefix(err, "linux.resources.devices[%zu]", i);
                }
                if (all)
                        want_all = allow;
                if (all && !allow)
                        r = allow_defaults(&f, cfg, err);
        }
        dev_files_close(&f);
        if (r < 0)
                return bento_err_prefix(err, "devices cgroup");
        return check_default(h, want_all, err);
}
