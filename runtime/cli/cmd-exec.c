/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec: options in, rt_exec() (container/exec.h), then either return at once
 * (--detach) or stay in the foreground until the process ends and exit
 * with its status, forwarding signals and, for a terminal without
 * --console-socket, proxying it (foreground.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "container/exec.h"
#include "foreground.h"
#include "base/log.h"

enum {
        OPT_PROCESS,
        OPT_DETACH,
        OPT_PID_FILE,
        OPT_CONSOLE_SOCKET,
        OPT_TTY,
        OPT_PRESERVE_FDS,
        OPT_CWD,
        OPT_ENV,
        OPT_USER,
        OPT_CAP,
        OPT_NO_NEW_PRIVS,
};

static const struct bento_opt exec_opts[] = {
    {"process", 'p', BENTO_OPT_VALUE, OPT_PROCESS, "FILE",
     "the whole process, as process in config.json"},
    {"detach", 'd', BENTO_OPT_FLAG, OPT_DETACH, NULL, "return once the process runs"},
    {"pid-file", 0, BENTO_OPT_VALUE, OPT_PID_FILE, "FILE", "write the process's pid to FILE"},
    {"console-socket", 0, BENTO_OPT_VALUE, OPT_CONSOLE_SOCKET, "PATH",
     "send the terminal's master to this unix socket"},
    {"tty", 't', BENTO_OPT_FLAG, OPT_TTY, NULL, "give the process a terminal"},
    {"preserve-fds", 0, BENTO_OPT_VALUE, OPT_PRESERVE_FDS, "N", "pass descriptors 3 to 3+N-1"},
    {"cwd", 0, BENTO_OPT_VALUE, OPT_CWD, "DIR", "working directory (absolute)"},
    {"env", 'e', BENTO_OPT_VALUE, OPT_ENV, "KEY=VALUE", "set a variable (repeatable)"},
    {"user", 'u', BENTO_OPT_VALUE, OPT_USER, "UID[:GID]", "run as this user (numbers)"},
    {"cap", 'c', BENTO_OPT_VALUE, OPT_CAP, "CAP", "add a capability (repeatable)"},
    {"no-new-privs", 0, BENTO_OPT_FLAG, OPT_NO_NEW_PRIVS, NULL, "set no_new_privs"},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_id(const char *s, uint32_t *ret)
{
        char *end = NULL;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || (*end && *end != ':') || v > UINT32_MAX || s[0] == '-')
                return -EINVAL;
        *ret = (uint32_t) v;
        return (int) (end - s);
}

/* UID[:GID], numbers only: the container's /etc/passwd is not ours to read. */
static int parse_user(const char *s, struct rt_exec_opts *o, struct bento_err *err)
{
        int n = parse_id(s, &o->uid);

        if (n >= 0 && s[n] == ':') {
                int m = parse_id(s + n + 1, &o->gid);
                if (m < 0 || s[n + 1 + m] != '\0')
                        n = -EINVAL;
                o->has_gid = n >= 0;
        }
        if (n < 0)
                return bento_err_setx(err, EINVAL, "--user '%s': expected UID[:GID] (numbers)", s);
        o->has_user = true;
        return 0;
}

/* Options that may repeat collect into vectors sized for the worst case. */
static int apply_opt(struct rt_exec_opts *o, int id, const char *value, struct bento_err *err)
{
        switch (id) {
        case OPT_PROCESS:
                o->process_file = value;
                return 0;
        case OPT_DETACH:
                o->detach = true;
                return 0;
        case OPT_PID_FILE:
                o->pid_file = value;
                return 0;
        case OPT_CONSOLE_SOCKET:
                o->console_socket = value;
                return 0;
        case OPT_TTY:
                o->tty = true;
                return 0;
        case OPT_PRESERVE_FDS:
                return rt_args_parse_uint(value, "--preserve-fds", &o->preserve_fds, err);
        case OPT_CWD:
                if (value[0] != '/')
                        return bento_err_setx(err, EINVAL, "--cwd '%s': must be absolute", value);
                o->cwd = value;
                return 0;
        case OPT_ENV:
                o->env[o->n_env++] = (char *) value;
                return 0;
        case OPT_USER:
                return parse_user(value, o, err);
        case OPT_CAP:
                o->caps[o->n_caps++] = (char *) value;
                return 0;
        default:
                o->no_new_privs = true;
                return 0;
        }
}

/* The id, then the command unless --process gives the whole process. */
static int check_positional(struct rt_exec_opts *o, struct bento_argv *a, struct bento_err *err)
{
        if (a->i >= a->argc)
                return bento_err_setx(err, EINVAL, "exec: expected a container id");
        o->id = a->argv[a->i++];
        o->args = a->argv + a->i;
        o->n_args = (size_t) (a->argc - a->i);
        if (!o->process_file && o->n_args == 0)
                return bento_err_setx(err, EINVAL, "exec: expected a command (or --process FILE)");
        if (o->process_file &&
            (o->n_args || o->cwd || o->n_env || o->has_user || o->n_caps || o->no_new_privs))
                return bento_err_setx(err, EINVAL,
                                      "exec: --process describes the whole process; a command, "
                                      "--cwd, --env, --user, --cap and --no-new-privs go into "
                                      "that file instead");
        for (int fd = 3; fd < 3 + o->preserve_fds; fd++)
                if (fcntl(fd, F_GETFD) < 0)
                        return bento_err_setx(err, EBADF, "--preserve-fds %d: fd %d is not open",
                                              o->preserve_fds, fd);
        return 0;
}

static int parse(struct rt_exec_opts *o, int argc, char **argv, struct bento_err *err)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        const char *value = NULL;
        int id, r;

        o->env = calloc((size_t) argc, sizeof(char *));
        o->caps = calloc((size_t) argc, sizeof(char *));
        if (!o->env || !o->caps)
                return bento_err_set(err, ENOMEM, "exec");
        while ((r = rt_args_next(&a, exec_opts, &id, &value, err)) > 0) {
                r = apply_opt(o, id, value, err);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return check_positional(o, &a, err);
}

static int run_exec(const struct rt_global *g, const struct rt_exec_opts *o,
                    struct rt_exec_result *res, struct bento_err *err)
{
        struct rt_store store = {.root = NULL, .root_fd = -1};
        int r;

        r = rt_store_open(g->root, &store, err);
        if (r >= 0)
                r = rt_exec(&store, o, res, err);
        rt_store_close(&store);
        return r;
}

int cmd_exec(const struct rt_global *g, int argc, char **argv)
{
        struct rt_exec_opts o = {.preserve_fds = 0};
        struct rt_exec_result res = {.pid = 0, .pidfd = -1, .console_fd = -1, .fail_status = 1};
        struct bento_err err = {0};
        sigset_t old;
        int sigfd = -1;
        int code;

        if (parse(&o, argc, argv, &err) < 0) {
                code = rt_log_err(&err);
                rt_usage("exec", true);
                free(o.env);
                free(o.caps);
                return code;
        }
        /* blocked before the process exists, so no signal is missed */
        code = o.detach ? 0 : (sigfd = rt_fg_block_signals(&old, &err));
        if (code >= 0)
                code = run_exec(g, &o, &res, &err);
        if (code < 0) {
                code = rt_log_err(&err);
                code = res.fail_status > 1 ? res.fail_status : code;
        } else if (o.detach) {
                code = 0;
        } else {
                code = rt_fg_wait(res.pid, res.pidfd, sigfd, res.console_fd);
        }
        if (res.pidfd >= 0)
                close(res.pidfd);
        if (res.console_fd >= 0)
                close(res.console_fd);
        if (sigfd >= 0) {
                close(sigfd);
                sigprocmask(SIG_SETMASK, &old, NULL);
        }
        free(o.env);
        free(o.caps);
        return code;
}
