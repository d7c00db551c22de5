/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run pipeline behind `bento run` (run.h, run_pipeline()), in order:
 * the manifest read once (what is checked is what runs), trust warnings,
 * approval, path resolution and every refusal, the pre-run notes, the
 * host probe and admission, then the sandbox in a private run directory,
 * the words about what happened, and cleanup on every path.  The verb
 * (cli/cmd-run.c) only parses the flags into struct run_opts.
 *
 * Exit: the target's own status (128+n for a signal), 125 when bento
 * refused or failed (also when interrupted), 124 when a guarantee the run
 * was admitted on lapsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/admission.h"
#include "policy/alias-scan.h"
#include "approval/name.h"
#include "approval/approval.h"
#include "cleanup.h"
#include "report/text.h"
#include "compile/compile.h"
#include "approval/fingerprint.h"
#include "blocked.h"
#include "degraded.h"
#include "exec-record.h"
#include "manifest/path.h"
#include "run.h"
#include "manifest/trust.h"

/* docs/cli/bento-run.md, "JSON OUTPUT": stdout failed part way; the outcome goes unreported there.
 */
static int stream_lost(int e)
{
        fprintf(stderr,
                "[bento] the JSON event stream could not be written (%s), so what is on stdout "
                "is truncated - the outcome is not reported there.\n",
                strerror(e ? e : EIO));
        return BENTO_EXIT_REFUSED;
}

/* What a refusal needs to be told in both output modes. */
int run_refuse(const struct run_opts *o, const char *reason, const struct host_report *report)
{
        static const struct host_report none;

        if (o->json) {
                errno = 0;
                if (run_event_refusal(reason, report ? report : &none) < 0)
                        return stream_lost(errno);
                return BENTO_EXIT_REFUSED;
        }
        text_print_wrapped(stderr, reason, 78 - 7, "bento: refusing to run: ", "       ");
        return BENTO_EXIT_REFUSED;
}

/* docs/cli/bento-run.md, "NOTES", docs/manifest.md, "PROVENANCE": a rule that covers a destination
 * the egress guard refused before will be refused again (it resolves into space the sandbox must
 * not reach).  Entries are "host:port", IPv6 hosts bracketed. */
static void blocked_host_notes(const struct manifest *m)
{
        for (size_t i = 0; i < m->provenance.n_blocked_hosts; i++) {
                cleanup_free char *entry = strdup(m->provenance.blocked_hosts[i]);
                char *colon = entry ? strrchr(entry, ':') : NULL;
                char *host = entry;

                if (!colon || colon == entry || !colon[1]) {
                        fprintf(stderr,
                                "[bento] note: provenance.blocked-hosts entry \"%s\" is not "
                                "host:port; it was probably edited by hand and is ignored.\n",
                                m->provenance.blocked_hosts[i]);
                        continue;
                }
                *colon = '\0';
                if (host[0] == '[' && colon[-1] == ']') {
                        host++;
                        colon[-1] = '\0';
                }
                if (manifest_network_allows(m, host, colon + 1))
                        fprintf(stderr,
                                "[bento] note: network \"%s\" port \"%s\" covers a destination "
                                "the egress guard refused before (it resolved to loopback, "
                                "private, link-local or metadata space); this run will refuse it "
                                "too.\n",
                                host, colon + 1);
        }
}

/* docs/manifest.md, "ENVIRONMENT" and docs/cli/bento-run.md, "NOTES": names the target will not
 * see, and grants that look like mistakes. */
