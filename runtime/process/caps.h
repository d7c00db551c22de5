/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Linux capabilities of the container process.  A table maps the names
 * config.json uses ("CAP_NET_BIND_SERVICE") to numbers for every capability
 * up to CAP_CHECKPOINT_RESTORE; rt_caps_validate() runs in `create` and turns
 * every name the container cannot get into a warning line (runtime-spec
 * v1.1+: unknown or ungrantable capabilities are not an error);
 * rt_caps_apply() runs in the container init after the uid/gid switch and
 * sets the bounding, permitted, effective, inheritable and ambient sets.
 */
#ifndef RT_CAPS_H
#define RT_CAPS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>

#include "err.h"
#include "oci-config.h"

/* The last capability this build has a name for. */
#define RT_CAP_LAST CAP_CHECKPOINT_RESTORE

/* Number of the capability called `name` ("CAP_CHOWN"; case is ignored), or
 * -1 when the name is unknown.  Names newer than the table are accepted when
 * the linked libcap knows them. */
int rt_cap_from_name(const char *name);

/* "CAP_CHOWN" for 0, ...; NULL above RT_CAP_LAST or below 0. */
const char *rt_cap_to_name(int cap);

/* "bounding", "effective", ...; NULL for out-of-range values. */
const char *rt_cap_set_name(enum oci_cap_set set);

/* The highest capability number the running kernel knows, found with
 * PR_CAPBSET_READ (no file system needed, so it cannot be faked by whatever
 * is mounted at /proc inside the container). */
int rt_cap_last_supported(void);

/* Append one warning line per capability name that will be ignored: unknown
 * to this build, newer than the kernel, outside the runtime's own bounding set
 * (checked only when own_bounding: the init shares the runtime's bounding
 * set, i.e. it gets no new user namespace), or inconsistent with the other
 * sets (effective outside permitted, ambient outside permitted or
 * inheritable, inheritable outside bounding).  Lines end with '\n'; the text
 * is truncated when buf is full.  caps may be NULL (nothing to say). */
void rt_caps_validate(const struct oci_capabilities *caps, bool own_bounding, char *buf,
                      size_t size);

/* Set all five sets from caps; NULL means "no capabilities at all" (every
 * set empty, bounding set emptied).  until_exec (a mask of bits 1 << CAP_x)
 * is kept in the permitted and effective sets on top of caps, when held: the
 * init needs CAP_SYS_ADMIN to load a seccomp filter without noNewPrivileges
 * as its very last step.  execve recomputes permitted and effective from
 * the bounding, inheritable and ambient sets (plus file capabilities and
 * root's implied ones), never from the old permitted set, so what is kept
 * this way does not reach the program; ambient is computed without it.  Capabilities the process
 * cannot be given are skipped silently (rt_caps_validate() warned about them).  Needs CAP_SETPCAP
 * in the permitted set to shrink the bounding set; raises the effective set to the permitted one
 * first, so it works right after a setresuid() done under PR_SET_KEEPCAPS.  Returns 0 or a negative
 * errno with err filled. */
int rt_caps_apply(const struct oci_capabilities *caps, uint64_t until_exec, struct bento_err *err);

static inline void cleanup_cap_fn(cap_t *c)
{
        if (*c) {
                int saved = errno;
                cap_free(*c);
                errno = saved;
        }
}
#define cleanup_cap __attribute__((cleanup(cleanup_cap_fn)))

#endif
