/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The v1 devices cgroup (see internal.h): the policy runc and crun
 * give a container — deny everything, allow the device nodes every
 * container needs (runtime-spec config-linux.md, "Default Devices") and the ones its config creates
 * — with the config's own rules applied in order on top, so they can narrow the defaults as well as
 * widen them.
 *
 * The kernel lists exceptions in the order they were first added, and
 * tools read devices.list expecting the config's rules first, in config
 * order (runtime-tools' linux_cgroups_devices does).  So the config's rules
 * are written right after everything is denied, and the defaults after
 * them; each default is followed again by the config's rules for the same
 * device, which is all a v1 rule can touch (allow merges into, deny takes
 * from, the exception with the same type and numbers), so the policy is
 * the same as if the defaults had come first.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"

/* One rule; major/minor -1 stands for "*". */
struct dev_rule {
        char type;
        int64_t major, minor;
        const char *access;
};

static const struct dev_rule default_allow[] = {
    {'c', -1, -1, "m"}, {'b', -1, -1, "m"}, {'c', 1, 3, "rwm"},    {'c', 1, 5, "rwm"},
    {'c', 1, 7, "rwm"}, {'c', 1, 8, "rwm"}, {'c', 1, 9, "rwm"},    {'c', 5, 0, "rwm"},
    {'c', 5, 1, "rwm"}, {'c', 5, 2, "rwm"}, {'c', 136, -1, "rwm"}, {'c', 10, 200, "rwm"},
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

/* One (validated) OCI rule; type "a" when it has none. */
static struct dev_rule rule_of(const struct bento_json *rule)
{
        const struct bento_json *type = bento_json_get(rule, "type");
        const struct bento_json *access = bento_json_get(rule, "access");

        return (struct dev_rule){
            .type = type && type->type == BENTO_JSON_STRING ? type->u.string.s[0] : 'a',
            .major = id_of(rule, "major"),
            .minor = id_of(rule, "minor"),
            .access = access && access->type == BENTO_JSON_STRING ? access->u.string.s : "rwm"};
}

static int write_rule(struct dev_files *f, bool allow, const struct dev_rule *d,
                      struct bento_err *err)
{
        char maj[24], min[24], line[96];

        fmt_id(d->major, maj, sizeof(maj));
        fmt_id(d->minor, min, sizeof(min));
        snprintf(line, sizeof(line), "%c %s:%s %s", d->type, maj, min, d->access);
        return dev_write(f, allow, line, err);
}

static bool same_device(const struct dev_rule *a, const struct dev_rule *b)
{
        return a->type == b->type && a->major == b->major && a->minor == b->minor;
}

/* Allow d, then replay the config's rules from `from` on that touch d's
 * exception, in their order. */
static int allow_default(struct dev_files *f, const struct dev_rule *d,
                         const struct bento_json *rules, size_t from, struct bento_err *err)
{
        int r = write_rule(f, true, d, err);

        for (size_t i = from; r >= 0 && rules && i < rules->u.array.n; i++) {
                const struct bento_json *rule = rules->u.array.items[i];
                struct dev_rule c = rule_of(rule);

                if (same_device(&c, d))
                        r = write_rule(f, bento_json_get(rule, "allow")->u.boolean, &c, err);
        }
        return r;
}

/* The defaults and the nodes of linux.devices, after the config's rules
 * (the rules from `from` on are the ones after its last "a" rule). */
static int allow_defaults(struct dev_files *f, const struct oci_config *cfg,
                          const struct bento_json *rules, size_t from, struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < sizeof(default_allow) / sizeof(default_allow[0]); i++)
                r = allow_default(f, &default_allow[i], rules, from, err);
        for (size_t i = 0; r >= 0 && cfg && i < cfg->linux_.n_devices; i++) {
                const struct oci_device *d = &cfg->linux_.devices[i];
                struct dev_rule n = {d->type == 'b' ? 'b' : 'c', d->major, d->minor, "rwm"};

                if (d->type == 'p')
                        continue;
                r = allow_default(f, &n, rules, from, err);
                if (r < 0)
                        return bento_err_prefix(err, "linux.devices[%zu]", i);
        }
        return r;
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

int cg_devices_apply(const struct cg_hier *h, const struct oci_config *cfg,
                     const struct bento_json *rules, struct bento_err *err)
{
        struct dev_files f = {.h = h, .fd = {-1, -1}};
        bool want_all = false;
        size_t from = 0;
        int r;

        r = dev_write(&f, false, "a", err);
        /* the config's rules in their order; "a" ones reset what came before */
        for (size_t i = 0; r >= 0 && rules && i < rules->u.array.n; i++) {
                const struct bento_json *rule = rules->u.array.items[i];
                bool allow = bento_json_get(rule, "allow")->u.boolean;
                struct dev_rule d = rule_of(rule);

                r = d.type == 'a' ? dev_write(&f, allow, "a", err) : write_rule(&f, allow, &d, err);
                if (r < 0) {
                        dev_files_close(&f);
                        return bento_err_prefix(err, "linux.resources.devices[%zu]", i);
                }
                if (d.type == 'a') {
                        want_all = allow;
                        from = i + 1;
                }
        }
        /* everything allowed leaves nothing for the defaults to add */
        if (r >= 0 && !want_all)
                r = allow_defaults(&f, cfg, rules, from, err);
        dev_files_close(&f);
        if (r < 0)
                return bento_err_prefix(err, "devices cgroup");
        return check_default(h, want_all, err);
}
