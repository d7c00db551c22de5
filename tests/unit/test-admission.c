/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for admission (translate/host/admission.c) and the facts -> layers
 * mapping of the host probe (translate/host/probe.c).  Admission is driven
 * by a table: host probe results x what a manifest needs x the posture
 * (--strict, --allow-degraded, neither), each row with the outcome, the
 * exit code, the refusal words of docs/cli/bento-run.md, "ADMISSION" and the short layers.
 * Nothing here touches the host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/admission.h"
#include "cleanup.h"
#include "host/probe.h"
#include "tap.h"

#define E BENTO_STATE_ENFORCED
#define D BENTO_STATE_DEGRADED
#define U BENTO_STATE_UNAVAILABLE
#define A (-1) /* absent from the report */

/* States in layer order: filesystem network exec-block exec-strict
 * limits-memory limits-pids limits-cpu auto-exec-report. */
struct probe_row {
        const char *name;
        int s[BENTO_LAYER_MAX];
};

static const struct probe_row probes[] = {
#define P_ALL 0
    {"all enforced", {E, E, E, E, E, E, E, E}},
#define P_LIMITS 1
    {"no limits (rootless, not delegated)", {E, E, E, E, U, U, U, E}},
#define P_CPU 2
    {"cpu not delegated", {E, E, E, E, E, E, U, E}},
#define P_DEGRADED 3
    {"no user namespaces, Landlock present", {D, U, E, E, E, E, E, E}},
#define P_NOFS 4
    {"no namespaces, no Landlock", {U, U, E, E, E, E, E, E}},
#define P_EXEC 5
    {"no seccomp notification", {E, E, U, U, E, E, E, E}},
#define P_NONET 6
    {"no network namespace", {E, U, E, E, E, E, E, E}},
#define P_NOGIT 7
    {"git missing", {E, E, E, E, E, E, E, U}},
#define P_EMPTY 8
    {"nothing reported", {A, A, A, A, A, A, A, A}},
#define P_DEGRADED_NET 9
    {"degraded filesystem, network probed fine", {D, E, E, E, E, E, E, E}},
};

static void build(int which, struct host_report *r)
{
        memset(r, 0, sizeof(*r));
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                char detail[64];
                int s = probes[which].s[l];

                if (s == A)
                        continue;
                snprintf(detail, sizeof(detail), "%s is %s here", bento_layer_name(l),
                         bento_state_name(s));
                host_report_set(r, l, s, s == E ? "" : detail, s == E ? "" : "what it costs a run");
        }
}

#define N_MIN        0
#define N_NONE       1
#define N_NONESTRICT 2
#define N_NET        3
#define N_MEM        4
#define N_PIDS       5
#define N_CPU        6
#define N_EVERYTHING 7
#define N_RUNID      8
#define N_RUNID_MEM  9

static const struct admission_needs needs[] = {
    [N_MIN] = {.exec = MANIFEST_EXEC_ALL},
    [N_NONE] = {.exec = MANIFEST_EXEC_NONE},
    [N_NONESTRICT] = {.exec = MANIFEST_EXEC_NONE_STRICT},
    [N_NET] = {.exec = MANIFEST_EXEC_ALL, .network_rules = true},
    [N_MEM] = {.exec = MANIFEST_EXEC_ALL, .memory = true},
    [N_PIDS] = {.exec = MANIFEST_EXEC_ALL, .pids = true},
    [N_CPU] = {.exec = MANIFEST_EXEC_ALL, .cpu = true},
    [N_EVERYTHING] = {.exec = MANIFEST_EXEC_NONE_STRICT,
                      .network_rules = true,
                      .memory = true,
                      .pids = true,
                      .cpu = true},
    [N_RUNID] = {.exec = MANIFEST_EXEC_ALL, .run_id = true},
    [N_RUNID_MEM] = {.exec = MANIFEST_EXEC_ALL, .memory = true, .run_id = true},
};

#define DEF ADMISSION_DEFAULT
#define STR ADMISSION_STRICT
#define AD  ADMISSION_ALLOW_DEGRADED

