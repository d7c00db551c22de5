/* SPDX-License-Identifier: Apache-2.0 */
/* Rootless detection (see rootless.h). */
#include "rootless.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"

bool rt_uid_map_is_initial(const char *map)
{
        unsigned long long inside = 0, outside = 0, count = 0;
        char rest = 0;

        /* one line; a second mapping (or anything after it) means a
         * namespace made by someone */
        return sscanf(map, " %llu %llu %llu %c", &inside, &outside, &count, &rest) == 3 &&
               inside == 0 && outside == 0 && count == 4294967295ULL;
}

bool rt_in_initial_userns(void)
{
        cleanup_free char *map = NULL;
        struct bento_err ignored;
        size_t len = 0;

        if (bento_read_file("/proc/self/uid_map", 4096, &map, &len, &ignored) < 0)
                return true;
        return rt_uid_map_is_initial(map);
}

bool rt_rootless_state_dir(void)
{
        const char *user;

        if (geteuid() != 0)
                return true;
        if (rt_in_initial_userns())
                return false;
        /* root of a user namespace: a container's own root login keeps
         * /run, as with runc */
        user = getenv("USER");
        return !user || strcmp(user, "root") != 0;
}

bool rt_rootless_cgroups(enum rt_rootless_mode mode)
{
        if (mode != RT_ROOTLESS_AUTO)
                return mode == RT_ROOTLESS_TRUE;
        return geteuid() != 0 || !rt_in_initial_userns();
}
