/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The --pid-file of `create`, `run` and `exec`: the pid in decimal, no
 * newline (what containerd's shim and conmon read back).  The file is
 * written to a fresh temporary name in its own directory and renamed over
 * the target (bento_write_file_atomic), so a reader polling for it sees
 * no file or the whole pid, never an empty or partial one, and a symlink
 * planted at the target is replaced rather than followed.
 */
#ifndef RT_PIDFILE_H
#define RT_PIDFILE_H

#include <sys/types.h>

#include "err.h"

/* Write pid to path (mode 0644).  Returns 0 or -errno with err naming the
 * file. */
int rt_pid_file_write(const char *path, pid_t pid, struct bento_err *err);

#endif
