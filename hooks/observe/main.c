/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: command line.  The observer of `bento profile` runs as
 * the container's process, starts the target under ptrace and writes what
 * it did to --report-fd (docs/hooks/bento-observe.md; observe.h).  The
 * options are parsed with the parser every bento program shares
 * (bundle/argv.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "observe.h"

#define PROG "bento-observe"

static void print_help(void)
{
        printf("usage: " PROG
               " --report-fd N [--ptrace-only] [--no-result-under DIR]... [--shim LIB]\n"
               "                     -- COMMAND [ARG...]\n"
               "\n"
               "The observer of `bento profile`.  Runs COMMAND under ptrace with a seccomp\n"
               "filter that stops only the system calls naming files, execs and AF_UNIX\n"
               "sockets (notifying the observer's listener, or as ptrace stops where it\n"
               "cannot have one), and writes one line per access to descriptor N: the path\n"
               "read out of the target's memory (never opened), made absolute against the\n"
               "target's cwd or dirfd, and the call's result.  Every thread and child is\n"
               "followed; the target's own ptrace() fails with EPERM.  The last line says\n"
               "how the target ended; the observer exits with its status (128+N for signal\n"
               "N), 125 when it could not start it.\n"
               "\n"
               "  --report-fd N   where the report goes (an open descriptor above 2;\n"
               "                  COMMAND does not inherit it)\n"
               "  --ptrace-only   ptrace stops (SECCOMP_RET_TRACE) for the calls, not\n"
               "                  notifications to a listener (SECCOMP_RET_USER_NOTIF);\n"
               "                  the observer falls back to them when the kernel refuses\n"
               "                  it a listener\n"
               "  --no-result-under DIR\n"
               "                  reads and probes of a clean absolute path at or below\n"
               "                  DIR are reported as soon as they are seen, with the\n"
               "                  result 'unwatched', saving the stop at the call's exit\n"
               "                  (bento passes the system trees its proposal skips)\n"
               "  --shim LIB      preload LIB (bento-observe-shim.so, as the target sees\n"
               "                  it) into the target's programs: it records those reads\n"
               "                  and probes itself, in a ring shared with the observer,\n"
               "                  and they run without a stop\n"
               "  -h, --help      this text\n"
               "  -V, --version   the version\n");
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
        va_list ap;

        fputs(PROG ": ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("\nTry '" PROG " --help'.\n", stderr);
        return OBS_EXIT_USAGE;
}

static bool parse_fd(const char *s, int *ret)
{
        char *end = NULL;
        long v;

        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || *end || v < 3 || v > 65535 || fcntl((int) v, F_GETFD) < 0)
                return false;
        *ret = (int) v;
        return true;
}

enum { OPT_REPORT_FD = 0x100, OPT_NO_RESULT, OPT_PTRACE_ONLY, OPT_SHIM };

static const struct bento_opt options[] = {
    {"report-fd", 0, BENTO_OPT_VALUE, OPT_REPORT_FD, "N", NULL},
    {"no-result-under", 0, BENTO_OPT_VALUE, OPT_NO_RESULT, "DIR", NULL},
    {"ptrace-only", 0, BENTO_OPT_FLAG, OPT_PTRACE_ONLY, NULL, NULL},
    {"shim", 0, BENTO_OPT_VALUE, OPT_SHIM, "LIB", NULL},
    {"help", 'h', BENTO_OPT_FLAG, 'h', NULL, NULL},
    {"version", 'V', BENTO_OPT_FLAG, 'V', NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

/* Returns -1 to go on, or an exit status. */
static int parse_option(int c, const char *value, struct observe_opts *o)
{
        switch (c) {
        case OPT_REPORT_FD:
                if (!parse_fd(value, &o->report_fd))
                        return usage_error("--report-fd: '%s' is not an open fd above 2", value);
                return -1;
        case OPT_NO_RESULT:
                if (value[0] != '/' || !obs_path_clean(value))
                        return usage_error("--no-result-under: '%s' is not a clean absolute path",
                                           value);
                if (o->n_no_result == OBS_NO_RESULT_MAX)
                        return usage_error("--no-result-under: more than %d trees",
                                           OBS_NO_RESULT_MAX);
                o->no_result[o->n_no_result++] = value;
                return -1;
        case OPT_PTRACE_ONLY:
                o->ptrace_only = true;
                return -1;
        case OPT_SHIM:
                /* the dynamic loader takes a list: one absolute name only */
                if (value[0] != '/' || strpbrk(value, ": \t\n"))
                        return usage_error("--shim: '%s' is not one absolute path", value);
                o->shim = value;
                return -1;
        case 'h':
                print_help();
                return 0;
        case 'V':
                printf(PROG " %s (commit %s)\n", BENTO_VERSION, BENTO_COMMIT);
                return 0;
        default:
                return usage_error("bad option");
        }
}

int main(int argc, char **argv)
{
        struct observe_opts o = {.report_fd = -1};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int r;

        while ((r = bento_argv_next(&a, options, &h, &err)) > 0) {
                r = parse_option(h.id, h.value, &o);
                if (r >= 0)
                        return r;
        }
        if (r < 0)
                return usage_error("%s", err.msg);
        if (o.report_fd < 0)
                return usage_error("--report-fd N is required");
        if (a.i >= argc)
                return usage_error("no command: -- COMMAND [ARG...]");
        o.command = argv + a.i;
        /* the target never inherits the report (spawn.c closes it too) */
        if (fcntl(o.report_fd, F_SETFD, FD_CLOEXEC) < 0)
                return usage_error("--report-fd: %s", strerror(errno));
        return observe_run(&o);
}
