/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One piece of work on a thread of its own while the caller goes on
 * (job.c): bento's host probe, the auto-exec snapshot and the run
 * directory's removal each overlap other work that way on two CPUs.
 */
#ifndef BENTO_JOB_H
#define BENTO_JOB_H

#include <pthread.h>
#include <stdbool.h>

struct bento_job {
        pthread_t thread;
        void (*fn)(void *arg);
        void *arg;
        bool started, running;
};

/* fn(arg) starts on a thread.  When no thread can be made (out of
 * resources), it runs in bento_job_finish() instead: the caller sees no
 * difference but the time.  Between start and finish the caller touches
 * nothing fn uses. */
void bento_job_start(struct bento_job *j, void (*fn)(void *arg), void *arg);

/* fn has returned, on its thread (joined) or here.  A job never started,
 * or finished already, is left as it is. */
void bento_job_finish(struct bento_job *j);

#endif
