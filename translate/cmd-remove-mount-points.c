/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento __remove-mount-points PATH...: the poststop hook `bento translate`
 * names in a bundle whose shields create mount points on the host (§5.8),
 * so that a bundle run by bento-runtime, crun or runc leaves the host as it
 * found it.  It removes each path only while it is still an empty
 * directory or an empty file; anything the container or someone else put
 * there stays.  The container state arrives on stdin and is not needed.
 */
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "run.h"

int cmd_remove_mount_points(int argc, char **argv)
{
        char buf[4096];

        /* Drain the state so the runtime's write does not fail. */
        while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
                ;
        run_remove_mount_points(argv + 1, (size_t) (argc - 1));
        return 0;
}
