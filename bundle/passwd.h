/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One line of a passwd(5) file, parsed by hand: bento never asks NSS
 * (getpwuid(3) loads modules that the environment and nsswitch.conf
 * steer), and the runtime reads a container's /etc/passwd, which the
 * image's author wrote.
 */
#ifndef BENTO_PASSWD_H
#define BENTO_PASSWD_H

#include <sys/types.h>

/* The home field of a "name:pw:uid:gid:gecos:home:shell" line whose uid
 * field is exactly uid in decimal, or NULL (another uid, a malformed line,
 * a "+"/"-" NIS entry).  Stops at the first newline; points into line,
 * which is modified. */
char *bento_passwd_line_home(char *line, uid_t uid);

/* The same line's name field (NULL also when it is empty). */
char *bento_passwd_line_name(char *line, uid_t uid);

/* /etc/passwd whole (free() it), when it is a regular file of sensible
 * size; NULL otherwise. */
char *bento_passwd_read(void);

/* The home or the name of uid's first line in data, a passwd file's text
 * (modified; the result points into it), or NULL. */
const char *bento_passwd_home(char *data, uid_t uid);
const char *bento_passwd_name(char *data, uid_t uid);

#endif