static void pre_run_notes(const struct policy *p, const struct run_opts *o)
{
        const struct manifest *m = p->m;

        for (size_t i = 0; i < m->n_env; i++) {
                bool given = getenv(m->env[i]) != NULL;

                for (size_t k = 0; !given && k < o->n_env; k++)
                        given = strncmp(o->env[k], m->env[i], strlen(m->env[i])) == 0 &&
                                o->env[k][strlen(m->env[i])] == '=';
                if (!given)
                        fprintf(stderr,
                                "[bento] note: env %s is allowed by the manifest but not set on "
                                "this host; the script will not see it. Pass it with --env "
                                "%s=VALUE.\n",
                                m->env[i], m->env[i]);
        }
        for (size_t i = 0; i < p->n_reads; i++)
                if (!p->reads[i].exists && p->reads[i].stat_errno == ENOENT)
                        fprintf(stderr,
                                "[bento] note: the read grant \"%s\" names nothing on this host; "
                                "harmless if the script creates it, otherwise a typo or a moved "
                                "directory that will look like a permission problem.\n",
                                p->reads[i].written);
        for (size_t i = 0; i < p->n_writes; i++) {
                const char *base = strrchr(p->writes[i].expanded, '/');
                const char *dot = base ? strrchr(base + 1, '.') : NULL;

                if (!p->writes[i].exists && dot && dot != base + 1 && dot[1])
                        fprintf(stderr,
                                "[bento] note: the write grant \"%s\" is spelled like a file; "
                                "bento creates a directory of that name, so the script's own "
                                "write to it fails with \"is a directory\". Grant its parent "
                                "directory instead.\n",
                                p->writes[i].written);
        }
        blocked_host_notes(m);
}

struct json_sink {
        int lost; /* the errno that broke the stream, 0 while it works */
};

/* Once the stream is broken the rest of the output is drained and
 * dropped, so the target still runs to its end and is cleaned up. */
static void forward_output(int stream, const char *data, size_t len, void *userdata)
{
        struct json_sink *s = userdata;

        errno = 0;
        if (!s->lost && run_event_output(stream, data, len) < 0)
                s->lost = errno ? errno : EIO;
}

/* --json: the target's stdout and stderr go to pipes bento reads, each chunk
 * an output event (forward_output into sink). */
static int json_stdio(int out_pipe[2], int err_pipe[2], struct json_sink *sink,
                      struct run_stdio *io, struct bento_err *err)
{
        if (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0)
                return bento_err_set(err, errno, "pipes");
        *io = (struct run_stdio){.in_fd = -1,
                                 .out_fd = out_pipe[1],
                                 .err_fd = err_pipe[1],
                                 .out_pipe = out_pipe[0],
                                 .err_pipe = err_pipe[0],
                                 .on_output = forward_output,
                                 .userdata = sink,
                                 .observe_fd = -1,
                                 .observe_pipe = -1};
        return 0;
}

/* The backend's account merged into the report, worse wins (docs/cli/bento-run.md, "ADMISSION"). */
static void merge_backend(struct admission *a, const struct run_outcome *out,
                          const struct manifest *m)
{
        if (!out->started)
                return;
        if (!out->landlock_applied)
                host_report_set(&a->report, BENTO_LAYER_FILESYSTEM, BENTO_STATE_DEGRADED,
                                "the Landlock backstop was not applied to this run", NULL);
        if (m->exec != MANIFEST_EXEC_ALL && !out->seccomp_applied)
                host_report_set(&a->report, BENTO_LAYER_EXEC_BLOCK, BENTO_STATE_UNAVAILABLE,
                                "the runtime did not install the exec filter", NULL);
}

struct run_ctx {
        struct run_opts o;
        enum admission_posture posture;
        struct admission_needs needs;
        struct admission a;
        struct trust_loaded l;
        struct approval_name name;   /* how the manifest's name reached it */
        struct host_probe_job probe; /* on its own thread from prepare() to admit() */
        /* The probe took the namespaces as usable, leaving the proof to
         * bento-runtime (host/probe.h, defer_namespaces; run_admitted()). */
        bool ns_deferred;
        struct policy *p;
        struct run_dir d;
        struct run_gate gate;
        struct run_launch launch; /* the runtime, waiting for its go */
        struct run_outcome out;
        struct run_egress egress;
        struct run_autoexec autoexec;
        struct alias_scan accepted;         /* aliases under the --accept-alias trees */
        struct run_blocked blocked;         /* what the run recorded in provenance */
        struct run_exec_record exec_record; /* --record-exec */
        struct run_degraded degraded;       /* the Landlock-only tier's account */
        char **env;
        int json_lost; /* --json: the errno that broke stdout, 0 if none */
        int std[3];    /* the screened standard descriptors (-1: closed) */
};

