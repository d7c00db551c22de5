/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What journal.c shares with journal-key.c: the privacy judgement of a
 * node the journal reads and the directory maker, one implementation of
 * each for the records and for the key that authenticates them.
 */
#ifndef BENTO_JOURNAL_INTERNAL_H
#define BENTO_JOURNAL_INTERNAL_H

#include <stdbool.h>
#include <sys/stat.h>

#include "err.h"

/* Private: owned by euid or root, no group/world write, no ACL granting
 * write to a named user or group.  fd is the node st describes. */
bool journal_private_node(int fd, const struct stat *st);

/* Does the manifest trust inspection (manifest/trust.h) find nobody else who could
 * replace the file open as fd (shown as path): no directory above it that
 * others can write, no link on the way that others could swap? */
bool journal_vouched(int fd, const char *path);

/* mkdir -p of the absolute dir, 0700 for what is created; existing
 * directories are left as they are (they are judged when read). */
int journal_make_dirs(const char *dir, struct bento_err *err);

#endif
