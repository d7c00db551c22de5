/* SPDX-License-Identifier: Apache-2.0 */
/* Signal names and numbers as `kill` accepts them: 15, TERM, SIGTERM, RTMIN+3. */
#ifndef RT_SIGNALS_H
#define RT_SIGNALS_H

#include "err.h"

int rt_signal_parse(const char *s, int *ret, struct bento_err *err);

#endif
