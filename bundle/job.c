/* SPDX-License-Identifier: Apache-2.0 */
/* One piece of work on a thread of its own, or put off (job.h). */
#include "job.h"

#include <string.h>

static void *job_thread(void *arg)
{
        struct bento_job *j = arg;

        j->fn(j->arg);
        return NULL;
}

void bento_job_start(struct bento_job *j, void (*fn)(void *arg), void *arg, bool on_thread)
{
        memset(j, 0, sizeof(*j));
        j->fn = fn;
        j->arg = arg;
        j->running = on_thread && pthread_create(&j->thread, NULL, job_thread, j) == 0;
        j->started = true;
}

void bento_job_finish(struct bento_job *j)
{
        if (!j->started)
                return;
        if (j->running)
                (void) pthread_join(j->thread, NULL);
        else
                j->fn(j->arg);
        j->started = j->running = false;
}
