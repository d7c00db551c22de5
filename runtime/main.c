/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-runtime: global options, then one verb.  Global options come before
 * the verb, in --opt value or --opt=value form, as podman and containerd
 * send them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "log.h"
#include "state.h"

static const struct {
        const char *name;
        rt_command_fn fn;
        const char *usage;
} commands[] = {
    {"create", cmd_create,
     "create [--bundle|-b DIR] [--pid-file FILE] [--console-socket PATH] [--no-pivot] "
     "[--no-new-keyring] [--preserve-fds N] ID"},
    {"start", cmd_start, "start ID"},
    {"state", cmd_state, "state ID"},
    {"kill", cmd_kill, "kill [--all|-a] [--signal|-s SIGNAL] ID [SIGNAL]"},
    {"delete", cmd_delete, "delete [--force|-f] ID"},
    {"run", cmd_run,
     "run [create options] [--detach|-d] [--keep] [--report FILE] [--exit-fd N] ID"},
    {"exec", cmd_exec,
     "exec [--process|-p FILE] [--detach|-d] [--pid-file FILE] [--console-socket PATH] "
     "[--tty|-t] [--preserve-fds N] [--cwd DIR] [--env|-e KEY=VALUE]... [--user|-u UID[:GID]] "
     "[--cap|-c CAP]... [--no-new-privs] ID [COMMAND [ARG...]]"},
    {"list", cmd_list, "list [--format|-f table|json] [--quiet|-q]"},
    {"spec", cmd_spec, "spec [--bundle|-b DIR] [--rootless]"},
    {"features", cmd_features, "features"},
    {"pause", cmd_pause, "pause ID"},
    {"resume", cmd_resume, "resume ID"},
    {"ps", cmd_ps, "ps [--format|-f table|json] ID"},
    {"update", cmd_update,
     "update [--resources|-r FILE|-] [--memory|-m N] [--memory-swap N] [--memory-reservation N] "
     "[--cpu-quota N] [--cpu-period N] [--cpu-share|--cpu-shares N] [--cpu-rt-period N] "
     "[--cpu-rt-runtime N] [--cpuset-cpus LIST] [--cpuset-mems LIST] [--pids-limit N] "
     "[--blkio-weight N] [--kernel-memory N] [--kernel-memory-tcp N] ID"},
};

enum {
        OPT_ROOT,
        OPT_LOG,
        OPT_LOG_FORMAT,
        OPT_LOG_LEVEL,
        OPT_DEBUG,
        OPT_SYSTEMD_CGROUP,
        OPT_ROOTLESS,
        OPT_VERSION,
        OPT_HELP,
};

static const struct rt_opt global_opts[] = {
    {"root", 0, true, OPT_ROOT},
    {"log", 0, true, OPT_LOG},
    {"log-format", 0, true, OPT_LOG_FORMAT},
    {"log-level", 0, true, OPT_LOG_LEVEL},
    {"debug", 0, false, OPT_DEBUG},
    {"systemd-cgroup", 0, false, OPT_SYSTEMD_CGROUP},
    {"rootless", 0, true, OPT_ROOTLESS},
    {"version", 'v', false, OPT_VERSION},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

void rt_usage(const char *verb, bool to_stderr)
{
        FILE *out = to_stderr ? stderr : stdout;

        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (!verb || !strcmp(verb, commands[i].name))
                        fprintf(out, "  bento-runtime [global options] %s\n", commands[i].usage);
}

static void print_help(void)
{
        printf("bento-runtime: an OCI runtime\n\nUsage:\n");
        rt_usage(NULL, false);
        printf("\nGlobal options (before the verb):\n"
               "  --root DIR           state directory (default /run/bento-runtime, or\n"
               "                       $XDG_RUNTIME_DIR/bento-runtime when not root and\n"
               "                       XDG_RUNTIME_DIR is an absolute path)\n"
               "  --log FILE           also write errors, warnings and debug messages to FILE\n"
               "  --log-format FORMAT  text (default) or json\n"
               "  --log-level LEVEL    error, warning (default), info or debug\n"
               "  --debug              the same as --log-level debug\n"
               "  --systemd-cgroup     use the systemd cgroup driver\n"
               "  --rootless BOOL      accepted for runc compatibility; rootless mode is\n"
               "                       detected from the effective uid\n"
               "  --version, -v        print the version\n"
               "  --help, -h           print this help\n"
               "\nSee bento-runtime(1).\n");
}

static void print_version(void)
{
        printf("bento-runtime version %s\ncommit: %s\nspec: %s\n", BENTO_VERSION, BENTO_COMMIT,
               BENTO_OCI_VERSION);
}

static int apply_global(struct rt_global *g, int id, const char *value, bool *ret_exit,
                        struct bento_err *err)
{
        bool ignored;

        switch (id) {
        case OPT_ROOT:
                g->root = value;
                return 0;
        case OPT_LOG:
                g->log_path = value;
                return 0;
        case OPT_LOG_FORMAT:
                if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
                        return bento_err_setx(err, EINVAL,
                                              "--log-format: expected text or json, "
                                              "got '%s'",
                                              value);
                g->json_log = !strcmp(value, "json");
                return 0;
        case OPT_LOG_LEVEL:
                if (rt_log_level_parse(value, &g->log_level) < 0)
                        return bento_err_setx(err, EINVAL,
                                              "--log-level: expected error, "
                                              "warning, info or debug, got '%s'",
                                              value);
                return 0;
        case OPT_DEBUG:
                g->log_level = RT_LOG_DEBUG;
                return 0;
        case OPT_SYSTEMD_CGROUP:
                g->systemd_cgroup = true;
                return 0;
        case OPT_ROOTLESS:
                return rt_args_parse_bool(strcmp(value, "auto") ? value : "true", "--rootless",
                                          &ignored, err);
        case OPT_VERSION:
                print_version();
                *ret_exit = true;
                return 0;
        default:
                print_help();
                *ret_exit = true;
                return 0;
        }
}

int main(int argc, char **argv)
{
        struct rt_global g = {.log_level = RT_LOG_WARNING};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};
        const char *value = NULL;
        bool done = false;
        int id, r;

        while ((r = rt_args_next(&a, global_opts, &id, &value, &err)) > 0) {
                r = apply_global(&g, id, value, &done, &err);
                if (r < 0 || done)
                        break;
        }
        if (r < 0)
                return rt_log_err(&err);
        if (done)
                return 0;
        if (rt_log_open(g.log_path, g.json_log ? RT_LOG_JSON : RT_LOG_TEXT, g.log_level, &err) < 0)
                return rt_log_err(&err);
        if (a.i >= argc) {
                print_help();
                return 1;
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (!strcmp(argv[a.i], commands[i].name)) {
                        r = commands[i].fn(&g, argc - a.i, argv + a.i);
                        rt_log_close();
                        return r;
                }
        rt_log_error("unknown command '%s' (see bento-runtime --help)", argv[a.i]);
        return 1;
}
