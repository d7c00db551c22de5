/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento __remove-mount-points --beneath GRANT DEV:INO PATH... (repeated per
 * grant): the poststop hook `bento translate` names in a bundle whose
 * shields create mount points on the host (docs/manifest.md, "CREDENTIAL SHIELDS"), so that a
 * bundle run by bento-runtime, crun or runc leaves the host as it found it.  Each path is reached
 * from its grant's root without following a symlink, the grant must still be the directory DEV:INO,
 * and the path is removed only while it is an empty directory or an empty regular file
 * (policy/mount-points.h says what that leaves to the sandbox), and only by the last run (of bento
 * or of this hook) using the directory that holds it (policy/point-locks.h).
 * Arguments not in that shape remove nothing (they are read by bundle/argv.c, as every verb's
 * are, but without --help: they are data a bundle carries).  The container state arrives on stdin
 * and is not needed.
 */
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "policy/mount-points.h"

int cmd_remove_mount_points(int argc, char **argv)
{
        struct mount_points mp = {0};
        struct point_locks locks = {0};
        struct bento_err err = {0};
        char buf[4096];

        /* Drain the state so the runtime's write does not fail. */
        while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
                ;
        if (mount_points_parse((const char *const *) argv + 1, (size_t) (argc - 1), &mp, &err) <
            0) {
                fprintf(stderr, "bento: removing no shield mount point: %s\n", err.msg);
                return 1;
        }
        /* Recorded, then removed unless another run still uses the
         * directory, which then leaves it to the last one (policy/point-locks.h). */
        mount_points_hand_over(&mp, &locks);
        point_locks_release(&locks);
        mount_points_done(&mp);
        return 0;
}
