/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One observed run (docs/profile.md, "What runs"): the same path as `bento run` (resolve,
 * the credential-alias scan, the host probe, a private run directory, the bundle,
 * bento-runtime), with the bundle made for profiling (compile/compile.h, struct
 * compile_profile) and the observer's report read from a pipe while the target runs, so a
 * report larger than the pipe cannot stall the observer.
 *
 * Everything the report says came from inside the sandbox: it is stored as bytes, capped,
 * and only parsed later (by the proposal), never used to name a host path here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "host/admission.h"
#include "manifest/path.h"
#include "policy/alias-scan.h"
#include "profile.h"
#include "session.h"

void profile_round_done(struct profile_round *r)
{
        shield_set_free(r->shields);
        free(r->report);
        run_outcome_done(&r->out);
        run_egress_done(&r->egress);
        *r = (struct profile_round){0};
}

struct round_ctx {
        const struct profile_run_opts *o;
        struct policy *p;
        struct alias_scan accepted;
        struct run_dir d;
        struct run_gate gate;
        struct profile_round *ret;
        struct host_probe_job probe; /* started before the resolution, which it overlaps */
        int std[3];
        int report_pipe[2];
};

static void ctx_done(struct round_ctx *c)
{
        host_probe_finish(&c->probe, NULL);
        for (int i = 0; i < 2; i++)
                if (c->report_pipe[i] >= 0)
                        close(c->report_pipe[i]);
        run_gate_stop(&c->gate);
        run_dir_cleanup(&c->d);
        alias_scan_done(&c->accepted);
        policy_free(c->p);
}

/* The report, kept as it came; past the cap the rest is drained and dropped (the
 * observer must not block), and the round says so. */
static void on_output(int stream, const char *data, size_t len, void *userdata)
{
        struct round_ctx *c = userdata;
        struct profile_round *r = c->ret;
        char *grown;

        if (stream != RUN_STREAM_OBSERVE)
                return;
        if (r->report_len + len > c->o->report_max) {
                r->report_truncated = true;
                return;
        }
        grown = realloc(r->report, r->report_len + len + 1);
        if (!grown) {
                r->report_truncated = true;
                return;
        }
        memcpy(grown + r->report_len, data, len);
        r->report_len += len;
        grown[r->report_len] = '\0';
        r->report = grown;
}

/* A failure before anything ran is a refusal (exit 125): the message stays, the code says
 * so. */
static int refused(struct bento_err *err)
{
        err->code = EPERM;
        return -EPERM;
}

/* This host's shield set (for the process's HOME, uid and passwd, as policy_resolve() would
 * build it), into the round.  A host without a usable home gets none: the policy then builds
 * its own and says why, as for any run. */
static int host_shields(struct profile_round *ret, struct bento_err *err)
{
        struct shield_env own = {.uid = getuid()};
        struct bento_err ignored = {0};

        if (shields_build(&own, &ret->shields, &ignored) == -ENOMEM)
                return bento_err_set(err, ENOMEM, "shields");
        return 0;
}

/* Resolve and every refusal a run would make before it starts.  One memo of the host's
 * answers (manifest/path.h) for the shields, the policy and the alias scan. */
static int resolve(struct round_ctx *c, const struct manifest *m, struct bento_err *err)
{
        cleanup_free char *refusal = NULL;

        path_cache_begin();
        if (host_shields(c->ret, err) < 0 ||
            policy_resolve(m, &(struct policy_host){.shields = c->ret->shields}, &c->p, err) < 0) {
                path_cache_end();
                return refused(err);
        }
        refusal = policy_refusal(c->p);
        if (!refusal)
                refusal = alias_scan_refusal(c->p, c->o->accept_alias, c->o->n_accept_alias,
                                             &c->accepted, err);
        path_cache_end();
        if (refusal)
                return bento_err_setx(err, EPERM, "%s", refusal);
        return err->code ? -err->code : 0;
}

/* Profiling has no reduced tier: the full sandbox or nothing. */
static int admit(struct round_ctx *c, const struct manifest *m, struct bento_err *err)
{
        struct admission_needs needs;
        struct host_report probe;
        struct admission a;

        admission_needs_of(m, false, &needs);
        host_probe_finish(&c->probe, &probe);
        admission_decide(&probe, &needs, ADMISSION_STRICT, &a);
        if (a.outcome == ADMISSION_FULL &&
            host_report_get(&a.report, BENTO_LAYER_FILESYSTEM)->state == BENTO_STATE_ENFORCED)
                return 0;
        return bento_err_setx(err, EPERM,
                              "refusing to profile: a core guarantee cannot be fully enforced on "
                              "this host (%s). Profiling always needs the full sandbox, because "
                              "the target is untrusted and watched while it runs; run `bento "
                              "doctor` for what is missing",
                              a.reason[0] ? a.reason : "the filesystem layer is not enforced");
}

