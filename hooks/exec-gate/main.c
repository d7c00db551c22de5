/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-exec-gate: command line.  The gate is the seccomp agent a bento
 * bundle names in linux.seccomp.listenerPath for `exec: none`; see
 * docs/exec-gate.md and gate.h.  The options are parsed with the parser
 * every bento program shares (bundle/argv.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "exec-gate.h"

#define PROG "bento-exec-gate"

static void print_help(void)
{
        printf(
            "usage: " PROG " --socket PATH [--ready-fd N] [--timeout SECONDS] [--record FILE]\n"
            "       " PROG "        [--verbose]\n"
            "       " PROG " --socket PATH [--timeout SECONDS] [--verbose] -- COMMAND "
            "[ARG...]\n"
            "\n"
            "The seccomp agent of a bento bundle's exec block (exec: none or none-strict).\n"
            "The bundle's filter sends every execve and execveat to linux.seccomp.listenerPath;\n"
            "the gate listens there, takes the one connection the runtime makes while it\n"
            "creates the container, and then lets exactly one exec through: the first one\n"
            "made by the container's init, which is the runtime starting the target.  Every\n"
            "later execve and execveat, by any process of the container, fails with EPERM.\n"
            "The gate exits once no process of the container is left.  If the gate is not\n"
            "listening the runtime refuses to create the container; if it dies, every exec\n"
            "in the container fails with ENOSYS.\n"
            "\n"
            "Daemon mode (no COMMAND): serve one container, then exit 0 (1 if no runtime\n"
            "connected in time or its message was refused; 128+N when stopped by signal N).\n"
            "Start it before the runtime's create or run.\n"
            "\n"
            "Wrapper mode (-- COMMAND): listen, run COMMAND (a runtime's `run`, for any OCI\n"
            "runtime), serve, and exit with COMMAND's status once both COMMAND and the\n"
            "container are gone (125 when the gate itself failed, 126/127 when COMMAND\n"
            "cannot be run).  Signals sent to the gate are passed on to COMMAND.\n"
            "\n"
            "  -s, --socket PATH      where to listen: the bundle's linux.seccomp.listenerPath\n"
            "                         (must not exist yet; removed once the runtime connected)\n"
            "      --ready-fd N       write one byte to fd N and close it once listening\n"
            "  -t, --timeout SECONDS  how long to wait for the runtime to connect, and then\n"
            "                         for its message (default %d); bento-runtime sends the\n"
            "                         message at `start`, so create and start must fall in it\n"
            "      --record FILE      record mode: let every exec through and write what each\n"
            "                         one asked to run (path and argv, read from the caller's\n"
            "                         memory) to FILE, which must not exist yet; a last\n"
            "                         {\"end\":true} line says the record is whole\n"
            "  -v, --verbose          log every decision to stderr\n"
            "  -h, --help             this text\n"
            "  -V, --version          the version\n"
            "\n"
            "Example, for any runtime:\n"
            "  bento translate app.manifest.yaml -o DIR\n"
            "  " PROG " --socket DIR/exec-gate.sock -- crun run -b DIR ID\n",
            GATE_TIMEOUT_DEFAULT);
}

__attribute__((format(printf, 2, 3))) static int usage_error(const struct gate_opts *o,
                                                             const char *fmt, ...)
{
        va_list ap;

        fputs(PROG ": ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("\nTry '" PROG " --help'.\n", stderr);
        return o->command ? GATE_EXIT_WRAPPER_FAILED : GATE_EXIT_USAGE;
}

static bool parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *ret)
{
        char *end = NULL;
        unsigned long v;

        if (*s < '0' || *s > '9')
                return false;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return false;
        *ret = v;
        return true;
}

enum { OPT_READY_FD = 0x100, OPT_RECORD };

static const struct bento_opt options[] = {
    {"socket", 's', BENTO_OPT_VALUE, 's', "PATH", NULL},
    {"ready-fd", 0, BENTO_OPT_VALUE, OPT_READY_FD, "N", NULL},
    {"timeout", 't', BENTO_OPT_VALUE, 't', "SECONDS", NULL},
    {"record", 0, BENTO_OPT_VALUE, OPT_RECORD, "FILE", NULL},
    {"verbose", 'v', BENTO_OPT_FLAG, 'v', NULL, NULL},
    {"help", 'h', BENTO_OPT_FLAG, 'h', NULL, NULL},
    {"version", 'V', BENTO_OPT_FLAG, 'V', NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

/* Returns -1 to go on, or an exit status. */
static int parse_option(int c, const char *value, struct gate_opts *o)
{
        unsigned long v = 0;

        switch (c) {
        case 's':
                o->socket_path = value;
                return -1;
        case OPT_READY_FD:
                if (!parse_uint(value, 3, 65535, &v) || fcntl((int) v, F_GETFD) < 0)
                        return usage_error(o, "--ready-fd: '%s' is not an open fd above 2", value);
                o->ready_fd = (int) v;
                return -1;
        case 't':
                if (!parse_uint(value, 1, GATE_TIMEOUT_MAX, &v))
                        return usage_error(o,
                                           "--timeout: '%s' is not a number of seconds "
                                           "between 1 and 86400",
                                           value);
                o->timeout_s = (unsigned int) v;
                return -1;
        case OPT_RECORD:
                if (value[0] == '\0')
                        return usage_error(o, "--record: empty path");
                o->record_path = value;
                return -1;
        case 'v':
                o->verbose = true;
                return -1;
        case 'h':
                print_help();
                return 0;
        case 'V':
                printf(PROG " %s (commit %s)\n", BENTO_VERSION, BENTO_COMMIT);
                return 0;
        default:
                return usage_error(o, "bad option");
        }
}

/* Where the options end (bundle/argv.h: at the first operand or after
 * "--"), found before they are checked: in wrapper mode the wrapped
 * command decides the exit status of usage errors. */
static char **wrapped_command(int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err err = {0};

        while (bento_argv_next(&a, options, &h, &err) != 0)
                ;
        return a.i < argc ? argv + a.i : NULL;
}

int main(int argc, char **argv)
{
        struct gate_opts o = {.ready_fd = -1, .timeout_s = GATE_TIMEOUT_DEFAULT, .stop_fd = -1};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int r;

        o.command = wrapped_command(argc, argv);
        while ((r = bento_argv_next(&a, options, &h, &err)) > 0) {
                r = parse_option(h.id, h.value, &o);
                if (r >= 0)
                        return r;
        }
        if (r < 0)
                return usage_error(&o, "%s", err.msg);
        if (!o.socket_path)
                return usage_error(&o, "--socket PATH is required");
        if (o.socket_path[0] == '\0')
                return usage_error(&o, "--socket: empty path");
        /* the readiness fd is not for the command */
        if (o.ready_fd >= 0 && fcntl(o.ready_fd, F_SETFD, FD_CLOEXEC) < 0)
                return usage_error(&o, "--ready-fd: %s", strerror(errno));
        return gate_run(&o);
}