static void ctx_done(struct run_ctx *c)
{
        host_probe_finish(&c->probe, NULL);
        run_egress_done(&c->egress);
        run_autoexec_done(&c->autoexec);
        alias_scan_done(&c->accepted);
        run_blocked_done(&c->blocked);
        run_exec_record_done(&c->exec_record);
        run_degraded_done(&c->degraded);
        for (size_t i = 0; i < c->o.n_accept_alias; i++)
                free(c->o.accept_alias[i]);
        run_outcome_done(&c->out);
        run_launch_cancel(&c->launch);
        run_gate_stop(&c->gate);
        run_dir_cleanup(&c->d);
        policy_free(c->p);
        trust_loaded_done(&c->l);
        approval_name_done(&c->name);
        strv_free(c->env);
        free(c->o.network_gate_real);
}

/* docs/cli/bento-run.md, before the manifest is read: each --env value is a pair. */
static int check_env_syntax(const struct run_opts *o)
{
        for (size_t i = 0; i < o->n_env; i++) {
                const char *eq = strchr(o->env[i], '=');
                cleanup_free char *msg = NULL;

                if (eq && eq != o->env[i])
                        continue;
                if (asprintf(&msg, "--env \"%s\": want NAME=VALUE", o->env[i]) < 0)
                        msg = NULL;
                return run_refuse(o, msg ? msg : "--env: want NAME=VALUE", NULL);
        }
        return 0;
}

/* docs/cli/bento-run.md: each --env name is one the manifest allows. */
static int check_env_allowed(const struct run_opts *o, const struct manifest *m)
{
        for (size_t i = 0; i < o->n_env; i++) {
                size_t len = (size_t) (strchr(o->env[i], '=') - o->env[i]);
                cleanup_free char *msg = NULL;
                bool listed = false;

                for (size_t k = 0; k < m->n_env; k++)
                        listed |=
                            strlen(m->env[k]) == len && strncmp(m->env[k], o->env[i], len) == 0;
                if (listed)
                        continue;
                if (asprintf(&msg,
                             "--env %.*s: \"%.*s\" is not in the manifest's env allowlist; add "
                             "it to `env:` (and approve the manifest again) to pass it",
                             (int) len, o->env[i], (int) len, o->env[i]) < 0)
                        msg = NULL;
                return run_refuse(
                    o, msg ? msg : "--env names a variable the manifest does not allow", NULL);
        }
        return 0;
}

/* A name that reaches another file than this host approved under it
 * (approval/name.h): refused before the file is even opened, or under
 * --allow-unapproved run as it leads now, with a note. */
static int check_name(const struct run_ctx *c, bool loaded)
{
        cleanup_free char *why = approval_name_problem(&c->name, c->o.manifest);
        cleanup_free char *msg = NULL;

        if (approval_name_ok(&c->name))
                return 0;
        if (loaded) {
                if (asprintf(&msg,
                             "note: %s. Running what it points to now, as "
                             "--allow-unapproved asks.",
                             why ? why : "the manifest's name is not the one approved") >= 0)
                        text_print_wrapped(stderr, msg, 78, "[bento] ", "[bento] ");
                return 0;
        }
        if (why && asprintf(&msg,
                            "%s, or pass --allow-unapproved to run what it points to without "
                            "an approval",
                            why) < 0)
                msg = NULL;
        return run_refuse(&c->o, msg ? msg : "the manifest's name is not the one approved", NULL);
}

/* A run that asks for no limit leaves the cgroup controllers unprobed. */
static bool asks_no_limit(const struct run_ctx *c)
{
        return !c->needs.memory && !c->needs.pids && !c->needs.cpu;
}

