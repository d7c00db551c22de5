/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle/utc.c against gmtime_r() and strftime(): the epoch, the days
 * around leap days (2000 is a leap year, 1900 and 2100 are not), the last
 * second of a day, times before 1970, the year 9999 and a spread of
 * pseudo-random times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "utc.h"

static int same_as_libc(time_t t)
{
        char want[64], got[BENTO_UTC_MAX];
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
                return 0;
        bento_utc_format(t, got);
        if (strcmp(want, got) != 0) {
                printf("#   %lld: \"%s\", libc \"%s\"\n", (long long) t, got, want);
                return 0;
        }
        return 1;
}

TEST(known_instants)
{
        char out[BENTO_UTC_MAX];

        ASSERT_STREQ(bento_utc_format(0, out), "1970-01-01T00:00:00");
        ASSERT_STREQ(bento_utc_format(951825600, out), "2000-02-29T12:00:00");
        ASSERT_STREQ(bento_utc_format(4107542399, out), "2100-02-28T23:59:59");
        ASSERT_STREQ(bento_utc_format(4107542400, out), "2100-03-01T00:00:00");
        ASSERT_STREQ(bento_utc_format(-1, out), "1969-12-31T23:59:59");
        ASSERT_STREQ(bento_utc_format(253402300799, out), "9999-12-31T23:59:59");
}

TEST(around_leap_days_and_day_ends)
{
        /* 1900-02-28 to 2101-03-01, every 6 hours, and each day's last second */
        for (time_t t = -2203977600; t <= 4133980800; t += 21600)
                ASSERT_TRUE(same_as_libc(t) && same_as_libc(t - 1));
}

TEST(pseudo_random_times)
{
        unsigned long long x = 0x9e3779b97f4a7c15ULL;

        for (int i = 0; i < 100000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                /* from about 1600 to about 2400 */
                ASSERT_TRUE(same_as_libc((time_t) (x % 25000000000ULL) - 11600000000LL));
        }
}

TAP_MAIN()
