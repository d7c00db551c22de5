/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for hooks/observe/systab.c and filter.c: which argument of
 * each system call is the path, its dirfd and its flags, the record kind,
 * the open-flag classification, and the filter's verdicts, run through a
 * small interpreter of the classic-BPF instructions the filter uses.
 */
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "bpf-eval.h"
#include "filter.h"
#include "ring.h"
#include "systab.h"
#include "tap.h"

static const struct obs_syscall *by_name(const char *name)
{
        size_t n;
        const struct obs_syscall *t = obs_syscall_table(&n);

        for (size_t i = 0; i < n; i++)
                if (strcmp(t[i].name, name) == 0)
                        return &t[i];
        return NULL;
}

TEST(the_table_is_sorted_and_found_by_number)
{
        size_t n;
        const struct obs_syscall *t = obs_syscall_table(&n);

        ASSERT_TRUE(n > 60);
        for (size_t i = 1; i < n; i++)
                ASSERT_TRUE(t[i - 1].nr < t[i].nr);
        for (size_t i = 0; i < n; i++)
                ASSERT_TRUE(obs_syscall_find(t[i].nr) == &t[i]);
        ASSERT_TRUE(obs_syscall_find(SYS_read) == NULL);
        ASSERT_TRUE(obs_syscall_find(SYS_write) == NULL);
        ASSERT_TRUE(obs_syscall_find(-1) == NULL);
        ASSERT_TRUE(obs_syscall_find(100000) == NULL);
}

/* The numbers match the kernel's where the headers know them. */
TEST(numbers_match_the_headers)
{
        ASSERT_EQ(by_name("openat")->nr, SYS_openat);
        ASSERT_EQ(by_name("openat2")->nr, SYS_openat2);
        ASSERT_EQ(by_name("execveat")->nr, SYS_execveat);
        ASSERT_EQ(by_name("statx")->nr, SYS_statx);
        ASSERT_EQ(by_name("faccessat2")->nr, SYS_faccessat2);
        ASSERT_EQ(by_name("renameat2")->nr, SYS_renameat2);
        ASSERT_EQ(by_name("newfstatat")->nr, SYS_newfstatat);
        ASSERT_EQ(by_name("mount_setattr")->nr, SYS_mount_setattr);
        ASSERT_EQ(by_name("ptrace")->nr, SYS_ptrace);
}

static int kind_of(const char *name)
{
        const struct obs_syscall *s = by_name(name);

        return s ? (int) s->kind : -1;
}

TEST(every_call_of_the_profile_list_is_decoded)
{
        static const char *const probes[] = {
            "stat",       "lstat",       "access",           "readlink",   "statfs",
            "getxattr",   "lgetxattr",   "listxattr",        "llistxattr", "newfstatat",
            "statx",      "faccessat",   "faccessat2",       "readlinkat", "name_to_handle_at",
            "getxattrat", "listxattrat", "inotify_add_watch"};
        static const char *const writes[] = {
            "creat",         "mkdir",    "mkdirat",   "rmdir",       "unlink",       "unlinkat",
            "truncate",      "mknod",    "mknodat",   "chmod",       "fchmodat",     "fchmodat2",
            "chown",         "lchown",   "fchownat",  "utime",       "utimes",       "utimensat",
            "futimesat",     "setxattr", "lsetxattr", "removexattr", "lremovexattr", "setxattrat",
            "removexattrat", "symlink",  "symlinkat"};

        for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
                if (kind_of(probes[i]) != OBS_PROBE)
                        TAP_FAIL("%s is not a probe", probes[i]);
        for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
                if (kind_of(writes[i]) != OBS_WRITE)
                        TAP_FAIL("%s is not a write", writes[i]);
        ASSERT_EQ(kind_of("open"), OBS_OPEN);
        ASSERT_EQ(kind_of("openat"), OBS_OPEN);
        ASSERT_EQ(kind_of("openat2"), OBS_OPEN_HOW);
        ASSERT_EQ(kind_of("execve"), OBS_EXEC);
        ASSERT_EQ(kind_of("execveat"), OBS_EXEC);
        ASSERT_EQ(kind_of("chdir"), OBS_CHDIR);
        ASSERT_EQ(kind_of("fchdir"), OBS_FCHDIR);
        ASSERT_EQ(kind_of("link"), OBS_LINK);
        ASSERT_EQ(kind_of("linkat"), OBS_LINK);
        ASSERT_EQ(kind_of("rename"), OBS_RENAME);
        ASSERT_EQ(kind_of("renameat"), OBS_RENAME);
        ASSERT_EQ(kind_of("renameat2"), OBS_RENAME);
        ASSERT_EQ(kind_of("connect"), OBS_CONNECT);
        ASSERT_EQ(kind_of("bind"), OBS_BIND);
        ASSERT_EQ(kind_of("ptrace"), OBS_PTRACE);
}

