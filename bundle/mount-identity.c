/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The org.bento.mount-identity annotation: writing it (bento translate)
 * and reading it back strictly (bento-runtime, bento inspect).  The format
 * is described in mount-identity.h.
 */
#include "mount-identity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"

/* v in decimal at p; the end of what was written. */
static char *put_u64(char *p, uint64_t v)
{
        char digits[20];
        size_t n = 0;

        do
                digits[n++] = (char) ('0' + v % 10);
        while ((v /= 10) != 0);
        while (n > 0)
                *p++ = digits[--n];
        return p;
}

/* The words by hand, not fprintf(): one a mount, and a bundle of 10,000
 * write grants has 50,000 mounts. */
int bento_mount_identity_format(const struct bento_mount_identity *ids, size_t n, char **ret)
{
        /* " " INDEX ":" KIND ":" DEV ":" INO, each number at most 20 digits */
        enum { WORD_MAX = 1 + 20 + 3 + 20 + 1 + 20 };
        char *buf = malloc(n * WORD_MAX + 1), *p = buf;

        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (ids[i].kind == BENTO_MOUNT_ID_NONE)
                        continue;
                if (p != buf)
                        *p++ = ' ';
                p = put_u64(p, i);
                *p++ = ':';
                *p++ = (char) ids[i].kind;
                *p++ = ':';
                p = put_u64(p, ids[i].dev);
                *p++ = ':';
                p = put_u64(p, ids[i].ino);
        }
        *p = '\0';
        *ret = buf;
        return 0;
}

/* One unsigned decimal number of the word, up to the next ':' or its end;
 * no sign, no leading zero but for "0", no overflow. */
static bool parse_number(const char **p, uint64_t *ret)
{
        const char *s = *p;
        uint64_t v = 0;

        if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
                return false;
        for (; *s >= '0' && *s <= '9'; s++) {
                if (v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *p = s;
        *ret = v;
        return true;
}

static bool parse_word(const char *w, size_t n_mounts, size_t *index,
                       struct bento_mount_identity *id)
{
        uint64_t i;
        char kind;

        if (!parse_number(&w, &i) || *w++ != ':' || i >= n_mounts)
                return false;
        kind = *w++;
        if (kind != BENTO_MOUNT_ID_SAME && kind != BENTO_MOUNT_ID_DEST &&
            kind != BENTO_MOUNT_ID_PARENT)
                return false;
        if (*w++ != ':' || !parse_number(&w, &id->dev) || *w++ != ':' ||
            !parse_number(&w, &id->ino) || *w != '\0')
                return false;
        id->kind = (enum bento_mount_identity_kind) kind;
        *index = (size_t) i;
        return true;
}

int bento_mount_identity_parse(const char *text, size_t n_mounts, struct bento_mount_identity **ret,
                               struct bento_err *err)
{
        cleanup_free struct bento_mount_identity *ids = calloc(n_mounts + 1, sizeof(*ids));
        cleanup_free char *copy = strdup(text);
        char *save = NULL;

        if (!ids || !copy)
                return bento_err_set(err, ENOMEM, "annotation %s", BENTO_MOUNT_IDENTITY_ANNOTATION);
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                struct bento_mount_identity id = {0};
                size_t i = 0;

                if (!parse_word(w, n_mounts, &i, &id))
                        return bento_err_setx(err, EINVAL,
                                              "annotations.\"%s\": \"%.64s\" is not "
                                              "<mount index>:<b|d|p>:<device>:<inode> for one of "
                                              "the %zu mounts; translate the manifest again",
                                              BENTO_MOUNT_IDENTITY_ANNOTATION, w, n_mounts);
                if (ids[i].kind != BENTO_MOUNT_ID_NONE)
                        return bento_err_setx(err, EINVAL,
                                              "annotations.\"%s\": mounts[%zu] is named twice; "
                                              "translate the manifest again",
                                              BENTO_MOUNT_IDENTITY_ANNOTATION, i);
                ids[i] = id;
        }
        *ret = TAKE_PTR(ids);
        return 0;
}
