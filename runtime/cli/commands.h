/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verbs of bento-runtime.  Each cmd_* parses its own options from argv
 * (argv[0] is the verb) and returns the process exit status; errors are
 * printed through base/log.h.
 */
#ifndef RT_COMMANDS_H
#define RT_COMMANDS_H

#include <stdbool.h>

struct rt_global {
        const char *root;     /* --root, NULL for the default */
        const char *log_path; /* --log */
        bool json_log;
        int log_level;             /* enum rt_log_level */
        bool systemd_cgroup;       /* --systemd-cgroup, --cgroup-manager systemd */
        bool no_cgroup;            /* --cgroup-manager disabled */
        int rootless;              /* --rootless: enum rt_rootless_mode */
        const char *seccomp_cache; /* --seccomp-cache, NULL for the default */
};

typedef int (*rt_command_fn)(const struct rt_global *g, int argc, char **argv);

int cmd_create(const struct rt_global *g, int argc, char **argv);
int cmd_start(const struct rt_global *g, int argc, char **argv);
int cmd_state(const struct rt_global *g, int argc, char **argv);
int cmd_kill(const struct rt_global *g, int argc, char **argv);
int cmd_delete(const struct rt_global *g, int argc, char **argv);
int cmd_run(const struct rt_global *g, int argc, char **argv);
int cmd_exec(const struct rt_global *g, int argc, char **argv);
int cmd_list(const struct rt_global *g, int argc, char **argv);
int cmd_spec(const struct rt_global *g, int argc, char **argv);
int cmd_features(const struct rt_global *g, int argc, char **argv);
int cmd_pause(const struct rt_global *g, int argc, char **argv);
int cmd_resume(const struct rt_global *g, int argc, char **argv);
int cmd_ps(const struct rt_global *g, int argc, char **argv);
int cmd_update(const struct rt_global *g, int argc, char **argv);
int cmd_help(const struct rt_global *g, int argc, char **argv);

/* Print a verb's usage line (used by --help and by usage errors). */
void rt_usage(const char *verb, bool to_stderr);

struct bento_opt;

/* `VERB --help`: the usage line, what the verb does, and its options (opts,
 * the verb's parse table; NULL or empty for none) on stdout. */
void rt_verb_help(const char *verb, const struct bento_opt *opts);

#endif
