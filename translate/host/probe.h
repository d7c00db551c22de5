/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host probe (docs/doctor.md, "The layers" and "What the probe does, and what it costs"): what
 * this kernel, this caller and this installation let bento enforce, layer by layer.  `bento doctor`
 * prints it; `bento run` calls it before admission (admission.h).
 *
 * Two steps, kept apart so the second can be tested without a host:
 *
 *   host_probe_facts()  looks at the host: can this caller create the
 *                       namespaces bento-runtime builds the sandbox from,
 *                       seccomp filters and user notification, the Landlock
 *                       ABI, each cgroup controller bento-runtime would put
 *                       a limit in (a real probe cgroup is made and removed),
 *                       systemd, git, where bento-runtime and the helper
 *                       programs a run starts (exec gate, egress proxy) are.
 *   host_probe_judge()  turns facts into the layer table: a state per layer
 *                       with the host-specific reason and the standing
 *                       consequence for a run.  Pure; no I/O.
 *
 * The original bento builds the sandbox with bwrap and puts limits in a
 * systemd-run scope.  Here bento-runtime does both (namespaces, mounts,
 * seccomp, Landlock; cgroups with its cgroupfs driver, or, on a pure
 * cgroup v2 host run by systemd, in a transient scope it asks systemd for),
 * so the probe asks what bento-runtime needs instead.
 * Nothing is cached across runs: the whole probe costs about 2 ms.
 */
#ifndef BENTO_HOST_PROBE_H
#define BENTO_HOST_PROBE_H

#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Room for one reason or one consequence (they are short paragraphs). */
#define HOST_TEXT_MAX 1024

/* The layers of docs/doctor.md, "The layers", in the order doctor prints them. */
enum bento_layer {
        BENTO_LAYER_FILESYSTEM,
        BENTO_LAYER_NETWORK,
        BENTO_LAYER_EXEC_BLOCK,
        BENTO_LAYER_EXEC_STRICT,
        BENTO_LAYER_LIMITS_MEMORY,
        BENTO_LAYER_LIMITS_PIDS,
        BENTO_LAYER_LIMITS_CPU,
        BENTO_LAYER_AUTO_EXEC_REPORT,
        BENTO_LAYER_MAX,
};

/* Ordered by severity: a worse state compares greater. */
enum bento_layer_state {
        BENTO_STATE_ENFORCED,
        BENTO_STATE_DEGRADED,
        BENTO_STATE_UNAVAILABLE,
        BENTO_STATE_MAX,
};

enum bento_tier {
        BENTO_TIER_CORE,
        BENTO_TIER_HARDENING,
        BENTO_TIER_MAX,
};

/* "filesystem", "network", "exec-block", ... (the names docs/doctor.md, "The layers", uses). */
const char *bento_layer_name(enum bento_layer l);
/* The layer of a name, or -1. */
int bento_layer_from_name(const char *name);
enum bento_tier bento_layer_tier(enum bento_layer l);
/* auto-exec-report: disclosed, never required, never judges a run. */
bool bento_layer_report_only(enum bento_layer l);
/* "enforced", "degraded", "unavailable". */
const char *bento_state_name(enum bento_layer_state s);
/* "core", "hardening". */
const char *bento_tier_name(enum bento_tier t);

struct layer_status {
        enum bento_layer_state state;
        char detail[HOST_TEXT_MAX];       /* the host-specific reason; "" when none */
        char consequences[HOST_TEXT_MAX]; /* what this state costs a run; "" when none */
};

/* A report: one status per layer.  A layer not `present` reads as
 * unavailable, "not reported by the host probe" (docs/doctor.md, "The layers"). */
struct host_report {
        struct layer_status layer[BENTO_LAYER_MAX];
        bool present[BENTO_LAYER_MAX];
        /* The limits layers were judged for a transient systemd scope
         * (host_facts.cg_systemd): a run then asks bento-runtime for one. */
        bool limits_systemd;
};

/* The status of a layer, absent ones read as unavailable.  The pointer is
 * into r, or to a static "not reported" status. */
