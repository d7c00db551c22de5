/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-probe: a small static program that runs inside test containers (whose
 * root holds only busybox) and reports what the process can see and do, so
 * that the integration tests assert on facts rather than on shell output.
 *
 * Usage: bento-probe SUBCOMMAND [ARGS...]
 *
 * Facts come out as one JSON document on stdout followed by a newline.
 * Actions that can be refused (write, setuid, mount-tmpfs, ...) print "OK"
 * or the errno name ("EROFS", "EPERM") on a line of their own and exit 0 on
 * success, 1 on refusal.  Usage errors exit 64.
 *
 * Nothing here allocates without bound or loops without end: reads are
 * capped, waits take a timeout.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_REFUSED 1
#define EXIT_USAGE   64
#define READ_CAP     (1024 * 1024)

extern char **environ;

static const char *prog = "bento-probe";

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
        va_list ap;

        fprintf(stderr, "%s: ", prog);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(EXIT_USAGE);
}

static const char *errno_name(int e)
{
        const char *n = strerrorname_np(e);
        static char buf[32];

        if (n)
                return n;
        snprintf(buf, sizeof(buf), "E%d", e);
        return buf;
}

/* "OK" / errno name, and the matching exit code. */
static int report(int r, int saved_errno)
{
        if (r >= 0) {
                puts("OK");
                return 0;
        }
        puts(errno_name(saved_errno));
        return EXIT_REFUSED;
}

/* ---- JSON output -------------------------------------------------------- */

/* Bytes >= 0x80 are written as \u00XX so that the output is always valid
 * JSON (read as Latin-1 by the tests; they only compare ASCII). */
static void json_strn(const char *s, size_t n)
{
        putchar('"');
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];

                switch (c) {
                case '"':
                        fputs("\\\"", stdout);
                        break;
                case '\\':
                        fputs("\\\\", stdout);
                        break;
                case '\n':
                        fputs("\\n", stdout);
                        break;
                case '\t':
                        fputs("\\t", stdout);
                        break;
                case '\r':
                        fputs("\\r", stdout);
                        break;
                default:
                        if (c < 0x20 || c >= 0x7f)
                                printf("\\u%04x", c);
                        else
                                putchar(c);
                }
        }
        putchar('"');
}

static void json_str(const char *s)
{
        if (!s) {
                fputs("null", stdout);
                return;
        }
        json_strn(s, strlen(s));
}

static void json_key(bool *first, const char *key)
{
        if (!*first)
                putchar(',');
        *first = false;
        json_str(key);
        putchar(':');
}

/* ---- small helpers ------------------------------------------------------- */

static long parse_long(const char *s, const char *what)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 0);
        if (errno || end == s || *end)
                die_usage("bad %s: %s", what, s);
        return v;
}

/* Reads at most READ_CAP bytes; returns the byte count or -errno. */
static ssize_t read_fd_all(int fd, char **ret)
{
        size_t cap = 4096, len = 0;
        char *buf = malloc(cap + 1);

        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n;

                if (len == cap) {
                        char *nb;

                        if (cap >= READ_CAP)
                                break;
                        cap *= 2;
                        nb = realloc(buf, cap + 1);
                        if (!nb) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = nb;
                }
                n = read(fd, buf + len, cap - len);
                if (n < 0) {
                        int e = errno;

                        if (e == EINTR)
                                continue;
                        free(buf);
                        return -e;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        *ret = buf;
        return (ssize_t) len;
}

static ssize_t read_file(const char *path, char **ret)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t r;

        if (fd < 0)
                return -errno;
        r = read_fd_all(fd, ret);
        close(fd);
        return r;
}

