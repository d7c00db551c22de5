/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing one passwd(5) line (see passwd.h). */
#include "passwd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *bento_passwd_line_home(char *line, uid_t uid)
{
        char *field[7] = {0}, *end = NULL;
        size_t n = 0;
        unsigned long long v;

        line[strcspn(line, "\n")] = '\0';
        for (char *p = line; n < 7; n++) {
                field[n] = p;
                p = strchr(p, ':');
                if (!p)
                        break;
                *p++ = '\0';
        }
        if (n < 5 || !field[2][0] || field[2][0] == '-' || field[2][0] == '+')
                return NULL;
        errno = 0;
        v = strtoull(field[2], &end, 10);
        if (errno || *end || v != (unsigned long long) uid)
                return NULL;
        return field[5];
}
