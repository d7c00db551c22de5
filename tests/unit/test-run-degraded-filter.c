/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/launch-filter.c, the hand-written seccomp
 * programs of the Landlock-only tier.  Each program is run here, on
 * made-up calls, by the evaluator of bpf-eval.h, so every rule is checked both ways (the denied
 * call and the allowed neighbour) without installing anything; one last test installs the fences in
 * a child to show the kernel accepts and enforces the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf-eval.h"
#include "run/launch.h"
#include "tap.h"

#define ERRNO(e) (SECCOMP_RET_ERRNO | (unsigned) (e))
#define ALLOW    SECCOMP_RET_ALLOW
#define KILL     SECCOMP_RET_KILL_PROCESS

static unsigned eval(const struct launch_prog *p, const struct seccomp_data *d)
{
        return bpf_eval(p->f, p->n, d);
}

static struct seccomp_data call(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
        return (struct seccomp_data){
            .nr = (int) nr, .arch = AUDIT_ARCH_X86_64, .args = {a0, a1, a2, a3}};
}

static unsigned fences(bool strict, struct seccomp_data d)
{
        struct launch_prog p;

        launch_fences_program(strict, &p);
        return p.overflow ? BPF_EVAL_BAD : eval(&p, &d);
}

TEST(a_foreign_architecture_and_x32_are_killed)
{
        struct seccomp_data d = call(SYS_getpid, 0, 0, 0, 0);

        ASSERT_EQ(fences(false, d), ALLOW);
        d.arch = AUDIT_ARCH_I386;
        ASSERT_EQ(fences(false, d), KILL);
        d = call(SYS_getpid | 0x40000000L, 0, 0, 0, 0);
        ASSERT_EQ(fences(false, d), KILL);
}

TEST(ip_sockets_fail_unix_and_netlink_pass)
{
        ASSERT_EQ(fences(false, call(SYS_socket, AF_INET, SOCK_STREAM, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_socket, AF_INET6, SOCK_DGRAM, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_socket, AF_PACKET, SOCK_RAW, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_socket, AF_NETLINK, SOCK_RAW, 0, 0)), ALLOW);
        /* the kernel reads the domain as an int: high bits cannot pass AF_INET off */
        ASSERT_EQ(fences(false, call(SYS_socket, (1ULL << 32) | AF_INET, SOCK_STREAM, 0, 0)),
                  ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_io_uring_setup, 8, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_io_uring_enter, 0, 0, 0, 0)), ERRNO(EPERM));
}

TEST(cross_process_calls_fail)
{
        static const long nrs[] = {SYS_ptrace,     SYS_process_vm_readv, SYS_process_vm_writev,
                                   SYS_kcmp,       SYS_pidfd_getfd,      SYS_process_madvise,
                                   SYS_move_pages, SYS_perf_event_open};

        for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
                ASSERT_EQ(fences(false, call(nrs[i], 1, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_kill, 1, 0, 0, 0)), ALLOW); /* Landlock scopes it */
}

TEST(terminal_injection_fails_other_ioctls_pass)
{
        ASSERT_EQ(fences(false, call(SYS_ioctl, 0, TIOCSTI, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_ioctl, 0, TIOCLINUX, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_ioctl, 0, (1ULL << 32) | TIOCSTI, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_ioctl, 0, TCGETS, 0, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_ioctl, 0, FIONREAD, 0, 0)), ALLOW);
}

