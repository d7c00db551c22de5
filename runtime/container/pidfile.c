/* SPDX-License-Identifier: Apache-2.0 */
/* The pid file writer (see pidfile.h). */
#include "pidfile.h"

#include <stdio.h>

#include "fileio.h"

int rt_pid_file_write(const char *path, pid_t pid, struct bento_err *err)
{
        char buf[32];
        int len = snprintf(buf, sizeof(buf), "%d", (int) pid);

        return bento_write_file_atomic(path, buf, (size_t) len, 0644, err);
}
