/* SPDX-License-Identifier: Apache-2.0 */
/* Forking and running the proxy daemon (see daemon.h). */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "gate.h"
#include "proxy.h"
#include "report.h"
#include "resolve.h"

/* Two descriptors per connection plus slack for the resolver. */
#define FDS_PER_CONN 2
#define FDS_SLACK    64
#define NOBODY       ((uid_t) 65534)

/* Close every descriptor from 3 up except those in keep[] (ascending). */
static void close_all_but(const int *keep, size_t n)
{
        unsigned int from = 3;

        for (size_t i = 0; i < n; i++) {
                if (keep[i] < (int) from)
                        continue;
                if ((unsigned int) keep[i] > from)
                        (void) syscall(SYS_close_range, from, (unsigned int) keep[i] - 1, 0U);
                from = (unsigned int) keep[i] + 1;
        }
        (void) syscall(SYS_close_range, from, ~0U, 0U);
}

static int cmp_int(const void *a, const void *b)
{
        return *(const int *) a - *(const int *) b;
}

/* stdio on /dev/null (stderr on the log when there is one). */
static int detach_stdio(int log_fd)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);

        if (null < 0)
                return -errno;
        if (dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(log_fd >= 0 ? log_fd : null, 2) < 0)
                return -errno;
        if (null > 2)
                close(null);
        return 0;
}

/* Enough descriptors for max_conns connections, within the hard limit. */
static void raise_nofile(unsigned max_conns)
{
        struct rlimit rl;
        rlim_t want = (rlim_t) max_conns * FDS_PER_CONN + FDS_SLACK;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
                return;
        rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
        (void) setrlimit(RLIMIT_NOFILE, &rl);
}

/* Once its sockets and files are open, the daemon needs no privilege:
 * dialling, resolving (world-readable files) and writing to descriptors it
 * already holds work as anyone.  So a root daemon becomes nobody (65534),
 * which also drops every capability, and no exec can gain any back.  Where
 * 65534 is not mapped (a runtime inside a user namespace) the capability
 * sets are emptied instead.  Returns 0 or -errno. */
static int drop_privileges(void)
{
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct data[2] = {{0}};

        if (geteuid() == 0 && setgroups(0, NULL) == 0 && setresgid(NOBODY, NOBODY, NOBODY) == 0 &&
            setresuid(NOBODY, NOBODY, NOBODY) == 0)
                return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
        if (syscall(SYS_capset, &hdr, data) < 0)
                return -errno;
        return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

/* Report a setup failure to the waiting hook: the message, or one NUL
 * byte for "serving". */
static void tell(int fd, const char *msg)
{
        (void) !write(fd, msg, strlen(msg) + 1);
}

__attribute__((noreturn)) static void daemon_main(const struct egress_daemon_args *a, int ready)
{
        int keep[] = {a->listen_fd, a->pidfd, a->report_fd, ready, a->log_fd, a->gate_fd};
        int r;

        (void) setsid();
        (void) !chdir("/"); /* never pin the bundle's mount */
        (void) prctl(PR_SET_NAME, "bento-egress");
        /* nothing may attach to the process that holds the policy */
        (void) prctl(PR_SET_DUMPABLE, 0);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        qsort(keep, sizeof(keep) / sizeof(keep[0]), sizeof(int), cmp_int);
        if (detach_stdio(a->log_fd) < 0) {
                tell(ready, "the daemon cannot open /dev/null");
                _exit(1);
        }
        close_all_but(keep, sizeof(keep) / sizeof(keep[0]));
        if (a->log_fd > 2)
                close(a->log_fd);
        raise_nofile(a->cfg->limits.max_conns);
        if (drop_privileges() < 0) {
                tell(ready, "the daemon cannot drop its privileges");
                _exit(1);
        }
        (void) prctl(PR_SET_DUMPABLE, 0); /* a credential change may reset it */
        egress_report_init(a->report_fd, a->cfg->report_max);
        egress_gate_init(a->gate_fd, a->cfg->gate_ms);
        if (egress_nat64_start() < 0) {
                tell(ready, "the daemon cannot start a thread");
                _exit(1);
        }
        egress_report_start(getpid(), a->container, a->cfg->rules, a->cfg->n_rules);
        tell(ready, "");
        close(ready);
        r = egress_proxy_serve(a->listen_fd, a->pidfd, a->cfg);
        egress_report_stop(getpid(), egress_proxy_accepted(), egress_proxy_accept_errors());
        _exit(r < 0 ? 1 : 0);
}

int egress_daemon_start(const struct egress_daemon_args *a, struct bento_err *err)
{
        cleanup_close int rd = -1, wr = -1;
        char msg[BENTO_ERR_MSG_MAX] = {0};
        ssize_t n;
        int p[2];
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "cannot create a pipe");
        rd = p[0];
        wr = p[1];
        pid = fork();
        if (pid < 0)
                return bento_err_set(err, errno, "cannot fork the proxy daemon");
        if (pid == 0) {
                close(TAKE_FD(rd));
                daemon_main(a, TAKE_FD(wr));
        }
        close(TAKE_FD(wr));
        do
                n = read(rd, msg, sizeof(msg) - 1);
        while (n < 0 && errno == EINTR);
        if (n <= 0)
                return bento_err_setx(err, EIO, "the proxy daemon exited during setup");
        if (msg[0] != '\0')
                return bento_err_setx(err, EIO, "%s", msg);
        return 0;
}
