/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento doctor [--json] (docs/doctor.md): what this host enforces,
 * layer by layer, what each shortfall means for a run, the facts the layers
 * rest on, where the credential shields anchor, and a verdict.  The probe is
 * host/probe.h's and the verdict host/admission.h's, the same code `bento run`
 * admits with.  Exit 0 when baseline confinement holds, 3 when it does not
 * or the shields cannot be anchored, 125 on a usage mistake.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/admission.h"
#include "cleanup.h"
#include "report/text.h"
#include "cli.h"
#include "commands.h"
#include "host/probe.h"
#include "jsonw.h"
#include "report/json-parts.h"
#include "shields/shields.h"

/* A detail longer than this, or any consequence, moves to a note. */
#define DETAIL_INLINE_MAX 100

struct doctor {
        struct host_facts facts;
        struct host_report report;
        struct admission_host verdict;
        struct shield_set *shields; /* NULL when they cannot be anchored */
        struct bento_err shield_err;
        bool json;
};

enum { DOCTOR_JSON };

const struct bento_opt cmd_doctor_opts[] = {
    {"json", 0, BENTO_OPT_BOOL, DOCTOR_JSON, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_args(int argc, char **argv, struct doctor *d)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_doctor_opts, &h, &err)) > 0) {
                if (h.id == BENTO_ARGV_OPERAND)
                        npos++;
                else if (h.id == DOCTOR_JSON)
                        d->json = h.on;
        }
        if (r < 0)
                return cli_usage_problem("doctor", &a, &err);
        if (npos > 0)
                return bento_usage_error("doctor", "doctor takes no arguments, but got %d", npos);
        return 0;
}

static bool verified(const struct host_facts *f)
{
        return strcmp(f->arch, "amd64") == 0;
}

static bool in_note(const struct layer_status *s)
{
        return s->consequences[0] || strlen(s->detail) > DETAIL_INLINE_MAX;
}

static const char *cell_detail(const struct layer_status *s)
{
        return in_note(s) ? "see note below" : s->detail;
}

static void print_table(const struct host_report *r)
{
        size_t w[3] = {strlen("LAYER"), strlen("TIER"), strlen("STATE")};

        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                const char *cells[3] = {bento_layer_name(l), bento_tier_name(bento_layer_tier(l)),
                                        bento_state_name(host_report_get(r, l)->state)};

                for (int c = 0; c < 3; c++)
                        if (strlen(cells[c]) > w[c])
                                w[c] = strlen(cells[c]);
        }
        printf("%-*s  %-*s  %-*s  %s\n", (int) w[0], "LAYER", (int) w[1], "TIER", (int) w[2],
               "STATE", "DETAIL");
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                const struct layer_status *s = host_report_get(r, l);
                const char *detail = cell_detail(s);

                printf("%-*s  %-*s  %-*s%s%s\n", (int) w[0], bento_layer_name(l), (int) w[1],
                       bento_tier_name(bento_layer_tier(l)), detail[0] ? (int) w[2] : 0,
                       bento_state_name(s->state), detail[0] ? "  " : "", detail);
        }
}

static void print_notes(const struct host_report *r)
{
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                const struct layer_status *s = host_report_get(r, l);
                char text[2 * HOST_TEXT_MAX + 2];

                if (!in_note(s))
                        continue;
                host_report_disclosure(s, text, sizeof(text));
                printf("\n%s (%s):\n", bento_layer_name(l), bento_state_name(s->state));
                text_print_wrapped(stdout, text, 78, "  ", "  ");
        }
}

static void fact(const char *key, const char *value)
{
        char first[32];

        host_fmt(first, sizeof(first), "  %-16s", key);
        text_print_wrapped(stdout, value, 78, first, "                  ");
}

static void print_cgroup_facts(const struct host_facts *f)
{
        char buf[HOST_TEXT_MAX];

        host_fmt(buf, sizeof(buf), "%s%s%s", host_cg_mode_name(f->cg_mode),
                 f->cg_why[0] ? ": " : "", f->cg_why);
        fact("cgroups", buf);
        for (int c = 0; c < HOST_CTL_MAX; c++) {
                const struct host_controller_facts *x = &f->ctl[c];
                char key[32];

                host_fmt(key, sizeof(key), "  %s", host_controller_name(c));
                if (x->usable)
                        host_fmt(buf, sizeof(buf),
                                 "a probe cgroup was made below %s and its limits written",
                                 x->where);
                else
                        host_fmt(buf, sizeof(buf), "%s", x->why);
                fact(key, buf);
        }
}

