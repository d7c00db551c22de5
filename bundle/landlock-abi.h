/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Landlock system calls and their structures, as the kernel defines
 * them, for every program that uses Landlock: bento-runtime's
 * process.landlock (runtime/process/landlock.c), the host probe
 * (translate/host/probe-kernel.c) and the Landlock-only tier's launcher
 * (translate/run/launch-landlock.c).  Written out here rather than taken
 * from <linux/landlock.h>, whose Debian 12 copy predates the network and
 * scope members.
 */
#ifndef BENTO_LANDLOCK_ABI_H
#define BENTO_LANDLOCK_ABI_H

#include <stddef.h>
#include <stdint.h>

#define BENTO_LL_CREATE_RULESET_VERSION (1U << 0)
#define BENTO_LL_CREATE_RULESET_ERRATA  (1U << 1)
#define BENTO_LL_RULE_PATH_BENEATH      1
#define BENTO_LL_RULE_NET_PORT          2

/* struct landlock_ruleset_attr: handled_access_fs up to ABI 3,
 * handled_access_net from ABI 4, scoped from ABI 6; the size passed to
 * bento_landlock_create() says how many members the kernel reads. */
struct bento_ll_ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;
        uint64_t scoped;
};

#define BENTO_LL_RULESET_SIZE_FS    offsetof(struct bento_ll_ruleset_attr, handled_access_net)
#define BENTO_LL_RULESET_SIZE_NET   offsetof(struct bento_ll_ruleset_attr, scoped)
#define BENTO_LL_RULESET_SIZE_SCOPE sizeof(struct bento_ll_ruleset_attr)

struct bento_ll_path_beneath_attr {
        uint64_t allowed_access;
        int32_t parent_fd;
} __attribute__((packed));

struct bento_ll_net_port_attr {
        uint64_t allowed_access;
        uint64_t port;
};

/* The ABI version (flags BENTO_LL_CREATE_RULESET_VERSION) or errata
 * (..._ERRATA) query: the kernel's answer, or -1 with errno. */
long bento_landlock_query(uint32_t flags);

/* landlock_create_ruleset(attr, size, 0): the ruleset fd or -1 with errno. */
int bento_landlock_create(const struct bento_ll_ruleset_attr *attr, size_t size);

/* landlock_add_rule: 0 or -1 with errno. */
int bento_landlock_add_path(int ruleset, uint64_t allowed, int parent_fd);
int bento_landlock_add_port(int ruleset, uint64_t allowed, uint64_t port);

/* landlock_restrict_self(ruleset, 0): 0 or -1 with errno. */
int bento_landlock_restrict(int ruleset);

#endif