#define FULL ADMISSION_FULL
#define DEGR ADMISSION_DEGRADED
#define REF  ADMISSION_REFUSED

#define W_STRICT "strict mode requires every layer to be fully enforced"
#define W_ALL    "a core guarantee cannot be enforced at all on this host"
#define W_CORE   "a core guarantee cannot be fully enforced on this host"
#define W_LIMITS                                                                                   \
        "the manifest requests resource limits this host cannot enforce; running unbounded "       \
        "could exhaust host resources"
#define W_RUNID_NOLIM                                                                              \
        "a run id asks for a reapable scope, but this manifest sets no resource limits"
#define W_RUNID_LIMITS "a run id asks for a reapable scope"
#define W_NONETNS      "this host has no network namespace to fence egress into"
#define W_DEGR_NET                                                                                 \
        "network rules cannot be honored by the degraded tier: it has no network namespace to "    \
        "run the egress proxy in"

/* The short layers a row expects, as a bit mask over enum bento_layer. */
#define B(l) (1u << (l))
#define FS   B(BENTO_LAYER_FILESYSTEM)
#define NET  B(BENTO_LAYER_NETWORK)
#define EB   B(BENTO_LAYER_EXEC_BLOCK)
#define ES   B(BENTO_LAYER_EXEC_STRICT)
#define MEM  B(BENTO_LAYER_LIMITS_MEMORY)
#define PIDS B(BENTO_LAYER_LIMITS_PIDS)
#define CPU  B(BENTO_LAYER_LIMITS_CPU)
#define LIMS (MEM | PIDS | CPU)

struct row {
        int probe, needs;
        enum admission_posture posture;
        enum admission_outcome outcome;
        const char *words; /* refusal reason substring; NULL when admitted */
        unsigned shortfall;
        enum admission_advice advice;
};

