/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The long-lived half of the hook.  The hook forks a daemon that detaches
 * (new session, cwd /, stdio on /dev/null or the --log file, every other
 * inherited descriptor closed), serves the proxy, and exits when the
 * container's init does: it polls a pidfd of the init, so it can neither
 * outlive the container nor be fooled by pid reuse.  It ignores SIGHUP and
 * SIGPIPE and survives any client's misbehaviour; SIGTERM/SIGKILL from an
 * administrator still end it.  Once set up it runs as nobody (65534) with
 * no capabilities and no_new_privs: it parses what the sandboxed program
 * sends, so it keeps nothing a bug there could abuse.
 *
 * The hook returns only once the daemon reports that it is serving (or
 * why it could not), so the runtime starts the program with the proxy
 * already in place.
 */
#ifndef BENTO_EGRESS_DAEMON_H
#define BENTO_EGRESS_DAEMON_H

#include <sys/types.h>

#include "config.h"
#include "err.h"

struct egress_daemon_args {
        const struct egress_config *cfg;
        const char *container; /* id, for the report */
        int listen_fd;
        int pidfd;     /* of the container init */
        int report_fd; /* -1: no report */
        int log_fd;    /* -1: /dev/null */
        int gate_fd;   /* the network gate's connection (gate.h), or -1 */
};

/* Fork the daemon and wait until it serves.  Returns (in the hook) 0, or
 * -errno with err saying what the daemon could not do.  The daemon itself
 * never returns from here. */
int egress_daemon_start(const struct egress_daemon_args *a, struct bento_err *err);

#endif
