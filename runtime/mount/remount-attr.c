/* SPDX-License-Identifier: Apache-2.0 */
/* A bind remount as one mount_setattr(2) (see remount-attr.h). */
#include "remount-attr.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

#define ATIME_MODES (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

static const struct {
        unsigned long ms;
        unsigned long long attr;
} flag_attrs[] = {
    {MS_RDONLY, MOUNT_ATTR_RDONLY},         {MS_NOSUID, MOUNT_ATTR_NOSUID},
    {MS_NODEV, MOUNT_ATTR_NODEV},           {MS_NOEXEC, MOUNT_ATTR_NOEXEC},
    {MS_NODIRATIME, MOUNT_ATTR_NODIRATIME}, {MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW},
};

/* The access-time mode mount(2) makes of flags: strictatime over noatime
 * over relatime, relatime when none is named. */
static unsigned long long atime_attr(unsigned long flags)
{
        if (flags & MS_STRICTATIME)
                return MOUNT_ATTR_STRICTATIME;
        if (flags & MS_NOATIME)
                return MOUNT_ATTR_NOATIME;
        return MOUNT_ATTR_RELATIME;
}

/* mount(2) carries the mount's access-time mode and nodiratime over a
 * remount that names none of them (and nodiratime counts as naming one). */
static bool carries_atime_over(unsigned long flags)
{
        return !(flags & (ATIME_MODES | MS_NODIRATIME));
}

struct mount_attr rt_remount_attr(unsigned long flags, bool keep_current)
{
        struct mount_attr a = {0};
        bool replace_atime = keep_current ? (flags & ATIME_MODES) : !carries_atime_over(flags);

        for (size_t i = 0; i < sizeof(flag_attrs) / sizeof(flag_attrs[0]); i++) {
                bool atime_part = flag_attrs[i].ms == MS_NODIRATIME;

                if (flags & flag_attrs[i].ms)
                        a.attr_set |= flag_attrs[i].attr;
                else if (!keep_current && !(atime_part && !replace_atime))
                        a.attr_clr |= flag_attrs[i].attr;
        }
        if (replace_atime) {
                a.attr_clr |= MOUNT_ATTR__ATIME;
                a.attr_set |= atime_attr(flags);
        }
        return a;
}

int rt_remount_by_setattr(int fd, unsigned long flags, bool keep_current)
{
        struct mount_attr a = rt_remount_attr(flags, keep_current);

        if (mount_setattr(fd, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
                return -errno;
        return 0;
}
