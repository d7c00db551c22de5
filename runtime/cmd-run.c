/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run: create + start, then (unless --detach) stay as the container's
 * parent, forward signals to it (and proxy its terminal when it has one and
 * there is no --console-socket: foreground.h), and exit with its status; the
 * container is deleted afterwards unless --keep.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "commands.h"
#include "container.h"
#include "create-opts.h"
#include "foreground.h"
#include "log.h"

/* A process the OOM killer took leaves only SIGKILL in the exit status:
 * say why, from the cgroup's counter. */
static void say_oom(const char *id, long n)
{
        if (n > 0)
                rt_log_error("container %s was killed by the OOM killer at its memory "
                             "limit (%ld OOM kill%s in its cgroup)",
                             id, n, n == 1 ? "" : "s");
}

/* The same for a container that stays (--keep), while the record exists. */
static void report_oom(struct rt_store *store, const char *id)
{
        struct rt_container_dir dir = {.path = NULL, .fd = -1};
        struct bento_record *rec = NULL;
        struct bento_err ignored;

        if (rt_container_dir_open(store, id, false, &dir, &ignored) < 0)
                return;
        if (rt_container_record_load(&dir, &rec, &ignored) >= 0) {
                say_oom(id, rt_cgroup_oom_kills(rec));
                bento_record_free(rec);
        }
        rt_container_dir_close(&dir);
}

static int run_foreground(struct rt_store *store, struct rt_create_opts *o, bool keep,
                          struct bento_err *err)
{
        cleanup_close int sigfd = -1;
        cleanup_close int console_fd = -1;
        struct rt_created c = {.pid = 0, .pidfd = -1, .console_fd = -1};
        sigset_t old;
        int code, r;

        sigfd = rt_fg_block_signals(&old, err);
        if (sigfd < 0)
                return sigfd;
        (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* process.terminal without --console-socket: we proxy it ourselves */
        o->keep_console = true;
        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        console_fd = c.console_fd;
        r = rt_container_start(store, o->id, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_container_delete(store, o->id, true, &ignored);
                (void) waitpid(c.pid, NULL, 0);
                close(c.pidfd);
                return r;
        }
        code = rt_fg_wait(c.pid, c.pidfd, sigfd, console_fd);
        close(c.pidfd);
        if (keep) {
                report_oom(store, o->id);
        } else {
                struct bento_err derr = {0};
                long oom = 0;

                /* the counter is read from the record delete loads anyway */
                if (rt_container_delete_counting(store, o->id, true, &oom, &derr) < 0)
                        rt_log_warning("%s", derr.msg);
                say_oom(o->id, oom);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        return code;
}

static int run_detached(struct rt_store *store, struct rt_create_opts *o, struct bento_err *err)
{
        struct rt_created c = {.pid = 0, .pidfd = -1};
        int r;

        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        close(c.pidfd);
        r = rt_container_start(store, o->id, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_container_delete(store, o->id, true, &ignored);
        }
        return r < 0 ? r : 0;
}

int cmd_run(const struct rt_global *g, int argc, char **argv)
{
        struct rt_create_opts o = {.child_of_caller = false};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        unsigned extra = 0;
        int r;

        if (rt_create_opts_parse(&a, &o, &extra, &err) < 0)
                return rt_log_err(&err);
        if (a.argc - a.i != 1) {
                rt_log_error("run: expected a container id");
                rt_usage("run", true);
                return 1;
        }
        o.id = a.argv[a.i];
        o.systemd_cgroup = g->systemd_cgroup;
        if (rt_store_open(g->root, &store, &err) < 0)
                return rt_log_err(&err);
        if (extra & RT_RUN_DETACH) {
                o.child_of_caller = true;
                r = run_detached(&store, &o, &err);
        } else {
                r = run_foreground(&store, &o, extra & RT_RUN_KEEP, &err);
        }
        rt_store_close(&store);
        if (r < 0)
                return rt_log_err(&err);
        return r;
}
