/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run: create + start, then (unless --detach) stay as the container's
 * parent, forward signals to it (and proxy its terminal when it has one and
 * there is no --console-socket: foreground.h), and exit with its status; the
 * container is deleted afterwards unless --keep.  With --report FILE
 * (foreground only) the facts its exit status cannot carry are written to
 * FILE at the end (run-report.h).  With --exit-fd N the wait status goes to
 * descriptor N the moment the container's init is reaped, before the
 * delete: a caller can start what needs the sandbox gone that much sooner.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/oom-watch.h"
#include "cleanup.h"
#include "commands.h"
#include "container/container.h"
#include "create-opts.h"
#include "foreground.h"
#include "base/log.h"
#include "container/notify.h"
#include "run-go.h"
#include "run-report.h"

/* A process the OOM killer took leaves only SIGKILL in the exit status:
 * say why, from the cgroup's counter. */
static void say_oom(const char *id, long n)
{
        if (n > 0)
                rt_log_error("container %s was killed by the OOM killer at its memory "
                             "limit (%ld OOM kill%s in its cgroup)",
                             id, n, n == 1 ? "" : "s");
}

/* The container's record, while it exists; NULL otherwise. */
static struct bento_record *load_record(struct rt_store *store, const char *id)
{
        struct rt_container_dir dir = {.path = NULL, .fd = -1};
        struct bento_record *rec = NULL;
        struct bento_err ignored;

        if (rt_container_dir_open(store, id, false, &dir, &ignored) < 0)
                return NULL;
        if (rt_container_record_load(&dir, &rec, &ignored) < 0)
                rec = NULL;
        rt_container_dir_close(&dir);
        return rec;
}

/* The same for a container that stays (--keep), while the record exists. */
static void report_oom(struct rt_store *store, const char *id, long counted)
{
        struct bento_record *rec = load_record(store, id);
        long n = rec ? rt_cgroup_oom_kills(rec) : 0;

        say_oom(id, n > counted ? n : counted);
        bento_record_free(rec);
}

/* Watch the running container's OOM kills (cgroup/oom-watch.h), in the
 * cgroup its record names: the one start read (and hands over here). */
static void watch_oom(struct bento_record *rec, struct rt_oom_watch *w)
{
        *w = (struct rt_oom_watch) RT_OOM_WATCH_INIT;
        if (rec)
                rt_oom_watch_start(rec, w);
        bento_record_free(rec);
}

static void oom_changed(void *data)
{
        rt_oom_watch_update(data);
}

/* start failed: the container goes (start may have torn it down itself,
 * handing back its facts), and so does the init. */
static void start_failed(struct rt_store *store, const char *id, const struct rt_created *c,
                         bool report, struct rt_run_report *rep)
{
        struct bento_err ignored;

        if (report && !rep->rec)
                rt_run_report_take(store, id, rep);
        (void) rt_container_delete(store, id, true, &ignored);
        (void) waitpid(c->pid, NULL, 0);
        close(c->pidfd);
}

/* --exit-fd: "<wait status>\n", then the descriptor is closed.  A caller
 * that reads end-of-file without a line knows the target never ran or its
 * status is unknown (the report, or the exit status, says why).  Called
 * with SIGPIPE blocked (rt_fg_block_signals): a reader that went away must
 * not end the runtime before the delete, so the SIGPIPE the write raised
 * is taken back here. */
static void exit_notice(int *fd, int status)
{
        static const struct timespec now = {0, 0};
        char line[16];
        sigset_t pipe_set;
        int n;

        if (*fd < 0)
                return;
        n = snprintf(line, sizeof(line), "%d\n", status);
        if (write(*fd, line, (size_t) n) < 0 && errno == EPIPE) {
                sigemptyset(&pipe_set);
                sigaddset(&pipe_set, SIGPIPE);
                (void) sigtimedwait(&pipe_set, NULL, &now);
        }
        close(*fd);
        *fd = -1;
}

