/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run (docs/cli/bento-run.md): the approval check, the host probe and
 * admission, a private bundle compiled into a 0700 run directory, the
 * sandbox started through bento-runtime (and the exec gate when exec is
 * blocked), the outcome explained, and everything it made removed on
 * every path out.
 *
 * The pieces, one file each: dir.c (the run directory and the host
 * paths a run creates), spawn.c (child programs and the wait),
 * sandbox.c (the sandbox's life: one `bento-runtime run --report`), report.c
 * (the words after the run), events.c (the --json stream), cli/cmd-run.c
 * (the verb: flags and order of operations).
 */
#ifndef BENTO_RUN_H
#define BENTO_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "claim.h"
#include "host/admission.h"
#include "policy/alias-scan.h"
#include "err.h"
#include "exec-gate.h"
#include "policy/mount-points.h"
#include "policy/policy.h"

#define RUN_ENV_MAX 256

/* bento's own exit status when it refuses or fails (docs/cli/bento.md,
 * "EXIT STATUS"); every verb uses it. */
#define BENTO_EXIT_REFUSED 125

struct run_opts {
        const char *manifest;
        bool strict, allow_degraded, allow_unapproved, json;
        bool no_exec_gate; /* admission found the exec block unenforceable */
        /* admission judged the limits for a transient systemd scope: the
         * runtime gets --systemd-cgroup and the bundle the scope's name */
        bool systemd_cgroup;
        /* Nothing to cap and no run id to name a cgroup by: the runtime
         * gets --cgroup-manager disabled.  The pid namespace, not a
         * cgroup, is what holds every process of the sandbox (killing its
         * init ends them all), and making and removing a cgroup in each of
         * a v1 host's hierarchies is a large share of a run's kernel time. */
        bool no_cgroup;
        bool record_exec; /* --record-exec */
        /* --network-gate SOCKET as given, and (once checked, network-gate.c)
         * resolved; --network-gate-timeout in seconds (0: the proxy's default) */
        const char *network_gate;
        char *network_gate_real;
        int network_gate_timeout;
        /* The bundle's process 1 is bento-init with --status-fd: the sandbox
         * passes it a pipe as the container's fd 3 and reads from it how the
         * target ended (a death by signal, which bento-init can only exit
         * with as 128+N). */
        bool init_status;
        const char *run_id;
        char *env[RUN_ENV_MAX];
        size_t n_env;
        char *accept_alias[RUN_ENV_MAX]; /* --accept-alias trees, made absolute */
        size_t n_accept_alias;
};

/* The run directory: <TMPDIR or /tmp>/bento-run-XXXXXX, mode 0700. */
struct run_dir {
        char *path;        /* $TMPDIR/bento-run-XXXXXX (dir.c), or NULL */
        char *shm;         /* /dev/shm/bento-XXXXXX (dir.c), or NULL */
        char *bundle;      /* <shm or path>/bundle */
        char *rootfs;      /* <shm>/rootfs, or NULL: <bundle>/rootfs */
        char *state;       /* <shm or path>/state, bento-runtime --root */
        char *gate_socket; /* <shm or path>/exec-gate.sock */
        char *egress_log;  /* <shm or path>/egress.jsonl, the egress hook's report */
        char *exec_record; /* <shm or path>/exec-record.jsonl, the gate's (--record-exec) */
        char *runtime_log; /* <shm or path>/runtime.log */
        char *hooks_log;   /* <shm or path>/hooks.log, what the OCI hooks printed */
        /* The shield mount points bento made in the write grants
         * (policy/mount-points.h): removed afterwards, those very objects, while
         * they are still empty. */
        struct mount_points points;
        /* The directories holding shield mount points this run uses, held
         * so that no other run removes a point under its sandbox; the
         * runtime inherits them (policy/point-locks.h). */
        struct point_locks locks;
        /* What a killed run leaves for the next one to remove (claim.h);
         * the runtime inherits it too. */
        struct run_claim claim;
};

/* Make the run's directories: on /dev/shm when that is a tmpfs out of the
 * sandbox's reach, else (or also, with on_disk) in TMPDIR or /tmp. */
int run_dir_make(struct run_dir *d, const struct policy *p, bool on_disk, struct bento_err *err);
/* The random part of the run's directory name: the sandbox's name. */
const char *run_dir_suffix(const struct run_dir *d);
/* Create the shield mount points p needs in its write grants (after the
 * write grants exist, before the sandbox starts), so that the runtime
 * finds them and bento knows exactly what it made. */
int run_dir_make_mount_points(struct run_dir *d, const struct policy *p, struct bento_err *err);
/* The sandbox is gone: the mount points bento made that are still those
 * objects and empty are removed when no other run uses their directory,
 * else left to the last one; each once, so calling it again is free.
 * Never follows a symlink. */
void run_remove_mount_points(struct run_dir *d);

/* Remove the mount points created by the run and the run directory.
 * Safe on a partly made or zeroed run_dir; never follows a symlink. */
void run_dir_cleanup(struct run_dir *d);
/* rm -r of what is below dirfd, on dev only, never following a symlink. */
void run_remove_tree_at(int dirfd, dev_t dev);

/* How the target ended. */
struct run_outcome {
        bool started;   /* the target was started (the runtime's report says so) */
        bool cancelled; /* SIGINT/SIGTERM to bento stopped it */
        int exit_code;  /* 0-255, or 128+signal */
        int signal;     /* the signal that killed the target, 0 if it exited */
        long oom_kills; /* OOM kills in its cgroup, -1 when unknown */
        char *failure;  /* why the sandbox could not be run, or NULL */
        /* What the runtime said it applied (its report: state's facts). */
        bool landlock_applied, seccomp_applied;
};

void run_outcome_done(struct run_outcome *o);

/* docs/cli/bento-run.md, "WHAT RUN DOES, IN ORDER": check that fds 0-2 are safe to hand to the
 * target. ret_fds gets each descriptor to pass, -1 for a closed one (the target then gets
 * /dev/null).  Fails with EPERM and the reason. */
int run_screen_stdio(int ret_fds[3], struct bento_err *err);

/* The sandbox's whole life: gate, then one `bento-runtime run --report`
 * (create, start, wait, delete), its report read, the gate stopped.
 * Target output goes to out_fd/err_fd (the terminal, or pipes for --json
 * that on_output drains while the target runs). */
struct run_stdio {
        int in_fd, out_fd, err_fd;
        /* --json: read ends of the stdout/stderr pipes, -1 otherwise. */
        int out_pipe, err_pipe;
        void (*on_output)(int stream, const char *data, size_t len, void *userdata);
        void *userdata;
        /* bento profile: the write end of the observer's report pipe, passed into the
         * container as its fd 3 (bento-runtime --preserve-fds 1), and the read end, drained
         * into on_output as stream RUN_STREAM_OBSERVE while the target runs (a full pipe
         * would stop the observer).  -1 both otherwise. */
        int observe_fd, observe_pipe;
};

#define RUN_STREAM_OBSERVE 3

/* A destination the egress hook refused (host and port as the target
 * asked, never a resolved address). */
struct run_dest {
        char *host, *port;
};

/* The egress hook's decisions (its --report file, docs/egress.md),
 * deduplicated and sorted per kind. */
struct run_egress {
        struct run_dest *denied, *blocked, *untunneled;
        size_t n_denied, n_blocked, n_untunneled;
        /* the network gate's admissions, and its refusals (a "deny", or no
         * usable answer) */
        struct run_dest *gate_allowed, *gate_denied;
        size_t n_gate_allowed, n_gate_denied;
        long connections; /* every decision but internal faults */
        long faults;
        long at_capacity; /* refused because the proxy was at its limit */
        bool truncated;
        bool started, stopped; /* the daemon's first and last lines */
        pid_t daemon;
};

/* Read the report; a missing file is an empty report. */
int run_egress_read(const char *path, struct run_egress *ret, struct bento_err *err);
/* The same after the sandbox is gone: a daemon that has not written its
 * last line yet is given a moment to leave, then the report is read again.
 * Still no last line means the proxy died while the target ran. */
int run_egress_settle(const char *path, struct run_egress *ret, struct bento_err *err);
/* docs/cli/bento-run.md, "EXIT STATUS": the proxy's lapses during the run (it died, dropped
 * connections on a fault, hit its connection limit) degrade the network layer of r. */
void run_egress_judge(const struct run_egress *e, struct host_report *r);
void run_egress_done(struct run_egress *e);

/* docs/embedding.md, "The network gate protocol": --network-gate names a
 * listening unix socket outside everything the sandbox sees (network-gate.c);
 * o->network_gate_real gets its resolved path.  A refusal's words in err. */
int run_network_gate_check(struct run_opts *o, const struct policy *p, struct bento_err *err);

/* The grant through which the sandbox would see the resolved path dir, or
 * NULL (dir.c). */
const struct policy_path *run_visible_through(const struct policy *p, const char *dir);

/* The exec gate of one run (gate.c): a thread of bento's running the
 * gate's code, or the program $BENTO_EXEC_GATE names; started as soon as
 * the run directory exists, ready by the time the sandbox is created. */
struct run_gate {
        bool on;       /* false: no gate (exec is not blocked, or not enforceable) */
        pid_t pid;     /* the program's; 0 when bento serves the gate itself */
        bool threaded; /* bento serves it on `thread` */
        pthread_t thread;
        struct gate_opts opts; /* what the thread serves */
        int ready_fd;
        int stop_rd, stop_wr; /* the thread's stop (gate_opts.stop_fd) */
        bool in_use;          /* a sandbox was created with it: it may be serving */
        char *path;           /* for messages: the program, or bento's own */
        char *socket, *record;
};

#define RUN_GATE_INIT                                                                              \
        {                                                                                          \
                .ready_fd = -1, .stop_rd = -1, .stop_wr = -1                                       \
        }

/* record: the gate's --record file (exec-record.h), or NULL for the
 * exec block. */
int run_gate_spawn(struct run_gate *g, const char *socket, const char *record,
                   struct bento_err *err);
/* Wait for the gate's listening socket (10 s at most). */
int run_gate_ready(struct run_gate *g, struct bento_err *err);
/* Stop it and reap it; safe on a gate never spawned or already stopped. */
void run_gate_stop(struct run_gate *g);

/* Called at most once, when the runtime says the target has been waited
 * for (bento-runtime run --exit-fd): every sandboxed process has ended (a
 * sandbox has its own PID namespace), and the runtime is only deleting it.
 * Not called when that is not known (the runtime failed or went away). */
struct run_on_exit {
        void (*fn)(void *userdata);
        void *userdata;
};

/* The container's id, "bento-run-" and the run id or the run directory's
 * suffix; with --systemd-cgroup its scope is named the same
 * (run_sandbox_cgroups_path()). */
void run_sandbox_id(const struct run_opts *o, const struct run_dir *d, char *buf, size_t size);

/* linux.cgroupsPath for the run's bundle: "::bento-run-ID" names the
 * systemd scope bento-run-ID.scope in the manager's default slice; NULL
 * (the runtime's cgroupfs default) without --systemd-cgroup.  Allocated. */
char *run_sandbox_cgroups_path(const struct run_opts *o, const struct run_dir *d);

/* A bento-runtime started before its bundle is complete (run_sandbox_launch):
 * its start (the exec, the loader) overlaps the writing of the bundle, and it
 * waits on its --wait-fd for run_sandbox()'s go before it reads anything. */
struct run_launch {
        pid_t pid;     /* the waiting runtime, or 0 */
        int go;        /* bento's end of its --wait-fd socket, or -1 */
        int exit_fd;   /* the read end of its --exit-fd */
        int status_rd; /* the read end of bento-init's status pipe, or -1 */
};

#define RUN_LAUNCH_INIT                                                                            \
        {                                                                                          \
                .pid = 0, .go = -1, .exit_fd = -1, .status_rd = -1                                 \
        }

/* Start `bento-runtime run` for the run directory d as run_sandbox() would,
 * waiting for its go.  o must say what run_sandbox() will be given
 * (cgroup manager, init_status); io is its standard streams. */
int run_sandbox_launch(const struct run_opts *o, const struct run_dir *d,
                       const struct run_stdio *io, struct run_launch *l, struct bento_err *err);

/* A launch that gets no go: the runtime reads end-of-file and ends, having
 * made nothing; it is reaped.  Safe on an empty or already taken launch. */
void run_launch_cancel(struct run_launch *l);

/* What the caller started ahead of the sandbox: the exec gate, spawned when
 * exec is blocked (pid 0 otherwise) and stopped here once the sandbox is
 * deleted; and a launched runtime to go on with (taken over), or NULL to
 * start one here. */
struct run_ahead {
        struct run_gate *gate;
        struct run_launch *launch;
};

/* on_exit may be NULL. */
int run_sandbox(const struct run_opts *o, struct run_dir *d, const struct run_ahead *ahead,
                const struct run_stdio *io, const struct run_on_exit *on_exit,
                struct run_outcome *out, struct bento_err *err);

/* docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT": files in write grants the host runs later
 * unread. */
/* What a name was before the run: its own lstat(2) (a regular file swapped
 * for a symlink is a change), and the file it leads to by stat(2) (what
 * the host would run). */
struct run_file_facts {
        bool present;
        mode_t type; /* st_mode & S_IFMT */
        dev_t dev;
        ino_t ino;
        off_t size;
        struct timespec mtime;
};

struct run_autoexec_entry {
        char *path;
        struct run_file_facts self, target;
};

struct run_autoexec {
        struct run_autoexec_entry *entries;
        size_t n;
        char **hooks; /* per write grant: git's hooks directory before the run, or NULL */
        size_t n_hooks;
        bool without_git;               /* no git on PATH: hooks are not looked for (unresolved) */
        struct run_git_config *configs; /* the git config files of the write grants */
        size_t n_configs;
        char **changed, **redirected, **unresolved; /* NULL-terminated, after compare */
        size_t n_changed, n_redirected, n_unresolved;
        char **settings; /* "<file>: <section.key>=<value>" added or changed by the run */
        size_t n_settings;
};

/* A git config file inside a write grant and the settings in it that make
 * git run a command, as they were before the run. */
struct run_git_config {
        char *path;
        char **before;
        size_t n_before;
};

/* The settings of a git config text (len bytes) that make git run a
 * command, each as "section[.sub].key=value" (gitconfig.c).  0 or
 * -ENOMEM. */
int run_git_settings(const char *text, size_t len, char ***ret, size_t *ret_n);

/* Before the run: the watched files as they are, and each write grant's
 * hooks directory (git-hooks-path.c).  a starts zeroed. */
int run_autoexec_snapshot(const struct policy *p, struct run_autoexec *a, struct bento_err *err);
/* Once the sandbox is gone (and the mount points bento made in the write
 * grants are removed): what changed, where the hooks went. */
int run_autoexec_compare(const struct policy *p, struct run_autoexec *a, struct bento_err *err);
void run_autoexec_done(struct run_autoexec *a);

/* docs/cli/bento-run.md, "OUTPUT": a name on PATH that resolves to another copy in the box,
 * because the directory the host finds it in is not carried there. */
struct run_shadow {
        char *dir;     /* the PATH directory the box does not carry */
        char *name;    /* the command; NULL when dir could not be listed */
        char *carried; /* the carried PATH directory it resolves to inside */
};

struct run_shadows {
        struct run_shadow *v;
        size_t n;
};

/* The value name reaches the target with when the manifest passes it
 * through (allowlisted, and set on this host or by --env); NULL when the
 * target gets bento's default or nothing. */
const char *run_passed_value(const struct manifest *m, const struct run_opts *o, const char *name);
/* The shadowed names of path (the PATH passed through; NULL: none). */
int run_path_shadows(const struct policy *p, const char *path, struct run_shadows *ret,
                     struct bento_err *err);
void run_shadows_done(struct run_shadows *s);

struct run_blocked;     /* blocked.h */
struct run_exec_record; /* exec-record.h */
struct run_degraded;    /* degraded.h */

/* Everything the words after a run are made from. */
struct run_view {
        const struct policy *p;
        const struct run_opts *o;
        const struct run_outcome *out;
        const struct admission *a; /* a->report: the run's report after the merge */
        const struct run_egress *egress;
        const struct run_autoexec *autoexec;
        const struct alias_scan *accepted; /* aliases under --accept-alias trees */
        bool shortfall;                    /* a guarantee lapsed (bento-run(1)); exit 124 */
        char *const *env;                  /* the target's environment (NAME=VALUE) */
        /* What the run recorded in provenance.blocked-hosts (docs/manifest.md, "PROVENANCE"), or
         * NULL. */
        const struct run_blocked *blocked;
        const struct run_exec_record *exec_record; /* --record-exec, or NULL */
        const struct run_degraded *degraded;       /* the Landlock-only tier ran it, or NULL */
};

/* The shadowed names of the PATH the run passed through (docs/cli/bento-run.md, "OUTPUT"),
 * into *ret (free with run_shadows_done()).  False when there are none to
 * tell, or they could not be worked out; then *ret is empty. */
bool run_view_shadows(const struct run_view *v, struct run_shadows *ret);

/* Entry i is the first of its directory (the entries of one directory are
 * consecutive). */
bool run_shadow_new_dir(const struct run_shadows *s, size_t i);

/* docs/manifest.md, "ENVIRONMENT": the HOME note, on stderr. */
void run_home_note(const struct policy *p);

/* docs/cli/bento-run.md, "OUTPUT": the human notes after the run, on stderr. */
void run_report_human(const struct run_view *v);

/* docs/cli/bento-run.md, "JSON OUTPUT" --json: one compact object per line on stdout.  Each returns
 * 0 or -EIO when stdout could not be written (then the caller says so on stderr and exits 125). */
int run_event_output(int stream, const char *data, size_t len);
int run_event_verdict(const struct run_view *v);
int run_event_refusal(const char *reason, const struct host_report *report);
int run_event_failed(const char *reason, const struct run_view *v);

/* The whole of `bento run` after its flags (pipeline.c): takes ownership of
 * o's --accept-alias strings.  Returns the exit status. */
int run_pipeline(struct run_opts *o);

/* A refusal in the output mode o asks for: a refusal event with --json
 * (report, when given, says which layers were checked), else
 * "bento: refusing to run: reason" wrapped on stderr.  Returns 125. */
int run_refuse(const struct run_opts *o, const char *reason, const struct host_report *report);
#endif
