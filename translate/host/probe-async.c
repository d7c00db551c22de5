/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host probe on a thread of its own, for `bento run`.
 *
 * Why: its cgroup checks (a probe cgroup made and removed in every
 * hierarchy, when the run sets a limit) and, when it is not deferred to the
 * runtime (probe.h, defer_namespaces), the namespace child take a
 * millisecond or two of mostly kernel time, and run has path resolution
 * to do before it needs the answer.  On two CPUs the two overlap.  A probe
 * without cgroup checks is a few reads of /proc and /sys, which cost less
 * than making a thread on a virtual machine (measured in
 * docs/performance.md): it runs when the answer is asked for.
 *
 * Why it is safe: the probe reads the environment, /proc and /sys, asks
 * the kernel, and forks one child that only makes system calls.  It
 * touches none of bento's shared state (the path memo of manifest/path.c, the
 * manifest, stdio buffers), and the caller does not change the
 * environment while the thread runs.  Its child is waited for by pid, and
 * bento never waits for "any child".
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

static void *probe_thread(void *arg)
{
        struct host_probe_job *j = arg;

        host_probe(&j->opts, NULL, &j->report);
        return NULL;
}

void host_probe_start(struct host_probe_job *j, const struct host_probe_opts *opts)
{
        memset(j, 0, sizeof(*j));
        if (opts)
                j->opts = *opts;
        /* No thread (cheap without cgroup checks, or out of resources):
         * the probe runs when asked for. */
        j->running =
            !j->opts.skip_cgroups && pthread_create(&j->thread, NULL, probe_thread, j) == 0;
        j->started = true;
}

void host_probe_finish(struct host_probe_job *j, struct host_report *ret)
{
        if (j->running)
                (void) pthread_join(j->thread, NULL);
        else if (j->started)
                host_probe(&j->opts, NULL, &j->report);
        j->running = j->started = false;
        if (ret)
                *ret = j->report;
}
