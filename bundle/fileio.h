/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-file reads and atomic whole-file writes, for config.json, the state
 * record and the other small files the runtime keeps.
 *
 * Reads are for files that may have been tampered with: the last path
 * component is never followed if it is a symbolic link (O_NOFOLLOW; earlier
 * components are resolved normally), only regular files are read (a FIFO
 * cannot block the caller, a device cannot be read), and the size is capped
 * whatever fstat() claims, so /proc files (which report size 0) work too.
 *
 * Writes go to a fresh temporary file in the target's directory that then
 * takes the target's name, so a reader sees the old content or the new
 * one, never a mix: over an existing file the two names are exchanged
 * (renameat2(RENAME_EXCHANGE)) and the old file removed, since a rename(2)
 * over a file makes ext4 start writing the new one out; elsewhere a plain
 * rename(2).  Nothing is fsync()ed: these files (state records, pid
 * files) describe live processes and mean nothing after a crash, and an
 * fsync per create cost measurable time (docs/performance.md).  A caller
 * that needs durability (a manifest rewrite) commits its own temporary file
 * with bento_commit_temp_file().  The target, if it is a symlink, is
 * replaced rather than followed.
 *
 * All descriptors are O_CLOEXEC.  Returns 0 or -errno with err filled; the
 * message names the file.
 */
#ifndef BENTO_FILEIO_H
#define BENTO_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* Read path (at most max bytes; larger files fail with EFBIG).  *ret is
 * heap-allocated and NUL-terminated; *ret_len excludes the terminator.  A
 * symlink as last component fails with ELOOP, a non-regular file with
 * EINVAL. */
int bento_read_file(const char *path, size_t max, char **ret, size_t *ret_len,
                    struct bento_err *err);

/* The same, relative to a directory descriptor (AT_FDCWD allowed). */
int bento_read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len,
                       struct bento_err *err);

/* Read an open descriptor to EOF under the same cap, without any checks on
 * what it is (pipes, sockets).  name is only used in messages. */
int bento_read_fd(int fd, const char *name, size_t max, char **ret, size_t *ret_len,
                  struct bento_err *err);

/* Replace path with len bytes of data; the file gets exactly mode (the umask
 * does not apply). */
int bento_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode,
                            struct bento_err *err);

/* The same, for a plain file name (no '/') inside a directory descriptor. */
int bento_write_file_atomic_at(int dirfd, const char *name, const char *data, size_t len,
                               mode_t mode, struct bento_err *err);

/* Write value to a kernel interface file (/proc/<pid>/uid_map, a cgroup
 * file) in one write(): the kernel takes each write as one request, so it
 * must not be split, and the file is never created or truncated.  flags
 * are added to O_WRONLY|O_CLOEXEC (O_NOFOLLOW where the last component
 * could be a planted symlink).  Returns 0, or -errno with *ret_step (when
 * ret_step is not NULL) naming what failed, "open" or "write": the callers
 * word their own messages. */
int bento_write_value(const char *path, const char *value, int flags, const char **ret_step);

/* True when name is one of the temporary names the two functions above
 * give a replacement of `target` (".<target>.<12 hex digits>"): what a
 * writer killed before its rename leaves, for whoever removes the
 * directory to recognise as its own. */
bool bento_is_temp_name(const char *name, const char *target);

/* The durable replacement a caller that must survive a crash builds on (an
 * approved manifest, an approval record): fd is a temporary file the caller
 * created as tmp in dst's directory (mkostemp).  It gets data, exactly
 * mode, fsync() and close(), then tmp is rename()d over dst and dst's
 * directory is fsync()ed (a failure there is ignored: the rename cannot be
 * undone).  fd is closed in every case.  Returns 0, or -errno with tmp
 * removed and *ret_step naming what failed ("write", "set the mode of",
 * "flush", "close", "rename into place"); the caller words the message. */
int bento_commit_temp_file(int fd, const char *tmp, const char *dst, const char *data, size_t len,
                           mode_t mode, const char **ret_step);

#endif
