/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small evaluator of classic BPF seccomp programs for the unit tests:
 * just the instructions bento's hand-written filters use (32-bit absolute
 * loads of seccomp_data, jeq, jge, jset, ret).  It returns what the
 * kernel would, so a test can check each rule on made-up calls without
 * installing a filter.  BPF_EVAL_BAD: an unknown instruction, a load out of
 * bounds, or a program that ends without a ret.
 */
#ifndef BENTO_TEST_BPF_EVAL_H
#define BENTO_TEST_BPF_EVAL_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BPF_EVAL_BAD 0xdeadbeefU

static inline unsigned int bpf_eval(const struct sock_filter *p, size_t n,
                                    const struct seccomp_data *d)
{
        uint32_t a = 0;

        for (size_t pc = 0; pc < n; pc++) {
                const struct sock_filter *i = &p[pc];

                switch (i->code) {
                case BPF_LD | BPF_W | BPF_ABS:
                        if (i->k + 4 > sizeof(*d))
                                return BPF_EVAL_BAD;
                        memcpy(&a, (const unsigned char *) d + i->k, 4);
                        break;
                case BPF_JMP | BPF_JEQ | BPF_K:
                        pc += a == i->k ? i->jt : i->jf;
                        break;
                case BPF_JMP | BPF_JGE | BPF_K:
                        pc += a >= i->k ? i->jt : i->jf;
                        break;
                case BPF_JMP | BPF_JSET | BPF_K:
                        pc += (a & i->k) ? i->jt : i->jf;
                        break;
                case BPF_RET | BPF_K:
                        return i->k;
                default:
                        return BPF_EVAL_BAD;
                }
        }
        return BPF_EVAL_BAD;
}

#endif