/* Load, check approval, resolve: every refusal that needs no probe. */
static int prepare(struct run_ctx *c)
{
        struct manifest_problems problems = {0};
        struct bento_err err = {0};
        struct approval_status st;
        cleanup_free char *msg = NULL, *notes = NULL, *refusal = NULL;
        int r;

        r = approval_load(c->o.manifest, c->o.allow_unapproved, &c->name, &c->l, &problems, &err);
        if (r < 0) {
                msg = manifest_load_error(c->o.manifest, &problems, &err);
                manifest_problems_done(&problems);
                return run_refuse(&c->o, msg ? msg : err.msg, NULL);
        }
        if (check_name(c, r == 0) != 0)
                return BENTO_EXIT_REFUSED;
        approval_check(c->l.m, c->l.trust.real_path, &st);
        notes = approval_notes(&st, &c->l.trust);
        if (notes)
                fputs(notes, stderr);
        if (st.state != MANIFEST_APPROVAL_CURRENT && !c->o.allow_unapproved) {
                refusal = approval_refusal(st.state, c->o.manifest);
                /* approval_refusal() already says "refusing to run: ", which
                 * the human form adds itself; the JSON reason keeps it whole. */
                if (refusal && !c->o.json && strncmp(refusal, "refusing to run: ", 17) == 0)
                        return run_refuse(&c->o, refusal + 17, NULL);
                return run_refuse(&c->o, refusal ? refusal : "the manifest is not approved", NULL);
        }
        if (check_env_allowed(&c->o, c->l.m) != 0)
                return BENTO_EXIT_REFUSED;
        /* The manifest says what to probe; the probe runs while the paths
         * are resolved (host/probe-async.c). */
        admission_needs_of(c->l.m, c->o.run_id != NULL, &c->needs);
        /* a gate needs the egress stack, and so the network layer, even
         * without a rule */
        if (c->o.network_gate)
                c->needs.network_rules = true;
        c->ns_deferred = true;
        host_probe_start(&c->probe, &(struct host_probe_opts){.skip_cgroups = asks_no_limit(c),
                                                              .defer_namespaces = true});
        /* One memo of the host's answers for both (manifest/path.h): the alias
         * scan looks at the credential stores the shields just looked at. */
        path_cache_begin();
        if (policy_resolve(c->l.m, NULL, &c->p, &err) < 0) {
                path_cache_end();
                return run_refuse(&c->o, err.msg, NULL);
        }
        refusal = policy_refusal(c->p);
        if (!refusal)
                refusal = alias_scan_refusal(c->p, c->o.accept_alias, c->o.n_accept_alias,
                                             &c->accepted, &err);
        path_cache_end();
        if (refusal || err.code)
                return run_refuse(&c->o, refusal ? refusal : err.msg, NULL);
        if (run_network_gate_check(&c->o, c->p, &err) < 0)
                return run_refuse(&c->o, err.msg, NULL);
        return 0;
}

/* docs/degraded.md: the Landlock-only tier refuses what it cannot shield,
 * cannot watch execs (--record-exec), and has no network layer. */
static int admit_degraded(struct run_ctx *c)
{
        cleanup_free char *refusal = run_degraded_refusal(c->p);

        static const enum bento_layer limits[] = {BENTO_LAYER_LIMITS_MEMORY,
                                                  BENTO_LAYER_LIMITS_PIDS, BENTO_LAYER_LIMITS_CPU};

        if (refusal)
                return run_refuse(&c->o, refusal, &c->a.report);
        if (c->o.run_id)
                return run_refuse(&c->o,
                                  "a run id names the capped cgroup of a run, and the "
                                  "Landlock-only tier makes no cgroup: drop --run-id",
                                  &c->a.report);
        /* no cgroup: a limit the manifest sets is not applied, and says so
         * (--allow-degraded waives limits, as it does on any host that
         * cannot apply them) */
        for (size_t i = 0; i < 3; i++)
                if (c->a.required[limits[i]])
                        host_report_set(&c->a.report, limits[i], BENTO_STATE_UNAVAILABLE,
                                        "the Landlock-only tier makes no cgroup, so this limit "
                                        "is not applied",
                                        NULL);
        if (c->exec_record.wanted) {
                c->exec_record.watched = false;
                c->exec_record.reason = "this run is on the Landlock-only tier, which does not "
                                        "record execs";
        }
        host_report_set(&c->a.report, BENTO_LAYER_NETWORK, BENTO_STATE_UNAVAILABLE,
                        "this run was launched on the Landlock-only tier, which has no network "
                        "namespace; the launcher refuses IP sockets with seccomp instead",
                        NULL);
        return 0;
}

