/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The traced program of tests/integration/test_observe.py: one subcommand
 * per behaviour bento-observe must report (or survive).  Prints what the
 * calls returned, so a test checks the target's view and the report's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../hooks/observe/shim/shim.h" /* the gadget, as a target can call it */

static char path_buf[8192];

static const char *at(const char *dir, const char *name)
{
        snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, name);
        return path_buf;
}

static void touch(const char *p)
{
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
                close(fd);
}

static int files(const char *d)
{
        struct stat st;
        int dfd, fd;

        fd = open(at(d, "in"), O_RDONLY);
        printf("read-in %d\n", fd >= 0);
        touch(at(d, "out"));
        printf("stat-missing %d\n", stat(at(d, "missing"), &st));
        mkdir(at(d, "newdir"), 0755);
        rename(at(d, "out"), strdup(at(d, "renamed")));
        link(at(d, "in"), strdup(at(d, "hardlink")));
        symlink("in", at(d, "symlink"));
        unlink(at(d, "hardlink"));
        if (chdir(d) != 0)
                return 1;
        fd = open("in", O_RDONLY); /* relative to the cwd */
        close(fd);
        dfd = open("sub", O_RDONLY | O_DIRECTORY);
        fd = openat(dfd, "f", O_RDONLY); /* relative to a dirfd */
        close(fd);
        /* the dirfd itself: passes the filter without a stop */
        printf("fstat-dirfd %d\n", fstatat(dfd, "", &st, AT_EMPTY_PATH));
        fchdir(dfd);
        access("f", R_OK);
        return 0;
}

static void *thread_main(void *arg)
{
        close(open(at(arg, "from-thread"), O_RDONLY));
        return NULL;
}

static int threads(const char *d)
{
        pthread_t t[4];

        for (int i = 0; i < 4; i++)
                pthread_create(&t[i], NULL, thread_main, (void *) d);
        for (int i = 0; i < 4; i++)
                pthread_join(t[i], NULL);
        return 0;
}

static int children(const char *d)
{
        struct clone_args ca = {.exit_signal = SIGCHLD};
        pid_t p;
        int st;

        if ((p = fork()) == 0) {
                close(open(at(d, "from-fork"), O_RDONLY));
                _exit(0);
        }
        waitpid(p, &st, 0);
        if ((p = vfork()) == 0) {
                execl("/bin/true", "true", (char *) NULL);
                _exit(127);
        }
        waitpid(p, &st, 0);
        p = (pid_t) syscall(SYS_clone3, &ca, sizeof(ca));
        if (p == 0) {
                close(open(at(d, "from-clone3"), O_RDONLY));
                _exit(0);
        }
        if (p > 0)
                waitpid(p, &st, 0);
        printf("clone3 %d\n", p > 0);
        return 0;
}

/* execve from a thread other than the leader while other threads run */
static void *exec_thread(void *arg)
{
        execl("/bin/true", "true", (char *) NULL);
        (void) arg;
        return NULL;
}

static void *spin(void *arg)
{
        for (;;)
                close(open(arg, O_RDONLY));
        return NULL;
}

static int thread_exec(const char *d)
{
        pthread_t t1, t2;

        pthread_create(&t1, NULL, spin, strdup(at(d, "spin")));
        pthread_create(&t2, NULL, exec_thread, NULL);
        pthread_join(t2, NULL);
        return 3;
}

static int do_ptrace(const char *d)
{
        long r1 = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        int e1 = errno;
        long r2 = ptrace(PTRACE_ATTACH, getppid(), NULL, NULL);
        int e2 = errno;

        printf("traceme %ld %s\n", r1, r1 < 0 ? strerrorname_np(e1) : "-");
        printf("attach %ld %s\n", r2, r2 < 0 ? strerrorname_np(e2) : "-");
        close(open(at(d, "after-ptrace"), O_RDONLY));
        return 0;
}

/* A child the tracer is not allowed to follow (CLONE_UNTRACED): it keeps
 * the filter, and with no tracer every call the filter stops fails. */
static int untraced(const char *d)
{
        int st = 0;
        long p = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);

        if (p == 0) {
                int fd = open(at(d, "in"), O_RDONLY);

                printf("untraced-open %d %s\n", fd, fd < 0 ? strerrorname_np(errno) : "-");
                printf("untraced-getpid %d\n", getpid() > 0);
                fflush(stdout);
                _exit(0);
        }
        waitpid((pid_t) p, &st, 0);
        close(open(at(d, "after-untraced"), O_RDONLY));
        return 0;
}

