/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the three seccomp files share: the compiled filter object, the name
 * tables of the OCI seccomp vocabulary, and the cleanup helper of
 * libseccomp's filter context.  Only seccomp*.c include this header; the
 * rest of the runtime sees struct rt_seccomp as an opaque type.
 */
#ifndef RT_SECCOMP_INTERNAL_H
#define RT_SECCOMP_INTERNAL_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "seccomp.h"

/* The longest listenerPath a unix socket address holds. */
#define RT_SECCOMP_LISTENER_MAX (sizeof(((struct sockaddr_un *) 0)->sun_path) - 1)

#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* The kernel's limit on one classic BPF program (BPF_MAXINSNS). */
#define RT_SECCOMP_MAX_INSNS 4096

/* One syscalls[] entry as libseccomp will get it: the same action and
 * conditions for each resolved system call number. */
struct rt_seccomp_group {
        size_t index; /* in linux.seccomp.syscalls, for messages */
        uint32_t action;
        bool split; /* an argument repeats: one rule per condition */
        size_t n_cmps;
        struct scmp_arg_cmp *cmps;
        size_t n_nrs;
        int *nrs;
};

/* Everything the BPF program depends on, read from the profile. */
struct rt_seccomp_model {
        uint32_t default_action;
        uint32_t *arch_tokens;
        size_t n_arch_tokens;
        struct rt_seccomp_group *groups;
        size_t n_groups;
};

struct rt_seccomp {
        /* the program the init hands to seccomp(2) as it is */
        struct sock_fprog prog;
        bool cached; /* prog came from the cache */
        /* SECCOMP_FILTER_FLAG_* from linux.seccomp.flags */
        unsigned int flags;
        /* some rule has SCMP_ACT_NOTIFY (then listener_path is set) */
        bool notify;

        /* for `state` and the agent: what the profile said */
        char *default_action;
        char **archs;
        size_t n_archs;
        char **flag_names;
        size_t n_flags;
        size_t n_rules; /* libseccomp rules added */
        char **skipped; /* syscall names libseccomp does not know */
        size_t n_skipped;
        char *listener_path;
        char *listener_metadata;
};

struct rt_seccomp_name {
        const char *name;
        uint32_t value;
};

/* SCMP_ACT_* (ERRNO and TRACE carry errno 0 here: add the errno with
 * rt_seccomp_action_with_errno()), SCMP_CMP_*, SECCOMP_FILTER_FLAG_*;
 * each ends with a {NULL, 0} entry. */
extern const struct rt_seccomp_name rt_seccomp_actions[];
extern const struct rt_seccomp_name rt_seccomp_operators[];
extern const struct rt_seccomp_name rt_seccomp_flags[];

/* SCMP_ARCH_* names of the OCI vocabulary, NULL-terminated; libseccomp
 * decides which of them it knows (seccomp_arch_resolve_name). */
extern const char *const rt_seccomp_arch_names[];

/* The value of name in table, or -1 (as int64_t) when unknown. */
int64_t rt_seccomp_lookup(const struct rt_seccomp_name *table, const char *name);

/* "SCMP_ARCH_X86_64" -> libseccomp's arch token; 0 when unknown. */
uint32_t rt_seccomp_arch_token(const char *name);

/* True for the actions that take an errno (ERRNO, TRACE). */
bool rt_seccomp_action_takes_errno(uint32_t action);

/* Free what a model holds and zero it; safe on a zeroed model. */
void rt_seccomp_model_done(struct rt_seccomp_model *m);

/* Turn the model into s->prog with libseccomp, or take the program from
 * the cache directory cache_fd (-1: no cache) when an entry was made from
 * exactly the same model by the same build and libseccomp.  A cache that
 * cannot be read or written is skipped, never an error. */
int rt_seccomp_generate(const struct rt_seccomp_model *m, int cache_fd, struct rt_seccomp *s,
                        struct bento_err *err);

static inline void cleanup_seccomp_fn(scmp_filter_ctx *ctx)
{
        if (*ctx)
                seccomp_release(*ctx);
}
#define cleanup_seccomp __attribute__((cleanup(cleanup_seccomp_fn)))

#endif
