/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Facts about this process that do not change while it runs, asked of the
 * kernel once.  bento never changes its user, yet a run asked geteuid(2)
 * seventeen times (the trust checks, the private directory, the claim, the
 * probe, the git reader), each a system call on the run's path.
 */
#ifndef BENTO_SELF_H
#define BENTO_SELF_H

#include <sys/types.h>

/* geteuid(2), asked once.  Safe from any thread (the host probe runs in
 * one of its own).  Only for a program that never changes its effective
 * user: bento-runtime and the hooks do, and keep asking the kernel. */
uid_t bento_euid(void);

#endif
