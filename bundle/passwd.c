/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing one passwd(5) line (see passwd.h). */
#include "passwd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"

/* A larger /etc/passwd is not looked at. */
#define PASSWD_MAX_BYTES (4u << 20)

/* Field k of a passwd line whose uid field is exactly uid in decimal. */
static char *field_for_uid(char *line, uid_t uid, size_t k)
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
        /* digits only in the uid (strtoull would take a sign or blanks);
         * "+"/"-" before the name: an NIS compat entry */
        if (n < 5 || field[2][0] < '0' || field[2][0] > '9' ||
            (field[0][0] && strchr("+-", field[0][0])))
                return NULL;
        errno = 0;
        v = strtoull(field[2], &end, 10);
        if (errno || *end || v != (unsigned long long) uid)
                return NULL;
        return field[k];
}

char *bento_passwd_line_home(char *line, uid_t uid)
{
        return field_for_uid(line, uid, 5);
}

char *bento_passwd_line_name(char *line, uid_t uid)
{
        char *name = field_for_uid(line, uid, 0);

        return name && name[0] ? name : NULL;
}

/* A FIFO cannot block the open (O_NONBLOCK) and is refused by the type
 * check; a /proc or /sys file (size 0) is refused too, so a symlink to
 * /proc/self/environ cannot make our own environment the passwd file. */
char *bento_passwd_read(void)
{
        cleanup_close int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct bento_err ignored;
        char *data = NULL;
        struct stat st;
        size_t len = 0;

        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
            (unsigned long long) st.st_size > PASSWD_MAX_BYTES)
                return NULL;
        if (bento_read_fd(fd, "/etc/passwd", PASSWD_MAX_BYTES, &data, &len, &ignored) < 0)
                return NULL;
        return data;
}

/* field() of the first line for uid that has it, comment lines skipped. */
static const char *find(char *data, uid_t uid, char *(*field)(char *, uid_t))
{
        const char *found = NULL;

        for (char *save = NULL, *line = strtok_r(data, "\n", &save); line && !found;
             line = strtok_r(NULL, "\n", &save))
                if (line[0] != '#')
                        found = field(line, uid);
        return found;
}

const char *bento_passwd_home(char *data, uid_t uid)
{
        return find(data, uid, bento_passwd_line_home);
}

const char *bento_passwd_name(char *data, uid_t uid)
{
        return find(data, uid, bento_passwd_line_name);
}
