/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dialling an allowed destination from the host side, through the upstream
 * guard: each resolved address is classified immediately before connect()
 * and dialled exactly as checked, so a second DNS answer can never slip a
 * different address in (no re-resolution between check and use).
 */
#ifndef BENTO_EGRESS_DIAL_H
#define BENTO_EGRESS_DIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "resolve.h"

/* Try the addresses in order until one connects or deadline_ms passes.
 * literal_grant lets a private address through (a rule names that exact
 * IP); reserved addresses are never dialled.  Returns a connected
 * non-blocking socket, or -errno; *ret_guarded is set when at least one
 * address was refused by the guard. */
int egress_dial(const struct egress_addrs *addrs, bool literal_grant, int64_t deadline_ms,
                bool *ret_guarded);

#endif
