/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layer table (probe.h): names, the report helpers, and the
 * mapping from host facts to a state per layer with its reason and its
 * consequence for a run (docs/doctor.md, "What the probe does, and what it costs" and "The
 * layers"), translated from the original's bwrap + systemd-run design to bento-runtime.
 */
#include "probe.h"
#include "manifest/self.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const layer_names[BENTO_LAYER_MAX] = {
    [BENTO_LAYER_FILESYSTEM] = "filesystem",
    [BENTO_LAYER_NETWORK] = "network",
    [BENTO_LAYER_EXEC_BLOCK] = "exec-block",
    [BENTO_LAYER_EXEC_STRICT] = "exec-strict",
    [BENTO_LAYER_LIMITS_MEMORY] = "limits-memory",
    [BENTO_LAYER_LIMITS_PIDS] = "limits-pids",
    [BENTO_LAYER_LIMITS_CPU] = "limits-cpu",
    [BENTO_LAYER_AUTO_EXEC_REPORT] = "auto-exec-report",
};

const char *bento_layer_name(enum bento_layer l)
{
        return l < BENTO_LAYER_MAX ? layer_names[l] : "?";
}

int bento_layer_from_name(const char *name)
{
        for (int l = 0; l < BENTO_LAYER_MAX; l++)
                if (strcmp(layer_names[l], name) == 0)
                        return l;
        return -1;
}

enum bento_tier bento_layer_tier(enum bento_layer l)
{
        return l == BENTO_LAYER_FILESYSTEM || l == BENTO_LAYER_NETWORK ? BENTO_TIER_CORE
                                                                       : BENTO_TIER_HARDENING;
}

bool bento_layer_report_only(enum bento_layer l)
{
        return l == BENTO_LAYER_AUTO_EXEC_REPORT;
}

const char *bento_state_name(enum bento_layer_state s)
{
        return s == BENTO_STATE_ENFORCED   ? "enforced"
               : s == BENTO_STATE_DEGRADED ? "degraded"
                                           : "unavailable";
}

const char *bento_tier_name(enum bento_tier t)
{
        return t == BENTO_TIER_CORE ? "core" : "hardening";
}

const char *host_cg_mode_name(enum host_cg_mode m)
{
        switch (m) {
        case HOST_CG_V1:
                return "v1";
        case HOST_CG_HYBRID:
                return "v1 (hybrid)";
        case HOST_CG_V2:
                return "v2";
        default:
                return "none";
        }
}

const char *host_controller_name(enum host_controller c)
{
        return c == HOST_CTL_MEMORY ? "memory" : c == HOST_CTL_PIDS ? "pids" : "cpu";
}

const struct layer_status *host_report_get(const struct host_report *r, enum bento_layer l)
{
        static const struct layer_status absent = {.state = BENTO_STATE_UNAVAILABLE,
                                                   .detail = "not reported by the host probe"};

        return l < BENTO_LAYER_MAX && r->present[l] ? &r->layer[l] : &absent;
}

void host_report_set(struct host_report *r, enum bento_layer l, enum bento_layer_state s,
                     const char *detail, const char *consequences)
{
        struct layer_status *x;

        if (l >= BENTO_LAYER_MAX)
                return;
        x = &r->layer[l];
        if (r->present[l] && x->state > s)
                return;
        r->present[l] = true;
        x->state = s;
        snprintf(x->detail, sizeof(x->detail), "%s", detail ? detail : "");
        snprintf(x->consequences, sizeof(x->consequences), "%s", consequences ? consequences : "");
}

void host_report_disclosure(const struct layer_status *s, char *buf, size_t size)
{
        size_t n = strlen(s->detail);
        bool stop = n > 0 && s->consequences[0] && s->detail[n - 1] != '.';

        snprintf(buf, size, "%s%s%s%s", s->detail, stop ? "." : "",
                 n > 0 && s->consequences[0] ? " " : "", s->consequences);
}