/* The decision on what the probe found: refused (said here), or the tier
 * and what the bundle leaves out. */
static int admit_on(struct run_ctx *c, const struct host_report *probe)
{
        cleanup_free char *text = NULL;

        admission_decide(probe, &c->needs, c->posture, &c->a);
        /* the run's report has only the layers the manifest needs: the
         * gate's availability comes from the probe itself */
        run_exec_record_plan(&c->exec_record, c->o.record_exec, c->needs.exec, probe);
        /* Without git on this host the report keeps saying it cannot tell
         * where hooks live (docs/doctor.md, "The layers"). */
        c->autoexec.without_git =
            host_report_get(probe, BENTO_LAYER_AUTO_EXEC_REPORT)->state != BENTO_STATE_ENFORCED;
        if (c->a.outcome == ADMISSION_REFUSED) {
                if (c->o.json)
                        return run_refuse(&c->o, c->a.reason, &c->a.report);
                text = admission_refusal_text(&c->a);
                fputs(text ? text : c->a.reason, stderr);
                return BENTO_EXIT_REFUSED;
        }
        /* Admitted with the exec block unenforceable (a hardening gap, docs/cli/bento-run.md,
         * "ADMISSION"): the run goes ahead without the gate and reports the gap. */
        c->o.no_exec_gate =
            c->needs.exec != MANIFEST_EXEC_ALL &&
            host_report_get(&c->a.report, BENTO_LAYER_EXEC_BLOCK)->state != BENTO_STATE_ENFORCED;
        /* Limits were judged for a systemd scope (host/probe-cgroup.c): the
         * run's cgroup is one, named after the run. */
        c->o.systemd_cgroup =
            probe->limits_systemd && (c->needs.memory || c->needs.pids || c->needs.cpu);
        if (c->a.outcome == ADMISSION_DEGRADED)
                return admit_degraded(c);
        return 0;
}

static int admit(struct run_ctx *c)
{
        struct host_report probe;

        host_probe_finish(&c->probe, &probe);
        return admit_on(c, &probe);
}

/* The limits the bundle caps: those the host enforces.  Admission let the
 * others go only under --allow-degraded (docs/cli/bento-run.md, "ADMISSION"), and the run then
 * goes unbounded in them and reports so. */
static void applied_limits(const struct run_ctx *c, struct manifest_limits *l)
{
        const struct host_report *r = &c->a.report;

        *l = c->l.m->limits;
        if (host_report_get(r, BENTO_LAYER_LIMITS_MEMORY)->state != BENTO_STATE_ENFORCED)
                l->memory_bytes = 0;
        if (host_report_get(r, BENTO_LAYER_LIMITS_CPU)->state != BENTO_STATE_ENFORCED)
                l->cpu_hundredths = 0;
        if (host_report_get(r, BENTO_LAYER_LIMITS_PIDS)->state != BENTO_STATE_ENFORCED)
                l->has_pids = false;
}

/* From the run directory on, bento makes things it must remove: a SIGINT
 * or SIGTERM that arrives while the bundle is being written stays pending
 * until the sandbox's wait takes it (run/sandbox.c) and cancels the run. */
static void hold_stop_signals(void)
{
        sigset_t set;

        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, NULL);
}

/* The runtime has waited for the target, and deletes the sandbox now:
 * what finish() needs the sandbox gone for starts here meanwhile.  The
 * mount points go: an empty .git bento made is not a repository for the
 * auto-exec comparison to read. */
static void sandbox_gone(void *userdata)
{
        struct run_ctx *c = userdata;

        run_remove_mount_points(&c->d);
}

