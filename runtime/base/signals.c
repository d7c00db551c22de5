/* SPDX-License-Identifier: Apache-2.0 */
/* Signal name parsing for `kill` (see signals.h). */
#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
        const char *name;
        int number;
} signal_names[] = {
    {"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},     {"ILL", SIGILL},
    {"TRAP", SIGTRAP},     {"ABRT", SIGABRT}, {"IOT", SIGIOT},       {"BUS", SIGBUS},
    {"FPE", SIGFPE},       {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2},     {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM},
    {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},
    {"XCPU", SIGXCPU},     {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH},   {"IO", SIGIO},     {"POLL", SIGPOLL},     {"PWR", SIGPWR},
    {"SYS", SIGSYS},
};

static int parse_number(const char *s, int *ret)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || !end || *end || end == s || v < 1 || v > SIGRTMAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

/* RTMIN, RTMIN+N, RTMAX, RTMAX-N */
static int parse_realtime(const char *s, int *ret)
{
        bool min = !strncasecmp(s, "RTMIN", 5);
        const char *rest = s + 5;
        int off = 0;

        if (!min && strncasecmp(s, "RTMAX", 5) != 0)
                return -EINVAL;
        /* RTMIN counts up (RTMIN+N), RTMAX counts down (RTMAX-N) */
        if (*rest) {
                if (*rest != (min ? '+' : '-') || parse_number(rest + 1, &off) < 0)
                        return -EINVAL;
        }
        off = min ? SIGRTMIN + off : SIGRTMAX - off;
        if (off < SIGRTMIN || off > SIGRTMAX)
                return -EINVAL;
        *ret = off;
        return 0;
}

int rt_signal_parse(const char *s, int *ret, struct bento_err *err)
{
        const char *name = s;

        if (s[0] >= '0' && s[0] <= '9') {
                if (parse_number(s, ret) == 0)
                        return 0;
                return bento_err_setx(err, EINVAL, "invalid signal number '%s'", s);
        }
        if (!strncasecmp(name, "SIG", 3))
                name += 3;
        for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
                if (!strcasecmp(name, signal_names[i].name)) {
                        *ret = signal_names[i].number;
                        return 0;
                }
        if (parse_realtime(name, ret) == 0)
                return 0;
        return bento_err_setx(err, EINVAL, "unknown signal '%s'", s);
}