bool host_report_fully_enforced(const struct host_report *r)
{
        bool any = false;

        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                if (!r->present[l] || bento_layer_report_only(l))
                        continue;
                if (r->layer[l].state != BENTO_STATE_ENFORCED)
                        return false;
                any = true;
        }
        return any;
}

/* ---- facts -> layers ---- */

void host_fmt(char *buf, size_t size, const char *f, ...)
{
        va_list ap;

        va_start(ap, f);
        vsnprintf(buf, size, f, ap);
        va_end(ap);
}

/* Why the full sandbox cannot be built, bento-runtime's absence first. */
static const char *ns_reason(const struct host_facts *f)
{
        return f->runtime_found ? f->ns_why : f->runtime_why;
}

static bool ns_usable(const struct host_facts *f)
{
        return f->runtime_found && f->ns == HOST_NS_USABLE;
}

/* The Landlock-only tier needs seccomp filters and the amd64 egress and
 * terminal filters (docs/cli/bento-run.md, "ADMISSION"). */
static bool degraded_fences(const struct host_facts *f)
{
        return f->seccomp_filter && strcmp(f->arch, "amd64") == 0;
}

/* What the Landlock-only tier does not confine, by ABI (docs/doctor.md, "What the probe does, and
 * what it costs"). */
static void degraded_consequences(int abi, char *buf, size_t size)
{
        host_fmt(
            buf, size,
            "By default every run is refused. With --allow-degraded a run goes to the "
            "Landlock-only tier: no namespaces; bento's launcher confines the target with "
            "Landlock (its grants and a private scratch HOME and TMPDIR, all else Permission "
            "denied) and seccomp (IP sockets, ptrace, terminal injection and set-id modes "
            "refused; exec: none through the exec gate). That is much weaker: no credential "
            "shield is mounted (one below a read grant stays unreadable because the entries "
            "around it are granted instead; a write grant holding a write shield is refused); "
            "the target sees "
            "the caller's other processes%s; a manifest with network: rules is refused, and "
            "netlink and unix sockets stay open, the host's pathname unix sockets included "
            "(connect() to a socket file is not restricted).%s%s",
            abi >= 6 ? " (Landlock scoping keeps it from signalling them)" : " and can signal them",
            abi >= 3 ? "" : " Files outside the write grants can still be truncated (ABI < 3).",
            abi >= 5 ? "" : " Device ioctls are not restricted (ABI < 5).");
}

static void judge_filesystem(const struct host_facts *f, struct host_report *r)
{
        char why[HOST_TEXT_MAX];

        if (ns_usable(f)) {
                if (f->landlock_abi > 0)
                        host_fmt(why, sizeof(why), "Landlock backstop active (ABI %d)",
                                 f->landlock_abi);
                else
                        host_fmt(
                            why, sizeof(why),
                            "no Landlock backstop on this kernel; bento-runtime's mount namespace "
                            "alone confines");
                host_report_set(r, BENTO_LAYER_FILESYSTEM, BENTO_STATE_ENFORCED, why, NULL);
                return;
        }
        if (f->runtime_found && f->ns == HOST_NS_UNKNOWN) {
                host_fmt(why, sizeof(why), "%s (reported unavailable rather than guessed)",
                         ns_reason(f));
                host_report_set(r, BENTO_LAYER_FILESYSTEM, BENTO_STATE_UNAVAILABLE, why,
                                "Every run is refused, with or without --allow-degraded.");
                return;
        }
        if (f->landlock_abi > 0 && degraded_fences(f)) {
                char cons[HOST_TEXT_MAX];

                host_fmt(why, sizeof(why),
                         "%s Confinement falls back to the Landlock-only tier (Landlock path rules "
                         "plus a seccomp egress block). This is materially weaker than the full "
                         "sandbox.",
                         ns_reason(f));
                degraded_consequences(f->landlock_abi, cons, sizeof(cons));
                host_report_set(r, BENTO_LAYER_FILESYSTEM, BENTO_STATE_DEGRADED, why, cons);
                return;
        }
        if (f->landlock_abi > 0)
                host_fmt(why, sizeof(why),
                         "%s The Landlock-only fallback needs seccomp filters and the amd64 egress "
                         "filter, which this host lacks.",
                         ns_reason(f));
        else
                host_fmt(why, sizeof(why),
                         "%s This kernel has no Landlock either, so no filesystem confinement is "
                         "available at all.",
                         ns_reason(f));
        host_report_set(r, BENTO_LAYER_FILESYSTEM, BENTO_STATE_UNAVAILABLE, why,
                        "Every run is refused, with or without --allow-degraded.");
}

