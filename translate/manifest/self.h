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
 * one of its own).  bento's alone: a child that enters a user namespace
 * (the namespace probe's) must ask the kernel itself. */
uid_t bento_euid(void);

#endif
