/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The textual provenance edit shared by the approval stamp and the
 * recording of blocked hosts (stamp.c, blocked.c).
 * Internal to those two files: the public API is stamp.h.
 */
#ifndef BENTO_APPROVAL_EDIT_H
#define BENTO_APPROVAL_EDIT_H

#include <stdbool.h>
#include <stddef.h>

/* What to change in the provenance block. */
struct approval_edit_req {
        /* generated-by, generated-at, approves: the new value, or NULL to
         * leave the key alone.  Written as plain scalars where a key is
         * new, in the existing quoting style where it is replaced. */
        const char *values[3];
        /* blocked-hosts entries to add (sorted, printable ASCII without
         * quotes or backslashes), each written as a double-quoted item
         * line, before the recorded item before[j] (n_recorded: after the
         * last).  n_recorded is how many items the list holds now. */
        char *const *hosts;
        const size_t *before;
        size_t n_hosts;
        size_t n_recorded;
};

/* Apply req to data (UTF-8, len bytes) as a minimal textual edit: every
 * other byte is kept.  Returns the heap-allocated, NUL-terminated text with
 * *ret_len set, or NULL with *ret_why (a static sentence fragment; ret_why
 * may be NULL) saying why the layout allows no such edit.  The result is
 * not checked here: the caller must confirm it with
 * approval_edit_confirms() before using it. */
char *approval_edit_text(const char *data, size_t len, const struct approval_edit_req *req,
                         size_t *ret_len, const char **ret_why);

/* Does text parse (name in messages) to exactly the model whose canonical
 * serialization (manifest_to_yaml) is want? */
bool approval_edit_confirms(const char *text, size_t len, const char *name, const char *want,
                            size_t want_len);

#endif
