/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until Landlock lands: process.landlock is refused. */
#include "landlock.h"

#include <errno.h>

int rt_landlock_validate(const struct bento_json *landlock, struct bento_err *err)
{
        if (landlock)
                return bento_err_setx(err, ENOTSUP, "process.landlock: not supported yet");
        return 0;
}

int rt_landlock_apply(const struct bento_json *landlock, struct bento_err *err)
{
        (void) landlock;
        (void) err;
        return 0;
}

int rt_landlock_abi(void)
{
        return 0;
}
