/* SPDX-License-Identifier: Apache-2.0 */
/* UTC text without the C library's time zone machinery (see utc.h). */
#include "utc.h"

#include <stdio.h>

/* The civil date of a day number (days since 1970-01-01) in the proleptic
 * Gregorian calendar: years counted from March, so that the leap day is
 * the last of its year, in 400-year eras of 146097 days. */
static void civil_from_days(long long z, long long *y, unsigned *m, unsigned *d)
{
        long long era;
        unsigned doe, yoe, doy, mp;

        z += 719468; /* 0000-03-01 to 1970-01-01 */
        era = (z >= 0 ? z : z - 146096) / 146097;
        doe = (unsigned) (z - era * 146097);
        yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        mp = (5 * doy + 2) / 153;
        *d = doy - (153 * mp + 2) / 5 + 1;
        *m = mp < 10 ? mp + 3 : mp - 9;
        *y = (long long) yoe + era * 400 + (*m <= 2);
}

char *bento_utc_format(time_t t, char out[BENTO_UTC_MAX])
{
        long long s = (long long) t;
        long long days = (s >= 0 ? s : s - 86399) / 86400;
        unsigned rem = (unsigned) (s - days * 86400); /* 0 to 86399 */
        long long y;
        unsigned m, d;

        civil_from_days(days, &y, &m, &d);
        snprintf(out, BENTO_UTC_MAX, "%04lld-%02u-%02uT%02u:%02u:%02u", y, m, d, rem / 3600,
                 rem / 60 % 60, rem % 60);
        return out;
}
