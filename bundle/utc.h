/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A time as UTC text, "YYYY-MM-DDTHH:MM:SS", by arithmetic alone.
 * gmtime_r() needs no time zone either, but glibc initialises the local
 * one on its first call all the same: /etc/localtime opened, read and
 * parsed, seven system calls in every process that writes a timestamp.
 */
#ifndef BENTO_UTC_H
#define BENTO_UTC_H

#include <time.h>

/* "YYYY-MM-DDTHH:MM:SS" and its NUL; years past 9999 take more digits. */
#define BENTO_UTC_MAX 48

/* Write t (seconds since the epoch) into out as above; returns out. */
char *bento_utc_format(time_t t, char out[BENTO_UTC_MAX]);

#endif
