/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The directories that hold many home rules (the anchor itself, .config,
 * .cache, .local/share, ...), listed before the rules in them are resolved.
 * The path memo lists a directory on its own only after a few of its names
 * were asked of the host one lstat(2) each (LIST_AFTER_LOOKUPS, path.c):
 * for a directory the rules will ask about dozens of times, those first
 * lookups are system calls for nothing, since the listing comes anyway.
 * The listing is the memo's own, made only where it vouches for it
 * (path_list_soon()), so what a rule's lookup answers does not change;
 * a busy directory that is a symlink is left to be looked up name by name.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "internal.h"

/* As many rules in one directory as make the memo list it anyway. */
#define BUSY_DIR_RULES 6
#define BUSY_DIRS_MAX  32
/* Open addressing over the rules' directories: fewer than 544 of them. */
#define DIR_SLOTS 1024

struct rule_dir {
        const char *rel; /* rel[0..len) is the directory; len 0: the anchor itself */
        size_t len;
        unsigned rules;
};

/* The rule table is fixed, so its busy directories are counted once. */
static struct rule_dir busy[BUSY_DIRS_MAX];
static size_t n_busy;
static bool counted;

static size_t dir_len(const char *rel)
{
        const char *slash = strrchr(rel, '/');

        return slash ? (size_t) (slash - rel) : 0;
}

static struct rule_dir *slot_of(struct rule_dir *slots, const char *rel, size_t len)
{
        size_t i = path_hash(rel, len) & (DIR_SLOTS - 1);

        while (slots[i].rel && !(slots[i].len == len && memcmp(slots[i].rel, rel, len) == 0))
                i = (i + 1) & (DIR_SLOTS - 1);
        return &slots[i];
}

/* A parent before its children (a shorter directory first), so that the
 * parent's listing answers where the child is a directory. */
static void keep_busy(const struct rule_dir *d)
{
        size_t i = n_busy;

        if (n_busy == BUSY_DIRS_MAX)
                return;
        while (i > 0 && busy[i - 1].len > d->len) {
                busy[i] = busy[i - 1];
                i--;
        }
        busy[i] = *d;
        n_busy++;
}

static void count_busy(void)
{
        cleanup_free struct rule_dir *slots = calloc(DIR_SLOTS, sizeof(*slots));

        counted = true;
        if (!slots) /* the rules are then looked up one by one, as they can be */
                return;
        for (size_t i = 0; i < shield_home_rules_n; i++) {
                const char *rel = shield_home_rules[i].rel;
                size_t len = dir_len(rel);
                struct rule_dir *d = slot_of(slots, rel, len);

                d->rel = rel;
                d->len = len;
                if (++d->rules == BUSY_DIR_RULES)
                        keep_busy(d);
        }
}

void shields_list_busy_dirs(const char *anchor)
{
        if (!counted)
                count_busy();
        for (size_t i = 0; i < n_busy; i++) {
                cleanup_free char *rel = strndup(busy[i].rel, busy[i].len);
                cleanup_free char *dir = rel ? path_join(anchor, rel) : NULL;
                mode_t type;

                /* a directory itself, not a symlink to one (whose listing
                 * would stand for the link's own name) */
                if (dir && path_type(dir, &type) == 0 && type == S_IFDIR)
                        path_list_soon(dir);
        }
}
