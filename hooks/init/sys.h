/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The system calls bento-init makes, with the syscall instruction: it is
 * built without libc (Makefile, "bento-init"), so that its start is the
 * kernel's exec and a jump to _start, with no loader, no relocation and no
 * libc set-up on the path to the target.  Each returns what the kernel
 * does: a negative errno on failure.
 */
#ifndef BENTO_INIT_SYS_H
#define BENTO_INIT_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "raw-syscall.h"

/* The kernel's signal set: one bit a signal, signal N at bit N-1. */
typedef uint64_t init_sigset;

#define INIT_SIGBIT(sig) ((init_sigset) 1 << ((sig) -1))

static inline long sys_read(int fd, void *buf, size_t n)
{
        return bento_raw_syscall(SYS_read, fd, (long) buf, (long) n, 0, 0, 0);
}

static inline long sys_write(int fd, const void *buf, size_t n)
{
        return bento_raw_syscall(SYS_write, fd, (long) buf, (long) n, 0, 0, 0);
}

static inline long sys_openat(int dirfd, const char *path, int flags)
{
        return bento_raw_syscall(SYS_openat, dirfd, (long) path, flags, 0, 0, 0);
}

static inline long sys_close(int fd)
{
        return bento_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

static inline long sys_fcntl(int fd, int cmd, long arg)
{
        return bento_raw_syscall(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
}

static inline long sys_getpid(void)
{
        return bento_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

static inline long sys_kill(long pid, int sig)
{
        return bento_raw_syscall(SYS_kill, pid, sig, 0, 0, 0, 0);
}

static inline long sys_prctl(int option, long arg)
{
        return bento_raw_syscall(SYS_prctl, option, arg, 0, 0, 0, 0);
}

static inline long sys_wait4(long pid, int *status, int options)
{
        return bento_raw_syscall(SYS_wait4, pid, (long) status, options, 0, 0, 0);
}

static inline long sys_sigprocmask(int how, const init_sigset *set, init_sigset *old)
{
        return bento_raw_syscall(SYS_rt_sigprocmask, how, (long) set, (long) old,
                                 sizeof(init_sigset), 0, 0);
}

/* The kernel's struct sigaction, for SIG_DFL alone: all zero (handler,
 * flags, restorer, mask). */
struct init_kernel_sigaction {
        uint64_t handler, flags, restorer;
        init_sigset mask;
};

static inline long sys_sigaction(int sig, const struct init_kernel_sigaction *act)
{
        return bento_raw_syscall(SYS_rt_sigaction, sig, (long) act, 0, sizeof(init_sigset), 0, 0);
}

static inline long sys_signalfd(const init_sigset *set, int flags)
{
        return bento_raw_syscall(SYS_signalfd4, -1, (long) set, sizeof(init_sigset), flags, 0, 0);
}

static inline long sys_execve(const char *path, char *const *argv, char *const *envp)
{
        return bento_raw_syscall(SYS_execve, (long) path, (long) argv, (long) envp, 0, 0, 0);
}

__attribute__((noreturn)) static inline void sys_exit_group(int status)
{
        for (;;)
                (void) bento_raw_syscall(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

/* start.c: clone(flags) with the child on the stack below stack_top, where
 * it calls fn(arg) and exits the process with its return value; it never
 * comes back into its caller's frames, which (with CLONE_VM) are the
 * parent's.  The parent gets the child's pid or a negative errno. */
long init_clone(unsigned long flags, void *stack_top, int (*fn)(void *), void *arg);

/* main.c: what _start calls with the initial stack's arguments. */
int init_main(int argc, char **argv, char **envp);

#endif
