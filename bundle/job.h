/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One piece of work on a thread of its own while the caller goes on
 * (job.c), or put off until the caller needs it.  A thread pays only for
 * work of a millisecond or more: on a virtual machine making and joining
 * one costs about as much as a hundred system calls (docs/performance.md).
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

/* fn(arg) starts on a thread (on_thread), or runs in bento_job_finish():
 * when asked to, and when no thread can be made (out of resources); the
 * caller sees no difference but the time.  Between start and finish the
 * caller touches nothing fn uses. */
void bento_job_start(struct bento_job *j, void (*fn)(void *arg), void *arg, bool on_thread);

/* fn has returned, on its thread (joined) or here.  A job never started,
 * or finished already, is left as it is. */
void bento_job_finish(struct bento_job *j);

#endif