static const struct row rows[] = {
    /* a healthy host admits everything, in every posture */
    {P_ALL, N_MIN, DEF, FULL, NULL, 0, 0},
    {P_ALL, N_EVERYTHING, DEF, FULL, NULL, 0, 0},
    {P_ALL, N_EVERYTHING, STR, FULL, NULL, 0, 0},
    {P_ALL, N_EVERYTHING, AD, FULL, NULL, 0, 0},
    {P_ALL, N_RUNID_MEM, DEF, FULL, NULL, 0, 0},
    /* run id without limits: nothing to name */
    {P_ALL, N_RUNID, DEF, REF, W_RUNID_NOLIM, 0, 0},
    {P_ALL, N_RUNID, AD, REF, W_RUNID_NOLIM, 0, 0},
    /* limits: refused by default, waivable, never under --strict (I2) */
    {P_LIMITS, N_MEM, DEF, REF, W_LIMITS, MEM, ADMISSION_ADVICE_LIMITS_WAIVABLE},
    {P_LIMITS, N_MEM, AD, FULL, NULL, MEM, 0},
    {P_LIMITS, N_MEM, STR, REF, W_STRICT, MEM, ADMISSION_ADVICE_LIMITS_DROP},
    {P_LIMITS, N_EVERYTHING, DEF, REF, W_LIMITS, LIMS, ADMISSION_ADVICE_LIMITS_WAIVABLE},
    {P_LIMITS, N_MIN, DEF, FULL, NULL, 0, 0},
    {P_LIMITS, N_MIN, STR, FULL, NULL, 0, 0},
    {P_LIMITS, N_RUNID_MEM, AD, REF, W_RUNID_LIMITS, MEM, 0},
    /* only the layer asked for counts (I3) */
    {P_CPU, N_PIDS, DEF, FULL, NULL, 0, 0},
    {P_CPU, N_CPU, DEF, REF, W_LIMITS, CPU, ADMISSION_ADVICE_LIMITS_WAIVABLE},
    /* the Landlock-only tier (L1-L3) */
    {P_DEGRADED, N_MIN, DEF, REF, W_CORE, FS, 0},
    {P_DEGRADED, N_MIN, AD, DEGR, NULL, FS, 0}, /* admitted; the gap is reported */
    {P_DEGRADED, N_NONE, AD, DEGR, NULL, FS, 0},
    {P_DEGRADED, N_MIN, STR, REF, W_STRICT, FS, 0},
    {P_DEGRADED, N_NET, AD, REF, W_ALL, NET, 0},
    {P_DEGRADED, N_NET, DEF, REF, W_CORE, FS | NET, 0},
    {P_DEGRADED_NET, N_NET, AD, REF, W_DEGR_NET, NET, 0},
    {P_DEGRADED_NET, N_MIN, AD, DEGR, NULL, FS, 0},
    /* nothing confines: refused whatever the posture */
    {P_NOFS, N_MIN, DEF, REF, W_CORE, FS, 0},
    {P_NOFS, N_MIN, AD, REF, W_ALL, FS, 0},
    {P_NOFS, N_MIN, STR, REF, W_STRICT, FS, 0},
    /* exec gaps run, reported; --strict refuses */
    {P_EXEC, N_NONE, DEF, FULL, NULL, EB, 0},
    {P_EXEC, N_NONESTRICT, DEF, FULL, NULL, EB | ES, 0},
    {P_EXEC, N_NONESTRICT, AD, FULL, NULL, EB | ES, 0},
    {P_EXEC, N_NONESTRICT, STR, REF, W_STRICT, EB | ES, 0},
    {P_EXEC, N_MIN, STR, FULL, NULL, 0, 0},
    /* every sandbox gets a network namespace, even without rules */
    {P_NONET, N_MIN, DEF, REF, W_NONETNS, NET, 0},
    {P_NONET, N_MIN, AD, REF, W_NONETNS, NET, 0},
    {P_NONET, N_NET, DEF, REF, W_CORE, NET, 0},
    /* report-only layers never judge a run */
    {P_NOGIT, N_EVERYTHING, STR, FULL, NULL, 0, 0},
    /* an empty report reads as unavailable everywhere */
    {P_EMPTY, N_MIN, DEF, REF, W_CORE, FS, 0},
    {P_EMPTY, N_MIN, AD, REF, W_ALL, FS, 0},
};

static struct admission adm;

TEST(admission_table)
{
        static const char *const posture[] = {"default", "--strict", "--allow-degraded"};

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *x = &rows[i];
                struct host_report r;
                unsigned got = 0;

                build(x->probe, &r);
                admission_decide(&r, &needs[x->needs], x->posture, &adm);
                for (int l = 0; l < BENTO_LAYER_MAX; l++)
                        got |= adm.shortfall[l] ? B(l) : 0;
                if (adm.outcome != x->outcome || got != x->shortfall ||
                    adm.exit_code != (x->outcome == REF ? 125 : 0) || adm.advice != x->advice ||
                    (x->words && !strstr(adm.reason, x->words)) || (!x->words && adm.reason[0]))
                        TAP_FAIL("row %zu (%s, needs %d, %s): outcome %d short 0x%x exit %d "
                                 "advice %d reason \"%s\"",
                                 i, probes[x->probe].name, x->needs, posture[x->posture],
                                 adm.outcome, got, adm.exit_code, adm.advice, adm.reason);
        }
}