static int install(struct sock_filter *f, unsigned short n, unsigned int flags)
{
        struct sock_fprog prog = {.len = n, .filter = f};

        return (int) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A filter of its own: mkdir fails with EACCES, getpid stops with data of
 * its own (a forged stop), every other call allowed; then a listener. */
static int own_seccomp(const char *d)
{
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 77),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
        int r, e;

        printf("filter %d\n", install(f, 6, 0));
        printf("getpid %d\n", getpid() > 0);
        r = mkdir(at(d, "denied"), 0755);
        printf("mkdir %d %s\n", r, r < 0 ? strerrorname_np(errno) : "-");
        r = install(allow, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER);
        e = errno;
        printf("listener %d %s\n", r < 0 ? -1 : 0, r < 0 ? strerrorname_np(e) : "-");
        close(open(at(d, "after-filter"), O_RDONLY));
        return 0;
}

static int long_paths(const char *d)
{
        static char p[PATH_MAX + 16];
        size_t n = strlen(d);
        int r;

        /* PATH_MAX - 1 bytes: the longest path the kernel takes */
        memcpy(p, d, n);
        for (size_t i = n; i < PATH_MAX - 1; i++)
                p[i] = (i - n) % 200 == 0 ? '/' : 'x';
        p[PATH_MAX - 1] = '\0';
        r = open(p, O_RDONLY);
        printf("max %d %s\n", r, strerrorname_np(errno));
        /* one byte more: no NUL within PATH_MAX */
        memset(p + n, 'y', PATH_MAX + 8 - n);
        p[n] = '/';
        p[PATH_MAX + 8] = '\0';
        r = open(p, O_RDONLY);
        printf("over %d %s\n", r, strerrorname_np(errno));
        return 0;
}

static int bad_memory(const char *d)
{
        long page = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        int r;

        r = (int) syscall(SYS_openat, AT_FDCWD, (char *) 16, O_RDONLY);
        printf("unmapped %d %s\n", r, strerrorname_np(errno));
        /* a string running into an unmapped page, without a NUL */
        munmap(m + page, page);
        memset(m, 'z', page);
        m[0] = '/';
        r = (int) syscall(SYS_openat, AT_FDCWD, m, O_RDONLY);
        printf("runs-off %d %s\n", r, strerrorname_np(errno));
        /* a string ending exactly at the page's end is fine */
        snprintf(m + page - 5 - strlen(d), 5 + strlen(d), "%s/edg", d);
        m[page - 1] = '\0';
        r = (int) syscall(SYS_openat, AT_FDCWD, m + page - 5 - strlen(d), O_RDONLY);
        printf("edge %d %s\n", r, strerrorname_np(errno));
        return 0;
}

static int bad_utf8(const char *d)
{
        touch(at(d, "bad-\xff\xfe name"));
        return 0;
}

