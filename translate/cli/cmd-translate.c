/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento translate MANIFEST -o DIR: compile the manifest into an OCI bundle
 * that CI can read, diff and archive and that any OCI runtime can run.  A
 * manifest that `run` would refuse on this host is refused here too, before
 * anything is written: a bundle never exists for a policy that cannot hold.
 * Approval is recorded in the bundle (org.bento.approval), not required:
 * reviewing the compiled policy is one reason to translate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/alias-scan.h"
#include "cleanup.h"
#include "cli.h"
#include "commands.h"
#include "compile/compile.h"
#include "approval/fingerprint.h"
#include "jsonw.h"
#include "manifest/path.h"
#include "policy/policy.h"

#define ENV_MAX 256

struct translate_opts {
        const char *manifest;
        const char *out;
        bool json;
        char *env[ENV_MAX];
        size_t n_env;
};

enum { TRANSLATE_OUTPUT, TRANSLATE_JSON, TRANSLATE_ENV };

const struct bento_opt cmd_translate_opts[] = {
    {"output", 'o', BENTO_OPT_VALUE, TRANSLATE_OUTPUT, "DIR", NULL},
    {"json", 0, BENTO_OPT_BOOL, TRANSLATE_JSON, NULL, NULL},
    {"env", 0, BENTO_OPT_VALUE, TRANSLATE_ENV, "NAME=VALUE", NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_args(int argc, char **argv, struct translate_opts *o)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_translate_opts, &h, &err)) > 0) {
                if (h.id == BENTO_ARGV_OPERAND && npos++ == 0)
                        o->manifest = h.value;
                else if (h.id == TRANSLATE_OUTPUT)
                        o->out = h.value;
                else if (h.id == TRANSLATE_JSON)
                        o->json = h.on;
                else if (h.id == TRANSLATE_ENV) {
                        if (o->n_env == ENV_MAX)
                                return bento_usage_error("translate", "too many --env values");
                        o->env[o->n_env++] = (char *) h.value;
                }
        }
        if (r < 0)
                return cli_usage_problem("translate", &a, &err);
        if (npos != 1)
                return bento_usage_error("translate", "translate takes exactly one manifest path");
        if (!o->out || !*o->out)
                return bento_usage_error("translate",
                                         "translate needs -o DIR, the bundle to write");
        return 0;
}