const struct layer_status *host_report_get(const struct host_report *r, enum bento_layer l);

/* Record a state for a layer; when the report already holds one, the worse
 * of the two wins (duplicates, and a backend reporting worse than the
 * probe, docs/doctor.md, "The layers"/docs/cli/bento-run.md, "ADMISSION").  detail/consequences may
 * be NULL. */
void host_report_set(struct host_report *r, enum bento_layer l, enum bento_layer_state s,
                     const char *detail, const char *consequences);

/* "Disclosure" of docs/doctor.md, "The layers": detail + " " + consequences (either may be empty),
 * into buf. */
void host_report_disclosure(const struct layer_status *s, char *buf, size_t size);

/* Every present, non-report-only layer enforced (and at least one present):
 * the report's `fully_enforced`. */
bool host_report_fully_enforced(const struct host_report *r);

/* ---- facts ---- */

enum host_ns_verdict {
        HOST_NS_USABLE,  /* bento-runtime can build the full sandbox */
        HOST_NS_BLOCKED, /* it cannot, for a known reason */
        HOST_NS_UNKNOWN, /* the probe could not tell: reported unavailable, not guessed */
};

enum host_cg_mode {
        HOST_CG_NONE, /* no cgroup hierarchy visible */
        HOST_CG_V1,
        HOST_CG_HYBRID, /* v1 controllers plus a cgroup2 mount */
        HOST_CG_V2,
};

enum host_controller {
        HOST_CTL_MEMORY,
        HOST_CTL_PIDS,
        HOST_CTL_CPU,
        HOST_CTL_MAX,
};

struct host_controller_facts {
        bool usable;              /* a probe cgroup was made and this limit written in it */
        char where[PATH_MAX];     /* the caller's cgroup directory carrying it; "" unknown */
        char why[HOST_TEXT_MAX];  /* when not usable: what stopped it */
        char note[HOST_TEXT_MAX]; /* when usable: anything worth saying ("" none) */
};

struct host_facts {
        const char *arch; /* static: "amd64", "arm64", ... */
        uid_t euid;

        /* The programs a run starts, found the way `bento run` finds them
         * (compile_helper_path(): the absolute path in the variable, else
         * next to this bento): bento-runtime ($BENTO_RUNTIME), the exec
         * gate ($BENTO_EXEC_GATE, for exec: none and none-strict: bento
         * serves it itself unless that names a program, so gate_path says
         * "built into bento" then), the egress proxy hook bento-egress
         * ($BENTO_EGRESS, for network: rules).  *_why says what is wrong
         * when not found. */
        bool runtime_found;
        bool runtime_from_env;
        char runtime_path[PATH_MAX];
        char runtime_why[HOST_TEXT_MAX];
        bool gate_found;
        char gate_path[PATH_MAX];
        char gate_why[HOST_TEXT_MAX];
        bool egress_found;
        char egress_path[PATH_MAX];
        char egress_why[HOST_TEXT_MAX];
        /* a variable that was set but is not used (not absolute); "" none */
        char helpers_note[HOST_TEXT_MAX];

        /* user, mount, pid, net, ipc, uts and cgroup namespaces, created,
         * mapped and with a fresh /proc and a tmpfs mounted inside */
        enum host_ns_verdict ns;
        char ns_why[HOST_TEXT_MAX]; /* for BLOCKED/UNKNOWN */

        bool seccomp_filter;  /* SECCOMP_SET_MODE_FILTER usable by this caller */
        bool seccomp_notify;  /* SECCOMP_FILTER_FLAG_NEW_LISTENER + GET_NOTIF_SIZES */
        bool seccomp_kill_pr; /* SECCOMP_RET_KILL_PROCESS available */
        char seccomp_why[HOST_TEXT_MAX];

        int landlock_abi_kernel; /* what the kernel says; 0: no Landlock */
        int landlock_errata;     /* the errata bitmask; 0 when the kernel cannot tell */
        int landlock_abi;        /* in effect, after the errata rule (docs/doctor.md) */