/* What a root caller's box is on the host: its uid 0 is the host's, on
 * every file a write grant covers (bento maps the caller's uid to itself:
 * mapping root to an unprivileged uid would lose writes to root's files),
 * so the filter, not the uid, is what keeps privileges from being made. */
static const char root_caller[] =
    "the box runs as host uid 0 on the files it is granted; the seccomp filter "
    "refuses to make setuid or setgid files and to set extended attributes "
    "(file capabilities) there";

static void print_facts(const struct host_facts *f)
{
        char buf[2 * HOST_TEXT_MAX];

        puts("\nWhat the layers rest on (bento-runtime builds every sandbox):");
        host_fmt(buf, sizeof(buf), "%s (%s)%s", f->runtime_path[0] ? f->runtime_path : "not found",
                 f->runtime_from_env ? "$BENTO_RUNTIME" : "next to bento",
                 f->runtime_found ? "" : ": not usable");
        fact("bento-runtime", buf);
        fact("exec gate", f->gate_found ? f->gate_path : f->gate_why);
        fact("egress proxy", f->egress_found ? f->egress_path : f->egress_why);
        if (f->helpers_note[0])
                fact("", f->helpers_note);
        host_fmt(buf, sizeof(buf), "uid %u%s", (unsigned) f->euid,
                 f->euid == 0 ? " (root): " : " (rootless)");
        if (f->euid == 0)
                host_fmt(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s", root_caller);
        fact("caller", buf);
        if (f->ns == HOST_NS_USABLE)
                host_fmt(buf, sizeof(buf),
                         "user, mount, pid, net, ipc, uts and cgroup namespaces created, uid and "
                         "gid mapped, /proc and a tmpfs mounted inside");
        else
                host_fmt(buf, sizeof(buf), "%s", f->ns_why);
        fact("namespaces", buf);
        host_fmt(buf, sizeof(buf), "%s",
                 f->seccomp_notify ? "filters and user notification (the exec gate) available"
                                   : f->seccomp_why);
        fact("seccomp", buf);
        if (f->landlock_abi > 0)
                host_fmt(buf, sizeof(buf),
                         "ABI %d (kernel ABI %d, errata 0x%x); bento-runtime applies the backstop "
                         "last; another OCI runtime given a bento bundle ignores "
                         "process.landlock, so there the mounts alone confine",
                         f->landlock_abi, f->landlock_abi_kernel, (unsigned) f->landlock_errata);
        else
                host_fmt(buf, sizeof(buf), "not available on this kernel");
        fact("Landlock", buf);
        print_cgroup_facts(f);
        fact("systemd", f->systemd_detail);
        fact("git", f->git ? f->git_path : "not on PATH");
        host_fmt(buf, sizeof(buf), "%.1f ms (every run probes afresh; nothing is cached)",
                 (double) f->probe_usec / 1000.0);
        fact("probe took", buf);
}

static void print_shields(const struct doctor *d)
{
        const struct shield_set *s = d->shields;

        if (!s)
                return;
        fputs("\nCredential shields anchor on: ", stdout);
        for (size_t i = 0; i < s->n_anchors; i++)
                printf("%s\"%s\"", i ? ", " : "", s->anchors[i]);
        putchar('\n');
        for (size_t i = 0; i < s->n_unshieldable; i++) {
                char buf[HOST_TEXT_MAX];

                host_fmt(buf, sizeof(buf),
                         "$%s -> \"%s\" names a path no shield can follow, so the shields that "
                         "variable would move are dropped",
                         s->unshieldable[i].variable, s->unshieldable[i].value);
                text_print_wrapped(stdout, buf, 78, "  ", "    ");
        }
}

/* "a, b or c" of the short layers with effect e; "" when none. */
static void list_effect(const struct doctor *d, enum admission_effect e, char *buf, size_t size)
{
        size_t n = 0, k = 0, o = 0;

        for (int l = 0; l < BENTO_LAYER_MAX; l++)
                n += d->verdict.effect[l] == e;
        buf[0] = '\0';
        for (int l = 0; l < BENTO_LAYER_MAX && o < size; l++) {
                if (d->verdict.effect[l] != e)
                        continue;
                k++;
                o += (size_t) snprintf(buf + o, size - o, "%s%s",
                                       k == 1   ? ""
                                       : k == n ? " or "
                                                : ", ",
                                       bento_layer_name(l));
        }
}

static void print_summary(const struct doctor *d)
{
        char refused[256], reported[256], host[256], all[512], text[2048];
        size_t k = 0, o = 0, judged = 0;

        list_effect(d, ADMISSION_EFFECT_REFUSED, refused, sizeof(refused));
        list_effect(d, ADMISSION_EFFECT_REPORTED, reported, sizeof(reported));
        list_effect(d, ADMISSION_EFFECT_HOST, host, sizeof(host));
        all[0] = '\0';
        for (int l = 0; l < BENTO_LAYER_MAX && o < sizeof(all); l++) {
                if (host_report_get(&d->report, l)->state == BENTO_STATE_ENFORCED)
                        continue;
                o += (size_t) snprintf(all + o, sizeof(all) - o, "%s%s", k++ ? ", " : "",
                                       bento_layer_name(l));
                judged += d->verdict.effect[l] == ADMISSION_EFFECT_REFUSED ||
                          d->verdict.effect[l] == ADMISSION_EFFECT_REPORTED;
        }
        host_fmt(text, sizeof(text),
                 "Baseline confinement holds on this host, so manifests run by default. %zu "
                 "layer%s fall%s short: %s.%s%s%s%s%s%s%s%s%s%s",
                 d->verdict.n_short, d->verdict.n_short == 1 ? "" : "s",
                 d->verdict.n_short == 1 ? "s" : "", all,
                 refused[0] ? " A manifest that needs " : "", refused,
                 refused[0] ? " is refused by default." : "",
                 reported[0] ? " A manifest that needs " : "", reported,
                 reported[0] ? " runs, and the gap is reported after the run." : "",
                 host[0] ? " " : "", host, host[0] ? " is report-only and changes no run." : "",
                 judged == 0   ? ""
                 : judged == 1 ? " --strict refuses a manifest that needs it."
                               : " --strict refuses a manifest that needs any of them.");
        text_print_wrapped(stdout, text, 78, "", "");
}

static void print_verdict(const struct doctor *d)
{
        putchar('\n');
        if (!d->shields) {
                char text[HOST_TEXT_MAX + 512];

                host_fmt(text, sizeof(text),
                         "Credential shields: %s. They cannot be anchored, so every run is "
                         "refused. Set $HOME to an absolute path other than /, or give uid %u an "
                         "entry in /etc/passwd. --allow-degraded does not help.",
                         d->shield_err.msg, (unsigned) getuid());
                text_print_wrapped(stdout, text, 78, "", "");
        }
        if (d->verdict.baseline_short) {
                puts("A core guarantee every run needs is not fully enforced on this host.");
                puts(d->verdict.baseline_hopeless
                         ? "No run can start here, not even with --allow-degraded."
                         : "Runs are refused by default; --allow-degraded knowingly accepts a "
                           "weaker sandbox.");
                return;
        }
        if (!d->shields)
                return;
        if (d->verdict.n_short == 0)
                puts("This host enforces every layer.");
        else
                print_summary(d);
}

static void print_human(const struct doctor *d)
{
        printf("Platform: linux/%s\n", d->facts.arch);
        if (!verified(&d->facts))
                printf("  Support for linux/%s is planned, not verified: bento builds and probes "
                       "here,\n  but its filters and tests are only checked on linux/amd64.\n",
                       d->facts.arch);
        putchar('\n');
        print_table(&d->report);
        print_notes(&d->report);
        print_facts(&d->facts);
        print_shields(d);
        print_verdict(d);
}

static void json_layers(struct bento_jsonw *w, const struct host_report *r)
{
        bento_jsonw_key(w, "layers");
        bento_jsonw_open_array(w);
        for (int l = 0; l < BENTO_LAYER_MAX; l++)
                report_json_layer(w, r, l);
        bento_jsonw_close_array(w);
}

static void json_cgroups(struct bento_jsonw *w, const struct host_facts *f)
{
        static const char *const modes[] = {"none", "v1", "hybrid", "v2"};

        bento_jsonw_key(w, "cgroup");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "mode", modes[f->cg_mode]);
        bento_jsonw_kstring(w, "driver", f->cg_systemd ? "systemd" : "cgroupfs");
        if (f->cg_why[0])
                bento_jsonw_kstring(w, "detail", f->cg_why);
        for (int c = 0; c < HOST_CTL_MAX; c++) {
                const struct host_controller_facts *x = &f->ctl[c];

                bento_jsonw_key(w, host_controller_name(c));
                bento_jsonw_open_object(w);
                bento_jsonw_kbool(w, "usable", x->usable);
                if (x->where[0])
                        bento_jsonw_kstring(w, "cgroup", x->where);
                if (x->why[0])
                        bento_jsonw_kstring(w, "detail", x->why);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_object(w);
}

/* The facts behind the layers: bento's own addition to the docs/doctor.md shape. */
static void json_host(struct bento_jsonw *w, const struct doctor *d)
{
        static const char *const ns[] = {"usable", "blocked", "unknown"};
        const struct host_facts *f = &d->facts;

        bento_jsonw_key(w, "host");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "bento_runtime", f->runtime_path);
        bento_jsonw_kbool(w, "bento_runtime_found", f->runtime_found);
        bento_jsonw_kstring(w, "exec_gate", f->gate_path);
        bento_jsonw_kbool(w, "exec_gate_found", f->gate_found);
        bento_jsonw_kstring(w, "egress_proxy", f->egress_path);
        bento_jsonw_kbool(w, "egress_proxy_found", f->egress_found);
        bento_jsonw_kuint(w, "uid", f->euid);
        if (f->euid == 0)
                bento_jsonw_kstring(w, "root_caller", root_caller);
        bento_jsonw_kstring(w, "namespaces", ns[f->ns]);
        if (f->ns != HOST_NS_USABLE)
                bento_jsonw_kstring(w, "namespaces_detail", f->ns_why);
        bento_jsonw_kbool(w, "seccomp_filter", f->seccomp_filter);
        bento_jsonw_kbool(w, "seccomp_notify", f->seccomp_notify);
        bento_jsonw_kint(w, "landlock_abi", f->landlock_abi);
        bento_jsonw_kint(w, "landlock_kernel_abi", f->landlock_abi_kernel);
        bento_jsonw_kint(w, "landlock_errata", f->landlock_errata);
        json_cgroups(w, f);
        bento_jsonw_kbool(w, "systemd_running", f->systemd_running);
        bento_jsonw_kbool(w, "systemd_bus", f->systemd_bus);
        bento_jsonw_kstring(w, "systemd_detail", f->systemd_detail);
        if (f->git)
                bento_jsonw_kstring(w, "git", f->git_path);
        if (d->shields)
                bento_jsonw_kstrv(w, "shield_anchor_paths", d->shields->anchors,
                                  d->shields->n_anchors);
        bento_jsonw_kuint(w, "probe_usec", f->probe_usec);
        bento_jsonw_close_object(w);
}