static void exit_notice_close(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

/* A descriptor of the caller's (--exit-fd, --wait-fd) must be open, not
 * one of the container's own (stdio and --preserve-fds pass into it), and
 * kept from every child. */
static int check_caller_fd(const char *opt, int fd, const struct rt_create_opts *o,
                           struct bento_err *err)
{
        int flags = fcntl(fd, F_GETFD);

        if (fd < 3 + o->preserve_fds)
                return bento_err_setx(err, EINVAL,
                                      "run: %s %d is one the container would get (its "
                                      "standard streams or a --preserve-fds descriptor); pass "
                                      "one above %d",
                                      opt, fd, 2 + o->preserve_fds);
        if (flags < 0)
                return bento_err_setx(err, EBADF, "run: %s %d is not an open descriptor", opt, fd);
        if (fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
                return bento_err_set(err, errno, "run: %s %d", opt, fd);
        return 0;
}

/* --exit-fd and --wait-fd are the foreground's, and two descriptors. */
static const char *caller_fds_misused(const struct rt_run_opts *ro)
{
        if (!(ro->flags & RT_RUN_DETACH))
                return ro->exit_fd >= 0 && ro->exit_fd == ro->wait_fd
                           ? "run: --exit-fd and --wait-fd must be two descriptors"
                           : NULL;
        if (ro->report)
                return "run: --report is for the foreground: it cannot be used with --detach";
        if (ro->exit_fd >= 0)
                return "run: --exit-fd is for the foreground: it cannot be used with --detach";
        if (ro->wait_fd >= 0)
                return "run: --wait-fd is for the foreground: it cannot be used with --detach";
        return NULL;
}

/* Foreground run with a notify socket: the relay runs in a child of ours
 * while we wait for the container, and ends with READY=1 or the init.
 * Returns its pid (0: none): once the container has ended it is waited
 * for, so that a READY=1 sent just before the end is passed on rather than
 * lost with the relay (it dies with us, PR_SET_PDEATHSIG). */
static pid_t relay_in_child(struct rt_notify_link *l, int sigfd, int console_fd)
{
        pid_t pid;

        if (l->fd < 0)
                return 0;
        pid = fork();
        if (pid == 0) {
                struct bento_err err = {0};

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(sigfd);
                if (console_fd >= 0)
                        close(console_fd);
                _exit(rt_notify_relay(l, rt_notify_caller(), &err) < 0 ? rt_log_err(&err) : 0);
        }
        if (pid < 0)
                rt_log_warning("NOTIFY_SOCKET: cannot fork the relay: %s", strerror(errno));
        rt_notify_link_close(l);
        return pid > 0 ? pid : 0;
}

static int run_foreground(struct rt_store *store, struct rt_create_opts *o, struct rt_run_opts *ro,
                          struct rt_run_report *rep, struct bento_err *err)
{
        cleanup_close int sigfd = -1;
        cleanup_close int console_fd = -1;
        struct rt_created c = {.pid = 0, .pidfd = -1, .console_fd = -1};
        struct rt_notify_link link = RT_NOTIFY_LINK_INIT;
        struct rt_oom_watch oom = RT_OOM_WATCH_INIT;
        struct bento_record *started = NULL;
        bool report = ro->report != NULL;
        pid_t relay;
        sigset_t old;
        int r;

        sigfd = rt_fg_block_signals(&old, err);
        if (sigfd < 0)
                return sigfd;
        if (!o->no_subreaper)
                (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* process.terminal without --console-socket: we proxy it ourselves */
        o->keep_console = true;
        o->keep_config = true;
        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        rep->created = true;
        console_fd = c.console_fd;
        r = rt_notify_caller() ? rt_notify_bind(store, o->id, &link, err) : 0;
        if (r >= 0)
                r = rt_container_start_facts(store, o->id, report ? &rep->rec : NULL, &started,
                                             err);
        if (r < 0) {
                rt_notify_link_close(&link);
                start_failed(store, o->id, &c, report, rep);
                return r;
        }
        rep->started = true;
        relay = relay_in_child(&link, sigfd, console_fd);
        watch_oom(TAKE_PTR(started), &oom);
        rep->status = rt_fg_wait_status_watching(c.pid, c.pidfd, sigfd, console_fd,
                                                 &(struct rt_fg_watch){oom.fd, oom_changed, &oom});
        /* the init is gone: the relay takes what is queued and ends (ECHILD:
         * already reaped with the container's other children) */
        if (relay > 0)
                (void) waitpid(relay, NULL, 0);
        exit_notice(&ro->exit_fd, rep->status);
        close(c.pidfd);
        rt_oom_watch_update(&oom);
        if (ro->flags & RT_RUN_KEEP) {
                if (report)
                        rt_run_report_take(store, o->id, rep);
                report_oom(store, o->id, oom.kills);
        } else {
                struct bento_err derr = {0};
                struct bento_record *taken = NULL;
                long n = 0;

                /* the counter, and the report's record, are read from the
                 * record delete loads anyway */
                if (rt_container_delete_counting(store, o->id, true, &n, report ? &taken : NULL,
                                                 &derr) < 0)
                        rt_log_warning("%s", derr.msg);
                if (taken) {
                        bento_record_free(rep->rec);
                        rep->rec = taken;
                }
                say_oom(o->id, n > oom.kills ? n : oom.kills);
        }
        if (report)
                rt_run_report_note_oom_kills(rep, oom.kills);
        rt_oom_watch_close(&oom);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return rt_fg_exit_code(rep->status);
}

/* With NOTIFY_SOCKET, run --detach returns after READY=1, as start does. */
static int run_detached(struct rt_store *store, struct rt_create_opts *o, struct bento_err *err)
{
        struct rt_created c = {.pid = 0, .pidfd = -1};
        struct rt_notify_link link = RT_NOTIFY_LINK_INIT;
        const char *caller = rt_notify_caller();
        int r;

        r = rt_container_create(store, o, &c, err);
        if (r < 0)
                return r;
        close(c.pidfd);
        r = caller ? rt_notify_bind(store, o->id, &link, err) : 0;
        if (r >= 0)
                r = rt_container_start(store, o->id, err);
        if (r < 0) {
                struct bento_err ignored;
                (void) rt_container_delete(store, o->id, true, &ignored);
        } else if (link.fd >= 0) {
                r = rt_notify_relay(&link, caller, err);
        }
        rt_notify_link_close(&link);
        return r < 0 ? r : 0;
}

int cmd_run(const struct rt_global *g, int argc, char **argv)
{
        struct rt_create_opts o = {.id = NULL};
        struct rt_run_opts ro = RT_RUN_OPTS_INIT;
        struct rt_run_report rep = RT_RUN_REPORT_INIT;
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0}, rerr = {0};
        const char *misused;
        int r;

        if (rt_create_opts_parse(&a, &o, &ro, &err) < 0)
                return rt_log_err(&err);
        misused = a.argc - a.i != 1 ? "run: expected a container id" : caller_fds_misused(&ro);
        if (misused) {
                rt_log_error("%s", misused);
                rt_usage("run", true);
                return 1;
        }
        if (ro.exit_fd >= 0 && check_caller_fd("--exit-fd", ro.exit_fd, &o, &err) < 0)
                return rt_log_err(&err);
        if (ro.wait_fd >= 0 && check_caller_fd("--wait-fd", ro.wait_fd, &o, &err) < 0)
                return rt_log_err(&err);
        /* nothing is made, not even the state directory, before the go */
        r = ro.wait_fd >= 0 ? rt_run_wait_go(ro.wait_fd, &err) : 1;
        if (r <= 0) {
                exit_notice_close(&ro.exit_fd);
                return r < 0 ? rt_log_err(&err) : 0;
        }
        o.id = a.argv[a.i];
        o.systemd_cgroup = g->systemd_cgroup;
        o.no_cgroup = g->no_cgroup;
        o.rootless = g->rootless;
        o.seccomp_cache = g->seccomp_cache;
        if (ro.report)
                rt_log_file_only();
        r = rt_store_open(g->root, &store, &err);
        if (r >= 0 && (ro.flags & RT_RUN_DETACH)) {
                r = run_detached(&store, &o, &err);
        } else if (r >= 0) {
                r = run_foreground(&store, &o, &ro, &rep, &err);
        }
        rt_store_close(&store);
        exit_notice_close(&ro.exit_fd);
        if (r < 0)
                (void) rt_log_err(&err);
        if (ro.report && rt_run_report_write(ro.report, &rep, &rerr) < 0)
                rt_log_error("%s", rerr.msg);
        rt_run_report_done(&rep);
        return r < 0 ? 1 : r;
}
