/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OCI mount options (config.json `mounts[].options`) translated into what
 * the kernel takes: MS_* flags for mount(2), propagation changes applied one
 * by one after the mount, MOUNT_ATTR_* bits for a recursive mount_setattr(2),
 * and the leftover filesystem-specific data string ("mode=755,size=64k").
 * A mount is a bind mount iff the options contain `bind` or `rbind`.
 * Pure functions: no system calls, usable from `create` for validation.
 */
#ifndef RT_MOUNT_OPTIONS_H
#define RT_MOUNT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define RT_MOUNT_MAX_PROPAGATION 4

struct rt_mount_opts {
        unsigned long flags;   /* MS_* to set; MS_BIND (|MS_REC) for binds */
        unsigned long cleared; /* MS_* explicitly switched off (rw, suid, dev, ...) */
        bool bind;             /* `bind` or `rbind` given */
        bool recursive;        /* `rbind` given */
        bool copyup;           /* `tmpcopyup` given */
        /* propagation changes in the order written, each one of
         * MS_SHARED/MS_SLAVE/MS_PRIVATE/MS_UNBINDABLE, possibly |MS_REC */
        unsigned long propagation[RT_MOUNT_MAX_PROPAGATION];
        size_t n_propagation;
        uint64_t attr_set; /* MOUNT_ATTR_* for mount_setattr(AT_RECURSIVE) */
        uint64_t attr_clr;
        char *data; /* comma-joined unknown options; NULL when there are none */
};

/* Parse n options into *ret (which is overwritten).  Unknown options are
 * collected into ret->data.  Fails with -EINVAL for an empty option or too
 * many propagation options and -EOPNOTSUPP for options bento does not
 * implement (idmap, ridmap); messages name the option as "options[2]".
 * On success the caller owns ret->data (rt_mount_opts_done). */
int rt_mount_opts_parse(char *const *options, size_t n, struct rt_mount_opts *ret,
                        struct bento_err *err);

/* The i-th option name this build implements (for `features`); NULL past
 * the end.  Options that are refused (idmap) are not listed. */
const char *rt_mount_option_name(size_t i);

/* Free what rt_mount_opts_parse allocated; safe on a zeroed struct. */
void rt_mount_opts_done(struct rt_mount_opts *opts);

static inline void cleanup_rt_mount_opts_fn(struct rt_mount_opts *o)
{
        rt_mount_opts_done(o);
}
#define cleanup_rt_mount_opts __attribute__((cleanup(cleanup_rt_mount_opts_fn)))

/* True when a flag option asks for a per-mount attribute that a bind mount
 * only gets through a second MS_REMOUNT|MS_BIND call. */
bool rt_mount_opts_need_bind_remount(const struct rt_mount_opts *opts);

/* linux.rootfsPropagation: shared, slave, private, unbindable or their
 * r-forms.  Stores MS_* (|MS_REC for r-forms) in *ret; -EINVAL otherwise. */
int rt_propagation_parse(const char *s, unsigned long *ret);

/* statvfs f_flag (ST_*) to the per-mount MS_* flags a bind remount must
 * repeat to keep them: RDONLY, NOSUID, NODEV, NOEXEC, NOSYMFOLLOW and the
 * atime flags. */
unsigned long rt_statvfs_to_ms(unsigned long f_flag);

#endif
