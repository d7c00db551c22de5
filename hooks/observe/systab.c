/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the system-call table (systab.h).  One row per x86_64
 * system call the filter sends to the tracer.  The numbers are spelled out
 * rather than taken from <sys/syscall.h> because the newest calls
 * (getxattrat, file_getattr, ...) are younger than Debian 12's headers, and
 * a call the table misses is one the target could use unseen.
 */
#include <fcntl.h>

#include "systab.h"

#define A OBS_NO_ARG

/* nr, name, kind, path, dirfd, flags, path2, dirfd2, fd_if_null */
static const struct obs_syscall table[] = {
    {2, "open", OBS_OPEN, 0, A, 1, A, A, false},
    {4, "stat", OBS_PROBE, 0, A, A, A, A, false},
    {6, "lstat", OBS_PROBE, 0, A, A, A, A, false},
    {21, "access", OBS_PROBE, 0, A, A, A, A, false},
    {42, "connect", OBS_CONNECT, A, A, A, A, A, false},
    {49, "bind", OBS_BIND, A, A, A, A, A, false},
    {59, "execve", OBS_EXEC, 0, A, A, A, A, false},
    {76, "truncate", OBS_WRITE, 0, A, A, A, A, false},
    {80, "chdir", OBS_CHDIR, 0, A, A, A, A, false},
    {81, "fchdir", OBS_FCHDIR, A, 0, A, A, A, false},
    {82, "rename", OBS_RENAME, 0, A, A, 1, A, false},
    {83, "mkdir", OBS_WRITE, 0, A, A, A, A, false},
    {84, "rmdir", OBS_WRITE, 0, A, A, A, A, false},
    {85, "creat", OBS_WRITE, 0, A, A, A, A, false},
    {86, "link", OBS_LINK, 0, A, A, 1, A, false},
    {87, "unlink", OBS_WRITE, 0, A, A, A, A, false},
    {88, "symlink", OBS_WRITE, 1, A, A, A, A, false},
    {89, "readlink", OBS_PROBE, 0, A, A, A, A, false},
    {90, "chmod", OBS_WRITE, 0, A, A, A, A, false},
    {92, "chown", OBS_WRITE, 0, A, A, A, A, false},
    {94, "lchown", OBS_WRITE, 0, A, A, A, A, false},
    {101, "ptrace", OBS_PTRACE, A, A, A, A, A, false},
    {132, "utime", OBS_WRITE, 0, A, A, A, A, false},
    {133, "mknod", OBS_WRITE, 0, A, A, A, A, false},
    {134, "uselib", OBS_UNHANDLED, A, A, A, A, A, false},
    {137, "statfs", OBS_PROBE, 0, A, A, A, A, false},
    {155, "pivot_root", OBS_UNHANDLED, A, A, A, A, A, false},
    {161, "chroot", OBS_UNHANDLED, A, A, A, A, A, false},
    {163, "acct", OBS_UNHANDLED, A, A, A, A, A, false},
    {165, "mount", OBS_UNHANDLED, A, A, A, A, A, false},
    {166, "umount2", OBS_UNHANDLED, A, A, A, A, A, false},
    {167, "swapon", OBS_UNHANDLED, A, A, A, A, A, false},
    {168, "swapoff", OBS_UNHANDLED, A, A, A, A, A, false},
    {179, "quotactl", OBS_UNHANDLED, A, A, A, A, A, false},
    {188, "setxattr", OBS_WRITE, 0, A, A, A, A, false},
    {189, "lsetxattr", OBS_WRITE, 0, A, A, A, A, false},
    {191, "getxattr", OBS_PROBE, 0, A, A, A, A, false},
    {192, "lgetxattr", OBS_PROBE, 0, A, A, A, A, false},
    {194, "listxattr", OBS_PROBE, 0, A, A, A, A, false},
    {195, "llistxattr", OBS_PROBE, 0, A, A, A, A, false},
    {197, "removexattr", OBS_WRITE, 0, A, A, A, A, false},
    {198, "lremovexattr", OBS_WRITE, 0, A, A, A, A, false},
    {235, "utimes", OBS_WRITE, 0, A, A, A, A, false},
    {254, "inotify_add_watch", OBS_PROBE, 1, A, A, A, A, false},
    {257, "openat", OBS_OPEN, 1, 0, 2, A, A, false},
    {258, "mkdirat", OBS_WRITE, 1, 0, A, A, A, false},
    {259, "mknodat", OBS_WRITE, 1, 0, A, A, A, false},
    {260, "fchownat", OBS_WRITE, 1, 0, 4, A, A, false},
    {261, "futimesat", OBS_WRITE, 1, 0, A, A, A, true},
    {262, "newfstatat", OBS_PROBE, 1, 0, 3, A, A, false},
    {263, "unlinkat", OBS_WRITE, 1, 0, A, A, A, false},
    {264, "renameat", OBS_RENAME, 1, 0, A, 3, 2, false},
    {265, "linkat", OBS_LINK, 1, 0, 4, 3, 2, false},
    {266, "symlinkat", OBS_WRITE, 2, 1, A, A, A, false},
    {267, "readlinkat", OBS_PROBE, 1, 0, A, A, A, false},
    {268, "fchmodat", OBS_WRITE, 1, 0, A, A, A, false},
    {269, "faccessat", OBS_PROBE, 1, 0, A, A, A, false},
    {280, "utimensat", OBS_WRITE, 1, 0, 3, A, A, true},
    {301, "fanotify_mark", OBS_UNHANDLED, A, A, A, A, A, false},
    {303, "name_to_handle_at", OBS_PROBE, 1, 0, 4, A, A, false},
    {304, "open_by_handle_at", OBS_UNHANDLED, A, A, A, A, A, false},
    {316, "renameat2", OBS_RENAME, 1, 0, A, 3, 2, false},
    {317, "seccomp", OBS_SECCOMP, A, A, A, A, A, false},
    {321, "bpf", OBS_UNHANDLED, A, A, A, A, A, false},
    {322, "execveat", OBS_EXEC, 1, 0, 4, A, A, false},
    {332, "statx", OBS_PROBE, 1, 0, 2, A, A, false},
    {425, "io_uring_setup", OBS_UNHANDLED, A, A, A, A, A, false},
    {428, "open_tree", OBS_UNHANDLED, A, A, A, A, A, false},
    {429, "move_mount", OBS_UNHANDLED, A, A, A, A, A, false},
    {430, "fsopen", OBS_UNHANDLED, A, A, A, A, A, false},
    {431, "fsconfig", OBS_UNHANDLED, A, A, A, A, A, false},
    {432, "fsmount", OBS_UNHANDLED, A, A, A, A, A, false},
    {433, "fspick", OBS_UNHANDLED, A, A, A, A, A, false},
    {437, "openat2", OBS_OPEN_HOW, 1, 0, 2, A, A, false},
    {439, "faccessat2", OBS_PROBE, 1, 0, 3, A, A, false},
    {442, "mount_setattr", OBS_UNHANDLED, A, A, A, A, A, false},
    {452, "fchmodat2", OBS_WRITE, 1, 0, 3, A, A, false},
    {463, "setxattrat", OBS_WRITE, 1, 0, 2, A, A, false},
    {464, "getxattrat", OBS_PROBE, 1, 0, 2, A, A, false},
    {465, "listxattrat", OBS_PROBE, 1, 0, 2, A, A, false},
    {466, "removexattrat", OBS_WRITE, 1, 0, 2, A, A, false},
    {467, "open_tree_attr", OBS_UNHANDLED, A, A, A, A, A, false},
    {468, "file_getattr", OBS_PROBE, 1, 0, 4, A, A, false},
    {469, "file_setattr", OBS_WRITE, 1, 0, 4, A, A, false},
};

#undef A

const struct obs_syscall *obs_syscall_table(size_t *n)
{
        *n = sizeof(table) / sizeof(table[0]);
        return table;
}

/* Binary search: the table is sorted by nr (a unit test checks it). */
const struct obs_syscall *obs_syscall_find(int nr)
{
        size_t lo = 0, hi = sizeof(table) / sizeof(table[0]);

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (table[mid].nr == nr)
                        return &table[mid];
                if (table[mid].nr < nr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

bool obs_open_flags_write(unsigned long long flags)
{
        return (flags & OBS_OPEN_WRITE_FLAGS) != 0;
}