TEST(flag_conflict)
{
        enum admission_posture p = ADMISSION_POSTURE_MAX;
        struct bento_err err = {0};

        ASSERT_EQ(admission_posture_from_flags(true, true, &p, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "--strict and --allow-degraded are opposites");
        ASSERT_CONTAINS(err.msg, "Pass one");
        ASSERT_EQ(p, ADMISSION_POSTURE_MAX); /* not written on failure */
        ASSERT_OK(admission_posture_from_flags(true, false, &p, &err));
        ASSERT_EQ(p, ADMISSION_STRICT);
        ASSERT_OK(admission_posture_from_flags(false, true, &p, &err));
        ASSERT_EQ(p, ADMISSION_ALLOW_DEGRADED);
        ASSERT_OK(admission_posture_from_flags(false, false, &p, &err));
        ASSERT_EQ(p, ADMISSION_DEFAULT);
}

TEST(run_id)
{
        struct bento_err err = {0};
        char long_id[66];

        ASSERT_OK(admission_check_run_id("job1", &err));
        ASSERT_OK(admission_check_run_id("A_b_9", &err));
        memset(long_id, 'a', 64);
        long_id[64] = '\0';
        ASSERT_OK(admission_check_run_id(long_id, &err));
        long_id[64] = 'a';
        long_id[65] = '\0';
        ASSERT_EQ(admission_check_run_id(long_id, &err), -EINVAL);
        ASSERT_EQ(admission_check_run_id("", &err), -EINVAL);
        ASSERT_EQ(admission_check_run_id("a-b", &err), -EINVAL);
        ASSERT_CONTAINS(err.msg,
                        "run id \"a-b\" must be 1-64 characters of letters, digits, or underscore");
}

TEST(required_layers)
{
        bool req[BENTO_LAYER_MAX];

        admission_required(&needs[N_MIN], req);
        ASSERT_TRUE(req[BENTO_LAYER_FILESYSTEM] && !req[BENTO_LAYER_NETWORK] &&
                    !req[BENTO_LAYER_EXEC_BLOCK] && !req[BENTO_LAYER_AUTO_EXEC_REPORT]);
        admission_required(&needs[N_NONE], req);
        ASSERT_TRUE(req[BENTO_LAYER_EXEC_BLOCK] && !req[BENTO_LAYER_EXEC_STRICT]);
        admission_required(&needs[N_EVERYTHING], req);
        for (int l = 0; l < BENTO_LAYER_AUTO_EXEC_REPORT; l++)
                ASSERT_TRUE(req[l]);
        ASSERT_TRUE(!req[BENTO_LAYER_AUTO_EXEC_REPORT]);
}

TEST(run_report_is_restricted)
{
        struct host_report r;

        build(P_LIMITS, &r);
        admission_decide(&r, &needs[N_NONE], DEF, &adm);
        ASSERT_TRUE(adm.report.present[BENTO_LAYER_FILESYSTEM]);
        ASSERT_TRUE(adm.report.present[BENTO_LAYER_EXEC_BLOCK]);
        ASSERT_TRUE(adm.report.present[BENTO_LAYER_AUTO_EXEC_REPORT]); /* disclosure */
        ASSERT_TRUE(!adm.report.present[BENTO_LAYER_LIMITS_MEMORY]);
        ASSERT_TRUE(!adm.report.present[BENTO_LAYER_NETWORK]);
        ASSERT_TRUE(host_report_fully_enforced(&adm.report));
        build(P_EMPTY, &r);
        admission_decide(&r, &needs[N_MIN], AD, &adm);
        ASSERT_STREQ(host_report_get(&adm.report, BENTO_LAYER_FILESYSTEM)->detail,
                     "not reported by the host probe");
        ASSERT_TRUE(!host_report_fully_enforced(&r)); /* no layers is never "fully" */
}

TEST(post_run_shortfall)
{
        struct host_report r;

        /* the Landlock backstop failed in the full tier: filesystem degraded */
        build(P_ALL, &r);
        host_report_set(&r, BENTO_LAYER_FILESYSTEM, D, "the Landlock backstop failed", NULL);
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_MIN], DEF));
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_MIN], STR));
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_MIN], AD));
        /* a limit that did not hold */
        build(P_ALL, &r);
        host_report_set(&r, BENTO_LAYER_LIMITS_MEMORY, U, "the cgroup holds no cap", NULL);
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_MEM], DEF));
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_MEM], AD));
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_MIN], DEF)); /* not asked for */
        /* the proxy died: network degraded */
        build(P_ALL, &r);
        host_report_set(&r, BENTO_LAYER_NETWORK, D, "the proxy stopped accepting", NULL);
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_NET], DEF));
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_NET], AD));
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_NET], STR));
        /* hardening gaps only under --strict; report-only never */
        build(P_EXEC, &r);
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_NONE], DEF));
        ASSERT_TRUE(admission_shortfall(&r, &needs[N_NONE], STR));
        build(P_NOGIT, &r);
        ASSERT_TRUE(!admission_shortfall(&r, &needs[N_EVERYTHING], STR));
        ASSERT_EQ(ADMISSION_EXIT_SHORTFALL, 124);
}

