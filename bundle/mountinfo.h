/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one reader of /proc/<pid>/mountinfo (proc(5)) for every program:
 *
 *   36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id pa ma:mi root  mount point opts   optional…  - type source    super options
 *
 * A mount point, a root or a source may be named by the sandboxed program
 * (it makes mounts in its own namespace, and the runtime reads the table
 * of the container's init), so a line is treated as hostile: every field
 * is checked, the numbers must be plain decimals, the "-" separator must
 * be there, and the kernel's octal escapes (\040 for a space, \134 for a
 * backslash) are undone in the fields that are names.  The option lists
 * stay as listed: undoing an escaped comma there would split an option in
 * two.  Parsing is in place: the strings point into the caller's buffer.
 */
#ifndef BENTO_MOUNTINFO_H
#define BENTO_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* The largest mountinfo read.  The kernel allows fs.mount-max mounts per
 * namespace (100,000 by default); a line is 100 to 300 bytes for usual
 * paths, so 64 MiB holds a full namespace with room for long ones. */
#define BENTO_MOUNTINFO_MAX_BYTES ((size_t) 64 << 20)

struct bento_mountinfo {
        unsigned long id, parent;
        unsigned major, minor;
        char *root;      /* the mount's root within its filesystem; unescaped */
        char *mnt;       /* the mount point; unescaped */
        char *opts;      /* per-mount options ("rw,nosuid"), as listed */
        char *optional;  /* optional fields ("shared:1 master:2"); "" when none */
        char *fstype;    /* unescaped ("fuse.sshfs") */
        char *source;    /* unescaped; may be "" (older kernels) */
        char *superopts; /* per-superblock options, as listed */
};

/* Read path (a mountinfo file) whole, under BENTO_MOUNTINFO_MAX_BYTES
 * (EFBIG beyond, both sizes named).  *ret is heap-allocated and
 * NUL-terminated.  Returns 0 or -errno with err filled. */
int bento_mountinfo_read(const char *path, char **ret, struct bento_err *err);

/* Parse one line (no newline, or a final one) in place.  Returns 0, or
 * -EINVAL for a line that is not one (too few fields, no "-" separator, a
 * number that is not one, an escape that would make a NUL, anything after
 * the super options); *ret is then undefined. */
int bento_mountinfo_parse_line(char *line, struct bento_mountinfo *ret);

/* The next line of a buffer read by bento_mountinfo_read(), parsed in
 * place; *pos starts at the buffer and moves past the line.  Empty lines
 * are skipped.  Returns 1 with *ret filled, 0 at the end, or -EINVAL for a
 * line that does not parse (the caller may go on with the next one). */
int bento_mountinfo_next(char **pos, struct bento_mountinfo *ret);

/* Every line of such a buffer that parses, in order (lines that do not are
 * skipped), as a heap array the caller frees.  Returns 0 or -ENOMEM. */
int bento_mountinfo_parse_all(char *data, struct bento_mountinfo **ret, size_t *ret_n);

/* Undo the octal escapes (\ooo, at most \377) of s in place.  Returns 0,
 * or -EINVAL when one would make a NUL (s is then undefined): a NUL cannot
 * be part of a name, and would cut the name short. */
int bento_mountinfo_unescape(char *s);

/* Comma-separated option lists ("rw,cpu,cpuacct"): does list hold the
 * option tok[0..len)?  Is every option of wanted in list (empty options of
 * wanted are ignored)? */
bool bento_mount_opts_has(const char *list, const char *tok, size_t len);
bool bento_mount_opts_all_in(const char *wanted, const char *list);

#endif