static int sandbox(struct run_ctx *c, struct bento_err *err)
{
        struct manifest_limits limits;
        struct json_sink sink = {0};
        int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
        struct run_stdio io = {
            .out_pipe = -1, .err_pipe = -1, .observe_fd = -1, .observe_pipe = -1};
        char fp[65];
        cleanup_free char *cgroups_path = NULL;
        int r;

        io.in_fd = c->std[0];
        io.out_fd = c->std[1];
        io.err_fd = c->std[2];
        hold_stop_signals();
        r = run_dir_make(&c->d, c->p, false, err);
        /* Missing write grants are made (and the policy resolved again)
         * before anything looks at them. */
        if (r >= 0)
                r = policy_prepare_writes(&c->p, err);
        if (r < 0)
                return r;
        if (c->o.systemd_cgroup && !(cgroups_path = run_sandbox_cgroups_path(&c->o, &c->d)))
                r = bento_err_set(err, ENOMEM, "the run's scope name");
        /* The gate comes up while the bundle is written (run/gate.c); in
         * record mode for a watched --record-exec. */
        if (r >= 0 && c->exec_record.watched)
                r = run_gate_spawn(&c->gate, c->d.gate_socket, c->d.exec_record, err);
        else if (r >= 0 && c->l.m->exec != MANIFEST_EXEC_ALL && !c->o.no_exec_gate)
                r = run_gate_spawn(&c->gate, c->d.gate_socket, NULL, err);
        struct compile_opts co = {
            .bundle_dir = c->d.bundle,
            .rootfs_dir = c->d.rootfs,
            .listener_path = c->d.gate_socket,
            .egress_report = c->d.egress_log,
            .env_overrides = c->o.env,
            .n_env_overrides = c->o.n_env,
            .fingerprint = fp,
            .approval = manifest_approval_to_string(manifest_approval_state(c->l.m)),
            .no_exec_gate = c->o.no_exec_gate,
            .record_exec = c->exec_record.watched,
            .init_status = true,
            .limits = &limits,
            .hooks_log = c->d.hooks_log,
            .network_gate = c->o.network_gate_real,
            .network_gate_timeout = c->o.network_gate_timeout,
            .cgroups_path = cgroups_path,
        };
        applied_limits(c, &limits);
        c->o.no_cgroup = !c->o.run_id && !c->o.systemd_cgroup && !compile_caps_anything(&limits);
        c->o.init_status = compile_has_init(c->p, &co);
        if (r >= 0 && c->o.json && json_stdio(out_pipe, err_pipe, &sink, &io, err) < 0)
                r = -err->code;
        /* The runtime starts now too, and waits for its go (run_sandbox()) while
         * the bundle is written: its own start is off the run's path. */
        if (r >= 0)
                r = run_sandbox_launch(&c->o, &c->d, &io, &c->launch, err);
        if (r >= 0)
                r = manifest_fingerprint(c->l.m, fp, err);
        if (r >= 0)
                r = compile_env(c->p, &co, &c->env, err);
        if (r >= 0)
                r = compile_bundle(c->p, &co, err);
        if (r >= 0)
                r = run_autoexec_snapshot(c->p, &c->autoexec, err);
        /* Now bento, not the runtime, makes the shield mount points, so it
         * knows exactly what to remove: after the write grants exist (their
         * workspace shields are known) and after the snapshot, which is of
         * the grants as the host left them (an empty .git bento made is no
         * repository to read hooks of). */
        if (r >= 0)
                r = run_dir_make_mount_points(&c->d, c->p, err);
        if (r >= 0)
                r = run_sandbox(&c->o, &c->d, &(struct run_ahead){&c->gate, &c->launch}, &io,
                                &(struct run_on_exit){sandbox_gone, c}, &c->out, err);
        for (int i = 0; i < 2; i++) {
                if (out_pipe[i] >= 0)
                        close(out_pipe[i]);
                if (err_pipe[i] >= 0)
                        close(err_pipe[i]);
        }
        c->json_lost = sink.lost;
        if (sink.lost)
                return bento_err_setx(err, EIO, "the JSON event stream could not be written");
        return r;
}

/* The Landlock-only tier (degraded.h): no bundle, no runtime, no mounts;
 * the launcher confines itself and becomes the target. */