/* The real home, covered by an empty tmpfs in the box; NULL when $HOME is not a directory
 * one could cover. */
static char *home_to_cover(void)
{
        const char *home = getenv("HOME");
        char *real = NULL;
        struct stat st;

        if (!home || home[0] != '/' || strcmp(home, "/") == 0)
                return NULL;
        if (path_resolve(home, &real) < 0 || !real)
                return NULL;
        if (strcmp(real, "/") == 0 || path_lstat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
                free(real);
                return NULL;
        }
        return real;
}

static int write_bundle(struct round_ctx *c, const struct compile_profile *pr,
                        struct bento_err *err)
{
        struct compile_opts co = {
            .bundle_dir = c->d.bundle,
            .rootfs_dir = c->d.rootfs,
            .listener_path = c->d.gate_socket,
            .egress_report = c->d.egress_log,
            .approval = "unapproved",
            .no_exec_gate = true, /* exec: all; nothing to gate */
            .hooks_log = c->d.hooks_log,
            .profile = pr,
        };
        int r = policy_prepare_writes(&c->p, err);

        if (r >= 0)
                r = compile_bundle(c->p, &co, err);
        if (r >= 0)
                r = run_dir_make_mount_points(&c->d, c->p, err);
        return r;
}

static int sandbox(struct round_ctx *c, struct bento_err *err)
{
        cleanup_free char *observe = compile_helper_path("BENTO_OBSERVE", "bento-observe");
        cleanup_free char *shim = compile_library_path("BENTO_OBSERVE_SHIM", COMPILE_OBSERVE_SHIM);
        cleanup_free char *home = home_to_cover();
        struct compile_profile pr = {
            .observe = observe,
            /* without its library the observer is slower, not blinder */
            .shim = shim && access(shim, R_OK) == 0 ? shim : NULL,
            .home = home,
            .egress = true,
            .no_result = profile_system_trees(),
        };
        struct run_opts ro = {.json = c->o->json};
        struct run_stdio io;
        sigset_t set;
        int r;

        if (!observe || !shim)
                return bento_err_set(err, ENOMEM, "profile");
        if (access(observe, X_OK) < 0)
                return bento_err_set(err, errno, "cannot use the observer \"%s\"", observe);
        /* From the run directory on, a SIGINT waits for the sandbox's wait (run/sandbox.c),
         * which cancels the round and cleans up. */
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, NULL);
        r = run_dir_make(&c->d, c->p, false, err);
        if (r >= 0)
                r = write_bundle(c, &pr, err);
        if (r >= 0 && pipe2(c->report_pipe, O_CLOEXEC) < 0)
                r = bento_err_set(err, errno, "the observer's pipe");
        if (r < 0)
                return r;
        io = (struct run_stdio){.in_fd = c->o->interactive ? -1 : c->std[0],
                                .out_fd = c->o->json ? c->std[2] : c->std[1],
                                .err_fd = c->std[2],
                                .out_pipe = -1,
                                .err_pipe = -1,
                                .on_output = on_output,
                                .userdata = c,
                                .observe_fd = c->report_pipe[1],
                                .observe_pipe = c->report_pipe[0]};
        r = run_sandbox(&ro, &c->d, &(struct run_ahead){&c->gate, NULL}, &io, NULL, &c->ret->out,
                        err);
        if (c->d.egress_log) {
                struct bento_err ignored = {0};

                (void) run_egress_settle(c->d.egress_log, &c->ret->egress, &ignored);
        }
        run_remove_mount_points(&c->d);
        return r;
}

int profile_run_round(const struct manifest *m, const struct profile_run_opts *o,
                      struct profile_round *ret, struct bento_err *err)
{
        struct round_ctx c = {.o = o, .ret = ret, .gate = RUN_GATE_INIT, .report_pipe = {-1, -1}};
        int r;

        *ret = (struct profile_round){0};
        /* The probe runs on a thread beside the resolution, as for `bento run`
         * (host/probe-async.c); a refused resolution leaves its answer unread. */
        host_probe_start(&c.probe, &(struct host_probe_opts){.skip_cgroups = true});
        r = resolve(&c, m, err);
        if (r >= 0)
                r = admit(&c, m, err);
        if (r >= 0 && run_screen_stdio(c.std, err) < 0)
                r = refused(err);
        if (r >= 0)
                r = sandbox(&c, err);
        ctx_done(&c);
        return r;
}
