/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Table-driven translation of OCI mount options (see options.h).  The
 * names follow runtime-spec config.md and mount(8); the recursive `r*`
 * attribute forms are the ones crun and runc accept.
 */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

enum opt_kind {
        OPT_FLAG,      /* set `flag` */
        OPT_CLEAR,     /* clear `flag` */
        OPT_PROPAGATE, /* propagation change `flag` */
        OPT_ATTR_SET,  /* mount_setattr: set `attr`, clear `attr_clr` */
        OPT_ATTR_CLR,  /* mount_setattr: clear `attr` */
        OPT_IGNORE,
        OPT_COPYUP,
        OPT_UNSUPPORTED,
};

struct opt_def {
        const char *name;
        enum opt_kind kind;
        unsigned long flag;
        uint64_t attr;
        uint64_t attr_clr;
};

static const struct opt_def opt_table[] = {
    {"defaults", OPT_IGNORE, 0, 0, 0},
    {"bind", OPT_FLAG, MS_BIND, 0, 0},
    {"rbind", OPT_FLAG, MS_BIND | MS_REC, 0, 0},
    {"ro", OPT_FLAG, MS_RDONLY, 0, 0},
    {"rw", OPT_CLEAR, MS_RDONLY, 0, 0},
    {"nosuid", OPT_FLAG, MS_NOSUID, 0, 0},
    {"suid", OPT_CLEAR, MS_NOSUID, 0, 0},
    {"nodev", OPT_FLAG, MS_NODEV, 0, 0},
    {"dev", OPT_CLEAR, MS_NODEV, 0, 0},
    {"noexec", OPT_FLAG, MS_NOEXEC, 0, 0},
    {"exec", OPT_CLEAR, MS_NOEXEC, 0, 0},
    {"sync", OPT_FLAG, MS_SYNCHRONOUS, 0, 0},
    {"async", OPT_CLEAR, MS_SYNCHRONOUS, 0, 0},
    {"dirsync", OPT_FLAG, MS_DIRSYNC, 0, 0},
    {"remount", OPT_FLAG, MS_REMOUNT, 0, 0},
    {"mand", OPT_FLAG, MS_MANDLOCK, 0, 0},
    {"nomand", OPT_CLEAR, MS_MANDLOCK, 0, 0},
    {"atime", OPT_CLEAR, MS_NOATIME, 0, 0},
    {"noatime", OPT_FLAG, MS_NOATIME, 0, 0},
    {"diratime", OPT_CLEAR, MS_NODIRATIME, 0, 0},
    {"nodiratime", OPT_FLAG, MS_NODIRATIME, 0, 0},
    {"relatime", OPT_FLAG, MS_RELATIME, 0, 0},
    {"norelatime", OPT_CLEAR, MS_RELATIME, 0, 0},
    {"strictatime", OPT_FLAG, MS_STRICTATIME, 0, 0},
    {"nostrictatime", OPT_CLEAR, MS_STRICTATIME, 0, 0},
    {"lazytime", OPT_FLAG, MS_LAZYTIME, 0, 0},
    {"nolazytime", OPT_CLEAR, MS_LAZYTIME, 0, 0},
    {"silent", OPT_FLAG, MS_SILENT, 0, 0},
    {"loud", OPT_CLEAR, MS_SILENT, 0, 0},
    {"iversion", OPT_FLAG, MS_I_VERSION, 0, 0},
    {"noiversion", OPT_CLEAR, MS_I_VERSION, 0, 0},
    {"nosymfollow", OPT_FLAG, MS_NOSYMFOLLOW, 0, 0},
    {"symfollow", OPT_CLEAR, MS_NOSYMFOLLOW, 0, 0},
    {"private", OPT_PROPAGATE, MS_PRIVATE, 0, 0},
    {"rprivate", OPT_PROPAGATE, MS_PRIVATE | MS_REC, 0, 0},
    {"shared", OPT_PROPAGATE, MS_SHARED, 0, 0},
    {"rshared", OPT_PROPAGATE, MS_SHARED | MS_REC, 0, 0},
    {"slave", OPT_PROPAGATE, MS_SLAVE, 0, 0},
    {"rslave", OPT_PROPAGATE, MS_SLAVE | MS_REC, 0, 0},
    {"unbindable", OPT_PROPAGATE, MS_UNBINDABLE, 0, 0},
    {"runbindable", OPT_PROPAGATE, MS_UNBINDABLE | MS_REC, 0, 0},
    {"rro", OPT_ATTR_SET, 0, MOUNT_ATTR_RDONLY, 0},
    {"rrw", OPT_ATTR_CLR, 0, MOUNT_ATTR_RDONLY, 0},
    {"rnosuid", OPT_ATTR_SET, 0, MOUNT_ATTR_NOSUID, 0},
    {"rsuid", OPT_ATTR_CLR, 0, MOUNT_ATTR_NOSUID, 0},
    {"rnodev", OPT_ATTR_SET, 0, MOUNT_ATTR_NODEV, 0},
    {"rdev", OPT_ATTR_CLR, 0, MOUNT_ATTR_NODEV, 0},
    {"rnoexec", OPT_ATTR_SET, 0, MOUNT_ATTR_NOEXEC, 0},
    {"rexec", OPT_ATTR_CLR, 0, MOUNT_ATTR_NOEXEC, 0},
    {"rnodiratime", OPT_ATTR_SET, 0, MOUNT_ATTR_NODIRATIME, 0},
    {"rdiratime", OPT_ATTR_CLR, 0, MOUNT_ATTR_NODIRATIME, 0},
    {"rnosymfollow", OPT_ATTR_SET, 0, MOUNT_ATTR_NOSYMFOLLOW, 0},
    {"rsymfollow", OPT_ATTR_CLR, 0, MOUNT_ATTR_NOSYMFOLLOW, 0},
    /* The atime attributes are one field: the kernel wants the whole
     * MOUNT_ATTR__ATIME mask cleared whenever one of them is set. */
    {"rrelatime", OPT_ATTR_SET, 0, MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
    {"rnorelatime", OPT_ATTR_SET, 0, MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME},
    {"rnoatime", OPT_ATTR_SET, 0, MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME},
    {"ratime", OPT_ATTR_SET, 0, MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
    {"rstrictatime", OPT_ATTR_SET, 0, MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME},
    {"rnostrictatime", OPT_ATTR_SET, 0, MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
    {"tmpcopyup", OPT_COPYUP, 0, 0, 0},
    {"idmap", OPT_UNSUPPORTED, 0, 0, 0},
    {"ridmap", OPT_UNSUPPORTED, 0, 0, 0},
};

const char *rt_mount_option_name(size_t i)
{
        size_t seen = 0;

        for (size_t k = 0; k < sizeof(opt_table) / sizeof(opt_table[0]); k++) {
                if (opt_table[k].kind == OPT_UNSUPPORTED)
                        continue;
                if (seen++ == i)
                        return opt_table[k].name;
        }
        return NULL;
}

static const struct opt_def *opt_lookup(const char *name)
{
        for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++)
                if (strcmp(opt_table[i].name, name) == 0)
                        return &opt_table[i];
        return NULL;
}

static int data_append(char **data, size_t *len, const char *opt)
{
        size_t add = strlen(opt);
        char *p = realloc(*data, *len + add + 2);

        if (!p)
                return -ENOMEM;
        if (*len > 0)
                p[(*len)++] = ',';
        memcpy(p + *len, opt, add + 1);
        *len += add;
        *data = p;
        return 0;
}

static int apply_def(const struct opt_def *d, size_t i, struct rt_mount_opts *o,
                     struct bento_err *err)
{
        switch (d->kind) {
        case OPT_FLAG:
                o->flags |= d->flag;
                o->cleared &= ~d->flag;
                if (d->flag & MS_BIND)
                        o->bind = true;
                if (d->flag & MS_REC)
                        o->recursive = true;
                break;
        case OPT_CLEAR:
                o->flags &= ~d->flag;
                o->cleared |= d->flag;
                break;
        case OPT_PROPAGATE:
                if (o->n_propagation == RT_MOUNT_MAX_PROPAGATION)
                        return bento_err_setx(err, EINVAL,
                                              "options[%zu]: more than %d propagation options", i,
                                              RT_MOUNT_MAX_PROPAGATION);
                o->propagation[o->n_propagation++] = d->flag;
                break;
        case OPT_ATTR_SET:
                o->attr_clr |= d->attr_clr;
                o->attr_set = (o->attr_set & ~d->attr_clr) | d->attr;
                break;
        case OPT_ATTR_CLR:
                o->attr_clr |= d->attr;
                o->attr_set &= ~d->attr;
                break;
        case OPT_COPYUP:
                o->copyup = true;
                break;
        case OPT_UNSUPPORTED:
                return bento_err_setx(err, EOPNOTSUPP, "options[%zu]: \"%s\" is not supported", i,
                                      d->name);
        case OPT_IGNORE:
        default:
                break;
        }
        return 0;
}

int rt_mount_opts_parse(char *const *options, size_t n, struct rt_mount_opts *ret,
                        struct bento_err *err)
{
        struct rt_mount_opts o = {0};
        size_t data_len = 0;
        int r;

        for (size_t i = 0; i < n; i++) {
                const struct opt_def *d;

                if (!options[i] || options[i][0] == '\0') {
                        r = bento_err_setx(err, EINVAL, "options[%zu]: empty option", i);
                        goto fail;
                }
                d = opt_lookup(options[i]);
                if (d)
                        r = apply_def(d, i, &o, err);
                else if ((r = data_append(&o.data, &data_len, options[i])) < 0)
                        r = bento_err_set(err, -r, "options[%zu]", i);
                if (r < 0)
                        goto fail;
        }
        *ret = o;
        return 0;
fail:
        free(o.data);
        return r;
}

void rt_mount_opts_done(struct rt_mount_opts *opts)
{
        free(opts->data);
        opts->data = NULL;
}

bool rt_mount_opts_need_bind_remount(const struct rt_mount_opts *opts)
{
        const unsigned long per_mount = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME |
                                        MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME |
                                        MS_NOSYMFOLLOW;

        return (opts->flags & per_mount) != 0;
}

int rt_propagation_parse(const char *s, unsigned long *ret)
{
        const struct opt_def *d = s ? opt_lookup(s) : NULL;

        if (!d || d->kind != OPT_PROPAGATE)
                return -EINVAL;
        *ret = d->flag;
        return 0;
}

unsigned long rt_statvfs_to_ms(unsigned long f_flag)
{
        static const struct {
                unsigned long st;
                unsigned long ms;
        } map[] = {
            {ST_RDONLY, MS_RDONLY},     {ST_NOSUID, MS_NOSUID},
            {ST_NODEV, MS_NODEV},       {ST_NOEXEC, MS_NOEXEC},
            {ST_NOATIME, MS_NOATIME},   {ST_NODIRATIME, MS_NODIRATIME},
            {ST_RELATIME, MS_RELATIME}, {ST_NOSYMFOLLOW, MS_NOSYMFOLLOW},
        };
        unsigned long ms = 0;

        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
                if (f_flag & map[i].st)
                        ms |= map[i].ms;
        return ms;
}