static int print_json(const struct doctor *d)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL;
        struct bento_err err = {0};
        char platform[64];
        size_t len = 0;

        if (bento_jsonw_init(&w, true, &err) < 0)
                return -1;
        snprintf(platform, sizeof(platform), "linux/%s", d->facts.arch);
        bento_jsonw_open_object(&w);
        json_layers(&w, &d->report);
        bento_jsonw_kbool(&w, "fully_enforced", d->verdict.fully_enforced);
        bento_jsonw_kbool(&w, "ready", d->verdict.exit_code == 0);
        bento_jsonw_kstring(&w, "platform", platform);
        bento_jsonw_kbool(&w, "platform_verified", verified(&d->facts));
        if (!d->shields)
                bento_jsonw_kstring(&w, "shield_anchors", d->shield_err.msg);
        json_host(&w, d);
        bento_jsonw_close_object(&w);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return -1;
        return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

int cmd_doctor(int argc, char **argv)
{
        struct doctor *d = calloc(1, sizeof(*d));
        struct shield_env env = {.uid = getuid()};
        int r;

        if (!d) {
                fputs("bento: doctor: out of memory\n", stderr);
                return BENTO_EXIT_REFUSED;
        }
        r = parse_args(argc, argv, d);
        if (r != 0) {
                free(d);
                return r;
        }
        host_probe(NULL, &d->facts, &d->report);
        if (shields_build(&env, &d->shields, &d->shield_err) < 0)
                d->shields = NULL;
        admission_judge_host(&d->report, d->shields != NULL, &d->verdict);
        if (d->json)
                r = print_json(d);
        else
                print_human(d);
        if (r == 0 && fflush(stdout) != 0)
                r = -1;
        if (r < 0)
                fputs("bento: doctor: writing the report failed\n", stderr);
        r = r < 0 ? BENTO_EXIT_REFUSED : d->verdict.exit_code;
        shield_set_free(d->shields);
        free(d);
        return r;
}