static const struct {
        const char *name;
        int sig;
} signal_table[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT}, {"ILL", SIGILL},
    {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},     {"BUS", SIGBUS},   {"FPE", SIGFPE},
    {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM}, {"STKFLT", SIGSTKFLT},
    {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},   {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
    {"IO", SIGIO},     {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

static int parse_signal(const char *s)
{
        if (isdigit((unsigned char) s[0]))
                return (int) parse_long(s, "signal");
        if (strncasecmp(s, "SIG", 3) == 0)
                s += 3;
        for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
                if (strcasecmp(s, signal_table[i].name) == 0)
                        return signal_table[i].sig;
        die_usage("unknown signal: %s", s);
}

static const char *signal_name(int sig)
{
        static char buf[32];

        for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
                if (signal_table[i].sig == sig) {
                        snprintf(buf, sizeof(buf), "SIG%s", signal_table[i].name);
                        return buf;
                }
        snprintf(buf, sizeof(buf), "SIG%d", sig);
        return buf;
}

/* ---- fact emitters (each prints one JSON value) -------------------------- */

static void emit_ids(void)
{
        uid_t ru, eu, su;
        gid_t rg, eg, sg;
        gid_t groups[NGROUPS_MAX];
        int n;
        mode_t um;
        bool first = true;

        getresuid(&ru, &eu, &su);
        getresgid(&rg, &eg, &sg);
        n = getgroups(NGROUPS_MAX, groups);
        um = umask(0);
        umask(um);

        putchar('{');
        json_key(&first, "uid");
        printf("%u", (unsigned) ru);
        json_key(&first, "euid");
        printf("%u", (unsigned) eu);
        json_key(&first, "suid");
        printf("%u", (unsigned) su);
        json_key(&first, "gid");
        printf("%u", (unsigned) rg);
        json_key(&first, "egid");
        printf("%u", (unsigned) eg);
        json_key(&first, "sgid");
        printf("%u", (unsigned) sg);
        json_key(&first, "groups");
        putchar('[');
        for (int i = 0; i < n; i++)
                printf("%s%u", i ? "," : "", (unsigned) groups[i]);
        putchar(']');
        json_key(&first, "umask");
        printf("%u", (unsigned) um);
        putchar('}');
}

/* The /proc/self/status lines named in `keys`, as strings. */
static void emit_status_fields(const char *const *keys, const char *const *names, size_t nkeys)
{
        char *buf = NULL;
        bool first = true;

        putchar('{');
        if (read_file("/proc/self/status", &buf) >= 0) {
                for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                        char *colon = strchr(line, ':');

                        if (!colon)
                                continue;
                        *colon = '\0';
                        for (size_t i = 0; i < nkeys; i++) {
                                if (strcmp(line, keys[i]) == 0) {
                                        char *v = colon + 1;

                                        while (*v == ' ' || *v == '\t')
                                                v++;
                                        json_key(&first, names[i]);
                                        json_str(v);
                                }
                        }
                }
        }
        free(buf);
        putchar('}');
}

static void emit_caps(void)
{
        static const char *const keys[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
        static const char *const names[] = {"inheritable", "permitted", "effective", "bounding",
                                            "ambient"};

        emit_status_fields(keys, names, 5);
}

static const struct {
        const char *name;
        int res;
} rlimit_table[] = {
    {"RLIMIT_CPU", RLIMIT_CPU},           {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_DATA", RLIMIT_DATA},         {"RLIMIT_STACK", RLIMIT_STACK},
    {"RLIMIT_CORE", RLIMIT_CORE},         {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_NPROC", RLIMIT_NPROC},       {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},   {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},       {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},     {"RLIMIT_RTTIME", RLIMIT_RTTIME},
};

static void emit_rlimits(void)
{
        bool first = true;

        putchar('{');
        for (size_t i = 0; i < sizeof(rlimit_table) / sizeof(rlimit_table[0]); i++) {
                struct rlimit rl;

                if (getrlimit(rlimit_table[i].res, &rl) < 0)
                        continue;
                json_key(&first, rlimit_table[i].name);
                printf("{\"soft\":%llu,\"hard\":%llu}", (unsigned long long) rl.rlim_cur,
                       (unsigned long long) rl.rlim_max);
        }
        putchar('}');
}

static void emit_nnp(void)
{
        printf("{\"no_new_privs\":%d,\"seccomp\":%d}", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
               prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
        char *w = s;

        for (char *r = s; *r;) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
                    r[3] >= '0' && r[3] <= '7') {
                        *w++ = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        r += 4;
                } else {
                        *w++ = *r++;
                }
        }
        *w = '\0';
}

static void emit_mounts(void)
{
        char *buf = NULL;
        bool first_entry = true;
        char *save = NULL;

        putchar('[');
        if (read_file("/proc/self/mountinfo", &buf) < 0) {
                putchar(']');
                return;
        }
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                /* id parent maj:min root target options [optional...] - fstype source super */
                char *f[6] = {0};
                char *optional_start, *dash, *tail[3] = {0};
                char *p = line, *sp;
                bool first = true;
                int i;

                for (i = 0; i < 6; i++) {
                        f[i] = p;
                        sp = strchr(p, ' ');
                        if (!sp)
                                break;
                        *sp = '\0';
                        p = sp + 1;
                }
                if (i < 6)
                        continue;
                optional_start = p;
                dash = strstr(p, "- ");
                if (!dash)
                        continue;
                if (dash > optional_start)
                        dash[-1] = '\0';
                else
                        optional_start = "";
                p = dash + 2;
                for (i = 0; i < 3 && p; i++) {
                        tail[i] = p;
                        sp = strchr(p, ' ');
                        if (sp) {
                                *sp = '\0';
                                p = sp + 1;
                        } else {
                                p = NULL;
                        }
                }
                unescape_octal(f[3]);
                unescape_octal(f[4]);
                if (tail[1])
                        unescape_octal(tail[1]);

                if (!first_entry)
                        putchar(',');
                first_entry = false;
                putchar('{');
                json_key(&first, "id");
                printf("%s", f[0]);
                json_key(&first, "parent");
                printf("%s", f[1]);
                json_key(&first, "dev");
                json_str(f[2]);
                json_key(&first, "root");
                json_str(f[3]);
                json_key(&first, "target");
                json_str(f[4]);
                json_key(&first, "options");
                json_str(f[5]);
                json_key(&first, "optional");
                json_str(optional_start);
                json_key(&first, "fstype");
                json_str(tail[0] ? tail[0] : "");
                json_key(&first, "source");
                json_str(tail[1] ? tail[1] : "");
                json_key(&first, "super");
                json_str(tail[2] ? tail[2] : "");
                putchar('}');
        }
        free(buf);
        putchar(']');
}

static void emit_ns(void)
{
        DIR *d = opendir("/proc/self/ns");
        struct dirent *de;
        bool first = true;

        putchar('{');
        while (d && (de = readdir(d))) {
                char path[PATH_MAX], link[256];
                ssize_t n;
                char *lb;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/proc/self/ns/%s", de->d_name);
                n = readlink(path, link, sizeof(link) - 1);
                if (n < 0)
                        continue;
                link[n] = '\0';
                lb = strchr(link, '[');
                if (!lb)
                        continue;
                json_key(&first, de->d_name);
                printf("%llu", strtoull(lb + 1, NULL, 10));
        }
        if (d)
                closedir(d);
        putchar('}');
}

static void emit_hostname(void)
{
        struct utsname u;
        bool first = true;

        if (uname(&u) < 0) {
                fputs("null", stdout);
                return;
        }
        putchar('{');
        json_key(&first, "hostname");
        json_str(u.nodename);
        json_key(&first, "domainname");
        json_str(u.domainname);
        putchar('}');
}

static void emit_pid(void)
{
        printf("{\"pid\":%d,\"ppid\":%d,\"sid\":%d,\"pgid\":%d}", (int) getpid(), (int) getppid(),
               (int) getsid(0), (int) getpgrp());
}

static int cmp_int(const void *a, const void *b)
{
        int x = *(const int *) a, y = *(const int *) b;

        return (x > y) - (x < y);
}

/* The numeric entries of a /proc-like directory, sorted. */
static void emit_numeric_dir(const char *dir, int skip_fd)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        int vals[4096];
        size_t n = 0;

        putchar('[');
        if (!d) {
                putchar(']');
                return;
        }
        while ((de = readdir(d)) && n < sizeof(vals) / sizeof(vals[0])) {
                char *end;
                long v;

                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                v = strtol(de->d_name, &end, 10);
                if (*end)
                        continue;
                if (skip_fd && v == dirfd(d))
                        continue;
                vals[n++] = (int) v;
        }
        closedir(d);
        qsort(vals, n, sizeof(vals[0]), cmp_int);
        for (size_t i = 0; i < n; i++)
                printf("%s%d", i ? "," : "", vals[i]);
        putchar(']');
}

/* Open fds (the directory handle used to list them excluded) and what each
 * points at.  Must run before anything else opens files. */
static void emit_fds(void)
{
        int fds[1024];
        size_t n = 0;
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        bool first = true;

        if (d) {
                while ((de = readdir(d)) && n < sizeof(fds) / sizeof(fds[0])) {
                        if (!isdigit((unsigned char) de->d_name[0]))
                                continue;
                        if (atoi(de->d_name) == dirfd(d))
                                continue;
                        fds[n++] = atoi(de->d_name);
                }
                closedir(d);
        }
        qsort(fds, n, sizeof(fds[0]), cmp_int);
        printf("{\"fds\":[");
        for (size_t i = 0; i < n; i++)
                printf("%s%d", i ? "," : "", fds[i]);
        printf("],\"targets\":{");
        for (size_t i = 0; i < n; i++) {
                char path[64], link[PATH_MAX], key[16];
                ssize_t l;

                snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[i]);
                l = readlink(path, link, sizeof(link) - 1);
                if (l < 0)
                        continue;
                link[l] = '\0';
                snprintf(key, sizeof(key), "%d", fds[i]);
                json_key(&first, key);
                json_str(link);
        }
        printf("}}");
}

static void emit_string_array(char **v)
{
        putchar('[');
        for (size_t i = 0; v && v[i]; i++) {
                if (i)
                        putchar(',');
                json_str(v[i]);
        }
        putchar(']');
}

static void emit_file_or_null(const char *path)
{
        char *buf = NULL;
        ssize_t n = read_file(path, &buf);

        if (n < 0) {
                fputs("null", stdout);
                return;
        }
        json_strn(buf, (size_t) n);
        free(buf);
}

static void emit_cwd(void)
{
        char buf[PATH_MAX];

        json_str(getcwd(buf, sizeof(buf)) ? buf : NULL);
}

/* ---- subcommands ---------------------------------------------------------- */

static int cmd_facts(char **argv)
{
        bool first = true;

        putchar('{');
        json_key(&first, "fds");
        emit_fds();
        json_key(&first, "pid");
        emit_pid();
        json_key(&first, "ids");
        emit_ids();
        json_key(&first, "caps");
        emit_caps();
        json_key(&first, "nnp");
        emit_nnp();
        json_key(&first, "rlimits");
        emit_rlimits();
        json_key(&first, "ns");
        emit_ns();
        json_key(&first, "hostname");
        emit_hostname();
        json_key(&first, "cwd");
        emit_cwd();
        json_key(&first, "env");
        emit_string_array(environ);
        json_key(&first, "argv");
        emit_string_array(argv);
        json_key(&first, "oom_score_adj");
        emit_file_or_null("/proc/self/oom_score_adj");
        json_key(&first, "cgroup");
        emit_file_or_null("/proc/self/cgroup");
        json_key(&first, "mounts");
        emit_mounts();
        putchar('}');
        putchar('\n');
        return 0;
}

