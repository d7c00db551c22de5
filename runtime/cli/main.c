/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-runtime: global options, then one verb.  Global options come before
 * the verb, in --opt value or --opt=value form, as podman and containerd
 * send them.  The help texts are made from the tables here and from each
 * verb's option table (args.h), so they list what is really parsed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "features.h"
#include "base/log.h"
#include "base/rootless.h"
#include "state.h"

/* The verbs.  `bare`: the verb parses no options of its own, so main
 * answers `VERB --help` for it. */
static const struct {
        const char *name;
        rt_command_fn fn;
        const char *usage;
        const char *summary;
        bool bare;
} commands[] = {
    {"create", cmd_create,
     "create [--bundle|-b DIR] [--config|-f FILE] [--pid-file FILE] [--console-socket PATH] "
     "[--no-pivot] [--no-new-keyring] [--no-subreaper] [--preserve-fds N] ID",
     "create a container from a bundle; its process waits for start", false},
    {"start", cmd_start, "start ID", "run the process of a created container", true},
    {"state", cmd_state, "state ID", "print the state of a container as JSON", true},
    {"kill", cmd_kill, "kill [--all|-a] [--signal|-s SIGNAL] ID [SIGNAL]",
     "send a signal (default SIGTERM) to the container's init, or with --all to all its "
     "processes",
     false},
    {"delete", cmd_delete, "delete [--force|-f] [--regex|-r] ID",
     "remove a stopped container (with --force a running one, which is killed first)", false},
    {"run", cmd_run,
     "run [create options] [--detach|-d] [--keep] [--report FILE] [--exit-fd N] [--wait-fd N] ID",
     "create and start a container, and by default wait for it and delete it", false},
    {"exec", cmd_exec,
     "exec [--process|-p FILE] [--detach|-d] [--pid-file FILE] [--console-socket PATH] "
     "[--tty|-t] [--preserve-fds N] [--cwd DIR] [--env|-e KEY=VALUE]... [--user|-u UID[:GID]] "
     "[--cap|-c CAP]... [--no-new-privs] ID [COMMAND [ARG...]]",
     "run another process in a running container", false},
    {"list", cmd_list, "list [--format|-f table|json] [--quiet|-q]",
     "list the containers in the state directory", false},
    {"spec", cmd_spec, "spec [--bundle|-b DIR] [--rootless]", "write a starting config.json",
     false},
    {"features", cmd_features, "features",
     "print what this build implements (runtime-spec features document)", false},
    {"pause", cmd_pause, "pause ID", "freeze every process of a container", true},
    {"resume", cmd_resume, "resume ID", "thaw a paused container", true},
    {"ps", cmd_ps, "ps [--format|-f table|json] ID", "list the processes of a container", false},
    {"update", cmd_update,
     "update [--resources|-r FILE|-] [--memory|-m N] [--memory-swap N] [--memory-reservation N] "
     "[--cpu-quota N] [--cpu-period N] [--cpu-share|--cpu-shares N] [--cpu-rt-period N] "
     "[--cpu-rt-runtime N] [--cpuset-cpus LIST] [--cpuset-mems LIST] [--pids-limit N] "
     "[--blkio-weight N] [--kernel-memory N] [--kernel-memory-tcp N] ID",
     "change the resource limits of a running container", false},
    {"help", cmd_help, "help [VERB]", "print this help, or a verb's", false},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

enum {
        OPT_ROOT,
        OPT_LOG,
        OPT_LOG_FORMAT,
        OPT_LOG_LEVEL,
        OPT_DEBUG,
        OPT_SYSTEMD_CGROUP,
        OPT_CGROUP_MANAGER,
        OPT_ROOTLESS,
        OPT_SECCOMP_CACHE,
        OPT_VERSION,
        OPT_HELP,
};

static const struct bento_opt global_opts[] = {
    {"root", 0, BENTO_OPT_VALUE, OPT_ROOT, "DIR",
     "state directory (default /run/bento-runtime, or $XDG_RUNTIME_DIR/bento-runtime when "
     "not root on the host, which root of a user namespace is not)"},
    {"log", 0, BENTO_OPT_VALUE, OPT_LOG, "FILE",
     "also write errors, warnings and debug messages to FILE"},
    {"log-format", 0, BENTO_OPT_VALUE, OPT_LOG_FORMAT, "FORMAT", "text (default) or json"},
    {"log-level", 0, BENTO_OPT_VALUE, OPT_LOG_LEVEL, "LEVEL",
     "error, warning (default), info or debug"},
    {"debug", 0, BENTO_OPT_FLAG, OPT_DEBUG, NULL, "the same as --log-level debug"},
    {"systemd-cgroup", 0, BENTO_OPT_FLAG, OPT_SYSTEMD_CGROUP, NULL,
     "the same as --cgroup-manager systemd"},
    {"cgroup-manager", 0, BENTO_OPT_VALUE, OPT_CGROUP_MANAGER, "MANAGER",
     "cgroupfs (default), systemd (a transient scope) or disabled (no cgroup at all; "
     "linux.resources is then not enforced, with a warning)"},
    {"rootless", 0, BENTO_OPT_VALUE, OPT_ROOTLESS, "BOOL",
     "true, false or auto (default): whether a cgroup that cannot be made is forgiven when "
     "no limit needs it; auto: when not root in the initial user namespace, as runc"},
    {"seccomp-cache", 0, BENTO_OPT_VALUE, OPT_SECCOMP_CACHE, "DIR",
     "where compiled seccomp programs are kept between containers (default .cache/seccomp "
     "in the default state root, whatever --root says; absolute; used only when owned by this "
     "user and writable by nobody else)"},
    {"version", 'v', BENTO_OPT_FLAG, OPT_VERSION, NULL, "print the version and the feature line"},
    {"help", 'h', BENTO_OPT_FLAG, OPT_HELP, NULL, "print this help"},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

void rt_usage(const char *verb, bool to_stderr)
{
        FILE *out = to_stderr ? stderr : stdout;

        for (size_t i = 0; i < N_COMMANDS; i++)
                if (!verb || !strcmp(verb, commands[i].name))
                        fprintf(out, "  bento-runtime [global options] %s\n", commands[i].usage);
}

/* "--name, -n VALUE" for the option list. */
static void option_head(const struct bento_opt *o, char *buf, size_t size)
{
        int n = snprintf(buf, size, "--%s", o->name);

        if (o->short_name && n >= 0 && (size_t) n < size)
                n += snprintf(buf + n, size - (size_t) n, ", -%c", o->short_name);
        if (o->metavar && n >= 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, " %s", o->metavar);
}

/* text from column `col` (already reached), wrapped at 79 columns with
 * continuation lines indented to col */
static void print_wrapped(const char *text, int col)
{
        int at = col;

        while (*text) {
                size_t word = strcspn(text, " ");

                if (at > col && at + 1 + (int) word > 79) {
                        printf("\n%*s", col, "");
                        at = col;
                } else if (at > col) {
                        putchar(' ');
                        at++;
                }
                printf("%.*s", (int) word, text);
                at += (int) word;
                text += word;
                text += strspn(text, " ");
        }
        putchar('\n');
}

static void print_options(const struct bento_opt *opts)
{
        for (; opts && opts->name; opts++) {
                char head[64];

                option_head(opts, head, sizeof(head));
                printf("  %-26s ", head);
                print_wrapped(opts->help ? opts->help : "", 29);
        }
}

void rt_verb_help(const char *verb, const struct bento_opt *opts)
{
        for (size_t i = 0; i < N_COMMANDS; i++) {
                if (strcmp(verb, commands[i].name) != 0)
                        continue;
                printf("Usage:\n  bento-runtime [global options] ");
                print_wrapped(commands[i].usage, 33);
                printf("\n");
                print_wrapped(commands[i].summary, 0);
                if (opts && opts->name) {
                        printf("\nOptions:\n");
                        print_options(opts);
                }
                printf("\nSee bento-runtime(1).\n");
                return;
        }
}

static void print_help(void)
{
        printf("bento-runtime: an OCI runtime\n\nUsage:\n"
               "  bento-runtime [global options] VERB [verb options] [arguments]\n"
               "\nVerbs:\n");
        for (size_t i = 0; i < N_COMMANDS; i++) {
                printf("  %-10s ", commands[i].name);
                print_wrapped(commands[i].summary, 13);
        }
        printf("\nGlobal options (before the verb):\n");
        print_options(global_opts);
        printf("\n`bento-runtime VERB --help` prints a verb's options.  See bento-runtime(1).\n");
}

int cmd_help(const struct rt_global *g, int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};

        if (rt_args_none(&a, &err) < 0)
                return rt_log_err(&err);
        if (a.i == argc) {
                print_help();
                return 0;
        }
        for (size_t i = 0; argc - a.i == 1 && i < N_COMMANDS; i++)
                if (!strcmp(argv[a.i], commands[i].name)) {
                        /* a verb with options prints them itself */
                        char *args[] = {argv[a.i], (char *) "--help", NULL};
                        return commands[i].bare ? (rt_verb_help(argv[a.i], NULL), 0)
                                                : commands[i].fn(g, 2, args);
                }
        rt_log_error("help: expected at most one verb name");
        return 1;
}

/* The last line lists the features this build has (features.h), the way
 * crun prints them: tools look for "+SECCOMP" and the like. */
static void print_version(void)
{
        printf("bento-runtime version %s\ncommit: %s\nspec: %s\n", BENTO_VERSION, BENTO_COMMIT,
               BENTO_OCI_VERSION);
        rt_features_print_tags(stdout);
        printf("\n");
}

/* crun's spelling; --systemd-cgroup is runc's.  The last one given wins. */
static int set_cgroup_manager(struct rt_global *g, const char *value, struct bento_err *err)
{
        if (strcmp(value, "cgroupfs") != 0 && strcmp(value, "systemd") != 0 &&
            strcmp(value, "disabled") != 0)
                return bento_err_setx(err, EINVAL,
                                      "--cgroup-manager: expected cgroupfs, systemd or "
                                      "disabled, got '%s'",
                                      value);
        g->systemd_cgroup = !strcmp(value, "systemd");
        g->no_cgroup = !strcmp(value, "disabled");
        return 0;
}

static int apply_global(struct rt_global *g, int id, const char *value, bool *ret_exit,
                        struct bento_err *err)
{
        bool on;

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
                return set_cgroup_manager(g, "systemd", err);
        case OPT_CGROUP_MANAGER:
                return set_cgroup_manager(g, value, err);
        case OPT_ROOTLESS:
                if (!strcmp(value, "auto")) {
                        g->rootless = RT_ROOTLESS_AUTO;
                        return 0;
                }
                if (rt_args_parse_bool(value, "--rootless", &on, err) < 0)
                        return bento_err_prefix(err, "(or auto)");
                g->rootless = on ? RT_ROOTLESS_TRUE : RT_ROOTLESS_FALSE;
                return 0;
        case OPT_SECCOMP_CACHE:
                if (value[0] != '/')
                        return bento_err_setx(err, EINVAL,
                                              "--seccomp-cache: expected an absolute path, "
                                              "got '%s'",
                                              value);
                g->seccomp_cache = value;
                return 0;
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
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
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
        for (size_t i = 0; i < N_COMMANDS; i++)
                if (!strcmp(argv[a.i], commands[i].name)) {
                        if (commands[i].bare && a.i + 1 < argc &&
                            (!strcmp(argv[a.i + 1], "--help") || !strcmp(argv[a.i + 1], "-h"))) {
                                rt_verb_help(commands[i].name, NULL);
                                return 0;
                        }
                        r = commands[i].fn(&g, argc - a.i, argv + a.i);
                        rt_log_close();
                        return r;
                }
        rt_log_error("unknown command '%s' (see bento-runtime --help)", argv[a.i]);
        return 1;
}