TEST(set_id_modes_fail_plain_modes_pass)
{
        ASSERT_EQ(fences(false, call(SYS_chmod, 0, 04755, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_chmod, 0, 02755, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_chmod, 0, 0755, 0, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_fchmodat, AT_FDCWD, 0, 04755, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_fchmodat, AT_FDCWD, 0, 0644, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_mkdir, 0, 02775, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_mknodat, AT_FDCWD, 0, 04600, 0)), ERRNO(EPERM));
        /* open: the mode counts only when the flags create a file */
        ASSERT_EQ(fences(false, call(SYS_openat, AT_FDCWD, 0, O_CREAT | O_WRONLY, 04755)),
                  ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_openat, AT_FDCWD, 0, O_TMPFILE | O_RDWR, 02700)),
                  ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_openat, AT_FDCWD, 0, O_RDONLY, 04755)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_openat, AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_open, 0, O_CREAT, 06777, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_openat2, AT_FDCWD, 0, 0, 24)), ERRNO(ENOSYS));
        ASSERT_EQ(fences(false, call(SYS_setxattr, 0, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_fsetxattr, 0, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(false, call(SYS_getxattr, 0, 0, 0, 0)), ALLOW);
}

TEST(strict_refuses_new_processes_but_not_threads)
{
        const uint64_t thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;

        ASSERT_EQ(fences(true, call(SYS_fork, 0, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(true, call(SYS_vfork, 0, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(true, call(SYS_clone, SIGCHLD, 0, 0, 0)), ERRNO(EPERM));
        ASSERT_EQ(fences(true, call(SYS_clone, thread, 0, 0, 0)), ALLOW);
        ASSERT_EQ(fences(true, call(SYS_clone3, 0, 88, 0, 0)), ERRNO(ENOSYS));
        /* and the other fences are still there */
        ASSERT_EQ(fences(true, call(SYS_socket, AF_INET, SOCK_STREAM, 0, 0)), ERRNO(EPERM));
        /* without strict, processes are made freely */
        ASSERT_EQ(fences(false, call(SYS_fork, 0, 0, 0, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_clone, SIGCHLD, 0, 0, 0)), ALLOW);
        ASSERT_EQ(fences(false, call(SYS_clone3, 0, 88, 0, 0)), ALLOW);
}

TEST(exec_gate_program_notifies_execs_only)
{
        struct launch_prog p;
        struct seccomp_data d = call(SYS_execve, 0, 0, 0, 0);

        launch_exec_gate_program(&p);
        ASSERT_TRUE(!p.overflow);
        ASSERT_EQ(eval(&p, &d), SECCOMP_RET_USER_NOTIF);
        d = call(SYS_execveat, 0, 0, 0, 0);
        ASSERT_EQ(eval(&p, &d), SECCOMP_RET_USER_NOTIF);
        d = call(SYS_fork, 0, 0, 0, 0);
        ASSERT_EQ(eval(&p, &d), ALLOW);
        d.arch = AUDIT_ARCH_I386;
        ASSERT_EQ(eval(&p, &d), KILL);
}

TEST(every_jump_lands_inside_the_program)
{
        struct launch_prog p[3];

        launch_fences_program(false, &p[0]);
        launch_fences_program(true, &p[1]);
        launch_exec_gate_program(&p[2]);
        for (int k = 0; k < 3; k++) {
                ASSERT_TRUE(!p[k].overflow && p[k].n > 0);
                ASSERT_EQ(p[k].f[p[k].n - 1].code, BPF_RET | BPF_K);
                for (unsigned pc = 0; pc < p[k].n; pc++)
                        if (BPF_CLASS(p[k].f[pc].code) == BPF_JMP)
                                ASSERT_TRUE(pc + 1 + p[k].f[pc].jt < p[k].n &&
                                            pc + 1 + p[k].f[pc].jf < p[k].n);
        }
}

/* The kernel takes the program and enforces what the evaluator said. */
TEST(the_kernel_enforces_the_fences)
{
        int status = 0;
        pid_t pid = fork();

        if (pid == 0) {
                struct bento_err err = {0};
                int s;

                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                    launch_install_fences(true, &err) < 0)
                        _exit(10);
                s = socket(AF_INET, SOCK_STREAM, 0);
                if (s >= 0 || errno != EPERM)
                        _exit(11);
                s = socket(AF_UNIX, SOCK_STREAM, 0);
                if (s < 0)
                        _exit(12);
                if (syscall(SYS_fork) >= 0 || errno != EPERM)
                        _exit(13);
                _exit(0);
        }
        ASSERT_TRUE(pid > 0);
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0);
}

TAP_MAIN()