static int cmd_write(const char *path, const char *data)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n;
        int e;

        if (fd < 0 && errno == ENOENT)
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                return report(-1, errno);
        n = write(fd, data, strlen(data));
        e = errno;
        if (n >= 0 && close(fd) < 0)
                return report(-1, errno);
        return report(n < 0 ? -1 : 0, e);
}

static int emit_read_result(ssize_t n, const char *buf)
{
        if (n < 0) {
                printf("{\"ok\":false,\"errno\":");
                json_str(errno_name((int) -n));
                printf("}\n");
                return EXIT_REFUSED;
        }
        printf("{\"ok\":true,\"size\":%zd,\"data\":", n);
        json_strn(buf, (size_t) n);
        printf("}\n");
        return 0;
}

static int cmd_read(const char *path)
{
        char *buf = NULL;
        ssize_t n = read_file(path, &buf);
        int r = emit_read_result(n, buf);

        free(buf);
        return r;
}

static int cmd_readfd(const char *s)
{
        char *buf = NULL;
        int fd = (int) parse_long(s, "fd");
        ssize_t n;
        int r;

        if (fcntl(fd, F_GETFD) < 0)
                return emit_read_result(-errno, NULL);
        n = read_fd_all(fd, &buf);
        r = emit_read_result(n, buf);
        free(buf);
        return r;
}

static const char *file_type(mode_t m)
{
        switch (m & S_IFMT) {
        case S_IFREG:
                return "reg";
        case S_IFDIR:
                return "dir";
        case S_IFCHR:
                return "chr";
        case S_IFBLK:
                return "blk";
        case S_IFIFO:
                return "fifo";
        case S_IFSOCK:
                return "sock";
        case S_IFLNK:
                return "lnk";
        default:
                return "unknown";
        }
}

