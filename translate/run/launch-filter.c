/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp filters of the Landlock-only tier (launch.h), written as
 * classic BPF by hand: bento itself does not link libseccomp, and these
 * programs are small and fixed.  There is no mount, PID or network
 * namespace in this tier, so seccomp carries what the namespaces carry in
 * the full one:
 *
 *   - a foreign architecture or an x32 call is killed (the numbers below
 *     are x86_64's, and a filter that does not know an ABI cannot judge it);
 *   - IP egress: socket() of any family but AF_UNIX and AF_NETLINK, and
 *     io_uring (which opens sockets where the filter does not look) -> EPERM;
 *   - cross-process reach into the caller's other processes (ptrace,
 *     process_vm_*, kcmp, pidfd_getfd, ...) -> EPERM;
 *   - terminal injection: ioctl TIOCSTI / TIOCLINUX -> EPERM;
 *   - the privilege bits of compile/seccomp.c (a setuid file the box makes
 *     in a write grant is a root program on the host when root runs bento);
 *   - exec: none-strict's fork, vfork and process clone -> EPERM, clone3 ->
 *     ENOSYS (glibc then falls back to clone, which the filter can read).
 *
 * The exec block itself is a second filter that hands execve and execveat
 * to bento-exec-gate, which lets the launcher's own exec of the target
 * through and refuses every later one (launch.c).
 *
 * Argument checks load the low 32 bits of an argument: the kernel reads
 * socket's domain, ioctl's request, the modes and the open flags as 32-bit
 * values, so high bits a caller sets cannot steer the filter away.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launch.h"

#define X32_BIT          0x40000000U
#define CLONE_THREAD_BIT 0x10000U
#define TIOCSTI_REQ      0x5412U
#define TIOCLINUX_REQ    0x541cU
#define SETID_BITS       06000U
#define TMPFILE_BIT      020000000U

#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) &SECCOMP_RET_DATA))
#define ARG_LO(i)    ((unsigned) (offsetof(struct seccomp_data, args) + sizeof(__u64) * (size_t) (i)))
#define NR_OFF       ((unsigned) offsetof(struct seccomp_data, nr))

static void put(struct launch_prog *p, struct sock_filter ins)
{
        if (p->n >= LAUNCH_FILTER_MAX) {
                p->overflow = true;
                return;
        }
        p->f[p->n++] = ins;
}

static void ld(struct launch_prog *p, unsigned off)
{
        put(p, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
}

static void ret(struct launch_prog *p, unsigned action)
{
        put(p, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, action));
}

static void jeq(struct launch_prog *p, unsigned k, unsigned char jt, unsigned char jf)
{
        put(p, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf));
}

static void jset(struct launch_prog *p, unsigned k, unsigned char jt, unsigned char jf)
{
        put(p, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, jt, jf));
}

/* Architecture and x32 guard; leaves the call number in A. */
static void prologue(struct launch_prog *p)
{
        ld(p, (unsigned) offsetof(struct seccomp_data, arch));
        jeq(p, AUDIT_ARCH_X86_64, 1, 0);
        ret(p, SECCOMP_RET_KILL_PROCESS);
        ld(p, NR_OFF);
        jset(p, X32_BIT, 0, 1);
        ret(p, SECCOMP_RET_KILL_PROCESS);
}

/* A holds the call number: nr -> action. */
static void deny_nr(struct launch_prog *p, long nr, unsigned action)
{
        jeq(p, (unsigned) nr, 0, 1);
        ret(p, action);
}

/* nr whose argument arg has any bit of mask -> action; A is the number
 * again afterwards. */
static void deny_arg_bits(struct launch_prog *p, long nr, unsigned arg, unsigned mask,
                          unsigned action)
{
        jeq(p, (unsigned) nr, 0, 4);
        ld(p, ARG_LO(arg));
        jset(p, mask, 0, 1);
        ret(p, action);
        ld(p, NR_OFF);
}

/* open/openat: a set-id mode counts only when the flags create a file. */
static void deny_create_mode(struct launch_prog *p, long nr, unsigned flags_arg, unsigned mode_arg)
{
        jeq(p, (unsigned) nr, 0, 6);
        ld(p, ARG_LO(flags_arg));
        jset(p, O_CREAT | TMPFILE_BIT, 0, 3);
        ld(p, ARG_LO(mode_arg));
        jset(p, SETID_BITS, 0, 1);
        ret(p, RET_ERRNO(EPERM));
        ld(p, NR_OFF);
}