static int foreign_abi(const char *d)
{
        long r = syscall(0x40000000L | SYS_getpid);
        pid_t p;
        int st = 0;

        printf("x32 %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "-");
        r = syscall(0x40000000L | SYS_openat, AT_FDCWD, at(d, "x32-open"), O_RDONLY);
        printf("x32-open %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "-");
        if ((p = fork()) == 0) {
                long ret;
                __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory"); /* getpid */
                printf("int80 returned %ld\n", ret);
                fflush(stdout);
                _exit(0);
        }
        waitpid(p, &st, 0);
        printf("int80 child %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        close(open(at(d, "after-abi"), O_RDONLY));
        return 0;
}

static int fifo(const char *d)
{
        int fd = open(at(d, "fifo"), O_WRONLY | O_NONBLOCK);

        /* ENXIO: nobody has the FIFO open for reading (not the observer) */
        printf("fifo %d %s\n", fd, fd < 0 ? strerrorname_np(errno) : "-");
        return 0;
}

static int unix_sockets(const char *d)
{
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        int s = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
        int b = socket(AF_UNIX, SOCK_STREAM, 0);

        snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", d);
        printf("bind %d\n", bind(s, (struct sockaddr *) &a, sizeof(a)));
        listen(s, 1);
        printf("connect %d\n", connect(c, (struct sockaddr *) &a, sizeof(a)));
        memset(a.sun_path, 0, sizeof(a.sun_path));
        memcpy(a.sun_path, "\0bento-abstract", 15);
        printf("abstract %d\n",
               bind(b, (struct sockaddr *) &a, offsetof(struct sockaddr_un, sun_path) + 15));
        return 0;
}

static int sigsys(const char *d)
{
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };

        (void) d;
        install(f, 4, 0);
        syscall(SYS_getppid);
        return 0;
}

/* N stats of existing files and M opens, for the timing. */
static int bench(const char *d, int n, int m)
{
        struct stat st;
        char p[256];

        for (int i = 0; i < n; i++) {
                snprintf(p, sizeof(p), "%s/f%d", d, i % 1000);
                stat(p, &st);
        }
        for (int i = 0; i < m; i++) {
                snprintf(p, sizeof(p), "%s/f%d", d, i % 1000);
                close(open(p, O_RDONLY));
        }
        return 0;
}

static void on_usr1(int sig)
{
        (void) sig;
}

/* `eintr D N`: N stats of D/in while a child sends SIGUSR1, whose handler
 * has no SA_RESTART, as fast as it can: a stat never fails with EINTR
 * unobserved, and must not under the observer either. */
static int eintr(const char *d, int n)
{
        struct sigaction sa = {.sa_handler = on_usr1}; /* sa_flags 0: no SA_RESTART */
        struct stat st;
        int intr = 0, status;
        pid_t me = getpid(), kid;

        sigaction(SIGUSR1, &sa, NULL);
        kid = fork();
        if (kid == 0) {
                for (;;) {
                        if (kill(me, SIGUSR1) < 0)
                                _exit(0);
                        usleep(200);
                }
        }
        for (int i = 0; i < n; i++)
                if (stat(at(d, "in"), &st) < 0 && errno == EINTR)
                        intr++;
        kill(kid, SIGKILL);
        waitpid(kid, &status, 0);
        printf("eintr %d\n", intr);
        return 0;
}

/* -- the preload library (bento-observe --shim) ---------------------------- */

/* `shim-stat D N`: N stats and N read-only opens of D/in, through libc (and
 * so through the library when it is loaded). */
static int shim_stat(const char *d, int n)
{
        struct stat st;
        int ok = 0;

        for (int i = 0; i < n; i++) {
                int fd = open(at(d, "in"), O_RDONLY);

                ok += stat(at(d, "in"), &st) == 0 && fd >= 0;
                close(fd);
        }
        printf("shim-stat %d/%d\n", ok, n);
        return 0;
}

/* The ring the library writes, mapped as the target's own (any program of
 * the target can, since it inherits the descriptor), or NULL. */
static struct obs_ring_head *ring_of_mine(int *fd)
{
        const char *v = getenv(OBS_RING_ENV);
        void *m;

        if (!v)
                return NULL;
        *fd = atoi(v);
        m = mmap(NULL, OBS_RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
        return m == MAP_FAILED ? NULL : m;
}

static void forge(struct obs_ring_head *h, uint32_t size, uint8_t verb, const char *path)
{
        struct obs_ring_rec *r = (void *) ((char *) h + OBS_RING_HEAD + h->used);

        r->verb = verb;
        if (path)
                memcpy(r->path, path, strlen(path) + 1);
        else
                memset(r->path, 'A', size - sizeof(*r)); /* no NUL inside */
        r->size = size;
        h->used += size;
}

/* `shim-forge D`: the target writes records of its own into the ring: one
 * as the library would (D/in, a tree of the observer's), one for a path
 * outside every tree, one with a verb the library never writes, one with
 * no NUL, then a reserved record never written, then one more the
 * observer must not reach.  And it tries to shrink the ring. */
static int shim_forge(const char *d)
{
        int fd = -1;
        struct obs_ring_head *h = ring_of_mine(&fd);
        char *p;

        if (!h) {
                printf("no ring\n");
                return 1;
        }
        printf("truncate %d\n", ftruncate(fd, 4096));
        forge(h, obs_ring_rec_size((uint32_t) strlen(at(d, "in"))), OBS_RING_READ, at(d, "in"));
        forge(h, obs_ring_rec_size(11), OBS_RING_READ, "/etc/shadow");
        p = strdup(at(d, "verb"));
        forge(h, obs_ring_rec_size((uint32_t) strlen(p)), 'w', p);
        forge(h, 64, OBS_RING_PROBE, NULL);
        h->used += 32; /* torn: reserved, size never stored */
        p = strdup(at(d, "after"));
        forge(h, obs_ring_rec_size((uint32_t) strlen(p)), OBS_RING_READ, p);
        printf("forged\n");
        return 0;
}

/* `shim-gadget D`: writes made from the gadget are watched like any. */
static int gadget_calls(const char *d)
{
        char *victim = strdup(at(d, "victim")), *made = strdup(at(d, "made"));
        long fd;

        touch(victim);
        printf("unlink %ld\n", shim_gadget(SYS_unlinkat, AT_FDCWD, (long) victim, 0, 0));
        fd = shim_gadget(SYS_openat, AT_FDCWD, (long) made, O_WRONLY | O_CREAT, 0644);
        printf("create %d\n", fd >= 0);
        printf("mkdir %ld\n", shim_gadget(SYS_mkdirat, AT_FDCWD, (long) at(d, "newdir"), 0755, 0));
        return 0;
}

/* `shim-reuse D`: the target closes the ring's descriptor, opens a file
 * of its own under that number, and runs `shim-stat D 50`: the library in
 * the new program must find no ring there (and write nothing into the
 * file), and the calls still reach the observer. */
static int shim_reuse(const char *self, const char *d)
{
        const char *v = getenv(OBS_RING_ENV);
        int ring = v ? atoi(v) : -1, fd;

        if (ring < 3) {
                printf("no ring\n");
                return 1;
        }
        close(ring);
        fd = open(at(d, "decoy"), O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd != ring && (dup2(fd, ring) < 0 || close(fd) < 0))
                return 1;
        execl(self, self, "shim-stat", d, "50", (char *) NULL);
        return 127;
}

/* `listener-exec CMD ARG...`: run CMD under a filter that has a
 * user-notification listener already (for a call nobody makes), as an
 * outer sandbox could: the kernel allows one listener per filter chain, so
 * the observer's own fails with EBUSY. */
static int listener_exec(char **argv)
{
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vhangup, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        int fd;

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            (fd = install(f, 4, SECCOMP_FILTER_FLAG_NEW_LISTENER)) < 0) {
                perror("listener");
                return 2;
        }
        /* kept open across the exec: a closed listener is no listener */
        fcntl(fd, F_SETFD, 0);
        execvp(argv[0], argv);
        perror(argv[0]);
        return 127;
}

int main(int argc, char **argv)
{
        const char *cmd = argc > 1 ? argv[1] : "", *d = argc > 2 ? argv[2] : ".";
        int r = 2;

        if (!strcmp(cmd, "listener-exec") && argc > 2)
                return listener_exec(argv + 2);

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (!strcmp(cmd, "files"))
                r = files(d);
        else if (!strcmp(cmd, "threads"))
                r = threads(d);
        else if (!strcmp(cmd, "children"))
                r = children(d);
        else if (!strcmp(cmd, "thread-exec"))
                r = thread_exec(d);
        else if (!strcmp(cmd, "untraced"))
                r = untraced(d);
        else if (!strcmp(cmd, "ptrace"))
                r = do_ptrace(d);
        else if (!strcmp(cmd, "seccomp"))
                r = own_seccomp(d);
        else if (!strcmp(cmd, "long"))
                r = long_paths(d);
        else if (!strcmp(cmd, "memory"))
                r = bad_memory(d);
        else if (!strcmp(cmd, "utf8"))
                r = bad_utf8(d);
        else if (!strcmp(cmd, "abi"))
                r = foreign_abi(d);
        else if (!strcmp(cmd, "fifo"))
                r = fifo(d);
        else if (!strcmp(cmd, "unix"))
                r = unix_sockets(d);
        else if (!strcmp(cmd, "sigsys"))
                r = sigsys(d);
        else if (!strcmp(cmd, "eintr") && argc > 3)
                r = eintr(d, atoi(argv[3]));
        else if (!strcmp(cmd, "shim-stat") && argc > 3)
                r = shim_stat(d, atoi(argv[3]));
        else if (!strcmp(cmd, "shim-forge"))
                r = shim_forge(d);
        else if (!strcmp(cmd, "shim-gadget"))
                r = gadget_calls(d);
        else if (!strcmp(cmd, "shim-reuse"))
                r = shim_reuse(argv[0], d);
        else if (!strcmp(cmd, "bench") && argc > 4)
                r = bench(d, atoi(argv[3]), atoi(argv[4]));
        return r;
}
