/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rootless detection (runtime/base/rootless.c): only the initial user
 * namespace's identity map of every uid counts as root on the host, and
 * --rootless true/false override the cgroup half whatever the caller is.
 */
#include <stdbool.h>
#include <unistd.h>

#include "base/rootless.h"
#include "tap.h"

TEST(only_the_full_identity_map_is_the_initial_namespace)
{
        ASSERT_TRUE(rt_uid_map_is_initial("         0          0 4294967295\n"));
        ASSERT_TRUE(rt_uid_map_is_initial("0 0 4294967295"));
        /* rootless podman: 0 is the user, then its subordinate ids */
        ASSERT_TRUE(!rt_uid_map_is_initial("0 1000 1\n1 100000 65536\n"));
        /* `unshare -Ur` */
        ASSERT_TRUE(!rt_uid_map_is_initial("0 65534 1\n"));
        /* root mapped to root, but not every uid */
        ASSERT_TRUE(!rt_uid_map_is_initial("0 0 4294967294\n"));
        ASSERT_TRUE(!rt_uid_map_is_initial("0 0 65536\n"));
        ASSERT_TRUE(!rt_uid_map_is_initial("1 1 4294967295\n"));
        /* the identity map followed by anything else */
        ASSERT_TRUE(!rt_uid_map_is_initial("0 0 4294967295\n5 5 1\n"));
        /* nothing: a namespace whose map is not written yet */
        ASSERT_TRUE(!rt_uid_map_is_initial(""));
        ASSERT_TRUE(!rt_uid_map_is_initial("junk"));
}

TEST(rootless_option_overrides_the_cgroup_decision)
{
        ASSERT_TRUE(rt_rootless_cgroups(RT_ROOTLESS_TRUE));
        ASSERT_TRUE(!rt_rootless_cgroups(RT_ROOTLESS_FALSE));
        /* auto: as the process is; the unit tests run as root on the host */
        ASSERT_EQ(rt_rootless_cgroups(RT_ROOTLESS_AUTO), !rt_in_initial_userns() || geteuid() != 0);
}

TAP_MAIN()
