/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the seccomp filter (filter.h), written by hand in classic
 * BPF so the observer needs nothing but libc.  Layout:
 *
 *   ld arch; jeq X86_64 ? +1 : 0; ret TRACE        other ABIs stop
 *   ld nr;   jge X32_BIT -> TRACE                  x32 stops
 *   (with the preload library's gadget, ring.h:)
 *   ld ip;   jne GADGET_IP -> reload               low word, then high word
 *   ld nr;   jeq newfstatat -> ALLOW; jeq faccessat -> ALLOW
 *            jeq openat ? 0 : reload; ld flags; jset WRITE -> reload : ALLOW
 *   reload:  ld nr
 *   jeq newfstatat ? 0 : +2; ld flags; jset AT_EMPTY_PATH -> ALLOW : TRACE
 *   jeq statx      ? 0 : +2; ld flags; jset AT_EMPTY_PATH -> ALLOW : TRACE
 *   jeq nr_i -> TRACE   (one per table row)
 *   ret ALLOW
 *   ret TRACE
 *
 * fstat() is newfstatat(fd, "", AT_EMPTY_PATH) in glibc, and a program
 * calls it after nearly every open: passing the AT_EMPTY_PATH forms without
 * a stop saves a stop per file and names nothing a grant needs (the open
 * was seen).  A target that also gives a path there hides that lookup from
 * the proposal, which then lacks the grant: it can only narrow its own
 * draft (docs/profile.md).
 * TRACE stands for the action the observer asked for: SECCOMP_RET_USER_NOTIF
 * (the listener's, which wins over a RET_TRACE of a filter the target stacks
 * later) or SECCOMP_RET_TRACE.  The RET_DATA is 0 and the tracer never
 * relies on it: a filter the target installs later can return RET_TRACE
 * with data of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "filter.h"
#include "ring.h"
#include "systab.h"

#define X32_SYSCALL_BIT 0x40000000U

/* Linux 5.19; younger than Debian 12's headers */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

static struct sock_filter stmt(unsigned short code, unsigned int k)
{
        return (struct sock_filter) BPF_STMT(code, k);
}

static struct sock_filter jump(unsigned short code, unsigned int k, unsigned char jt,
                               unsigned char jf)
{
        return (struct sock_filter) BPF_JUMP(code, k, jt, jf);
}

/* The calls whose AT_EMPTY_PATH form passes without a stop, and the
 * argument that holds the flags. */
static const struct {
        unsigned int nr;
        unsigned int flags_arg;
} fd_forms[] = {{262 /* newfstatat */, 3}, {332 /* statx */, 2}};

#define N_FD_FORMS (sizeof(fd_forms) / sizeof(fd_forms[0]))

static unsigned char to(size_t from, size_t target)
{
        return (unsigned char) (target - (from + 1));
}

/* The calls the preload library makes from its gadget (shim/calls.c),
 * which pass without a stop when they come from there: the stat family,
 * faccessat, and openat without a write flag (the flags in argument 2). */
#define GADGET_LEN 11
static size_t add_gadget(struct sock_filter *prog, size_t i, size_t allow)
{
        size_t reload = i + GADGET_LEN - 1;
        unsigned int ip = offsetof(struct seccomp_data, instruction_pointer);
        unsigned int flags = (unsigned int) offsetof(struct seccomp_data, args) + 8 * 2;

        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, ip);
        prog[i] =
            jump(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int) OBS_SHIM_GADGET_IP, 0, to(i, reload));
        i++;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, ip + 4);
        prog[i] = jump(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int) (OBS_SHIM_GADGET_IP >> 32), 0,
                       to(i, reload));
        i++;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        prog[i] = jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, to(i, allow), 0);
        i++;
        prog[i] = jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_faccessat, to(i, allow), 0);
        i++;
        prog[i] = jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, to(i, reload));
        i++;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, flags);
        prog[i] =
            jump(BPF_JMP | BPF_JSET | BPF_K, OBS_OPEN_WRITE_FLAGS, to(i, reload), to(i, allow));
        i++;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        return i;
}

size_t obs_filter_build(struct sock_filter *prog, unsigned int action, bool gadget)
{
        size_t n_rows, i = 0, len, allow, trace;
        const struct obs_syscall *rows = obs_syscall_table(&n_rows);

        len = 5 + (gadget ? GADGET_LEN : 0) + 3 * N_FD_FORMS + n_rows + 2;
        allow = len - 2;
        trace = len - 1;
        /* every jump is at most 255 ahead: the x32 one is the longest */
        if (len > OBS_FILTER_MAX || trace - 5 > 255)
                return 0;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        prog[i++] = jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
        prog[i++] = stmt(BPF_RET | BPF_K, action);
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        prog[i] = jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, to(i, trace), 0);
        i++;
        if (gadget)
                i = add_gadget(prog, i, allow);
        for (size_t f = 0; f < N_FD_FORMS; f++) {
                prog[i++] = jump(BPF_JMP | BPF_JEQ | BPF_K, fd_forms[f].nr, 0, 2);
                /* the flags are an int: the low word of the argument */
                prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS,
                                 (unsigned int) (offsetof(struct seccomp_data, args) +
                                                 8 * (size_t) fd_forms[f].flags_arg));
                prog[i] =
                    jump(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, to(i, allow), to(i, trace));
                i++;
        }
        for (size_t r = 0; r < n_rows; r++) {
                prog[i] =
                    jump(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int) rows[r].nr, to(i, trace), 0);
                i++;
        }
        prog[i++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        prog[i++] = stmt(BPF_RET | BPF_K, action);
        return i;
}

static int install(unsigned int action, unsigned long flags, bool gadget)
{
        struct sock_filter insns[OBS_FILTER_MAX];
        struct sock_fprog prog = {.len = 0, .filter = insns};
        long r;

        prog.len = (unsigned short) obs_filter_build(insns, action, gadget);
        if (prog.len == 0)
                return -E2BIG;
        r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
        return r < 0 ? -errno : (int) r;
}

int obs_filter_install_notify(bool gadget)
{
        return install(SECCOMP_RET_USER_NOTIF,
                       SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
                       gadget);
}

int obs_filter_install_trace(bool gadget)
{
        return install(SECCOMP_RET_TRACE, 0, gadget);
}