TEST(path_naming_calls_not_decoded_are_unhandled)
{
        static const char *const names[] = {
            "mount",     "umount2",    "chroot", "pivot_root", "fanotify_mark", "open_by_handle_at",
            "open_tree", "move_mount", "fsopen", "fsconfig",   "fspick",        "mount_setattr",
            "swapon",    "swapoff",    "acct",   "uselib",     "quotactl"};

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (kind_of(names[i]) != OBS_UNHANDLED)
                        TAP_FAIL("%s is not unhandled", names[i]);
}

TEST(argument_positions)
{
        const struct obs_syscall *s;

        s = by_name("open");
        ASSERT_EQ(s->path, 0);
        ASSERT_EQ(s->dirfd, OBS_NO_ARG);
        ASSERT_EQ(s->flags, 1);
        s = by_name("openat");
        ASSERT_EQ(s->dirfd, 0);
        ASSERT_EQ(s->path, 1);
        ASSERT_EQ(s->flags, 2);
        s = by_name("newfstatat"); /* AT_* flags: AT_EMPTY_PATH names the fd */
        ASSERT_EQ(s->flags, 3);
        s = by_name("execveat");
        ASSERT_EQ(s->dirfd, 0);
        ASSERT_EQ(s->path, 1);
        ASSERT_EQ(s->flags, 4);
        s = by_name("linkat"); /* source (0, 1), destination (2, 3) */
        ASSERT_EQ(s->dirfd, 0);
        ASSERT_EQ(s->path, 1);
        ASSERT_EQ(s->dirfd2, 2);
        ASSERT_EQ(s->path2, 3);
        s = by_name("rename");
        ASSERT_EQ(s->path, 0);
        ASSERT_EQ(s->path2, 1);
        s = by_name("symlinkat"); /* the target (0) is not a path accessed */
        ASSERT_EQ(s->path, 2);
        ASSERT_EQ(s->dirfd, 1);
        s = by_name("symlink");
        ASSERT_EQ(s->path, 1);
        s = by_name("inotify_add_watch");
        ASSERT_EQ(s->path, 1);
        ASSERT_EQ(s->dirfd, OBS_NO_ARG);
        s = by_name("utimensat"); /* a NULL path names the fd */
        ASSERT_TRUE(s->fd_if_null);
        s = by_name("fchdir");
        ASSERT_EQ(s->path, OBS_NO_ARG);
        ASSERT_EQ(s->dirfd, 0);
}

TEST(open_flag_classification)
{
        ASSERT_TRUE(!obs_open_flags_write(O_RDONLY));
        ASSERT_TRUE(!obs_open_flags_write(O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW));
        ASSERT_TRUE(!obs_open_flags_write(O_PATH));
        ASSERT_TRUE(obs_open_flags_write(O_WRONLY));
        ASSERT_TRUE(obs_open_flags_write(O_RDWR));
        ASSERT_TRUE(obs_open_flags_write(O_RDONLY | O_CREAT));
        ASSERT_TRUE(obs_open_flags_write(O_RDONLY | O_TRUNC));
        ASSERT_TRUE(obs_open_flags_write(O_RDONLY | O_APPEND));
        ASSERT_TRUE(obs_open_flags_write(O_TMPFILE | O_WRONLY));
        /* the upper 32 bits of an openat2 how.flags do not hide a write */
        ASSERT_TRUE(obs_open_flags_write((1ULL << 40) | O_WRONLY));
}

/* Run the filter on one call made from ip (bpf-eval.h). */
static unsigned int run_at(const struct sock_filter *p, size_t n, unsigned int arch,
                           unsigned int nr, const uint64_t *args, uint64_t ip)
{
        struct seccomp_data d = {.nr = (int) nr, .arch = arch, .instruction_pointer = ip};

        if (args)
                memcpy(d.args, args, sizeof(d.args));
        return bpf_eval(p, n, &d);
}

static unsigned int run_args(const struct sock_filter *p, size_t n, unsigned int arch,
                             unsigned int nr, const uint64_t *args)
{
        return run_at(p, n, arch, nr, args, 0x7f0000001234ULL);
}

static unsigned int run(const struct sock_filter *p, size_t n, unsigned int arch, unsigned int nr)
{
        return run_args(p, n, arch, nr, NULL);
}

/* Both transports' filters give the same verdicts, with their action, with
 * the preload library's gadget block or without it, for calls made from
 * anywhere but the gadget. */