static int sandbox_degraded(struct run_ctx *c, struct bento_err *err)
{
        struct json_sink sink = {0};
        int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
        struct run_stdio io = {.in_fd = c->std[0],
                               .out_fd = c->std[1],
                               .err_fd = c->std[2],
                               .out_pipe = -1,
                               .err_pipe = -1,
                               .observe_fd = -1,
                               .observe_pipe = -1};
        struct compile_opts co = {.env_overrides = c->o.env, .n_env_overrides = c->o.n_env};
        cleanup_free char *refusal = NULL;
        int r;

        hold_stop_signals();
        r = run_dir_make(&c->d, c->p, true, err);
        if (r >= 0 && c->l.m->exec != MANIFEST_EXEC_ALL && !c->o.no_exec_gate)
                r = run_gate_spawn(&c->gate, c->d.gate_socket, NULL, err);
        if (r >= 0)
                r = policy_prepare_writes(&c->p, err);
        /* a write directory bento just made may hold nothing to shield,
         * but the policy was resolved again: ask again */
        if (r >= 0 && (refusal = run_degraded_refusal(c->p)))
                r = bento_err_setx(err, EPERM, "%s", refusal);
        if (r >= 0)
                r = compile_env(c->p, &co, &c->env, err);
        if (r >= 0)
                r = run_degraded_env(&c->degraded, &c->d, c->p, &c->o, &c->env, err);
        if (r >= 0)
                r = run_autoexec_snapshot(c->p, &c->autoexec, err);
        if (r >= 0 && c->o.json)
                r = json_stdio(out_pipe, err_pipe, &sink, &io, err);
        c->degraded.gate_socket = c->d.gate_socket;
        if (r >= 0)
                r = run_degraded(&c->degraded, c->p, &c->gate, &io, c->env, &c->out, err);
        for (int i = 0; i < 2; i++) {
                if (out_pipe[i] >= 0)
                        close(out_pipe[i]);
                if (err_pipe[i] >= 0)
                        close(err_pipe[i]);
        }
        if (r >= 0)
                r = run_degraded_exposure(&c->degraded, c->p, err);
        c->json_lost = sink.lost;
        if (sink.lost)
                return bento_err_setx(err, EIO, "the JSON event stream could not be written");
        return r;
}

/* What the run says at its end: the notes, the verdict and the exit code. */
static int report(struct run_ctx *c, int r, const struct bento_err *err)
{
        struct bento_err ignored = {0};
        struct run_view v = {.p = c->p,
                             .o = &c->o,
                             .out = &c->out,
                             .a = &c->a,
                             .egress = &c->egress,
                             .autoexec = &c->autoexec,
                             .accepted = &c->accepted,
                             .env = c->env,
                             .exec_record = &c->exec_record,
                             .degraded = c->a.outcome == ADMISSION_DEGRADED ? &c->degraded : NULL};

        if (c->autoexec.hooks)
                (void) run_autoexec_compare(c->p, &c->autoexec, &ignored);
        merge_backend(&c->a, &c->out, c->l.m);
        run_egress_judge(&c->egress, &c->a.report);
        if (c->json_lost)
                return stream_lost(c->json_lost);
        if (r < 0 || c->out.cancelled) {
                const char *why = c->out.cancelled ? "the run was cancelled before the target "
                                                     "finished: context canceled (interrupted)"
                                                   : err->msg;

                if (c->o.json)
                        (void) run_event_failed(why, &v);
                fprintf(stderr, "bento: %s\n", why);
                return BENTO_EXIT_REFUSED;
        }
        v.shortfall = admission_shortfall(&c->a.report, &c->needs, c->posture);
        /* docs/manifest.md, "PROVENANCE": a completed run records what the guard refused. */
        (void) run_blocked_record(&c->l, &c->egress, &c->blocked);
        v.blocked = &c->blocked;
        if (c->o.json) {
                run_blocked_note(&c->blocked);
                errno = 0;
                if (run_event_verdict(&v) < 0)
                        return stream_lost(errno);
        } else {
                run_report_human(&v);
        }
        return v.shortfall ? ADMISSION_EXIT_SHORTFALL : c->out.exit_code;
}

