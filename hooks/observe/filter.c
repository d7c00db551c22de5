/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: the seccomp filter (filter.h), written by hand in classic
 * BPF so the observer needs nothing but libc.  Layout:
 *
 *   ld arch; jeq X86_64 ? +1 : 0; ret TRACE        other ABIs stop
 *   ld nr;   jge X32_BIT -> TRACE                  x32 stops
 *   jeq nr_i -> TRACE   (one per table row)
 *   ret ALLOW
 *   ret TRACE
 *
 * The RET_DATA is 0 and the tracer never relies on it: a filter the
 * target installs later can return RET_TRACE with data of its own.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#include "filter.h"
#include "systab.h"

#define X32_SYSCALL_BIT 0x40000000U

static struct sock_filter stmt(unsigned short code, unsigned int k)
{
        return (struct sock_filter) BPF_STMT(code, k);
}

static struct sock_filter jump(unsigned short code, unsigned int k, unsigned char jt,
                               unsigned char jf)
{
        return (struct sock_filter) BPF_JUMP(code, k, jt, jf);
}

size_t obs_filter_build(struct sock_filter *prog)
{
        size_t n_rows, i = 0;
        const struct obs_syscall *rows = obs_syscall_table(&n_rows);

        /* the x32 jump spans every row and the ALLOW: n_rows + 1 <= 255 */
        if (n_rows + 6 > OBS_FILTER_MAX || n_rows + 1 > 255)
                return 0;
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        prog[i++] = jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
        prog[i++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
        prog[i++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        prog[i++] =
            jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, (unsigned char) (n_rows + 1), 0);
        for (size_t r = 0; r < n_rows; r++)
                prog[i++] = jump(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int) rows[r].nr,
                                 (unsigned char) (n_rows - r), 0);
        prog[i++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        prog[i++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
        return i;
}

int obs_filter_install(void)
{
        struct sock_filter insns[OBS_FILTER_MAX];
        struct sock_fprog prog = {.len = 0, .filter = insns};

        prog.len = (unsigned short) obs_filter_build(insns);
        if (prog.len == 0)
                return -E2BIG;
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                return -errno;
        return 0;
}
