/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.terminal: the init opens a pty in the container's own devpts,
 * makes the slave its controlling terminal and stdio, binds it on
 * /dev/console, and hands the master to `create`, which passes it to the
 * engine over --console-socket (one SCM_RIGHTS message, as conmon and
 * containerd expect).
 */
#ifndef RT_TERMINAL_H
#define RT_TERMINAL_H

#include "err.h"
#include "oci-config.h"

/* In the init, after pivot_root.  Sends RT_SYNC_PTY with the master. */
int rt_terminal_setup(const struct oci_process *proc, int sync_fd, struct bento_err *err);

/* The same for a process `exec` starts, which leaves /dev/console alone. */
int rt_terminal_setup_exec(const struct oci_process *proc, int sync_fd, struct bento_err *err);

/* In `create`: connect to the console socket and send the master. */
int rt_console_send(const char *socket_path, int master_fd, struct bento_err *err);

#endif
