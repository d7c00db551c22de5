/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting a bento bundle's exec gate when nobody serves it (agent.c).
 */
#ifndef BENTO_RT_AGENT_H
#define BENTO_RT_AGENT_H

#include "err.h"
#include "oci-config.h"
#include "seccomp/seccomp.h"

/* Before the init is cloned: when s names bento-exec-gate as its agent,
 * its listenerPath is in the bundle directory bundle (absolute, resolved)
 * and nothing is there, start the bento-exec-gate beside bento-runtime on
 * it and wait until it listens.  A moved bento bundle's listenerPath, which
 * names its old place, is first moved to the bundle's socket named by the
 * org.bento.exec-gate.socket annotation of cfg.  0 when there was nothing
 * to do or the gate listens; -errno with err set otherwise. */
int rt_agent_start(struct rt_seccomp *s, const struct oci_config *cfg, const char *bundle,
                   struct bento_err *err);

#endif
