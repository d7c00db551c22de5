/* SPDX-License-Identifier: Apache-2.0 */
/* The Landlock system calls (landlock.h). */
#include "landlock-abi.h"

#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif

long bento_landlock_query(uint32_t flags)
{
        return syscall(SYS_landlock_create_ruleset, NULL, 0, flags);
}

int bento_landlock_create(const struct bento_ll_ruleset_attr *attr, size_t size)
{
        return (int) syscall(SYS_landlock_create_ruleset, attr, size, 0);
}

int bento_landlock_add_path(int ruleset, uint64_t allowed, int parent_fd)
{
        struct bento_ll_path_beneath_attr a = {.allowed_access = allowed, .parent_fd = parent_fd};

        return (int) syscall(SYS_landlock_add_rule, ruleset, BENTO_LL_RULE_PATH_BENEATH, &a, 0);
}

int bento_landlock_add_port(int ruleset, uint64_t allowed, uint64_t port)
{
        struct bento_ll_net_port_attr a = {.allowed_access = allowed, .port = port};

        return (int) syscall(SYS_landlock_add_rule, ruleset, BENTO_LL_RULE_NET_PORT, &a, 0);
}

int bento_landlock_restrict(int ruleset)
{
        return (int) syscall(SYS_landlock_restrict_self, ruleset, 0);
}
