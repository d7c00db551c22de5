/* SPDX-License-Identifier: Apache-2.0 */
/* start, kill and delete of an existing container (see container.h). */
#include "container.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cgroup/cgroup.h"
#include "hooks.h"
#include "base/log.h"
#include "mount/shared-root.h"
#include "notify.h"
#include "base/proc.h"
#include "snapshot.h"

struct opened {
        struct rt_container_dir dir;
        struct bento_record *rec;
        enum bento_status status;
};

static void opened_close(struct opened *o)
{
        bento_record_free(o->rec);
        o->rec = NULL;
        rt_container_dir_close(&o->dir);
}

static int open_container(struct rt_store *store, const char *id, struct opened *o,
                          struct bento_err *err)
{
        int r;

        o->dir = (struct rt_container_dir){.path = NULL, .fd = -1};
        o->rec = NULL;
        r = rt_container_dir_open(store, id, true, &o->dir, err);
        if (r < 0)
                return r;
        r = rt_container_record_load(&o->dir, &o->rec, err);
        if (r == -ENOENT) {
                /* a create that died before recording anything */
                o->status = BENTO_STATUS_CREATING;
                return 0;
        }
        if (r < 0) {
                opened_close(o);
                return r;
        }
        o->status = rt_container_status(&o->dir, o->rec);
        return 0;
}

static int teardown(struct rt_store *store, const char *id, struct opened *o, long *ret_oom,
                    struct bento_err *err);

static int run_poststart(const struct rt_store *store, const char *id, const struct opened *o,
                         struct bento_err *err)
{
        cleanup_oci_config struct oci_config *owned = NULL;
        const struct oci_config *cfg = NULL;
        cleanup_free char *state = NULL;
        int r;

        r = rt_container_hooks_config(store, id, &o->dir, &cfg, &owned, err);
        if (r < 0 || !cfg || cfg->n_hooks[OCI_HOOK_POSTSTART] == 0)
                return r;
        r = rt_hooks_state(cfg, id, o->rec->bundle, BENTO_STATUS_RUNNING, o->rec->pid, &state, err);
        if (r >= 0)
                r = rt_hooks_run(cfg, OCI_HOOK_POSTSTART, o->rec->bundle, state, NULL, 0, err);
        return r;
}

/* Block until the init closes its end of exec.fifo (close-on-exec: it
 * exec'd the target, or it died) or exits.  Returns what it left in the
 * fifo: the reason when startContainer hooks, Landlock or seccomp failed. */
static ssize_t wait_exec(const struct opened *o, int rfd, char *msg, size_t size)
{
        struct bento_err ignored;
        cleanup_close int pidfd = rt_pidfd_open_checked(o->rec->pid, o->rec->start_time, &ignored);
        struct pollfd p[2] = {{.fd = rfd, .events = 0}, {.fd = pidfd, .events = POLLIN}};
        ssize_t n;

        while (poll(p, pidfd >= 0 ? 2 : 1, -1) < 0 && errno == EINTR)
                ;
        n = read(rfd, msg, size - 1);
        /* the release byte itself, when the init died before reading it */
        if (n == 1 && msg[0] == '0')
                n = 0;
        msg[n > 0 ? n : 0] = '\0';
        return n;
}

/* sync #3 (start side): release the parked init through exec.fifo and wait
 * until it has exec'd the target.  -ECANCELED: the init reported a failure
 * after its release (and exited), so the container must be torn down. */