TEST(worse_wins)
{
        struct host_report r;

        build(P_ALL, &r);
        host_report_set(&r, BENTO_LAYER_NETWORK, D, "worse", NULL);
        host_report_set(&r, BENTO_LAYER_NETWORK, E, "better", NULL);
        ASSERT_EQ(host_report_get(&r, BENTO_LAYER_NETWORK)->state, D);
        ASSERT_STREQ(host_report_get(&r, BENTO_LAYER_NETWORK)->detail, "worse");
}

static void check_width(const char *text)
{
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");

                if (n > 78)
                        printf("#   line too long (%zu): %.*s\n", n, (int) n, p);
                tap_failed_now |= n > 78;
                p += n + (p[n] == '\n');
        }
}

TEST(refusal_text)
{
        struct host_report r;
        cleanup_free char *limits = NULL, *strict = NULL, *core = NULL;

        build(P_LIMITS, &r);
        admission_decide(&r, &needs[N_MEM], DEF, &adm);
        limits = admission_refusal_text(&adm);
        ASSERT_TRUE(limits != NULL);
        ASSERT_CONTAINS(limits, "bento: refusing to run: the manifest requests resource limits");
        ASSERT_CONTAINS(limits, "\n       "); /* continuation indented 7 */
        ASSERT_CONTAINS(limits, "\n  limits-memory (unavailable): limits-memory is unavailable");
        ASSERT_CONTAINS(limits, "run `bento doctor` for everything the fallback tier does not");
        ASSERT_CONTAINS(limits, "\n  to proceed anyway, pass --allow-degraded and the script "
                                "runs unbounded, or\n");
        ASSERT_CONTAINS(limits, "`limits:` from the manifest");
        check_width(limits);
        admission_decide(&r, &needs[N_MEM], STR, &adm);
        strict = admission_refusal_text(&adm);
        ASSERT_TRUE(strict != NULL && !strstr(strict, "--allow-degraded and"));
        ASSERT_CONTAINS(strict, "drop `limits:` from the manifest");
        check_width(strict);
        build(P_DEGRADED, &r);
        admission_decide(&r, &needs[N_MIN], DEF, &adm);
        core = admission_refusal_text(&adm);
        ASSERT_CONTAINS(core, "bento: refusing to run: a core guarantee cannot be fully enforced");
        ASSERT_CONTAINS(core, "  filesystem (degraded): ");
        ASSERT_TRUE(!strstr(core, "limits:"));
        check_width(core);
}

TEST(doctor_verdict)
{
        struct admission_host v;
        struct host_report r;

        build(P_ALL, &r);
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 0);
        ASSERT_EQ(v.n_short, 0);
        ASSERT_TRUE(v.fully_enforced);
        admission_judge_host(&r, false, &v); /* shields cannot be anchored (J4) */
        ASSERT_EQ(v.exit_code, 3);
        build(P_LIMITS, &r); /* J3 */
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 0);
        ASSERT_EQ(v.n_short, 3);
        ASSERT_EQ(v.effect[BENTO_LAYER_LIMITS_MEMORY], ADMISSION_EFFECT_REFUSED);
        ASSERT_EQ(v.effect[BENTO_LAYER_LIMITS_CPU], ADMISSION_EFFECT_REFUSED);
        ASSERT_EQ(v.effect[BENTO_LAYER_FILESYSTEM], ADMISSION_EFFECT_NONE);
        build(P_EXEC, &r);
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 0);
        ASSERT_EQ(v.effect[BENTO_LAYER_EXEC_BLOCK], ADMISSION_EFFECT_REPORTED);
        ASSERT_EQ(v.effect[BENTO_LAYER_EXEC_STRICT], ADMISSION_EFFECT_REPORTED);
        build(P_NOGIT, &r);
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 0);
        ASSERT_TRUE(v.fully_enforced); /* report-only does not count */
        ASSERT_EQ(v.effect[BENTO_LAYER_AUTO_EXEC_REPORT], ADMISSION_EFFECT_HOST);
        build(P_DEGRADED, &r); /* J2 */
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 3);
        ASSERT_TRUE(v.baseline_short && !v.baseline_hopeless);
        ASSERT_EQ(v.effect[BENTO_LAYER_NETWORK], ADMISSION_EFFECT_REFUSED);
        build(P_NOFS, &r);
        admission_judge_host(&r, true, &v);
        ASSERT_EQ(v.exit_code, 3);
        ASSERT_TRUE(v.baseline_short && v.baseline_hopeless);
}

