/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One proxied connection, from the request head to the end of the tunnel:
 * read the head under a total deadline, decide (allowlist, literal grant),
 * resolve and dial through the guard, answer, relay.  Every connection ends
 * in exactly one decision, reported (report.h).
 */
#ifndef BENTO_EGRESS_HANDLER_H
#define BENTO_EGRESS_HANDLER_H

#include "config.h"

/* Serve the connection on fd (non-blocking) and close it. */
void egress_handle(int fd, const struct egress_config *cfg);

#endif
