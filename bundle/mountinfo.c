/* SPDX-License-Identifier: Apache-2.0 */
/* The mountinfo reader of mountinfo.h. */
#include "mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

int bento_mountinfo_read(const char *path, char **ret, struct bento_err *err)
{
        size_t len = 0;

        return bento_read_file(path, BENTO_MOUNTINFO_MAX_BYTES, ret, &len, err);
}

int bento_mountinfo_unescape(char *s)
{
        char *w = s;

        for (char *r = s; *r; r++, w++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
                    r[3] >= '0' && r[3] <= '7') {
                        *w = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        if (*w == '\0')
                                return -EINVAL;
                        r += 3;
                } else {
                        *w = *r;
                }
        }
        *w = '\0';
        return 0;
}

/* A plain decimal of at most max: no sign, no space, no empty string. */
static int decimal(const char *s, unsigned long max, unsigned long *ret)
{
        unsigned long v = 0;

        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                unsigned d = (unsigned) (*s - '0');

                if (*s < '0' || *s > '9' || v > (max - d) / 10)
                        return -EINVAL;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

/* The next space-separated field of *p, NUL-terminated in place; *p
 * becomes NULL after the last one.  NULL when none is left. */
static char *next_field(char **p)
{
        char *f = *p, *sp;

        if (!f)
                return NULL;
        sp = strchr(f, ' ');
        *p = sp ? sp + 1 : NULL;
        if (sp)
                *sp = '\0';
        return f;
}

/* "id parent major:minor" into ret. */
static int parse_numbers(char *id, char *parent, char *dev, struct bento_mountinfo *ret)
{
        char *colon = strchr(dev, ':');
        unsigned long major = 0, minor = 0;

        if (!colon)
                return -EINVAL;
        *colon = '\0';
        if (decimal(id, ULONG_MAX, &ret->id) < 0 || decimal(parent, ULONG_MAX, &ret->parent) < 0 ||
            decimal(dev, UINT_MAX, &major) < 0 || decimal(colon + 1, UINT_MAX, &minor) < 0)
                return -EINVAL;
        ret->major = (unsigned) major;
        ret->minor = (unsigned) minor;
        return 0;
}

/* From the optional fields on: "[tags ]- type source superopts".  Names
 * have their spaces escaped, so the first field that is "-" alone is the
 * separator. */
static int parse_tail(char *p, struct bento_mountinfo *ret)
{
        char *sep;

        if (!p)
                return -EINVAL;
        if (strncmp(p, "- ", 2) == 0) {
                *p = '\0';
                ret->optional = p;
                p += 2;
        } else {
                sep = strstr(p, " - ");
                if (!sep)
                        return -EINVAL;
                *sep = '\0';
                ret->optional = p;
                p = sep + 3;
        }
        ret->fstype = next_field(&p);
        ret->source = next_field(&p);
        ret->superopts = next_field(&p);
        /* the super options are the last field */
        if (!ret->superopts || p || !ret->fstype[0] || !ret->superopts[0])
                return -EINVAL;
        return 0;
}

int bento_mountinfo_parse_line(char *line, struct bento_mountinfo *ret)
{
        char *p = line, *f[6];
        char *nl = strchr(line, '\n');

        if (nl && nl[1])
                return -EINVAL;
        if (nl)
                *nl = '\0';
        for (int i = 0; i < 6; i++) {
                f[i] = next_field(&p);
                if (!f[i] || !f[i][0])
                        return -EINVAL;
        }
        if (parse_numbers(f[0], f[1], f[2], ret) < 0 || parse_tail(p, ret) < 0)
                return -EINVAL;
        ret->root = f[3];
        ret->mnt = f[4];
        ret->opts = f[5];
        if (bento_mountinfo_unescape(ret->root) < 0 || bento_mountinfo_unescape(ret->mnt) < 0 ||
            bento_mountinfo_unescape(ret->fstype) < 0 || bento_mountinfo_unescape(ret->source) < 0)
                return -EINVAL;
        return 0;
}

int bento_mountinfo_next(char **pos, struct bento_mountinfo *ret)
{
        char *line = *pos, *end;

        while (*line == '\n')
                line++;
        if (!*line) {
                *pos = line;
                return 0;
        }
        end = strchrnul(line, '\n');
        *pos = *end ? end + 1 : end;
        *end = '\0';
        return bento_mountinfo_parse_line(line, ret) < 0 ? -EINVAL : 1;
}

int bento_mountinfo_parse_all(char *data, struct bento_mountinfo **ret, size_t *ret_n)
{
        struct bento_mountinfo *v = NULL, m;
        size_t n = 0, cap = 0;
        char *pos = data;
        int r;

        while ((r = bento_mountinfo_next(&pos, &m)) != 0) {
                if (r < 0)
                        continue;
                if (n == cap) {
                        struct bento_mountinfo *p =
                            reallocarray(v, cap = cap ? cap * 2 : 64, sizeof(*v));
                        if (!p) {
                                free(v);
                                return -ENOMEM;
                        }
                        v = p;
                }
                v[n++] = m;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

bool bento_mount_opts_has(const char *list, const char *tok, size_t len)
{
        for (const char *p = list; *p;) {
                size_t n = strcspn(p, ",");

                if (n == len && memcmp(p, tok, len) == 0)
                        return true;
                p += n + (p[n] == ',');
        }
        return false;
}

bool bento_mount_opts_all_in(const char *wanted, const char *list)
{
        for (const char *p = wanted; *p;) {
                size_t n = strcspn(p, ",");

                if (n > 0 && !bento_mount_opts_has(list, p, n))
                        return false;
                p += n + (p[n] == ',');
        }
        return true;
}