static void json_paths(struct bento_jsonw *w, const char *key, const struct policy_path *v,
                       size_t n)
{
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", v[i].written);
                bento_jsonw_kstring(w, "on_host", v[i].real);
                bento_jsonw_kbool(w, "exists", v[i].exists);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void json_shields(struct bento_jsonw *w, const struct policy *p)
{
        bento_jsonw_key(w, "shields");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const struct shield_mount *sm = &p->shield_mounts[i];

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", sm->path);
                bento_jsonw_kstring(w, "kind", shield_mount_kind_to_string(sm->kind));
                if (sm->rule->holds != SHIELD_HOLDS_NONE)
                        bento_jsonw_kstring(w, "holds", shield_holds_to_string(sm->rule->holds));
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static int print_summary(const struct policy *p, const struct compile_opts *c, bool json,
                         struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL, *gate = path_join(c->bundle_dir, COMPILE_GATE_SOCKET);
        bool gated = p->m->exec != MANIFEST_EXEC_ALL;
        size_t len = 0;

        if (!gate)
                return bento_err_set(err, ENOMEM, "summary");
        if (!json) {
                printf("bundle:       %s (config.json, rootfs/)\n", c->bundle_dir);
                printf("manifest:     %s (%s)\n", p->m->path, c->approval);
                printf("exec:         %s\n", manifest_exec_to_string(p->m->exec));
                printf("shields:      %zu mounted\n", p->n_shield_mounts);
                printf("run it with:  bento-runtime run --bundle %s <id>\n", c->bundle_dir);
                /* bento-runtime starts the exec gate itself; other runtimes need it wrapped
                 * around them (docs/exec-gate.md) */
                if (gated)
                        printf("under runc:   bento-exec-gate --socket %s -- runc run "
                               "--bundle %s <id>\n",
                               gate, c->bundle_dir);
                return 0;
        }
        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "bundle", c->bundle_dir);
        bento_jsonw_kstring(&w, "manifest", p->m->path);
        bento_jsonw_kstring(&w, "fingerprint", c->fingerprint);
        bento_jsonw_kstring(&w, "approval", c->approval);
        bento_jsonw_kstring(&w, "entrypoint", p->entrypoint.real);
        if (p->interpreter.real)
                bento_jsonw_kstring(&w, "interpreter", p->interpreter.real);
        json_paths(&w, "read", p->reads, p->n_reads);
        json_paths(&w, "write", p->writes, p->n_writes);
        json_shields(&w, p);
        bento_jsonw_kstring(&w, "exec", manifest_exec_to_string(p->m->exec));
        if (gated)
                bento_jsonw_kstring(&w, "exec_gate_socket", gate);
        bento_jsonw_kbool(&w, "egress", p->m->n_network > 0);
        bento_jsonw_close_object(&w);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return -err->code;
        fwrite(buf, 1, len, stdout);
        return 0;
}

/* A bundle inside a write grant could be rewritten by the very program it
 * confines, config.json included, and the next run would enforce whatever
 * that program wrote there.  Heap message, or NULL when the bundle is safe
 * (or out of memory: *oom is then set). */
static char *bundle_in_write_grant(const struct policy *p, const char *out, bool *oom)
{
        cleanup_free char *real = NULL;
        char *msg = NULL;

        if (path_resolve(out, &real) < 0) {
                *oom = true;
                return NULL;
        }
        for (size_t i = 0; i < p->n_writes; i++) {
                if (!path_within(p->writes[i].real, real))
                        continue;
                if (asprintf(&msg,
                             "the bundle \"%s\" would lie inside the write grant \"%s\", where the "
                             "program could rewrite its own policy; write the bundle elsewhere",
                             out, p->writes[i].expanded) < 0) {
                        *oom = true;
                        return NULL;
                }
                return msg;
        }
        return NULL;
}

/* Everything that can refuse, before the first change to the host: the
 * policy and its refusals, the alias scan, where the bundle goes, and the
 * config itself.  0, or the exit status (the reason printed). */
static int translate_checked(const struct manifest *m, const char *out,
                             const struct compile_opts *c, struct policy **p,
                             struct compile_output *config)
{
        cleanup_free char *refusal = NULL;
        struct bento_err err = {0};
        bool oom = false;

        if (policy_resolve(m, NULL, p, &err) < 0) {
                fprintf(stderr, "bento: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        refusal = policy_refusal(*p);
        if (!refusal)
                refusal = alias_scan_refusal(*p, NULL, 0, NULL, &err);
        if (!refusal && err.code)
                oom = true;
        if (!refusal)
                refusal = bundle_in_write_grant(*p, out, &oom);
        if (refusal || oom) {
                fprintf(stderr, "bento: %s\n", refusal ? refusal : "out of memory");
                return BENTO_EXIT_REFUSED;
        }
        if (compile_check_bundle_dir(out, &err) < 0 ||
            compile_config_planned(*p, c, config, &err) < 0) {
                fprintf(stderr, "bento: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        return 0;
}

int cmd_translate(int argc, char **argv)
{
        struct translate_opts o = {0};
        cleanup_manifest struct manifest *m = NULL;
        cleanup_policy struct policy *p = NULL;
        cleanup_compile_output struct compile_output config = {0};
        cleanup_free char *out = NULL;
        struct bento_err err = {0};
        char fp[65];
        int r;

        r = parse_args(argc, argv, &o);
        if (r != 0 || !o.manifest || !o.out)
                return r ? r : BENTO_EXIT_REFUSED;
        r = cli_load_manifest(o.manifest, &m);
        if (r != 0)
                return r;
        for (size_t i = 0; i < o.n_env; i++) {
                r = cli_check_env_override(m, o.env[i]);
                if (r != 0)
                        return r;
        }
        out = path_absolute(o.out);
        if (!out || manifest_fingerprint(m, fp, &err) < 0) {
                fprintf(stderr, "bento: %s\n", out ? err.msg : "out of memory");
                return BENTO_EXIT_REFUSED;
        }
        struct compile_opts c = {
            .bundle_dir = out,
            .env_overrides = o.env,
            .n_env_overrides = o.n_env,
            .fingerprint = fp,
            .approval = manifest_approval_to_string(manifest_approval_state(m)),
            .mount_point_hook = true,
        };
        /* One memo of the host's answers (manifest/path.h) for all of the checks:
         * nothing is written until they are done. */
        path_cache_begin();
        r = translate_checked(m, out, &c, &p, &config);
        path_cache_end();
        if (r != 0)
                return r;
        /* Then the write grants (docs/manifest.md, "WHAT THE PROGRAM SEES").  A write directory
         * created there changes the policy (its workspace shields), and the config is computed
         * again. */
        r = policy_prepare_writes(&p, &err);
        if (r > 0)
                r = compile_bundle(p, &c, &err);
        else if (r == 0)
                r = compile_bundle_with(&c, &config, &err);
        if (r < 0 || print_summary(p, &c, o.json, &err) < 0) {
                fprintf(stderr, "bento: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        return 0;
}