static int cmd_stat(const char *path)
{
        struct stat st;

        if (lstat(path, &st) < 0)
                return emit_read_result(-errno, NULL);
        printf("{\"ok\":true,\"type\":\"%s\",\"mode\":%u,\"uid\":%u,\"gid\":%u,\"size\":%lld,"
               "\"ino\":%llu,\"dev_major\":%u,\"dev_minor\":%u,\"rdev_major\":%u,\"rdev_minor\":%u",
               file_type(st.st_mode), (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid,
               (unsigned) st.st_gid, (long long) st.st_size, (unsigned long long) st.st_ino,
               major(st.st_dev), minor(st.st_dev), major(st.st_rdev), minor(st.st_rdev));
        if (S_ISLNK(st.st_mode)) {
                char link[PATH_MAX];
                ssize_t n = readlink(path, link, sizeof(link) - 1);

                if (n >= 0) {
                        link[n] = '\0';
                        printf(",\"target\":");
                        json_str(link);
                }
        }
        printf("}\n");
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int cmd_ls(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *de;
        char *names[4096];
        size_t n = 0;

        if (!d)
                return emit_read_result(-errno, NULL);
        while ((de = readdir(d)) && n < sizeof(names) / sizeof(names[0])) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                names[n] = strdup(de->d_name);
                if (names[n])
                        n++;
        }
        closedir(d);
        qsort(names, n, sizeof(names[0]), cmp_str);
        printf("{\"ok\":true,\"entries\":[");
        for (size_t i = 0; i < n; i++) {
                if (i)
                        putchar(',');
                json_str(names[i]);
                free(names[i]);
        }
        printf("]}\n");
        return 0;
}

static int cmd_sysctl(const char *key)
{
        char path[PATH_MAX] = "/proc/sys/";
        char *buf = NULL;
        size_t off = strlen(path);
        ssize_t n;

        for (const char *k = key; *k && off < sizeof(path) - 1; k++)
                path[off++] = *k == '.' ? '/' : *k;
        path[off] = '\0';
        n = read_file(path, &buf);
        if (n < 0)
                return emit_read_result(n, NULL);
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = '\0';
        printf("{\"ok\":true,\"value\":");
        json_str(buf);
        printf("}\n");
        free(buf);
        return 0;
}

static void sleep_seconds(double secs)
{
        struct timespec ts;

        if (secs < 0)
                secs = 0;
        ts.tv_sec = (time_t) secs;
        ts.tv_nsec = (long) ((secs - (double) ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void exit_on_signal(int sig)
{
        _exit(128 + sig);
}

/* The init of a pid namespace ignores signals it has no handler for, even
 * TERM from the host: as pid 1, behave like an ordinary program would and
 * exit with 128+signal on TERM/INT/HUP. */
static int cmd_sleep(const char *s)
{
        char *end;
        double secs = strtod(s, &end);

        if (end == s || *end)
                die_usage("bad seconds: %s", s);
        if (getpid() == 1) {
                struct sigaction sa = {.sa_handler = exit_on_signal};

                sigaction(SIGTERM, &sa, NULL);
                sigaction(SIGINT, &sa, NULL);
                sigaction(SIGHUP, &sa, NULL);
        }
        sleep_seconds(secs);
        return 0;
}

static int cmd_kill_self(const char *s)
{
        int sig = parse_signal(s);
        struct sigaction sa = {.sa_handler = SIG_DFL};
        sigset_t set;

        sigaction(sig, &sa, NULL);
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        fflush(stdout);
        raise(sig);
        sleep_seconds(0.2);
        fprintf(stderr, "%s: %s did not terminate pid %d\n", prog, signal_name(sig),
                (int) getpid());
        return 125;
}

static void noop_handler(int sig)
{
        (void) sig;
}

/* Prints "ready", then one line per signal received, until SIGTERM (exit 0)
 * or the timeout (exit 2). */
static int cmd_signals(int argc, char **argv)
{
        double timeout = argc > 0 ? strtod(argv[0], NULL) : 60.0;
        struct sigaction sa = {.sa_handler = noop_handler};
        struct timespec deadline, now;
        sigset_t all;

        sigemptyset(&all);
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig == SIGKILL || sig == SIGSTOP || (sig >= 32 && sig < SIGRTMIN))
                        continue;
                if (sigaction(sig, &sa, NULL) == 0)
                        sigaddset(&all, sig);
        }
        sigprocmask(SIG_BLOCK, &all, NULL);
        puts("ready");
        fflush(stdout);
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += (time_t) timeout;
        for (;;) {
                struct timespec left;
                siginfo_t si;
                int sig;

                clock_gettime(CLOCK_MONOTONIC, &now);
                left.tv_sec = deadline.tv_sec - now.tv_sec;
                left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
                if (left.tv_nsec < 0) {
                        left.tv_sec--;
                        left.tv_nsec += 1000000000L;
                }
                if (left.tv_sec < 0)
                        return 2;
                sig = sigtimedwait(&all, &si, &left);
                if (sig < 0) {
                        if (errno == EINTR)
                                continue;
                        return 2;
                }
                if (sig == SIGCHLD)
                        continue;
                puts(signal_name(sig));
                fflush(stdout);
                if (sig == SIGTERM)
                        return 0;
        }
}

static int cmd_netdevs(void)
{
        char *buf = NULL, *save = NULL;
        int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        int lineno = 0;
        bool first = true;

        if (read_file("/proc/net/dev", &buf) < 0)
                return emit_read_result(-errno, NULL);
        putchar('[');
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *colon, *name = line;
                struct ifreq ifr;

                if (++lineno <= 2)
                        continue;
                colon = strchr(line, ':');
                if (!colon)
                        continue;
                *colon = '\0';
                while (*name == ' ')
                        name++;
                memset(&ifr, 0, sizeof(ifr));
                snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
                if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                        ifr.ifr_flags = 0;
                if (!first)
                        putchar(',');
                first = false;
                printf("{\"name\":");
                json_str(name);
                printf(",\"up\":%s,\"flags\":%d}", (ifr.ifr_flags & IFF_UP) ? "true" : "false",
                       (int) (unsigned short) ifr.ifr_flags);
        }
        printf("]\n");
        free(buf);
        if (sock >= 0)
                close(sock);
        return 0;
}

/* A TCP round trip over 127.0.0.1. */
static int cmd_loopback(void)
{
        struct sockaddr_in addr = {.sin_family = AF_INET};
        socklen_t alen = sizeof(addr);
        struct timeval tv = {.tv_sec = 5};
        int ls = -1, cs = -1, as = -1, r = -1, e = 0;
        char buf[8] = {0};

        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (ls < 0 || bind(ls, (struct sockaddr *) &addr, sizeof(addr)) < 0 || listen(ls, 1) < 0 ||
            getsockname(ls, (struct sockaddr *) &addr, &alen) < 0)
                goto out;
        cs = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (cs < 0)
                goto out;
        setsockopt(cs, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(cs, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(cs, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                goto out;
        as = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (as < 0 || write(cs, "ping", 4) != 4)
                goto out;
        setsockopt(as, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (read(as, buf, 4) != 4)
                goto out;
        r = memcmp(buf, "ping", 4) == 0 ? 0 : -1;
        if (r < 0)
                errno = EPROTO;
out:
        e = errno;
        if (as >= 0)
                close(as);
        if (cs >= 0)
                close(cs);
        if (ls >= 0)
                close(ls);
        return report(r, e);
}

static int cmd_tty(void)
{
        char *name = ttyname(0);
        bool first = true;

        putchar('{');
        json_key(&first, "stdin");
        fputs(isatty(0) ? "true" : "false", stdout);
        json_key(&first, "stdout");
        fputs(isatty(1) ? "true" : "false", stdout);
        json_key(&first, "stderr");
        fputs(isatty(2) ? "true" : "false", stdout);
        json_key(&first, "ttyname");
        json_str(name);
        printf("}\n");
        return 0;
}

#ifndef KEYCTL_GET_KEYRING_ID
#define KEYCTL_GET_KEYRING_ID    0
#define KEYCTL_DESCRIBE          6
#define KEY_SPEC_SESSION_KEYRING -3
#endif

static int cmd_keyring(void)
{
        long id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
        char desc[256] = "";

        if (id < 0)
                return emit_read_result(-errno, NULL);
        if (syscall(SYS_keyctl, KEYCTL_DESCRIBE, id, desc, sizeof(desc) - 1) < 0)
                desc[0] = '\0';
        printf("{\"ok\":true,\"session\":%ld,\"description\":", id);
        json_str(desc);
        printf("}\n");
        return 0;
}

static int cmd_bind_port(const char *s)
{
        struct sockaddr_in addr = {.sin_family = AF_INET};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int r, e;

        if (fd < 0)
                return report(-1, errno);
        addr.sin_port = htons((uint16_t) parse_long(s, "port"));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        r = bind(fd, (struct sockaddr *) &addr, sizeof(addr));
        e = errno;
        close(fd);
        return report(r, e);
}

static int cmd_mount_tmpfs(const char *dir)
{
        int r = mount("bento-probe", dir, "tmpfs", 0, "size=64k");
        int e = errno;

        if (r == 0)
                umount2(dir, MNT_DETACH);
        return report(r, e);
}

static int cmd_mknod(char **a)
{
        mode_t type;

        if (strcmp(a[1], "c") == 0)
                type = S_IFCHR;
        else if (strcmp(a[1], "b") == 0)
                type = S_IFBLK;
        else
                die_usage("mknod type must be c or b");
        dev_t dev =
            makedev((unsigned) parse_long(a[2], "major"), (unsigned) parse_long(a[3], "minor"));
        int r = mknod(a[0], type | 0600, dev);

        return report(r, errno);
}

static int cmd_exec(char **a)
{
        execv(a[0], a);
        return report(-1, errno);
}

static int cmd_stdin(void)
{
        char *buf = NULL;
        ssize_t n = read_fd_all(0, &buf);
        int r = emit_read_result(n, buf);

        free(buf);
        return r;
}

/* ---- cgroup limits: memory, pids, cpu ------------------------------------ */

/* Allocate and touch MB mebibytes, one at a time; "OK MB" when all fit. */
static int cmd_hog(const char *s)
{
        long mb = parse_long(s, "MB");

        for (long i = 0; i < mb; i++) {
                char *p = malloc(1 << 20);

                if (!p)
                        return report(-1, ENOMEM);
                memset(p, (int) (i & 0xff) | 1, 1 << 20);
        }
        printf("OK %ld\n", mb);
        return 0;
}

/* Fork up to N children that wait on a pipe; report how many forks
 * succeeded and the errno of the first that failed, then let them go. */
static int cmd_forks(const char *s)
{
        long n = parse_long(s, "N"), ok = 0;
        int fds[2], saved = 0;

        if (n > 100000 || pipe(fds) < 0)
                return report(-1, n > 100000 ? EINVAL : errno);
        for (; ok < n; ok++) {
                pid_t pid = fork();
                char c;

                if (pid < 0) {
                        saved = errno;
                        break;
                }
                if (pid == 0) {
                        close(fds[1]);
                        _exit(read(fds[0], &c, 1) < 0);
                }
        }
        close(fds[1]);
        close(fds[0]);
        for (long i = 0; i < ok; i++)
                (void) wait(NULL);
        printf("{\"forked\":%ld,\"errno\":", ok);
        if (saved)
                json_str(errno_name(saved));
        else
                printf("null");
        printf("}\n");
        return 0;
}

static double now_s(clockid_t clk)
{
        struct timespec ts;

        clock_gettime(clk, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Burn CPU for SECONDS of wall-clock time; report wall and CPU time. */
static int cmd_spin(const char *s)
{
        double secs = (double) parse_long(s, "SECONDS");
        double start = now_s(CLOCK_MONOTONIC), cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        volatile unsigned long x = 0;

        if (secs > 60)
                die_usage("spin: at most 60 seconds");
        while (now_s(CLOCK_MONOTONIC) - start < secs)
                for (int i = 0; i < 100000; i++)
                        x += (unsigned long) i;
        printf("{\"wall\":%.3f,\"cpu\":%.3f}\n", now_s(CLOCK_MONOTONIC) - start,
               now_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0);
        return 0;
}

/* ---- seccomp: raw system calls, exec without libc, steps -------------------- */

int main(int argc, char **argv);

/* System calls the seccomp tests name; anything else is given by number. */
static const struct {
        const char *name;
        long nr;
} syscall_names[] = {
    {"mkdir", SYS_mkdir},       {"mkdirat", SYS_mkdirat},
    {"rmdir", SYS_rmdir},       {"personality", SYS_personality},
    {"getpid", SYS_getpid},     {"getppid", SYS_getppid},
    {"uname", SYS_uname},       {"chdir", SYS_chdir},
    {"umask", SYS_umask},       {"execve", SYS_execve},
    {"execveat", SYS_execveat}, {"unshare", SYS_unshare},
    {"sync", SYS_sync},         {"getuid", SYS_getuid},
};

static volatile sig_atomic_t sigsys_nr = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
        (void) sig;
        (void) uc;
        sigsys_nr = si->si_syscall;
}

/* "s:TEXT" is a pointer to TEXT; anything else a number (base 0). */
static long syscall_arg(const char *s)
{
        char *end = NULL;
        long v;

        if (strncmp(s, "s:", 2) == 0)
                return (long) (s + 2);
        errno = 0;
        v = *s == '-' ? strtol(s, &end, 0) : (long) strtoull(s, &end, 0);
        if (errno || !end || *end || end == s)
                die_usage("bad system call argument: %s", s);
        return v;
}

/* syscall [--catch-sigsys] NAME|NR [ARG...]: OK, the errno name, or
 * "SIGSYS nr=N" when the call was trapped (exit 1 for both refusals). */
static int cmd_syscall(int n, char **a)
{
        long args[6] = {0};
        long nr = -1, r;
        int e;

        sigsys_nr = -1; /* steps may run this more than once */
        if (n > 0 && strcmp(a[0], "--catch-sigsys") == 0) {
                struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};

                sigaction(SIGSYS, &sa, NULL);
                a++;
                n--;
        }
        if (n < 1 || n > 7)
                die_usage("syscall [--catch-sigsys] NAME|NR [ARG...] (at most 6 arguments)");
        for (size_t i = 0; i < sizeof(syscall_names) / sizeof(syscall_names[0]); i++)
                if (strcmp(a[0], syscall_names[i].name) == 0)
                        nr = syscall_names[i].nr;
        if (nr < 0)
                nr = syscall_arg(a[0]);
        for (int i = 1; i < n; i++)
                args[i - 1] = syscall_arg(a[i]);
        r = syscall(nr, args[0], args[1], args[2], args[3], args[4], args[5]);
        e = errno;
        if (sigsys_nr >= 0) {
                printf("SIGSYS nr=%d\n", (int) sigsys_nr);
                return EXIT_REFUSED;
        }
        return report(r < 0 ? -1 : 0, e);
}

/* exec-raw execve|execveat PATH [ARGS...]: the system call itself, not
 * libc's wrapper (which may pick either). */
static int cmd_exec_raw(int n, char **a)
{
        char *argv[64];
        int i;

        if (n < 2 || n > 62)
                die_usage("exec-raw execve|execveat PATH [ARGS...]");
        for (i = 1; i < n; i++)
                argv[i - 1] = a[i];
        argv[i - 1] = NULL;
        fflush(stdout);
        if (strcmp(a[0], "execve") == 0)
                syscall(SYS_execve, a[1], argv, environ);
        else if (strcmp(a[0], "execveat") == 0)
                syscall(SYS_execveat, AT_FDCWD, a[1], argv, environ, 0);
        else
                die_usage("exec-raw: execve or execveat, not %s", a[0]);
        return report(-1, errno);
}

/* fork SUBCOMMAND...: run it in a child; exit with its status (128+sig).
 * argv[0] is "fork", argv[1] the subcommand: main's layout. */
static int cmd_fork(int argc, char **argv)
{
        int status = 0;
        pid_t pid;

        fflush(stdout);
        pid = fork();
        if (pid < 0)
                return report(-1, errno);
        if (pid == 0) {
                int rc = main(argc, argv);

                fflush(stdout);
                _exit(rc);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return report(-1, errno);
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* wait-file PATH SECONDS: OK once PATH exists, ETIMEDOUT otherwise. */
static int cmd_wait_file(const char *path, const char *secs)
{
        long tenths = parse_long(secs, "seconds") * 10;
        struct stat st;

        for (long i = 0; i <= tenths; i++) {
                if (stat(path, &st) == 0)
                        return report(0, 0);
                sleep_seconds(0.1);
        }
        return report(-1, ETIMEDOUT);
}

/* steps "CMD ARGS" ...: run each (split on spaces) in this process, each
 * followed by a line "@@bento-step-rc=N", so no shell has to exec. */
static int cmd_steps(int n, char **a)
{
        for (int i = 0; i < n; i++) {
                char *copy = strdup(a[i]);
                char *v[66] = {"steps"};
                char *save = NULL;
                int k = 1, rc;

                if (!copy)
                        return 70;
                for (char *t = strtok_r(copy, " ", &save); t && k < 65;
                     t = strtok_r(NULL, " ", &save))
                        v[k++] = t;
                v[k] = NULL;
                rc = k > 1 ? main(k, v) : EXIT_USAGE;
                fflush(stdout);
                printf("@@bento-step-rc=%d\n", rc);
                fflush(stdout);
                free(copy);
        }
        return 0;
}

/* The "pid" member of the state JSON a hook got on stdin; 0 when absent. */
static long pid_in_state(const char *state)
{
        const char *p = state ? strstr(state, "\"pid\":") : NULL;

        return p ? strtol(p + 6, NULL, 10) : 0;
}

/* /proc/PID/cmdline with NULs as spaces, or null. */
static void emit_cmdline(long pid)
{
        char path[64], *buf = NULL;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
        n = pid > 0 ? read_file(path, &buf) : -ENOENT;
        if (n < 0) {
                fputs("null", stdout);
                return;
        }
        for (ssize_t i = 0; i < n; i++)
                if (buf[i] == '\0')
                        buf[i] = ' ';
        json_strn(buf, (size_t) n);
        free(buf);
}

/* The pids in /proc that are neither zombies nor dead, sorted. */
static void emit_live_pids(void)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        bool first = true;

        putchar('[');
        while (d && (de = readdir(d))) {
                char path[300], *buf = NULL, *paren;
                ssize_t n;

                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
                n = read_file(path, &buf);
                paren = n > 0 ? strrchr(buf, ')') : NULL;
                if (paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X') {
                        printf("%s%s", first ? "" : ",", de->d_name);
                        first = false;
                }
                free(buf);
        }
        if (d)
                closedir(d);
        putchar(']');
}

/* An OCI hook that records what it was given: `hook DIR NAME [STATUS]`
 * writes DIR/NAME.json (stdin, argv, env, cwd, namespaces, fds, the
 * command line of the state's pid, the live pids in /proc) and appends NAME to
 * DIR/events, then exits with STATUS (default 0). */
static int cmd_hook(char **argv, char **a, int na)
{
        char path[PATH_MAX], *in = NULL;
        ssize_t n = read_fd_all(0, &in);
        bool first = true;
        int fd;

        snprintf(path, sizeof(path), "%s/%s.json", a[0], a[1]);
        if (!freopen(path, "w", stdout))
                return report(-1, errno);
        putchar('{');
        json_key(&first, "fds");
        emit_fds();
        json_key(&first, "stdin");
        json_str(n >= 0 ? in : NULL);
        json_key(&first, "argv");
        emit_string_array(argv);
        json_key(&first, "env");
        emit_string_array(environ);
        json_key(&first, "cwd");
        emit_cwd();
        json_key(&first, "ns");
        emit_ns();
        json_key(&first, "pid");
        emit_pid();
        json_key(&first, "state_pid_cmdline");
        emit_cmdline(pid_in_state(n >= 0 ? in : NULL));
        json_key(&first, "live_pids");
        emit_live_pids();
        printf("}\n");
        free(in);
        if (fflush(stdout) != 0)
                return 70;
        snprintf(path, sizeof(path), "%s/events", a[0]);
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || dprintf(fd, "%s\n", a[1]) < 0)
                return 70;
        close(fd);
        return na > 2 ? (int) parse_long(a[2], "status") : 0;
}

/* ---- process creation, threads, foreign system call ABIs ---------------------- */

static void *thread_body(void *arg)
{
        return arg;
}

/* threads N: start N threads with pthread_create and join them; OK, or the
 * error of the first that could not start. */
static int cmd_threads(const char *s)
{
        long n = parse_long(s, "N"), started = 0;
        pthread_t t[64];
        int e = 0;

        if (n < 1 || n > 64)
                die_usage("threads: between 1 and 64");
        for (; started < n; started++) {
                e = pthread_create(&t[started], NULL, thread_body, NULL);
                if (e != 0)
                        break;
        }
        for (long i = 0; i < started; i++)
                pthread_join(t[i], NULL);
        return report(e ? -1 : 0, e);
}

struct thread_job {
        int argc;
        char **argv;
        int rc;
        bool returned;
};

static void *thread_main(void *arg)
{
        struct thread_job *job = arg;

        job->rc = main(job->argc, job->argv);
        fflush(stdout);
        job->returned = true;
        return NULL;
}

/* thread SUBCOMMAND...: run it in a second thread and exit with its status;
 * "THREAD-KILLED" (exit 3) when the thread died and the process lived on. */
static int cmd_thread(int argc, char **argv)
{
        struct thread_job job = {.argc = argc, .argv = argv};
        pthread_t t;
        int e;

        fflush(stdout);
        e = pthread_create(&t, NULL, thread_main, &job);
        if (e != 0)
                return report(-1, e);
        pthread_join(t, NULL);
        if (!job.returned) {
                puts("THREAD-KILLED");
                return 3;
        }
        return job.rc;
}

/* The first fields of the kernel's struct clone_args (CLONE_ARGS_SIZE_VER0). */
struct probe_clone_args {
        uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* spawn fork|vfork|clone|clone3: make a child process with that very
 * system call (glibc's fork() would use clone); the child exits at once.
 * OK once it is reaped, or the errno of the call. */
static int cmd_spawn(const char *kind)
{
        struct probe_clone_args ca = {.exit_signal = SIGCHLD};
        long pid;
        int status;

        fflush(stdout);
        if (strcmp(kind, "fork") == 0)
                pid = syscall(SYS_fork);
        else if (strcmp(kind, "vfork") == 0)
                pid = vfork(); /* glibc's vfork is the system call itself */
        else if (strcmp(kind, "clone") == 0)
                pid = syscall(SYS_clone, (long) SIGCHLD, 0L, 0L, 0L, 0L);
        else if (strcmp(kind, "clone3") == 0)
                pid = syscall(SYS_clone3, &ca, sizeof(ca));
        else
                die_usage("spawn: fork, vfork, clone or clone3, not %s", kind);
        if (pid == 0)
                _exit(0);
        if (pid < 0)
                return report(-1, errno);
        while (waitpid((pid_t) pid, &status, 0) < 0)
                if (errno != EINTR)
                        return report(-1, errno);
        return report(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1, ECHILD);
}

/* int80 NR [A B C]: a system call through the 32-bit entry (int $0x80)
 * from this 64-bit program: OK or the errno name. */
static int cmd_int80(int n, char **a)
{
        long v[4] = {0}, ret = -ENOSYS;

        if (n < 1 || n > 4)
                die_usage("int80 NR [ARG...] (at most 3 arguments)");
        for (int i = 0; i < n; i++)
                v[i] = syscall_arg(a[i]);
        fflush(stdout);
#if defined(__x86_64__)
        __asm__ volatile("int $0x80"
                         : "=a"(ret)
                         : "a"(v[0]), "b"(v[1]), "c"(v[2]), "d"(v[3])
                         : "memory");
#endif
        return report(ret < 0 && ret > -4096 ? -1 : 0, (int) -ret);
}

/* ---- dispatch ------------------------------------------------------------- */

/* ---- network: raw sockets and the egress proxy (tests/integration/test_egress.py) ---- */

static int parse_inet(const char *host, const char *port, struct sockaddr_storage *ss,
                      socklen_t *len)
{
        struct sockaddr_in *in = (struct sockaddr_in *) ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;
        uint16_t p = (uint16_t) parse_long(port, "port");

        memset(ss, 0, sizeof(*ss));
        if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
                in->sin_family = AF_INET;
                in->sin_port = htons(p);
                *len = sizeof(*in);
                return 0;
        }
        if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(p);
                *len = sizeof(*in6);
                return 0;
        }
        die_usage("not an IP address: %s", host);
}

static void set_timeouts(int fd, int secs)
{
        struct timeval tv = {.tv_sec = secs};

        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* tcp-connect ADDR PORT: a direct connect, bypassing any proxy. */
static int cmd_tcp_connect(char **a)
{
        struct sockaddr_storage ss;
        socklen_t len;
        int fd, r, e;

        parse_inet(a[0], a[1], &ss, &len);
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return report(-1, errno);
        set_timeouts(fd, 5);
        r = connect(fd, (struct sockaddr *) &ss, len);
        e = errno;
        close(fd);
        return report(r, e);
}

/* udp-send ADDR PORT: one datagram. */
static int cmd_udp_send(char **a)
{
        struct sockaddr_storage ss;
        socklen_t len;
        int fd, e;
        ssize_t n;

        parse_inet(a[0], a[1], &ss, &len);
        fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return report(-1, errno);
        n = sendto(fd, "bento", 5, 0, (struct sockaddr *) &ss, len);
        e = errno;
        close(fd);
        return report(n == 5 ? 0 : -1, n < 0 ? e : EIO);
}

/* notify MESSAGE: one datagram to $NOTIFY_SOCKET, as sd_notify(3) sends
 * it (a leading '@' is the abstract namespace). */
static int cmd_notify(const char *msg)
{
        const char *path = getenv("NOTIFY_SOCKET");
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        size_t len = path ? strlen(path) : 0;
        int fd, e;
        ssize_t n;

        if (len == 0 || len >= sizeof(addr.sun_path))
                return report(-1, len ? ENAMETOOLONG : ENOENT);
        memcpy(addr.sun_path, path, len);
        if (path[0] == '@')
                addr.sun_path[0] = '\0';
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return report(-1, errno);
        n = sendto(fd, msg, strlen(msg), 0, (struct sockaddr *) &addr,
                   (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len));
        e = errno;
        close(fd);
        return report(n == (ssize_t) strlen(msg) ? 0 : -1, n < 0 ? e : EIO);
}

/* A connection to the in-container proxy at 127.0.0.1:3128. */
static int proxy_socket(void)
{
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(3128)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -errno;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        set_timeouts(fd, 20);
        if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0) {
                int e = errno;
                close(fd);
                return -e;
        }
        return fd;
}

static int write_full(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t w = write(fd, p, n);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return -1;
                p += w;
                n -= (size_t) w;
        }
        return 0;
}

/* Read a response head (to the blank line) into buf; returns its length or
 * -1.  Byte by byte, so nothing after the head is consumed. */
static ssize_t read_response_head(int fd, char *buf, size_t size)
{
        size_t n = 0;

        while (n + 1 < size) {
                ssize_t r = read(fd, buf + n, 1);

                if (r <= 0)
                        break;
                n++;
                if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
                        break;
        }
        buf[n] = '\0';
        return n > 0 ? (ssize_t) n : -1;
}

/* The rest of the stream (a refusal's body), up to size - 1 bytes. */
static size_t read_rest(int fd, char *buf, size_t size)
{
        size_t n = 0;

        while (n + 1 < size) {
                ssize_t r = read(fd, buf + n, size - 1 - n);

                if (r <= 0)
                        break;
                n += (size_t) r;
        }
        buf[n] = '\0';
        return n;
}

static int status_of(const char *head)
{
        return strncmp(head, "HTTP/1.1 ", 9) == 0 ? atoi(head + 9) : 0;
}

/* proxy-connect TARGET [DATA]: CONNECT through the proxy; on 200 send DATA
 * and read as many bytes back (an echo server).  JSON {status, body|echo}. */
static int cmd_proxy_connect(int n, char **a)
{
        const char *data = n > 1 ? a[1] : "bento-echo";
        char head[4096], body[4096], req[1024];
        int fd = proxy_socket(), status;
        size_t got = 0, want = strlen(data);

        if (fd < 0)
                return report(-1, -fd);
        snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", a[0], a[0]);
        if (write_full(fd, req, strlen(req)) < 0 ||
            read_response_head(fd, head, sizeof(head)) < 0) {
                close(fd);
                return report(-1, errno ? errno : EPROTO);
        }
        status = status_of(head);
        printf("{\"status\":%d", status);
        if (status != 200) {
                read_rest(fd, body, sizeof(body));
                printf(",\"head\":");
                json_str(head);
                printf(",\"body\":");
                json_str(body);
        } else if (write_full(fd, data, want) == 0) {
                while (got < want && got + 1 < sizeof(body)) {
                        ssize_t r = read(fd, body + got, want - got);

                        if (r <= 0)
                                break;
                        got += (size_t) r;
                }
                body[got] = '\0';
                printf(",\"echo\":");
                json_str(body);
        }
        printf("}\n");
        close(fd);
        return 0;
}

/* Turn the two-character escapes \r and \n of s into bytes, in place. */
static void unescape_crlf(char *s)
{
        char *o = s;

        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && (p[1] == 'r' || p[1] == 'n')) {
                        *o++ = p[1] == 'r' ? '\r' : '\n';
                        p++;
                } else {
                        *o++ = *p;
                }
        }
        *o = '\0';
}

/* proxy-raw TEXT: send TEXT (\r \n escapes) to the proxy and print all it
 * answers as JSON {"response": ...}. */
static int cmd_proxy_raw(char *text)
{
        char buf[8192];
        int fd = proxy_socket();

        if (fd < 0)
                return report(-1, -fd);
        unescape_crlf(text);
        if (write_full(fd, text, strlen(text)) < 0) {
                close(fd);
                return report(-1, errno);
        }
        read_rest(fd, buf, sizeof(buf));
        printf("{\"response\":");
        json_str(buf);
        printf("}\n");
        close(fd);
        return 0;
}

/* proxy-load N TARGET BYTES [HOLD]: open N tunnels at once, then push BYTES
 * distinct bytes through each and check the echo.  HOLD seconds: keep them
 * open that long before closing (so the test can look at the daemon).
 * JSON {opened, intact, bad}. */
static int cmd_proxy_load(int na, char **a)
{
        long n = parse_long(a[0], "N"), bytes = parse_long(a[2], "BYTES");
        long hold = na > 3 ? parse_long(a[3], "HOLD") : 0;
        int *fds = calloc((size_t) n, sizeof(int));
        char *out = malloc((size_t) bytes + 1), *in = malloc((size_t) bytes + 1), req[1024],
             head[1024];
        long opened = 0, intact = 0, bad = 0;

        if (!fds || !out || !in || n < 1 || bytes < 1)
                die_usage("proxy-load: bad N or BYTES");
        snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\n\r\n", a[1]);
        for (long i = 0; i < n; i++) {
                fds[i] = proxy_socket();
                if (fds[i] >= 0 && write_full(fds[i], req, strlen(req)) < 0) {
                        close(fds[i]);
                        fds[i] = -1;
                }
        }
        for (long i = 0; i < n; i++) {
                if (fds[i] < 0)
                        continue;
                if (read_response_head(fds[i], head, sizeof(head)) < 0 || status_of(head) != 200) {
                        close(fds[i]);
                        fds[i] = -1;
                        continue;
                }
                opened++;
        }
        for (long i = 0; i < n; i++) {
                size_t got = 0;

                if (fds[i] < 0)
                        continue;
                for (long k = 0; k < bytes; k++)
                        out[k] = (char) ('a' + (i * 7 + k) % 26);
                if (write_full(fds[i], out, (size_t) bytes) < 0) {
                        bad++;
                        continue;
                }
                while (got < (size_t) bytes) {
                        ssize_t r = read(fds[i], in + got, (size_t) bytes - got);

                        if (r <= 0)
                                break;
                        got += (size_t) r;
                }
                if (got == (size_t) bytes && memcmp(in, out, (size_t) bytes) == 0)
                        intact++;
                else
                        bad++;
        }
        printf("{\"opened\":%ld,\"intact\":%ld,\"bad\":%ld}\n", opened, intact, bad);
        fflush(stdout);
        if (hold > 0)
                sleep_seconds((double) hold);
        for (long i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        free(fds);
        free(out);
        free(in);
        return 0;
}

struct subcommand {
        const char *name;
        int nargs; /* minimum */
        const char *usage;
};

static const struct subcommand subcommands[] = {
    {"facts", 0, "everything below that needs no argument, as one object"},
    {"ids", 0, "uid/gid (real, effective, saved), groups, umask"},
    {"caps", 0, "the five capability sets (hex, from /proc/self/status)"},
    {"rlimits", 0, "every RLIMIT_* as {soft, hard}"},
    {"nnp", 0, "no_new_privs and seccomp mode"},
    {"mounts", 0, "/proc/self/mountinfo as a list"},
    {"ns", 0, "inode of each /proc/self/ns/* entry"},
    {"hostname", 0, "hostname and domainname"},
    {"pid", 0, "pid, ppid, sid, pgid"},
    {"pids", 0, "the pids visible in /proc"},
    {"fds", 0, "open fd numbers and their targets"},
    {"env", 0, "the environment as a list"},
    {"argv", 0, "argv as a list"},
    {"cwd", 0, "the working directory (plain line)"},
    {"netdevs", 0, "network interfaces and whether they are up"},
    {"loopback", 0, "TCP round trip over 127.0.0.1: OK or errno"},
    {"tty", 0, "whether fds 0-2 are terminals"},
    {"keyring", 0, "session keyring id and description"},
    {"stdin", 0, "read stdin to EOF and report it"},
    {"write", 1, "PATH [DATA]: open (create if missing) and write; OK or errno"},
    {"read", 1, "PATH: contents or errno"},
    {"readfd", 1, "FD: read an inherited fd to EOF"},
    {"stat", 1, "PATH: lstat (type, mode, owner, device numbers)"},
    {"ls", 1, "DIR: entries"},
    {"sysctl", 1, "KEY: value from /proc/sys"},
    {"exit", 1, "N: exit with status N"},
    {"sleep", 1, "SECONDS: sleep (as pid 1, TERM/INT/HUP exit 128+sig)"},
    {"kill-self", 1, "SIG: raise SIG with the default action"},
    {"signals", 0, "[TIMEOUT]: print each signal received; exit 0 on TERM"},
    {"say", 2, "OUT ERR: write OUT to stdout and ERR to stderr"},
    {"setuid", 1, "UID: try setuid; OK or errno"},
    {"sethostname", 1, "NAME: try sethostname; OK or errno"},
    {"mount-tmpfs", 1, "DIR: try to mount a tmpfs (then unmount it); OK or errno"},
    {"mknod", 4, "PATH c|b MAJOR MINOR: try mknod; OK or errno"},
    {"bind-port", 1, "PORT: try to bind 127.0.0.1:PORT; OK or errno"},
    {"exec", 1, "PATH [ARGS...]: execv, errno on failure"},
    {"hog", 1, "MB: allocate and touch MB MiB; OK MB, or killed by the OOM killer"},
    {"forks", 1, "N: fork up to N waiting children; {forked, errno}"},
    {"spin", 1, "SECONDS: burn CPU; {wall, cpu} seconds"},
    {"hook", 2, "DIR NAME [STATUS]: act as an OCI hook, record what it got in DIR"},
    {"syscall", 1, "[--catch-sigsys] NAME|NR [ARG...]: raw call (s:TEXT is a string); OK or errno"},
    {"exec-raw", 2, "execve|execveat PATH [ARGS...]: the raw system call; errno on failure"},
    {"fork", 1, "SUBCOMMAND [ARGS...]: run it in a child, exit with its status"},
    {"wait-file", 2, "PATH SECONDS: OK once PATH exists"},
    {"steps", 1, "\"CMD ARGS\"...: run each in this process, each followed by a step marker"},
    {"tcp-connect", 2, "ADDR PORT: a direct TCP connect; OK or errno"},
    {"udp-send", 2, "ADDR PORT: send one UDP datagram; OK or errno"},
    {"notify", 1, "MESSAGE: send it as one datagram to $NOTIFY_SOCKET; OK or errno"},
    {"proxy-connect", 1, "HOST:PORT [DATA]: CONNECT via 127.0.0.1:3128, echo DATA; JSON"},
    {"proxy-raw", 1, "TEXT: send TEXT (\\r \\n escapes) to 127.0.0.1:3128; JSON response"},
    {"proxy-load", 3, "N HOST:PORT BYTES [HOLD]: N tunnels at once, echo check; JSON"},
    {"threads", 1, "N: start and join N threads (pthread_create); OK or errno"},
    {"spawn", 1, "fork|vfork|clone|clone3: a child by that raw system call; OK or errno"},
    {"thread", 1, "SUBCOMMAND [ARGS...]: run it in a second thread, exit with its status"},
    {"int80", 1, "NR [ARG...]: a system call through int $0x80 (i386 numbers); OK or errno"},
};

static void usage(FILE *f)
{
        fprintf(f, "usage: %s SUBCOMMAND [ARGS...]\n", prog);
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
                fprintf(f, "  %-12s %s\n", subcommands[i].name, subcommands[i].usage);
}

static int finish(int r)
{
        if (fflush(stdout) != 0 && r == 0)
                return 70;
        return r;
}

int main(int argc, char **argv)
{
        const char *cmd;
        char **a;
        int na;

        if (argc < 2) {
                usage(stderr);
                return EXIT_USAGE;
        }
        cmd = argv[1];
        a = argv + 2;
        na = argc - 2;
        if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
                usage(stdout);
                return 0;
        }
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
                if (strcmp(cmd, subcommands[i].name) == 0 && na < subcommands[i].nargs)
                        die_usage("%s needs %d argument(s): %s", cmd, subcommands[i].nargs,
                                  subcommands[i].usage);

        if (strcmp(cmd, "facts") == 0)
                return finish(cmd_facts(argv));
        if (strcmp(cmd, "fds") == 0) {
                emit_fds();
                putchar('\n');
                return finish(0);
        }
        if (strcmp(cmd, "ids") == 0)
                emit_ids();
        else if (strcmp(cmd, "caps") == 0)
                emit_caps();
        else if (strcmp(cmd, "rlimits") == 0)
                emit_rlimits();
        else if (strcmp(cmd, "nnp") == 0)
                emit_nnp();
        else if (strcmp(cmd, "mounts") == 0)
                emit_mounts();
        else if (strcmp(cmd, "ns") == 0)
                emit_ns();
        else if (strcmp(cmd, "hostname") == 0)
                emit_hostname();
        else if (strcmp(cmd, "pid") == 0)
                emit_pid();
        else if (strcmp(cmd, "pids") == 0)
                emit_numeric_dir("/proc", 0);
        else if (strcmp(cmd, "env") == 0)
                emit_string_array(environ);
        else if (strcmp(cmd, "argv") == 0)
                emit_string_array(argv);
        else if (strcmp(cmd, "cwd") == 0) {
                char buf[PATH_MAX];

                if (!getcwd(buf, sizeof(buf)))
                        return finish(report(-1, errno));
                puts(buf);
                return finish(0);
        } else if (strcmp(cmd, "netdevs") == 0)
                return finish(cmd_netdevs());
        else if (strcmp(cmd, "loopback") == 0)
                return finish(cmd_loopback());
        else if (strcmp(cmd, "tty") == 0)
                return finish(cmd_tty());
        else if (strcmp(cmd, "keyring") == 0)
                return finish(cmd_keyring());
        else if (strcmp(cmd, "stdin") == 0)
                return finish(cmd_stdin());
        else if (strcmp(cmd, "write") == 0)
                return finish(cmd_write(a[0], na > 1 ? a[1] : "bento\n"));
        else if (strcmp(cmd, "read") == 0)
                return finish(cmd_read(a[0]));
        else if (strcmp(cmd, "readfd") == 0)
                return finish(cmd_readfd(a[0]));
        else if (strcmp(cmd, "stat") == 0)
                return finish(cmd_stat(a[0]));
        else if (strcmp(cmd, "ls") == 0)
                return finish(cmd_ls(a[0]));
        else if (strcmp(cmd, "sysctl") == 0)
                return finish(cmd_sysctl(a[0]));
        else if (strcmp(cmd, "exit") == 0) {
                fflush(stdout);
                return (int) parse_long(a[0], "status");
        } else if (strcmp(cmd, "sleep") == 0)
                return finish(cmd_sleep(a[0]));
        else if (strcmp(cmd, "kill-self") == 0)
                return cmd_kill_self(a[0]);
        else if (strcmp(cmd, "signals") == 0)
                return finish(cmd_signals(na, a));
        else if (strcmp(cmd, "say") == 0) {
                puts(a[0]);
                fflush(stdout);
                fprintf(stderr, "%s\n", a[1]);
                return finish(0);
        } else if (strcmp(cmd, "setuid") == 0) {
                uid_t uid = (uid_t) parse_long(a[0], "uid");
                int r = setuid(uid);

                return finish(report(r, errno));
        } else if (strcmp(cmd, "sethostname") == 0) {
                int r = sethostname(a[0], strlen(a[0]));

                return finish(report(r, errno));
        } else if (strcmp(cmd, "mount-tmpfs") == 0)
                return finish(cmd_mount_tmpfs(a[0]));
        else if (strcmp(cmd, "mknod") == 0)
                return finish(cmd_mknod(a));
        else if (strcmp(cmd, "bind-port") == 0)
                return finish(cmd_bind_port(a[0]));
        else if (strcmp(cmd, "syscall") == 0)
                return finish(cmd_syscall(na, a));
        else if (strcmp(cmd, "exec-raw") == 0)
                return finish(cmd_exec_raw(na, a));
        else if (strcmp(cmd, "fork") == 0)
                return finish(cmd_fork(argc - 1, argv + 1));
        else if (strcmp(cmd, "wait-file") == 0)
                return finish(cmd_wait_file(a[0], a[1]));
        else if (strcmp(cmd, "steps") == 0)
                return finish(cmd_steps(na, a));
        else if (strcmp(cmd, "threads") == 0)
                return finish(cmd_threads(a[0]));
        else if (strcmp(cmd, "spawn") == 0)
                return finish(cmd_spawn(a[0]));
        else if (strcmp(cmd, "thread") == 0)
                return finish(cmd_thread(argc - 1, argv + 1));
        else if (strcmp(cmd, "int80") == 0)
                return finish(cmd_int80(na, a));
        else if (strcmp(cmd, "hook") == 0)
                return cmd_hook(argv, a, na);
        else if (strcmp(cmd, "tcp-connect") == 0)
                return finish(cmd_tcp_connect(a));
        else if (strcmp(cmd, "udp-send") == 0)
                return finish(cmd_udp_send(a));
        else if (strcmp(cmd, "notify") == 0)
                return finish(cmd_notify(a[0]));
        else if (strcmp(cmd, "proxy-connect") == 0)
                return finish(cmd_proxy_connect(na, a));
        else if (strcmp(cmd, "proxy-raw") == 0)
                return finish(cmd_proxy_raw(a[0]));
        else if (strcmp(cmd, "proxy-load") == 0)
                return finish(cmd_proxy_load(na, a));
        else if (strcmp(cmd, "hog") == 0)
                return finish(cmd_hog(a[0]));
        else if (strcmp(cmd, "forks") == 0)
                return finish(cmd_forks(a[0]));
        else if (strcmp(cmd, "spin") == 0)
                return finish(cmd_spin(a[0]));
        else if (strcmp(cmd, "exec") == 0) {
                fflush(stdout);
                return finish(cmd_exec(a));
        } else {
                fprintf(stderr, "%s: unknown subcommand: %s\n", prog, cmd);
                usage(stderr);
                return EXIT_USAGE;
        }
        putchar('\n');
        return finish(0);
}