static void judge_network(const struct host_facts *f, struct host_report *r)
{
        char why[HOST_TEXT_MAX];

        if (ns_usable(f) && f->egress_found) {
                host_report_set(r, BENTO_LAYER_NETWORK, BENTO_STATE_ENFORCED, NULL, NULL);
                return;
        }
        if (ns_usable(f)) {
                /* the fence holds; what is missing is the way through it */
                host_report_set(r, BENTO_LAYER_NETWORK, BENTO_STATE_DEGRADED, f->egress_why,
                                "The empty network namespace still fences every run, but the "
                                "egress a manifest's network: rules grant cannot be served: such "
                                "a manifest is refused by default (under --allow-degraded it "
                                "fails when the missing hook is started). A manifest without "
                                "rules is unaffected.");
                return;
        }
        host_fmt(why, sizeof(why), "no network namespace to fence egress into: %s", ns_reason(f));
        host_report_set(r, BENTO_LAYER_NETWORK, BENTO_STATE_UNAVAILABLE, why,
                        "A manifest with network: rules is refused, even under --allow-degraded.");
}

static void judge_exec(const struct host_facts *f, struct host_report *r)
{
        char why[HOST_TEXT_MAX];

        if (f->seccomp_filter && f->seccomp_notify && f->gate_found)
                host_report_set(
                    r, BENTO_LAYER_EXEC_BLOCK, BENTO_STATE_ENFORCED, NULL,
                    "exec: none refuses execve and execveat alike, for the target and everything "
                    "it starts. The one exec let through is bento-runtime's own exec of the "
                    "target, passed by a seccomp user-notification gate before any target code "
                    "runs; if the gate goes away the kernel fails every exec (fail closed). "
                    "Unlike the original there is no execveat seam. fork() itself still works "
                    "under exec: none; none-strict also refuses it.");
        else {
                if (f->seccomp_filter && f->seccomp_notify)
                        host_fmt(why, sizeof(why), "%s", f->gate_why);
                else
                        host_fmt(why, sizeof(why),
                                 "%s bento-runtime blocks exec with a seccomp filter whose exec "
                                 "calls go to a user-notification gate.",
                                 f->seccomp_why[0] ? f->seccomp_why
                                                   : "seccomp user notification is missing.");
                host_report_set(
                    r, BENTO_LAYER_EXEC_BLOCK, BENTO_STATE_UNAVAILABLE, why,
                    "Subprocess blocking cannot be enforced. --strict refuses a manifest "
                    "with exec: none or none-strict; otherwise it is admitted and the "
                    "gap is reported, but bento never runs the target while claiming "
                    "the block: a run whose filter or gate cannot be set up stops "
                    "with an error. exec: all manifests are unaffected.");
        }
        if (f->seccomp_filter && strcmp(f->arch, "amd64") == 0) {
                host_report_set(r, BENTO_LAYER_EXEC_STRICT, BENTO_STATE_ENFORCED, NULL, NULL);
                return;
        }
        if (!f->seccomp_filter)
                host_fmt(why, sizeof(why), "%s",
                         f->seccomp_why[0] ? f->seccomp_why : "seccomp filters are not available.");
        else
                host_fmt(why, sizeof(why),
                         "fork/vfork/process-clone blocking is not implemented for %s; none-strict "
                         "blocks only exec here.",
                         f->arch);
        host_report_set(r, BENTO_LAYER_EXEC_STRICT, BENTO_STATE_UNAVAILABLE, why,
                        "A none-strict manifest runs with only the exec block and the gap is "
                        "reported after the run; --strict refuses it.");
}

