/* SPDX-License-Identifier: Apache-2.0 */
/* The network gate client (see gate.h). */
#include "gate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "guard.h"
#include "hostname.h"
#include "io.h"
#include "resolve.h"

#define GATE_GREETING "bento-network-gate 1\n"
#define GATE_LINE_MAX 64 /* "<20 digits> allow\n" and room to spare */

/* One connection shared by every handler thread, one question at a time:
 * the lock is held from the question to its answer. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static int gate_fd = -1;
static int gate_ms;
static bool gate_dead;     /* closed, or it spoke out of turn: deny unasked */
static uint64_t gate_next; /* the last id asked */
static char gate_buf[GATE_LINE_MAX];
static size_t gate_len; /* bytes in gate_buf not yet taken as a line */

int egress_gate_connect(const char *path, int timeout_ms, struct bento_err *err)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        int r;

        if (strlen(path) >= sizeof(sa.sun_path))
                return bento_err_setx(err, ENAMETOOLONG, "--gate '%s': too long for a socket",
                                      path);
        if (fd < 0)
                return bento_err_set(err, errno, "--gate: cannot make a socket");
        memcpy(sa.sun_path, path, strlen(path) + 1);
        /* a unix stream connect completes or fails at once, unless the
         * listener's backlog is full (EAGAIN): that is a gate not
         * listening, as good as none */
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return bento_err_set(err, errno, "--gate: cannot connect to '%s'", path);
        r = egress_write_all(fd, GATE_GREETING, sizeof(GATE_GREETING) - 1,
                             egress_now_ms() + timeout_ms);
        if (r < 0)
                return bento_err_set(err, -r, "--gate: cannot write to '%s'", path);
        return TAKE_FD(fd);
}

void egress_gate_init(int fd, int timeout_ms)
{
        gate_fd = fd;
        gate_ms = timeout_ms;
        gate_dead = false;
        gate_next = 0;
        gate_len = 0;
}

bool egress_gate_enabled(void)
{
        return gate_fd >= 0;
}

bool egress_gate_askable(const char *host)
{
        struct sockaddr_in v4 = {.sin_family = AF_INET};
        struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
        const struct sockaddr *sa = NULL;

        if (inet_pton(AF_INET, host, &v4.sin_addr) == 1)
                sa = (const struct sockaddr *) &v4;
        else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1)
                sa = (const struct sockaddr *) &v6;
        else if (strchr(host, ':') || strchr(host, '%'))
                return false; /* an address in some other spelling: not a name either */
        return !sa || egress_classify(sa, egress_nat64_get()) == EGRESS_PUBLIC;
}

/* The answer to question id in the line s (NUL-terminated, no newline):
 * 1 allow, 0 deny, 2 an earlier question's (late) answer, -1 garbage. */
static int parse_answer(const char *s, uint64_t id)
{
        char *end = NULL;
        uint64_t got;

        if (*s < '0' || *s > '9')
                return -1;
        errno = 0;
        got = strtoull(s, &end, 10);
        if (errno || *end != ' ')
                return -1;
        end++;
        if (strcmp(end, "allow") != 0 && strcmp(end, "deny") != 0 && strcmp(end, "allow\r") != 0 &&
            strcmp(end, "deny\r") != 0)
                return -1;
        if (got < id && got > 0)
                return 2;
        if (got != id)
                return -1;
        return end[0] == 'a' ? 1 : 0;
}

/* Take one line out of gate_buf into line; false when there is none yet. */
static bool take_line(char line[GATE_LINE_MAX])
{
        char *nl = memchr(gate_buf, '\n', gate_len);
        size_t n;

        if (!nl)
                return false;
        n = (size_t) (nl - gate_buf);
        memcpy(line, gate_buf, n);
        line[n] = '\0';
        memmove(gate_buf, nl + 1, gate_len - n - 1);
        gate_len -= n + 1;
        return true;
}

/* Read until the answer to id, or the deadline.  Caller holds the lock. */
static enum egress_gate_answer await(uint64_t id, int64_t deadline)
{
        char line[GATE_LINE_MAX];

        for (;;) {
                ssize_t n;

                while (take_line(line)) {
                        int a = parse_answer(line, id);

                        if (a == 2)
                                continue; /* a question that had timed out */
                        if (a < 0) {
                                gate_dead = true;
                                return EGRESS_GATE_SILENT;
                        }
                        return a ? EGRESS_GATE_SAYS_ALLOW : EGRESS_GATE_SAYS_DENY;
                }
                if (gate_len == sizeof(gate_buf)) {
                        gate_dead = true; /* an overlong line */
                        return EGRESS_GATE_SILENT;
                }
                if (egress_wait(gate_fd, POLLIN, deadline) <= 0)
                        return EGRESS_GATE_SILENT; /* timed out: this question only */
                n = recv(gate_fd, gate_buf + gate_len, sizeof(gate_buf) - gate_len, 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (n <= 0) {
                        gate_dead = true;
                        return EGRESS_GATE_SILENT;
                }
                gate_len += (size_t) n;
        }
}

static enum egress_gate_answer ask_locked(const char *host, const char *port, int64_t deadline)
{
        char q[BENTO_HOST_MAX + 48];
        int n;

        if (gate_dead)
                return EGRESS_GATE_SILENT;
        n = snprintf(q, sizeof(q), "%" PRIu64 " %s %s\n", ++gate_next, host, port);
        if (n < 0 || (size_t) n >= sizeof(q))
                return EGRESS_GATE_SILENT;
        if (egress_write_all(gate_fd, q, (size_t) n, deadline) < 0) {
                /* a half-written question would shift every later one */
                gate_dead = true;
                return EGRESS_GATE_SILENT;
        }
        return await(gate_next, deadline);
}

enum egress_gate_answer egress_gate_ask(const char *host, const char *port)
{
        int64_t deadline = egress_now_ms() + gate_ms;
        struct timespec abs;
        enum egress_gate_answer a;

        if (gate_fd < 0)
                return EGRESS_GATE_SAYS_DENY;
        /* the wait for our turn counts against the same timeout */
        clock_gettime(CLOCK_REALTIME, &abs);
        abs.tv_sec += gate_ms / 1000;
        abs.tv_nsec += (long) (gate_ms % 1000) * 1000000L;
        if (abs.tv_nsec >= 1000000000L) {
                abs.tv_sec++;
                abs.tv_nsec -= 1000000000L;
        }
        if (pthread_mutex_timedlock(&gate_lock, &abs) != 0)
                return EGRESS_GATE_SILENT;
        a = ask_locked(host, port, deadline);
        pthread_mutex_unlock(&gate_lock);
        return a;
}
