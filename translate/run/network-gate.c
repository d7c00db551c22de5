/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run --network-gate SOCKET (docs/embedding.md, "The network gate
 * protocol"): the check that the sandboxed program cannot reach the gate.
 * The egress hook connects to the socket on the host, before the program
 * starts; the program has its own network namespace (so no abstract
 * socket of the host's) and its own mount namespace holding only the
 * grants, the system paths and file systems mounted fresh.  A path socket
 * in any of those could be connected to from inside even where the mount
 * is read-only (connect(2) to a socket ignores a read-only mount), and the
 * program could then answer its own questions.  So the socket, resolved,
 * must lie outside all of them; it must also be a socket now, so that a
 * typo is said before the run rather than as a hook failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "run.h"

/* The system path (resolved) the sandbox would show real under, or NULL. */
static char *system_path_over(const struct policy *p, const char *real)
{
        for (size_t i = 0; i < p->n_system_paths; i++) {
                char *sys = NULL;

                if (path_resolve(p->system_paths[i], &sys) < 0)
                        return strdup(p->system_paths[i]); /* cannot tell: assume seen */
                if (path_within(sys, real))
                        return sys;
                free(sys);
        }
        return NULL;
}

static int reachable(const struct policy *p, const char *given, const char *real,
                     struct bento_err *err)
{
        const struct policy_path *g = run_visible_through(p, real);
        cleanup_free char *sys = g ? NULL : system_path_over(p, real);

        if (g)
                return bento_err_setx(err, EPERM,
                                      "--network-gate \"%s\" lies inside the grant \"%s\", where "
                                      "the sandboxed program could connect to it and answer for "
                                      "the gate; put the socket in a private directory outside "
                                      "the grants",
                                      given, g->expanded);
        if (sys)
                return bento_err_setx(err, EPERM,
                                      "--network-gate \"%s\" lies under \"%s\", which the sandbox "
                                      "sees read-only (a socket there can still be connected to); "
                                      "put the socket in a private directory outside the grants",
                                      given, sys);
        return 0;
}

int run_network_gate_check(struct run_opts *o, const struct policy *p, struct bento_err *err)
{
        cleanup_free char *abs = NULL, *real = NULL;
        struct sockaddr_un sa;
        struct stat st;
        int r;

        if (!o->network_gate)
                return 0;
        abs = path_absolute(o->network_gate);
        if (!abs)
                return bento_err_set(err, ENOMEM, "--network-gate");
        real = realpath(abs, NULL);
        if (!real)
                return bento_err_set(err, errno, "--network-gate \"%s\"", o->network_gate);
        if (lstat(real, &st) < 0)
                return bento_err_set(err, errno, "--network-gate \"%s\"", o->network_gate);
        if (!S_ISSOCK(st.st_mode))
                return bento_err_setx(err, ENOTSOCK,
                                      "--network-gate \"%s\" is not a unix socket (the gate must "
                                      "be listening on it before the run)",
                                      o->network_gate);
        if (strlen(real) >= sizeof(sa.sun_path))
                return bento_err_setx(err, ENAMETOOLONG,
                                      "--network-gate \"%s\" resolves to a path longer than a unix "
                                      "socket address holds (%zu bytes)",
                                      o->network_gate, sizeof(sa.sun_path) - 1);
        r = reachable(p, o->network_gate, real, err);
        if (r < 0)
                return r;
        free(o->network_gate_real);
        o->network_gate_real = TAKE_PTR(real);
        return 0;
}