static void judge_limits(const struct host_facts *f, struct host_report *r)
{
        static const enum bento_layer layer[HOST_CTL_MAX] = {
            [HOST_CTL_MEMORY] = BENTO_LAYER_LIMITS_MEMORY,
            [HOST_CTL_PIDS] = BENTO_LAYER_LIMITS_PIDS,
            [HOST_CTL_CPU] = BENTO_LAYER_LIMITS_CPU,
        };

        for (int c = 0; c < HOST_CTL_MAX; c++) {
                const struct host_controller_facts *x = &f->ctl[c];
                char why[HOST_TEXT_MAX], cons[HOST_TEXT_MAX];

                if (x->usable) {
                        host_fmt(why, sizeof(why), "cgroup %s%s%s", host_cg_mode_name(f->cg_mode),
                                 x->note[0] ? "; " : "", x->note);
                        host_report_set(r, layer[c], BENTO_STATE_ENFORCED, why, NULL);
                        continue;
                }
                host_fmt(why, sizeof(why), "%s",
                         x->why[0]      ? x->why
                         : f->cg_why[0] ? f->cg_why
                                        : "the probe could not reach this controller");
                host_fmt(cons, sizeof(cons),
                         "A manifest that sets limits.%s is refused by default; --allow-degraded "
                         "waives that and the script runs without that cap; --strict refuses it; "
                         "--run-id is refused.",
                         c == HOST_CTL_MEMORY ? "memory"
                         : c == HOST_CTL_PIDS ? "pids"
                                              : "cpu");
                host_report_set(r, layer[c], BENTO_STATE_UNAVAILABLE, why, cons);
        }
}

void host_probe_judge(const struct host_facts *f, struct host_report *ret)
{
        memset(ret, 0, sizeof(*ret));
        judge_filesystem(f, ret);
        judge_network(f, ret);
        judge_exec(f, ret);
        judge_limits(f, ret);
        ret->limits_systemd = f->cg_systemd;
        if (f->git)
                host_report_set(ret, BENTO_LAYER_AUTO_EXEC_REPORT, BENTO_STATE_ENFORCED, NULL,
                                NULL);
        else
                host_report_set(ret, BENTO_LAYER_AUTO_EXEC_REPORT, BENTO_STATE_UNAVAILABLE,
                                "git is not on PATH",
                                "The report of changed auto-exec files after a run is short "
                                "(git hooks are listed as unresolved); this never refuses a "
                                "run.");
}

static uint64_t now_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

void host_probe_facts(const struct host_probe_opts *opts, struct host_facts *ret)
{
        uint64_t start = now_usec();

        memset(ret, 0, sizeof(*ret));
#if defined(__x86_64__)
        ret->arch = "amd64";
#elif defined(__aarch64__)
        ret->arch = "arm64";
#elif defined(__i386__)
        ret->arch = "386";
#elif defined(__riscv) && __riscv_xlen == 64
        ret->arch = "riscv64";
#else
        ret->arch = "unknown";
#endif
        ret->euid = bento_euid();
        host_probe_runtime(opts, ret);
        host_probe_seccomp(ret);
        host_probe_landlock(ret);
        if (opts && opts->defer_namespaces)
                ret->ns = HOST_NS_USABLE;
        else
                host_probe_namespaces(ret);
        host_probe_systemd(ret);
        if (opts && opts->skip_cgroups)
                for (int c = 0; c < HOST_CTL_MAX; c++)
                        host_fmt(ret->ctl[c].why, sizeof(ret->ctl[c].why),
                                 "not probed: this run asks for no limit");
        else
                host_probe_cgroups(ret);
        host_probe_git(ret);
        ret->probe_usec = now_usec() - start;
}

void host_probe(const struct host_probe_opts *opts, struct host_facts *f, struct host_report *ret)
{
        struct host_facts local;

        if (!f)
                f = &local;
        host_probe_facts(opts, f);
        host_probe_judge(f, ret);
}
