/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento validate <manifest> [--json] [--strict] [--relocatable]
 * (docs/validate.md): a static review that builds no sandbox.  It loads
 * the manifest the way run does (trust inspection on the opened file,
 * warnings for a stamped manifest), resolves a copy of its paths on this
 * host, and reports what run would do with it: where each grant lands,
 * every refusal in run's words, the HOME note, the approval state.
 *
 * The report goes to stdout before any verdict, so a failing --strict gate
 * still leaves parseable output.  --strict fails on an unstamped or stale
 * manifest and on anything that stops a run here (runnability problems,
 * refused grants, an unanchorable host); notes never fail.
 * --relocatable fails on its own when a path pins the manifest to this
 * host's layout.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval/name.h"
#include "approval/approval.h"
#include "cleanup.h"
#include "report/text.h"
#include "cli.h"
#include "commands.h"
#include "manifest/path.h"
#include "policy/policy.h"
#include "manifest/trust.h"
#include "report/validate.h"

struct validate_opts {
        const char *path;
        bool json, strict, relocatable;
};

enum { VALIDATE_JSON, VALIDATE_STRICT, VALIDATE_RELOCATABLE };

const struct bento_opt cmd_validate_opts[] = {
    {"json", 0, BENTO_OPT_BOOL, VALIDATE_JSON, NULL, NULL},
    {"strict", 0, BENTO_OPT_BOOL, VALIDATE_STRICT, NULL, NULL},
    {"relocatable", 0, BENTO_OPT_BOOL, VALIDATE_RELOCATABLE, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_args(int argc, char **argv, struct validate_opts *o)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_validate_opts, &h, &err)) > 0) {
                if (h.id == BENTO_ARGV_OPERAND && npos++ == 0)
                        o->path = h.value;
                else if (h.id == VALIDATE_JSON)
                        o->json = h.on;
                else if (h.id == VALIDATE_STRICT)
                        o->strict = h.on;
                else if (h.id == VALIDATE_RELOCATABLE)
                        o->relocatable = h.on;
        }
        if (r < 0)
                return cli_usage_problem("validate", &a, &err);
        return cli_one_operand("validate", "a manifest path", npos);
}

/* Load through the trust inspection (docs/approve.md, "What approve does, in order"), worded like
 * every verb's load errors (script detection, problems with their places).  A name run would refuse
 * (approval/name.h) is still followed: validate reports on it. */
static int load(const char *path, struct approval_name *name, struct trust_loaded *ret)
{
        struct manifest_problems problems = {0};
        struct bento_err err = {0};
        cleanup_free char *shown = NULL;

        if (approval_load(path, true, name, ret, &problems, &err) == 0)
                return 0;
        shown = manifest_load_error(path, &problems, &err);
        fprintf(stderr, "bento: %s\n", shown ? shown : err.msg);
        manifest_problems_done(&problems);
        return BENTO_EXIT_REFUSED;
}

static int strict_verdict(const struct validate_report *r, const char *name_problem)
{
        const char *approval = approval_strict_failure(r->approval.state);
        cleanup_free char *host = NULL;
        bool oom = false;

        if (approval) {
                fprintf(stderr, "bento: %s\n", approval);
                return BENTO_EXIT_REFUSED;
        }
        if (name_problem) {
                text_print_wrapped(stderr, name_problem, 78,
                                   "bento: run refuses this name: ", "       ");
                return BENTO_EXIT_REFUSED;
        }
        host = validate_host_failures(r, &oom);
        if (oom) {
                fprintf(stderr, "bento: out of memory\n");
                return BENTO_EXIT_REFUSED;
        }
        if (host) {
                fprintf(stderr, "bento: manifest cannot run on this host: %s\n", host);
                return BENTO_EXIT_REFUSED;
        }
        return 0;
}

static int relocatable_verdict(const struct validate_report *r)
{
        if (r->n_pins == 0)
                return 0;
        fputs("bento: manifest is not relocatable: ", stderr);
        for (size_t i = 0; i < r->n_pins; i++) {
                cleanup_free char *pin = validate_pin_text(&r->pins[i]);

                fprintf(stderr, "%s%s", i ? "; " : "", pin ? pin : "(out of memory)");
        }
        fputc('\n', stderr);
        return BENTO_EXIT_REFUSED;
}

static int report(const struct validate_opts *o, const struct manifest *m,
                  const struct approval_status *st, const char *name_problem)
{
        cleanup_policy struct policy *p = NULL;
        struct validate_report rep = {0};
        struct bento_err err = {0}, why = {0};
        int r;

        /* One memo of the host's answers (manifest/path.h) for the policy and
         * the report, as run and translate have: the alias scan looks at the
         * credential stores the shields just looked at, and nothing here
         * changes the host. */
        path_cache_begin();
        if (policy_resolve(m, NULL, &p, &why) < 0)
                p = NULL;
        r = validate_report_build(m, p, p ? NULL : why.msg, st, &rep, &err);
        path_cache_end();
        if (r < 0) {
                fprintf(stderr, "bento: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        if (o->json)
                r = validate_print_json(stdout, &rep, o->relocatable, &err);
        else
                r = (validate_print_human(stdout, &rep, o->relocatable), 0);
        if (r < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "bento: %s\n", r < 0 ? err.msg : "writing the report failed");
                validate_report_done(&rep);
                return BENTO_EXIT_REFUSED;
        }
        r = o->strict ? strict_verdict(&rep, name_problem) : 0;
        if (r == 0 && o->relocatable)
                r = relocatable_verdict(&rep);
        validate_report_done(&rep);
        return r;
}

int cmd_validate(int argc, char **argv)
{
        struct validate_opts o = {0};
        cleanup_trust_loaded struct trust_loaded l = {0};
        cleanup_free char *notes = NULL, *name_problem = NULL, *note = NULL;
        struct approval_name name = {0};
        struct approval_status st;
        int r;

        r = parse_args(argc, argv, &o);
        if (r != 0)
                return r;
        r = load(o.path, &name, &l);
        if (r == 0)
                name_problem = approval_name_problem(&name, o.path);
        approval_name_done(&name);
        if (r != 0)
                return r;
        approval_check(l.m, l.trust.real_path, &st);
        notes = approval_notes(&st, &l.trust);
        if (notes)
                fputs(notes, stderr);
        if (name_problem && asprintf(&note, "run refuses this name: %s.", name_problem) >= 0)
                text_print_wrapped(stderr, note, 78, "[bento] ", "[bento] ");
        return report(&o, l.m, &st, name_problem);
}