static void egress_rules(struct launch_prog *p)
{
        /* socket: AF_UNIX and AF_NETLINK pass, every other family fails */
        jeq(p, SYS_socket, 0, 5);
        ld(p, ARG_LO(0));
        jeq(p, AF_UNIX, 2, 0);
        jeq(p, AF_NETLINK, 1, 0);
        ret(p, RET_ERRNO(EPERM));
        ld(p, NR_OFF);
        deny_nr(p, SYS_io_uring_setup, RET_ERRNO(EPERM));
        deny_nr(p, SYS_io_uring_enter, RET_ERRNO(EPERM));
        deny_nr(p, SYS_io_uring_register, RET_ERRNO(EPERM));
}

static void cross_process_rules(struct launch_prog *p)
{
        static const long nrs[] = {
            SYS_ptrace,         SYS_process_vm_readv, SYS_process_vm_writev, SYS_process_madvise,
            SYS_kcmp,           SYS_pidfd_getfd,      SYS_move_pages,        SYS_get_robust_list,
            SYS_perf_event_open};

        for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
                deny_nr(p, nrs[i], RET_ERRNO(EPERM));
}

static void terminal_rules(struct launch_prog *p)
{
        jeq(p, SYS_ioctl, 0, 5);
        ld(p, ARG_LO(1));
        jeq(p, TIOCSTI_REQ, 1, 0);
        jeq(p, TIOCLINUX_REQ, 0, 1);
        ret(p, RET_ERRNO(EPERM));
        ld(p, NR_OFF);
}

static void privilege_rules(struct launch_prog *p)
{
        static const long mode1[] = {SYS_chmod, SYS_fchmod, SYS_creat, SYS_mkdir, SYS_mknod};
        static const long mode2[] = {SYS_fchmodat, 452 /* fchmodat2 */, SYS_mkdirat, SYS_mknodat};
        static const long xattr[] = {SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr,
                                     463 /* setxattrat */};

        for (size_t i = 0; i < sizeof(mode1) / sizeof(mode1[0]); i++)
                deny_arg_bits(p, mode1[i], 1, SETID_BITS, RET_ERRNO(EPERM));
        for (size_t i = 0; i < sizeof(mode2) / sizeof(mode2[0]); i++)
                deny_arg_bits(p, mode2[i], 2, SETID_BITS, RET_ERRNO(EPERM));
        deny_create_mode(p, SYS_open, 1, 2);
        deny_create_mode(p, SYS_openat, 2, 3);
        for (size_t i = 0; i < sizeof(xattr) / sizeof(xattr[0]); i++)
                deny_nr(p, xattr[i], RET_ERRNO(EPERM));
        /* openat2 hides its mode in a struct the filter cannot read */
        deny_nr(p, SYS_openat2, RET_ERRNO(ENOSYS));
}

static void strict_rules(struct launch_prog *p)
{
        deny_nr(p, SYS_fork, RET_ERRNO(EPERM));
        deny_nr(p, SYS_vfork, RET_ERRNO(EPERM));
        deny_nr(p, SYS_clone3, RET_ERRNO(ENOSYS));
        /* clone: threads (CLONE_THREAD) pass, new processes fail */
        jeq(p, SYS_clone, 0, 4);
        ld(p, ARG_LO(0));
        jset(p, CLONE_THREAD_BIT, 1, 0);
        ret(p, RET_ERRNO(EPERM));
        ld(p, NR_OFF);
}

static int load(struct launch_prog *p, unsigned flags, struct bento_err *err, const char *what)
{
        struct sock_fprog fp = {.len = (unsigned short) p->n, .filter = p->f};
        long r;

        if (p->overflow)
                return bento_err_setx(err, E2BIG, "the %s filter is too long", what);
        r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
        if (r < 0)
                return bento_err_set(err, errno, "cannot install the %s filter", what);
        return (int) r;
}

void launch_fences_program(bool strict, struct launch_prog *p)
{
        *p = (struct launch_prog){.n = 0};
        prologue(p);
        egress_rules(p);
        cross_process_rules(p);
        terminal_rules(p);
        privilege_rules(p);
        if (strict)
                strict_rules(p);
        ret(p, SECCOMP_RET_ALLOW);
}

void launch_exec_gate_program(struct launch_prog *p)
{
        *p = (struct launch_prog){.n = 0};
        prologue(p);
        deny_nr(p, SYS_execve, SECCOMP_RET_USER_NOTIF);
        deny_nr(p, SYS_execveat, SECCOMP_RET_USER_NOTIF);
        ret(p, SECCOMP_RET_ALLOW);
}

int launch_install_fences(bool strict, struct bento_err *err)
{
        struct launch_prog p;

        launch_fences_program(strict, &p);
        return load(&p, 0, err, "egress, cross-process and terminal") < 0 ? -err->code : 0;
}

int launch_install_exec_gate(struct bento_err *err)
{
        struct launch_prog p;

        launch_exec_gate_program(&p);
        return load(&p, SECCOMP_FILTER_FLAG_NEW_LISTENER, err, "exec block");
}
