/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-init's entry points of its own, in place of libc's: the process's
 * start and the clone of the target's child (sys.h).  Written in assembly
 * where C cannot say it: the initial stack is not a C frame, and a child
 * cloned onto a new stack must not return through the parent's.
 */
#include "sys.h"

/* A system call's number as text, for the assembly below. */
#define INIT_STR_(x) #x
#define INIT_STR(x)  INIT_STR_(x)

/* Called by _start with the initial stack: argc, then argv's pointers and
 * a NULL, then the environment's and a NULL (the x86-64 ELF ABI). */
__attribute__((noreturn, used)) void init_entry(long *sp);
__attribute__((noreturn, used)) void init_entry(long *sp)
{
        int argc = (int) sp[0];
        char **argv = (char **) (sp + 1);

        sys_exit_group(init_main(argc, argv, argv + argc + 1));
}

/* The kernel enters with %rsp at argc, 16-byte aligned by the ABI; it is
 * aligned again anyway before the call, so init_entry starts with the
 * alignment every C function expects.  %rbp zero ends a backtrace here. */
__asm__(".text\n"
        ".globl _start\n"
        ".type _start, @function\n"
        "_start:\n"
        "        endbr64\n"
        "        xor %ebp, %ebp\n"
        "        mov %rsp, %rdi\n"
        "        and $-16, %rsp\n"
        "        call init_entry\n"
        "        hlt\n"
        ".size _start, . - _start\n");

/* init_clone(flags, stack_top, fn, arg): fn and arg go onto the child's
 * stack before the call, as the child has nothing else once it runs there
 * (the registers the kernel keeps for it are the parent's, which the
 * parent may have reused).  The child pops them, leaving %rsp 16-byte
 * aligned for the call, and exits with fn's return: exit_group ends the
 * child alone, which has no CLONE_THREAD. */
__asm__(
    ".text\n"
    ".globl init_clone\n"
    ".hidden init_clone\n"
    ".type init_clone, @function\n"
    "init_clone:\n"
    "        endbr64\n"
    "        and $-16, %rsi\n"
    "        sub $16, %rsi\n"
    "        mov %rdx, 0(%rsi)\n"
    "        mov %rcx, 8(%rsi)\n"
    "        xor %edx, %edx\n"
    "        xor %r10d, %r10d\n"
    "        xor %r8d, %r8d\n"
    "        mov $" INIT_STR(SYS_clone) ", %eax\n"
                                        "        syscall\n"
                                        "        test %rax, %rax\n"
                                        "        jz 1f\n"
                                        "        ret\n"
                                        "1:      xor %ebp, %ebp\n"
                                        "        pop %rax\n"
                                        "        pop %rdi\n"
                                        "        call *%rax\n"
                                        "        mov %eax, %edi\n"
                                        "        mov $" INIT_STR(
                                            SYS_exit_group) ", %eax\n"
                                                            "        syscall\n"
                                                            "        hlt\n"
                                                            ".size init_clone, . - init_clone\n");