/* ---- facts -> layers ---- */

static struct host_facts facts;

static void healthy(void)
{
        memset(&facts, 0, sizeof(facts));
        facts.arch = "amd64";
        facts.runtime_found = facts.gate_found = facts.egress_found = true;
        snprintf(facts.runtime_path, sizeof(facts.runtime_path), "/usr/bin/bento-runtime");
        facts.ns = HOST_NS_USABLE;
        facts.seccomp_filter = facts.seccomp_notify = true;
        facts.landlock_abi = facts.landlock_abi_kernel = 7;
        facts.cg_mode = HOST_CG_HYBRID;
        for (int c = 0; c < HOST_CTL_MAX; c++)
                facts.ctl[c].usable = true;
        facts.git = true;
}

static struct host_report judged;

static const struct layer_status *judge(enum bento_layer l)
{
        host_probe_judge(&facts, &judged);
        return host_report_get(&judged, l);
}

TEST(judge_healthy)
{
        healthy();
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, E);
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "Landlock backstop active");
        ASSERT_TRUE(host_report_fully_enforced(&judged));
        for (int l = 0; l < BENTO_LAYER_MAX; l++)
                ASSERT_EQ(judged.layer[l].state, E);
        /* J1: the exec-block note is always there and talks about execveat */
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_EXEC_BLOCK].consequences, "execveat");
        facts.landlock_abi = 0;
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, E);
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "no Landlock backstop");
}

TEST(judge_no_runtime)
{
        healthy();
        facts.runtime_found = false;
        snprintf(facts.runtime_why, sizeof(facts.runtime_why),
                 "bento-runtime ... point $BENTO_RUNTIME at it.");
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, D); /* J2, Landlock present */
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "$BENTO_RUNTIME");
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].consequences, "--allow-degraded");
        ASSERT_EQ(judged.layer[BENTO_LAYER_NETWORK].state, U);
        facts.landlock_abi = 0;
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, U);
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "no Landlock");
}

TEST(judge_namespaces)
{
        healthy();
        facts.ns = HOST_NS_UNKNOWN;
        snprintf(facts.ns_why, sizeof(facts.ns_why), "the probe timed out");
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, U);
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "rather than guessed");
        facts.ns = HOST_NS_BLOCKED;
        snprintf(facts.ns_why, sizeof(facts.ns_why), "user.max_user_namespaces=0.");
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, D);
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_FILESYSTEM].detail, "Landlock-only tier");
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_NETWORK].detail, "user.max_user_namespaces=0");
        facts.seccomp_filter = false; /* no fences for the fallback */
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, U);
        facts.seccomp_filter = true;
        facts.arch = "arm64";
        ASSERT_EQ(judge(BENTO_LAYER_FILESYSTEM)->state, U);
        ASSERT_EQ(judged.layer[BENTO_LAYER_EXEC_STRICT].state, U);
}