static int finish(struct run_ctx *c, int r, const struct bento_err *err)
{
        if (c->d.egress_log)
                (void) run_egress_settle(c->d.egress_log, &c->egress, &(struct bento_err){0});
        /* The sandbox is gone: remove the shield mount points it left in
         * the write grants before the comparison, so that an empty .git
         * bento made is not taken for a repository (nor its hooks read). */
        run_remove_mount_points(&c->d);
        /* The gate is gone by now (run_sandbox() stopped it): its record
         * is whole only if it wrote its end line. */
        if (c->exec_record.watched)
                run_exec_record_read(c->d.exec_record, c->out.started, &c->exec_record);
        /* Nothing below reads the run directory. */
        run_dir_cleanup(&c->d);
        return report(c, r, err);
}

/* A full-tier attempt that never started the target, undone so that the
 * run can be refused or go to the Landlock-only tier as if it had not been
 * made: its run directory, gate, outcome and snapshot. */
static void undo_attempt(struct run_ctx *c)
{
        run_gate_stop(&c->gate);
        run_dir_cleanup(&c->d);
        run_outcome_done(&c->out);
        c->out = (struct run_outcome){0};
        run_autoexec_done(&c->autoexec);
        c->autoexec = (struct run_autoexec){0};
        strv_free(c->env);
        c->env = NULL;
}

/* Was bento-runtime's failure one the host may be behind: the namespaces
 * were only assumed, and the sandbox failed before the target started? */
static bool host_may_explain(const struct run_ctx *c, int r)
{
        return r < 0 && c->ns_deferred && !c->out.started && !c->out.cancelled && !c->json_lost;
}

/* The sandbox admission chose, and its outcome in words (finish()).
 *
 * Admission took the namespaces as usable without making them in a child
 * of its own (host/probe.h, defer_namespaces): bento-runtime makes every
 * one the bundle lists, or fails before the target starts.  When it failed
 * so, the full probe is run now.  If the host is why, the run ends as a
 * probe up front would have ended it, in the same words and the same JSON:
 * refused, or (--allow-degraded) on the Landlock-only tier; otherwise the
 * runtime's own failure stands. */
static int run_admitted(struct run_ctx *c)
{
        struct bento_err err = {0};
        struct host_report probe;
        struct admission *again;
        bool host_is_why;
        int r;

        if (c->a.outcome == ADMISSION_DEGRADED)
                return finish(c, sandbox_degraded(c, &err), &err);
        r = sandbox(c, &err);
        if (!host_may_explain(c, r))
                return finish(c, r, &err);
        host_probe(&(struct host_probe_opts){.skip_cgroups = asks_no_limit(c)}, NULL, &probe);
        c->ns_deferred = false;
        again = calloc(1, sizeof(*again));
        if (!again)
                return finish(c, r, &err);
        admission_decide(&probe, &c->needs, c->posture, again);
        host_is_why = again->outcome != ADMISSION_FULL;
        free(again);
        if (!host_is_why)
                return finish(c, r, &err);
        undo_attempt(c);
        err = (struct bento_err){0};
        r = admit_on(c, &probe);
        if (r != 0)
                return r;
        return finish(c, sandbox_degraded(c, &err), &err);
}

int run_pipeline(struct run_opts *o)
{
        struct run_ctx c = {.o = *o, .gate = RUN_GATE_INIT, .launch = RUN_LAUNCH_INIT};
        struct bento_err err = {0};
        int r;

        /* A reader that goes away must not kill bento mid-run (the sandbox
         * and run directory would be left): writes fail with EPIPE instead.
         * Children get the default back (run_spawn). */
        signal(SIGPIPE, SIG_IGN);
        if (admission_posture_from_flags(c.o.strict, c.o.allow_degraded, &c.posture, &err) < 0 ||
            (c.o.run_id && admission_check_run_id(c.o.run_id, &err) < 0))
                r = run_refuse(&c.o, err.msg, NULL);
        else
                r = check_env_syntax(&c.o);
        if (r == 0)
                r = prepare(&c);
        if (r == 0 && run_screen_stdio(c.std, &err) < 0)
                r = run_refuse(&c.o, err.msg, NULL);
        if (r == 0) {
                pre_run_notes(c.p, &c.o);
                r = admit(&c);
        }
        if (r == 0)
                r = run_admitted(&c);
        ctx_done(&c);
        return r;
}