        enum host_cg_mode cg_mode;
        char cg_why[HOST_TEXT_MAX]; /* a shortfall common to every controller; "" none */
        struct host_controller_facts ctl[HOST_CTL_MAX];

        bool systemd_running; /* PID 1 is systemd (/run/systemd/system) */
        bool systemd_bus;     /* the bus bento-runtime --systemd-cgroup would use exists */
        char systemd_detail[HOST_TEXT_MAX];
        /* Limits go through a transient systemd scope (bento-runtime
         * --systemd-cgroup), not a cgroup bento-runtime makes itself:
         * systemd is running with a bus for this caller on a pure cgroup v2
         * host, where the caller's cgroup belongs to systemd (and a normal
         * user may write only below the cgroup systemd delegated to it). */
        bool cg_systemd;

        bool git; /* git on PATH (the auto-exec report of bento-run(1)) */
        char git_path[PATH_MAX];

        uint64_t probe_usec; /* what host_probe_facts() took */
};

/* Where to look, for tests; NULL members mean the real thing. */
struct host_probe_opts {
        const char *runtime; /* bento-runtime's path instead of the lookup */
        /* Leave the cgroup controllers unprobed (a run that asks for no
         * limit does not need them; the probe makes and removes a cgroup
         * in every hierarchy).  The limits layers then read unavailable,
         * "not probed". */
        bool skip_cgroups;
        /* Leave out the namespace child and take the namespaces as
         * usable: for `bento run`, whose own sandbox is the test (bento-runtime
         * makes every namespace or fails before the target starts; a run
         * that failed so is probed again in full to say why,
         * run/pipeline.c).  Never for doctor, whose answer is the probe's. */
        bool defer_namespaces;
};

/* Look at the host.  Never fails: every sub-probe that cannot run records
 * why in the facts (unknown is reported as unavailable, never guessed).
 * opts may be NULL. */
void host_probe_facts(const struct host_probe_opts *opts, struct host_facts *ret);

/* Facts -> the layer table of docs/doctor.md, "What the probe does, and what it costs" (every layer
 * present). */
void host_probe_judge(const struct host_facts *f, struct host_report *ret);

/* Both, for callers that only want the table; f may be NULL. */
void host_probe(const struct host_probe_opts *opts, struct host_facts *f, struct host_report *ret);

/* The probe on a thread while the caller goes on (probe-async.c).
 * Every started job is finished exactly once; finish waits for it. */
struct host_probe_job {
        pthread_t thread;
        struct host_probe_opts opts;
        struct host_report report;
        bool started, running;
};

void host_probe_start(struct host_probe_job *j, const struct host_probe_opts *opts);
/* ret may be NULL (a run that was refused before it needed the answer). */
void host_probe_finish(struct host_probe_job *j, struct host_report *ret);

/* snprintf() into a fixed text buffer; a text longer than the buffer is
 * cut (the buffers are sized so that only absurd paths get there). */
void host_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* docs/doctor.md, "What the probe does, and what it costs": the Landlock ABI in effect, given what
 * the kernel reports: an ABI of 6 or more without the signal-scope erratum (bit 0x2) counts as 5;
 * below 1 is no Landlock (0). */
int host_landlock_effective_abi(long abi, long errata);

/* Words for the facts, as doctor shows them. */
const char *host_cg_mode_name(enum host_cg_mode m);
const char *host_controller_name(enum host_controller c);

/* ---- the sub-probes (host-probe-*.c), each filling its part of ret ---- */

/* bento-runtime, bento-exec-gate, bento-egress. */
void host_probe_runtime(const struct host_probe_opts *opts, struct host_facts *ret);
void host_probe_namespaces(struct host_facts *ret);
void host_probe_seccomp(struct host_facts *ret);
void host_probe_landlock(struct host_facts *ret);
/* After host_probe_systemd(): whether limits go through systemd depends on
 * its bus. */
void host_probe_cgroups(struct host_facts *ret);
void host_probe_systemd(struct host_facts *ret);
void host_probe_git(struct host_facts *ret);

#endif
