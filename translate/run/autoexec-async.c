/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The auto-exec snapshot (autoexec.c) on a thread of its own, for
 * `bento run`.
 *
 * Why: the snapshot is a few dozen stat(2)s of the write grants and a walk
 * up to "/" for git's hooks, about a tenth of bento's work before the
 * runtime's go, and bento writes the bundle meanwhile, which does not look
 * at the write grants.  On two CPUs the two overlap.
 *
 * Why it is safe: the snapshot only reads the host (the write grants, git's
 * files, the environment) and fills the run_autoexec it is given, which
 * nothing else touches until run_autoexec_snapshot_finish().  The policy is
 * only read, by both threads.  The path memo of manifest/path.c is per
 * thread, so neither thread replays the other's answers; nothing changes
 * the write grants while the thread runs (the shield mount points are made
 * after it has been joined, as the snapshot must not see them).
 */
#include <string.h>

#include "run.h"

static void snapshot_job(void *arg)
{
        struct run_autoexec_job *j = arg;

        j->r = run_autoexec_snapshot(j->p, j->a, &j->err);
}

void run_autoexec_snapshot_start(struct run_autoexec_job *j, const struct policy *p,
                                 struct run_autoexec *a)
{
        memset(j, 0, sizeof(*j));
        j->p = p;
        j->a = a;
        /* No thread (out of resources): the snapshot is taken when asked for. */
        bento_job_start(&j->job, snapshot_job, j);
}

int run_autoexec_snapshot_finish(struct run_autoexec_job *j, struct bento_err *err)
{
        if (!j->job.started)
                return 0;
        bento_job_finish(&j->job);
        if (j->r < 0 && err && !err->code)
                *err = j->err;
        return j->r;
}