static int release_init(const struct opened *o, const char *id, struct bento_err *err)
{
        cleanup_close int wfd = -1, rfd = -1;
        char msg[BENTO_ERR_MSG_MAX];

        /* a reader (the parked init) exists, so a non-blocking open succeeds;
         * ENXIO means the init is gone */
        wfd = openat(o->dir.fd, "exec.fifo", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (wfd < 0)
                return bento_err_set(err, errno, "cannot start container %s", id);
        /* opened while the init still holds its end, so poll() reports a
         * hangup once the last writer (that end) is gone */
        rfd = openat(o->dir.fd, "exec.fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (rfd < 0 || unlinkat(o->dir.fd, "exec.fifo", 0) < 0)
                return bento_err_set(err, errno, "cannot start container %s", id);
        if (write(wfd, "0", 1) != 1)
                return bento_err_set(err, errno ? errno : EIO, "cannot start container %s", id);
        close(TAKE_FD(wfd));
        rt_log_debug("start %s: init %d released", id, (int) o->rec->pid);
        if (wait_exec(o, rfd, msg, sizeof(msg)) > 0)
                return bento_err_setx(err, ECANCELED, "cannot start container %s: %s", id, msg);
        return 0;
}

int rt_container_start(struct rt_store *store, const char *id, struct bento_err *err)
{
        return rt_container_start_facts(store, id, NULL, NULL, err);
}

int rt_container_start_facts(struct rt_store *store, const char *id,
                             struct bento_record **torn_down, struct bento_record **started,
                             struct bento_err *err)
{
        struct opened o;
        bool released;
        int r;

        r = open_container(store, id, &o, err);
        if (r < 0)
                return r;
        if (o.status != BENTO_STATUS_CREATED) {
                r = bento_err_setx(err, EINVAL,
                                   "cannot start container %s: it is %s, not "
                                   "created",
                                   id, bento_status_to_string(o.status));
                opened_close(&o);
                return r;
        }
        r = release_init(&o, id, err);
        released = r >= 0 || r == -ECANCELED;
        if (r >= 0) {
                o.status = BENTO_STATUS_RUNNING;
                r = run_poststart(store, id, &o, err);
        }
        if (r < 0 && released) {
                /* runtime-spec: a failed startContainer or poststart hook
                 * stops the container and goes on with its deletion */
                struct bento_err ignored;

                if (torn_down)
                        (void) rt_record_add_oom_kills(o.rec, &ignored);
                (void) teardown(store, id, &o, NULL, &ignored);
                if (torn_down)
                        *torn_down = TAKE_PTR(o.rec);
        }
        if (r >= 0 && started)
                *started = TAKE_PTR(o.rec);
        opened_close(&o);
        return r;
}

/* The pid namespace the container made for itself (its init is that
 * namespace's init): true, with the recorded inode (0: unknown). */
static bool own_pid_namespace(const struct bento_record *rec, uint64_t *ret_inode)
{
        for (size_t i = 0; i < rec->n_namespaces; i++)
                if (!strcmp(rec->namespaces[i].type, "pid") && !rec->namespaces[i].joined) {
                        *ret_inode = rec->namespaces[i].inode;
                        return true;
                }
        return false;
}

/* The recorded pid is in the pid namespace recorded for the container,
 * which is not ours: a record naming the host's namespace would otherwise
 * have `kill --all` signal every process of the host.  A process cannot
 * leave its pid namespace, so this holds for the container's life. */
static int check_pid_ns(const struct bento_record *rec, uint64_t ns, struct bento_err *err)
{
        uint64_t mine = rt_proc_ns_inode(getpid(), "pid");
        uint64_t its = rt_proc_ns_inode(rec->pid, "pid");

        if (!ns || !mine || ns == mine)
                return bento_err_setx(err, EPERM,
                                      "the pid namespace %" PRIu64 " recorded for container %s is "
                                      "%s: refusing to signal pid %d; the state directory may "
                                      "have been tampered with",
                                      ns, rec->id, ns && mine ? "the runtime's own" : "unknown",
                                      (int) rec->pid);
        if (its != ns)
                return bento_err_setx(err, EPERM,
                                      "pid %d recorded for container %s is not in its pid "
                                      "namespace %" PRIu64 " (it is in %" PRIu64 "): refusing to "
                                      "signal it; the state directory may have been tampered "
                                      "with",
                                      (int) rec->pid, rec->id, ns, its);
        return 0;
}

/* state.json is hostile input: before anything signals the pid it names
 * (pinned by pidfd), check that the kernel puts that process in the
 * container: in its cgroup, and in the pid namespace it made.  The signal
 * 0 through the pidfd afterwards proves the pinned process outlived the
 * reads of /proc/<pid>, so they were about it; when it did not, the
 * container just ended (ESRCH), whatever the reads said. */
/* How long an init that failed the membership check may take to finish
 * exiting before the failure counts. */
#define EXIT_GRACE_MS 200

static int verify_init(const struct bento_record *rec, int pidfd, struct bento_err *err)
{
        uint64_t ns = 0;
        bool has_ns = own_pid_namespace(rec, &ns);
        struct bento_err gone;
        int r = 0;

        if (!rec->cgroup_path && !has_ns)
                return bento_err_setx(err, EPERM,
                                      "pid %d recorded for container %s cannot be checked: the "
                                      "container has neither a cgroup nor a pid namespace of its "
                                      "own; refusing to signal it",
                                      (int) rec->pid, rec->id);
        if (rec->cgroup_path)
                r = rt_cgroup_check_member(rec, rec->pid, err);
        if (r >= 0 && has_ns)
                r = check_pid_ns(rec, ns, err);
        if (rt_pidfd_signal(pidfd, 0, &gone) < 0) {
                *err = gone;
                return -gone.code;
        }
        /* An init on its way out has left its cgroup before it becomes a
         * zombie (and a zombie still answers signal 0): it is gone, not
         * forged.  So is a killed pid namespace init that waits, in the
         * kernel's exit path, for the zombies of its namespace to be
         * reaped by their outside parents.  A forged pid names a live
         * process, which does not end within the grace given here, and
         * stays refused. */
        if (r < 0 && (rt_proc_exited(rec->pid) || rt_pidfd_wait_exit(pidfd, EXIT_GRACE_MS) == 0))
                return bento_err_setx(err, ESRCH, "container not running: its init has exited");
        return r;
}

/* Every other process of the container's own pid namespace (inode pidns,
 * checked by verify_init), each pinned by a pidfd before its namespace is
 * read, so that a number freed and reused meanwhile is not signalled. */
static int kill_all_by_proc(const struct bento_record *rec, uint64_t pidns, int sig,
                            struct bento_err *err)
{
        cleanup_dir DIR *d = opendir("/proc");
        struct dirent *e;

        if (!d)
                return bento_err_set(err, errno, "cannot list /proc");
        while ((e = readdir(d))) {
                pid_t pid = (pid_t) atoi(e->d_name);
                struct bento_err ignored;
                cleanup_close int fd = -1;

                if (pid <= 0 || pid == rec->pid || (fd = rt_pidfd_open(pid)) < 0)
                        continue;
                if (rt_proc_ns_inode(pid, "pid") == pidns)
                        (void) rt_pidfd_signal(fd, sig, &ignored);
        }
        return 0;
}

/* Every process of the container: through its cgroup when it has one of
 * its own (nothing escapes by forking), else its pid namespace. */
static int kill_all(const struct bento_record *rec, int sig, int init_pidfd, struct bento_err *err)
{
        uint64_t pidns = 0;
        int r;

        if (rec->cgroup_path)
                return rt_cgroup_signal_all(rec, sig, init_pidfd, err);
        if (!own_pid_namespace(rec, &pidns) || !pidns)
                return bento_err_setx(err, EPERM,
                                      "container %s has neither a cgroup nor a pid "
                                      "namespace of its own to find its processes by",
                                      rec->id);
        r = kill_all_by_proc(rec, pidns, sig, err);
        /* an init that already ended is what --all wanted anyway */
        if (r >= 0 && rt_pidfd_signal(init_pidfd, sig, err) < 0 && err->code != ESRCH)
                return -err->code;
        return r;
}

static int signal_container(const struct bento_record *rec, int sig, bool all,
                            struct bento_err *err)
{
        cleanup_close int pidfd = -1;
        int r;

        pidfd = rt_pidfd_open_checked(rec->pid, rec->start_time, err);
        if (pidfd < 0)
                return pidfd;
        r = verify_init(rec, pidfd, err);
        if (r < 0)
                return r;
        if (all)
                return kill_all(rec, sig, pidfd, err);
        return rt_pidfd_signal(pidfd, sig, err);
}

/* created, running or paused; or half-created with its init recorded and
 * still there (it is the one process such a container may hold) */
static bool signallable(const struct opened *o)
{
        if (o->status == BENTO_STATUS_CREATING)
                return o->rec && o->rec->pid > 0 &&
                       rt_proc_matches(o->rec->pid, o->rec->start_time);
        return o->status == BENTO_STATUS_CREATED || o->status == BENTO_STATUS_RUNNING ||
               o->status == BENTO_STATUS_PAUSED;
}

int rt_container_kill(struct rt_store *store, const char *id, int sig, bool all,
                      struct bento_err *err)
{
        struct opened o;
        int r;

        r = open_container(store, id, &o, err);
        if (r < 0)
                return r;
        if (!signallable(&o))
                r = bento_err_setx(err, ESRCH, "container not running: %s is %s", id,
                                   bento_status_to_string(o.status));
        else
                r = signal_container(o.rec, sig, all, err);
        opened_close(&o);
        return r;
}

/* SIGKILL everything and wait for the init to be gone (it may be someone
 * else's child: its exit is seen through the pidfd, not waitpid).  With a
 * pid namespace of its own, killing the init is enough: the kernel kills
 * every other process of the namespace, and the init's exit completes
 * only once they are all gone, so there is no walk of the cgroup to race
 * with, and no freezer to wait for (an init that is already exiting can
 * keep a freeze from completing).  Whatever else sits in the cgroup is
 * killed when the cgroup is removed. */
static int destroy(const struct bento_record *rec, struct bento_err *err)
{
        cleanup_close int pidfd = -1;
        struct bento_err ignored, verr;
        uint64_t ns;
        int r;

        pidfd = rt_pidfd_open_checked(rec->pid, rec->start_time, &ignored);
        if (pidfd < 0)
                return 0; /* already gone */
        r = verify_init(rec, pidfd, &verr);
        if (r == -ESRCH)
                return 0; /* gone meanwhile */
        if (r < 0) {
                *err = verr;
                return r;
        }
        if (!own_pid_namespace(rec, &ns))
                (void) kill_all(rec, SIGKILL, pidfd, &ignored);
        if (rt_pidfd_signal(pidfd, SIGKILL, err) < 0 && err->code != ESRCH)
                return -err->code;
        /* a frozen task only dies once it is thawed */
        if (rt_cgroup_is_frozen(rec) == 1)
                (void) rt_cgroup_freeze(rec, false, &ignored);
        /* dead is enough: a pid namespace init stays in its exit path
         * until the zombies of `exec --detach` processes are reaped by
         * their parent, which may never call wait() (as crun, delete goes
         * on; the kernel finishes the exit whenever they are reaped) */
        if (rt_pidfd_wait_dead(pidfd, rec->pid, 10000) < 0)
                return bento_err_setx(err, ETIMEDOUT, "container %s did not die after SIGKILL",
                                      rec->id);
        return 0;
}

/* After the processes are gone: the cgroup, poststop hooks (failures are
 * warnings, every hook runs), then the state directory. */
static int teardown(struct rt_store *store, const char *id, struct opened *o, long *ret_oom,
                    struct bento_err *err)
{
        cleanup_oci_config struct oci_config *owned = NULL;
        const struct oci_config *cfg = NULL;
        struct bento_err herr = {0};
        int r = 0;

        /* (an intent record may not name an init yet) */
        if (o->rec && o->status != BENTO_STATUS_STOPPED && o->rec->pid > 0)
                r = destroy(o->rec, err);
        /* a root tree in a mount namespace the container shared */
        if (r >= 0 && o->rec)
                r = rt_shared_root_remove_recorded(o->rec, err);
        if (r >= 0 && o->rec)
                r = rt_cgroup_remove(o->rec, ret_oom, err);
        if (r < 0)
                return r;
        if (o->rec && rt_container_hooks_config(store, id, &o->dir, &cfg, &owned, &herr) >= 0 &&
            cfg && cfg->n_hooks[OCI_HOOK_POSTSTOP] > 0) {
                cleanup_free char *state = NULL;
                char warnings[2048] = "";

                if (rt_hooks_state(cfg, id, o->rec->bundle, BENTO_STATUS_STOPPED, 0, &state,
                                   &herr) >= 0)
                        (void) rt_hooks_run(cfg, OCI_HOOK_POSTSTOP, o->rec->bundle, state, warnings,
                                            sizeof(warnings), &herr);
                for (char *save = NULL, *w = strtok_r(warnings, "\n", &save); w;
                     w = strtok_r(NULL, "\n", &save))
                        rt_log_warning("%s", w);
        }
        r = rt_notify_remove(o->dir.fd, o->rec, err);
        if (r < 0)
                return r;
        return rt_container_dir_remove(store, id, &o->dir, err);
}

int rt_container_delete(struct rt_store *store, const char *id, bool force, struct bento_err *err)
{
        return rt_container_delete_counting(store, id, force, NULL, NULL, err);
}

int rt_container_delete_counting(struct rt_store *store, const char *id, bool force,
                                 long *ret_oom_kills, struct bento_record **ret_rec,
                                 struct bento_err *err)
{
        struct opened o;
        int r = 0;

        if (ret_rec)
                *ret_rec = NULL;
        r = open_container(store, id, &o, err);
        if (r == -ENOENT && force)
                return 0;
        if (r < 0)
                return r;
        if (!force && (o.status == BENTO_STATUS_RUNNING || o.status == BENTO_STATUS_PAUSED)) {
                r = bento_err_setx(err, EBUSY,
                                   "cannot delete container %s: it is %s (stop it "
                                   "first, or use --force)",
                                   id, bento_status_to_string(o.status));
                opened_close(&o);
                return r;
        }
        if (ret_rec) {
                struct bento_err ignored;

                /* read while the cgroup is still there */
                (void) rt_record_add_oom_kills(o.rec, &ignored);
        }
        r = teardown(store, id, &o, ret_oom_kills, err);
        if (ret_rec)
                *ret_rec = TAKE_PTR(o.rec);
        opened_close(&o);
        return r;
}