static void check_verdicts(unsigned int act, bool gadget)
{
        struct sock_filter p[OBS_FILTER_MAX];
        size_t n = obs_filter_build(p, act, gadget), rows;
        const struct obs_syscall *t = obs_syscall_table(&rows);

        /* 5 head, 3 per descriptor form (newfstatat, statx), a row each, 2 rets;
         * the gadget's block is 11 */
        ASSERT_EQ(n, rows + 13 + (gadget ? 11 : 0));
        for (size_t i = 0; i < rows; i++)
                ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, (unsigned) t[i].nr), act);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, SYS_read), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, SYS_getpid), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, SYS_close), SECCOMP_RET_ALLOW);
        /* ia32 and x32: whatever the number */
        ASSERT_EQ(run(p, n, AUDIT_ARCH_I386, 3), act);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_I386, 0), act);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, 0x40000000U | SYS_read), act);
        ASSERT_EQ(run(p, n, AUDIT_ARCH_X86_64, 0x40000000U | 257), act);
}

TEST(filter_verdicts)
{
        check_verdicts(SECCOMP_RET_TRACE, false);
        check_verdicts(SECCOMP_RET_USER_NOTIF, false);
        check_verdicts(SECCOMP_RET_TRACE, true);
        check_verdicts(SECCOMP_RET_USER_NOTIF, true);
}

/* From the gadget only the library's own lookups pass: a stat, a
 * faccessat, an openat without a write flag; every other watched call
 * still stops, and so does the same lookup from a neighbouring address or
 * another ABI.  Without the block the gadget is an address like another. */
TEST(gadget_passes_only_the_library_lookups)
{
        struct sock_filter p[OBS_FILTER_MAX], q[OBS_FILTER_MAX];
        unsigned int act = SECCOMP_RET_USER_NOTIF;
        size_t n = obs_filter_build(p, act, true), m = obs_filter_build(q, act, false);
        const uint64_t g = OBS_SHIM_GADGET_IP;
        uint64_t stat_args[6] = {AT_FDCWD, 0x1000, 0x2000, 0};
        uint64_t ro[6] = {AT_FDCWD, 0x1000, O_RDONLY | O_CLOEXEC | O_DIRECTORY};
        const int writes[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_TMPFILE | O_RDWR};
        size_t rows;
        const struct obs_syscall *t = obs_syscall_table(&rows);

        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_faccessat, stat_args, g), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_openat, ro, g), SECCOMP_RET_ALLOW);
        for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
                uint64_t w[6] = {AT_FDCWD, 0x1000, (uint64_t) writes[i]};

                ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_openat, w, g), act);
        }
        /* every other watched call, from the gadget too */
        for (size_t i = 0; i < rows; i++) {
                unsigned nr = (unsigned) t[i].nr;

                if (nr != SYS_newfstatat && nr != SYS_faccessat && nr != SYS_openat)
                        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, nr, stat_args, g), act);
        }
        /* an address that differs in either word, another ABI, x32 */
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g + 1), act);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g - 2), act);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g + (1ULL << 32)),
                  act);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g & 0xffffffffULL),
                  act);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_I386, 5 /* ia32 open */, ro, g), act);
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, 0x40000000U | SYS_openat, ro, g), act);
        /* the calls that pass anywhere still pass from the gadget */
        ASSERT_EQ(run_at(p, n, AUDIT_ARCH_X86_64, SYS_read, NULL, g), SECCOMP_RET_ALLOW);
        /* a filter built without the block stops the gadget's lookups */
        ASSERT_EQ(run_at(q, m, AUDIT_ARCH_X86_64, SYS_newfstatat, stat_args, g), act);
        ASSERT_EQ(run_at(q, m, AUDIT_ARCH_X86_64, SYS_openat, ro, g), act);
}

/* fstat() on a descriptor passes; the same calls with a path stop. */
TEST(descriptor_forms_pass_without_a_stop)
{
        struct sock_filter p[OBS_FILTER_MAX];
        size_t n = obs_filter_build(p, SECCOMP_RET_TRACE, false);
        uint64_t fstat_form[6] = {3, 0, 0, AT_EMPTY_PATH};
        uint64_t path_form[6] = {AT_FDCWD, 0x1000, 0, AT_SYMLINK_NOFOLLOW};
        uint64_t statx_fd[6] = {3, 0, AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT};
        uint64_t statx_path[6] = {AT_FDCWD, 0x1000, AT_SYMLINK_NOFOLLOW};
        /* the flag in the upper word of the argument is not the int flags */
        uint64_t high[6] = {3, 0, 0, (uint64_t) AT_EMPTY_PATH << 32};

        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, fstat_form), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, path_form), SECCOMP_RET_TRACE);
        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_newfstatat, high), SECCOMP_RET_TRACE);
        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_statx, statx_fd), SECCOMP_RET_ALLOW);
        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_statx, statx_path), SECCOMP_RET_TRACE);
        /* the flags position of one call is not looked at for another */
        ASSERT_EQ(run_args(p, n, AUDIT_ARCH_X86_64, SYS_faccessat2, fstat_form), SECCOMP_RET_TRACE);
}

TAP_MAIN()