TEST(judge_helpers)
{
        healthy();
        facts.gate_found = false;
        snprintf(facts.gate_why, sizeof(facts.gate_why), "bento-exec-gate is missing");
        ASSERT_EQ(judge(BENTO_LAYER_EXEC_BLOCK)->state, U);
        ASSERT_STREQ(judged.layer[BENTO_LAYER_EXEC_BLOCK].detail, "bento-exec-gate is missing");
        ASSERT_EQ(judged.layer[BENTO_LAYER_FILESYSTEM].state, E);
        healthy();
        facts.egress_found = false;
        snprintf(facts.egress_why, sizeof(facts.egress_why), "bento-egress is missing");
        ASSERT_EQ(judge(BENTO_LAYER_NETWORK)->state, D);
        ASSERT_STREQ(judged.layer[BENTO_LAYER_NETWORK].detail, "bento-egress is missing");
        /* a manifest with rules is refused by default; one without is not */
        admission_decide(&judged, &needs[N_NET], DEF, &adm);
        ASSERT_EQ(adm.outcome, REF);
        admission_decide(&judged, &needs[N_MIN], DEF, &adm);
        ASSERT_EQ(adm.outcome, FULL);
}

TEST(judge_seccomp_and_limits)
{
        healthy();
        facts.seccomp_notify = false;
        snprintf(facts.seccomp_why, sizeof(facts.seccomp_why), "no listener.");
        ASSERT_EQ(judge(BENTO_LAYER_EXEC_BLOCK)->state, U);
        ASSERT_EQ(judged.layer[BENTO_LAYER_EXEC_STRICT].state, E);
        facts.seccomp_filter = false;
        ASSERT_EQ(judge(BENTO_LAYER_EXEC_STRICT)->state, U);
        healthy();
        facts.ctl[HOST_CTL_CPU].usable = false;
        snprintf(facts.ctl[HOST_CTL_CPU].why, sizeof(facts.ctl[0].why), "cpu is not delegated");
        ASSERT_EQ(judge(BENTO_LAYER_LIMITS_CPU)->state, U);
        ASSERT_STREQ(judged.layer[BENTO_LAYER_LIMITS_CPU].detail, "cpu is not delegated");
        ASSERT_CONTAINS(judged.layer[BENTO_LAYER_LIMITS_CPU].consequences, "limits.cpu");
        ASSERT_EQ(judged.layer[BENTO_LAYER_LIMITS_PIDS].state, E);
        facts.git = false;
        ASSERT_EQ(judge(BENTO_LAYER_AUTO_EXEC_REPORT)->state, U);
}

TEST(landlock_errata_rule)
{
        ASSERT_EQ(host_landlock_effective_abi(-1, -1), 0);
        ASSERT_EQ(host_landlock_effective_abi(0, 0), 0);
        ASSERT_EQ(host_landlock_effective_abi(4, 0), 4);
        ASSERT_EQ(host_landlock_effective_abi(5, 0), 5);
        ASSERT_EQ(host_landlock_effective_abi(6, 0), 5);   /* no signal-scope fix */
        ASSERT_EQ(host_landlock_effective_abi(7, -1), 5);  /* kernel cannot tell */
        ASSERT_EQ(host_landlock_effective_abi(7, 0x1), 5); /* another erratum only */
        ASSERT_EQ(host_landlock_effective_abi(6, 0x2), 6);
        ASSERT_EQ(host_landlock_effective_abi(7, 0x7), 7);
}

TEST(names)
{
        for (int l = 0; l < BENTO_LAYER_MAX; l++)
                ASSERT_EQ(bento_layer_from_name(bento_layer_name(l)), l);
        ASSERT_EQ(bento_layer_from_name("nope"), -1);
        ASSERT_STREQ(bento_layer_name(BENTO_LAYER_AUTO_EXEC_REPORT), "auto-exec-report");
        ASSERT_EQ(bento_layer_tier(BENTO_LAYER_NETWORK), BENTO_TIER_CORE);
        ASSERT_EQ(bento_layer_tier(BENTO_LAYER_LIMITS_CPU), BENTO_TIER_HARDENING);
        ASSERT_TRUE(D > E && U > D); /* ordered by severity */
}

TAP_MAIN()
