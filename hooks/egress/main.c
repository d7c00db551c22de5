/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-egress: the per-host egress filter as an OCI hook (docs/egress.md).
 * main() parses the command line and the container state, makes the
 * listening socket inside the container's network namespace, and hands
 * over to the daemon; it is the only place that prints or exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "daemon.h"
#include "fileio.h"
#include "gate.h"
#include "hookstate.h"
#include "listener.h"
#include "options.h"
#include "report.h"
#include "request.h"
#include "resolve.h"

#define EXIT_USAGE 2

/* The configuration is large (the rule table): static, not on the stack. */
static struct egress_config config;

static int fail(const struct bento_err *err)
{
        fprintf(stderr, "bento-egress: %s\n", err->msg);
        return 1;
}

static int print_rules(const struct egress_config *cfg)
{
        char target[EGRESS_HOST_MAX + 16];

        for (size_t i = 0; i < cfg->n_rules; i++) {
                egress_format_target(cfg->rules[i].host, cfg->rules[i].port, target,
                                     sizeof(target));
                printf("%s\n", target);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

/* The report file: --report, or --report-dir/<id>.jsonl with an id that is
 * safe as a file name. */
static int open_report(const struct egress_config *cfg, const char *id, struct bento_err *err)
{
        char path[4096];

        if (cfg->report)
                return egress_report_open(cfg->report, err);
        if (!cfg->report_dir)
                return -1;
        if (!id || !id[0] || id[0] == '.' || strlen(id) > 128 ||
            id[strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")])
                return bento_err_setx(err, EINVAL,
                                      "--report-dir: the container id is not usable as a file "
                                      "name; use --report FILE");
        /* the directory is made on first use (one level, private): a
         * fresh /run after boot must not make every container fail */
        if (mkdir(cfg->report_dir, 0700) < 0 && errno != EEXIST)
                return bento_err_set(err, errno, "--report-dir: cannot create '%s'",
                                     cfg->report_dir);
        snprintf(path, sizeof(path), "%s/%s.jsonl", cfg->report_dir, id);
        return egress_report_open(path, err);
}

/* pidfd and network namespace of the container init, checked to belong to
 * the same live process and to differ from ours. */
static int open_container(pid_t pid, int *ret_pidfd, int *ret_netns, struct bento_err *err)
{
        cleanup_close int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        cleanup_close int netns = -1;
        struct stat ours, theirs;
        char path[64];

        if (pidfd < 0)
                return bento_err_set(err, errno, "cannot watch the container process %d", pid);
        snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
        netns = open(path, O_RDONLY | O_CLOEXEC);
        if (netns < 0)
                return bento_err_set(err, errno, "cannot open '%s'", path);
        /* still alive after the open: the namespace is that process's */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                return bento_err_set(err, errno, "the container process %d went away", pid);
        if (stat("/proc/self/ns/net", &ours) < 0 || fstat(netns, &theirs) < 0)
                return bento_err_set(err, errno, "cannot compare network namespaces");
        if (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev)
                return bento_err_setx(err, EINVAL,
                                      "the container shares the host's network namespace, so "
                                      "nothing can be filtered: give it its own (an empty "
                                      "\"network\" namespace in config.json; podman: --network "
                                      "none)");
        *ret_pidfd = TAKE_FD(pidfd);
        *ret_netns = TAKE_FD(netns);
        return 0;
}

static int read_state(struct egress_config *cfg, struct egress_hook_state *st,
                      struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        r = bento_read_fd(0, "stdin", (size_t) 1024 * 1024, &data, &len, err);
        if (r < 0)
                return r;
        r = egress_hook_state_parse(data, len, cfg->annotation, st, err);
        if (r < 0 || !cfg->annotation || !st->annotation)
                return r;
        return egress_rules_add_list(cfg, st->annotation, "annotation", err);
}

static int run_hook(struct egress_config *cfg, struct bento_err *err)
{
        struct egress_hook_state st = {0};
        cleanup_close int pidfd = -1, netns = -1, lfd = -1, report = -1, log = -1, gate = -1;
        int r;

        r = read_state(cfg, &st, err);
        if (r >= 0 && cfg->hosts_file)
                r = egress_hosts_load(cfg->hosts_file, err);
        if (r >= 0 && cfg->resolv_conf) {
                /* read afresh for every lookup; a file that is not there
                 * now is a mistake worth saying at once */
                if (access(cfg->resolv_conf, R_OK) < 0)
                        r = bento_err_set(err, errno, "--resolv-conf '%s'", cfg->resolv_conf);
                else
                        egress_resolv_conf_set(cfg->resolv_conf);
        }
        if (r >= 0)
                r = open_container(st.pid, &pidfd, &netns, err);
        if (r >= 0)
                r = lfd = egress_listener_create(netns, cfg->allow_interfaces, err);
        if (r >= 0)
                r = report = open_report(cfg, st.id, err);
        if (r == -1 && !cfg->report && !cfg->report_dir)
                r = 0; /* no report asked for */
        if (r >= 0 && cfg->log) {
                r = log =
                    open(cfg->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
                if (r < 0)
                        r = bento_err_set(err, errno, "cannot open the log '%s'", cfg->log);
        }
        /* connected here, as root: the daemon is nobody, and the socket
         * need not let nobody in */
        if (r >= 0 && cfg->gate)
                r = gate = egress_gate_connect(cfg->gate, cfg->gate_ms, err);
        if (r >= 0) {
                struct egress_daemon_args a = {.cfg = cfg,
                                               .container = st.id,
                                               .listen_fd = lfd,
                                               .pidfd = pidfd,
                                               .report_fd = report,
                                               .log_fd = log,
                                               .gate_fd = gate};
                r = egress_daemon_start(&a, err);
        }
        egress_hook_state_done(&st);
        return r;
}

int main(int argc, char **argv)
{
        struct bento_err err = {0};
        int mode = egress_options_parse(argc, argv, &config, &err);

        if (mode < 0) {
                fprintf(stderr, "bento-egress: %s\n", err.msg);
                return EXIT_USAGE;
        }
        switch (mode) {
        case EGRESS_MODE_HELP:
                egress_usage(stdout);
                return 0;
        case EGRESS_MODE_VERSION:
                printf("bento-egress %s (%s)\n", BENTO_VERSION, BENTO_COMMIT);
                return 0;
        case EGRESS_MODE_CHECK:
                return print_rules(&config);
        default:
                break;
        }
        if (run_hook(&config, &err) < 0)
                return fail(&err);
        return 0;
}
