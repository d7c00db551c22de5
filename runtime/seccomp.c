/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the libseccomp compiler lands: a config with a seccomp
 * profile is refused (never run without the filter it asked for). */
#include "seccomp.h"

#include <errno.h>

int rt_seccomp_compile(const struct oci_config *cfg, struct rt_seccomp **ret, char *warn,
                       size_t warn_size, struct bento_err *err)
{
        (void) warn;
        (void) warn_size;
        *ret = NULL;
        if (cfg->linux_.seccomp)
                return bento_err_setx(err, ENOTSUP,
                                      "linux.seccomp: seccomp is not supported "
                                      "yet; refusing to run without it");
        return 0;
}

struct rt_seccomp *rt_seccomp_free(struct rt_seccomp *s)
{
        (void) s;
        return NULL;
}

struct bento_json *rt_seccomp_describe(const struct rt_seccomp *s)
{
        (void) s;
        return bento_json_new_object();
}

bool rt_seccomp_has_listener(const struct rt_seccomp *s)
{
        (void) s;
        return false;
}

int rt_seccomp_connect_listener(const struct rt_seccomp *s, struct bento_err *err)
{
        (void) s;
        return bento_err_setx(err, ENOTSUP, "seccomp listener");
}

int rt_seccomp_install(const struct rt_seccomp *s, int listener_fd, const struct oci_config *cfg,
                       const char *id, const char *bundle, pid_t host_pid, struct bento_err *err)
{
        (void) s;
        (void) listener_fd;
        (void) cfg;
        (void) id;
        (void) bundle;
        (void) host_pid;
        (void) err;
        return 0;
}
