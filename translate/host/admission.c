/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Admission decisions (admission.h): the posture table and the extra
 * refusals of docs/cli/bento-run.md, "ADMISSION", the post-run shortfall of docs/cli/bento-run.md,
 * "EXIT STATUS", the refusal text of docs/cli/bento-run.md, "ADMISSION", and doctor's verdict,
 * which asks the same admission_decide() what each short layer would do to a run.
 */
#include "admission.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "textwrap.h"

#define REFUSE_STRICT "strict mode requires every layer to be fully enforced"
#define REFUSE_CORE_ALL                                                                            \
        "a core guarantee cannot be enforced at all on this host, so not even the "                \
        "Landlock-only tier that --allow-degraded accepts can run"
#define REFUSE_CORE "a core guarantee cannot be fully enforced on this host"
#define REFUSE_LIMITS                                                                              \
        "the manifest requests resource limits this host cannot enforce; running unbounded "       \
        "could exhaust host resources"
#define REFUSE_RUN_ID_NO_LIMITS                                                                    \
        "a run id asks for a reapable scope, but this manifest sets no resource limits, so "       \
        "bento-runtime would make no cgroup to name after it: drop --run-id or add limits:"
#define REFUSE_RUN_ID_LIMITS                                                                       \
        "a run id asks for a reapable scope, but this host cannot enforce every limit the "        \
        "manifest sets, so there would be no capped cgroup to name after it (--allow-degraded "    \
        "does not change that)"
#define REFUSE_NO_NETNS                                                                            \
        "this host has no network namespace to fence egress into, and every sandbox gets one, "    \
        "even for a manifest without network: rules"
#define REFUSE_DEGRADED_NET                                                                        \
        "network rules cannot be honored by the degraded tier: it has no network namespace to "    \
        "run the egress proxy in"

int admission_posture_from_flags(bool strict, bool allow_degraded, enum admission_posture *ret,
                                 struct bento_err *err)
{
        if (strict && allow_degraded)
                return bento_err_setx(err, EINVAL,
                                      "--strict and --allow-degraded are opposites: --strict "
                                      "refuses any layer this host does not fully enforce, "
                                      "--allow-degraded runs with some of them weaker. Pass one "
                                      "or the other, not both");
        *ret = strict           ? ADMISSION_STRICT
               : allow_degraded ? ADMISSION_ALLOW_DEGRADED
                                : ADMISSION_DEFAULT;
        return 0;
}

int admission_check_run_id(const char *id, struct bento_err *err)
{
        size_t n = strlen(id);
        bool ok = n >= 1 && n <= 64;

        for (size_t i = 0; ok && i < n; i++)
                ok = (id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') ||
                     (id[i] >= '0' && id[i] <= '9') || id[i] == '_';
        if (ok)
                return 0;
        return bento_err_setx(err, EINVAL,
                              "run id \"%.80s%s\" must be 1-64 characters of letters, digits, or "
                              "underscore",
                              id, n > 80 ? "..." : "");
}

void admission_needs_of(const struct manifest *m, bool run_id, struct admission_needs *ret)
{
        *ret = (struct admission_needs){
            .exec = m->exec,
            .memory = m->limits.memory_bytes > 0 || (m->limits.memory && *m->limits.memory),
            .pids = m->limits.has_pids,
            .cpu = m->limits.cpu_hundredths > 0 || (m->limits.cpu && *m->limits.cpu),
            .network_rules = m->n_network > 0,
            .run_id = run_id,
        };
}

void admission_required(const struct admission_needs *n, bool ret[BENTO_LAYER_MAX])
{
        memset(ret, 0, sizeof(bool) * BENTO_LAYER_MAX);
        ret[BENTO_LAYER_FILESYSTEM] = true;
        ret[BENTO_LAYER_NETWORK] = n->network_rules;
        ret[BENTO_LAYER_EXEC_BLOCK] = n->exec != MANIFEST_EXEC_ALL;
        ret[BENTO_LAYER_EXEC_STRICT] = n->exec == MANIFEST_EXEC_NONE_STRICT;
        ret[BENTO_LAYER_LIMITS_MEMORY] = n->memory;
        ret[BENTO_LAYER_LIMITS_PIDS] = n->pids;
        ret[BENTO_LAYER_LIMITS_CPU] = n->cpu;
}

static bool is_limits(int l)
{
        return l == BENTO_LAYER_LIMITS_MEMORY || l == BENTO_LAYER_LIMITS_PIDS ||
               l == BENTO_LAYER_LIMITS_CPU;
}

static enum bento_layer_state state_of(const struct host_report *r, int l)
{
        return host_report_get(r, (enum bento_layer) l)->state;
}

/* Mark the required layers matching want (core, limits or any) whose state
 * is at least `worst`; true when there was one. */
static bool mark(struct admission *a, int kind, enum bento_layer_state worst)
{
        bool any = false;

        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                bool core = bento_layer_tier(l) == BENTO_TIER_CORE;

                if (!a->required[l] || (kind == 1 && !core) || (kind == 2 && !is_limits(l)))
                        continue;
                if (state_of(&a->report, l) >= worst)
                        a->shortfall[l] = any = true;
        }
        return any;
}

#define KIND_ANY    0
#define KIND_CORE   1
#define KIND_LIMITS 2

static void refuse(struct admission *a, const char *reason)
{
        a->outcome = ADMISSION_REFUSED;
        a->exit_code = ADMISSION_EXIT_REFUSED;
        snprintf(a->reason, sizeof(a->reason), "%s", reason);
}

/* The posture table of docs/cli/bento-run.md, "ADMISSION"; true when it refused. */
static bool posture_refuses(struct admission *a, enum admission_posture p)
{
        if (p == ADMISSION_STRICT) {
                bool only_limits = true;

                if (!mark(a, KIND_ANY, BENTO_STATE_DEGRADED))
                        return false;
                for (int l = 0; l < BENTO_LAYER_MAX; l++)
                        if (a->shortfall[l] && !is_limits(l))
                                only_limits = false;
                refuse(a, REFUSE_STRICT);
                if (only_limits)
                        a->advice = ADMISSION_ADVICE_LIMITS_DROP;
                return true;
        }
        if (p == ADMISSION_ALLOW_DEGRADED) {
                if (!mark(a, KIND_CORE, BENTO_STATE_UNAVAILABLE))
                        return false;
                refuse(a, REFUSE_CORE_ALL);
                return true;
        }
        if (mark(a, KIND_CORE, BENTO_STATE_DEGRADED)) {
                refuse(a, REFUSE_CORE);
                return true;
        }
        if (mark(a, KIND_LIMITS, BENTO_STATE_DEGRADED)) {
                refuse(a, REFUSE_LIMITS);
                a->advice = ADMISSION_ADVICE_LIMITS_WAIVABLE;
                return true;
        }
        return false;
}

/* The refusals after the posture table: run id, the network namespace. */
static bool extra_refuses(struct admission *a, const struct host_report *probe,
                          const struct admission_needs *n)
{
        enum bento_layer_state fs = state_of(probe, BENTO_LAYER_FILESYSTEM);

        if (n->run_id && !n->memory && !n->pids && !n->cpu) {
                refuse(a, REFUSE_RUN_ID_NO_LIMITS);
                return true;
        }
        if (n->run_id && mark(a, KIND_LIMITS, BENTO_STATE_DEGRADED)) {
                refuse(a, REFUSE_RUN_ID_LIMITS);
                return true;
        }
        if (fs == BENTO_STATE_ENFORCED &&
            state_of(probe, BENTO_LAYER_NETWORK) == BENTO_STATE_UNAVAILABLE) {
                a->shortfall[BENTO_LAYER_NETWORK] = true;
                host_report_set(&a->report, BENTO_LAYER_NETWORK, BENTO_STATE_UNAVAILABLE,
                                host_report_get(probe, BENTO_LAYER_NETWORK)->detail,
                                host_report_get(probe, BENTO_LAYER_NETWORK)->consequences);
                refuse(a, REFUSE_NO_NETNS);
                return true;
        }
        if (fs == BENTO_STATE_DEGRADED && n->network_rules) {
                a->shortfall[BENTO_LAYER_NETWORK] = true;
                refuse(a, REFUSE_DEGRADED_NET);
                return true;
        }
        return false;
}

void admission_decide(const struct host_report *probe, const struct admission_needs *n,
                      enum admission_posture p, struct admission *ret)
{
        memset(ret, 0, sizeof(*ret));
        admission_required(n, ret->required);
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                const struct layer_status *s = host_report_get(probe, l);

                if (ret->required[l] || bento_layer_report_only(l))
                        host_report_set(&ret->report, l, s->state, s->detail, s->consequences);
        }
        if (posture_refuses(ret, p) || extra_refuses(ret, probe, n))
                return;
        ret->outcome = state_of(probe, BENTO_LAYER_FILESYSTEM) == BENTO_STATE_ENFORCED
                           ? ADMISSION_FULL
                           : ADMISSION_DEGRADED;
        ret->exit_code = 0;
        /* admitted: the gaps reported after the run */
        (void) mark(ret, KIND_ANY, BENTO_STATE_DEGRADED);
}

bool admission_shortfall(const struct host_report *final, const struct admission_needs *n,
                         enum admission_posture p)
{
        bool required[BENTO_LAYER_MAX];

        admission_required(n, required);
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                enum bento_layer_state s = state_of(final, l);
                bool core = bento_layer_tier(l) == BENTO_TIER_CORE;

                if (!required[l] || bento_layer_report_only(l) || s == BENTO_STATE_ENFORCED)
                        continue;
                if (p == ADMISSION_STRICT)
                        return true;
                if (p == ADMISSION_ALLOW_DEGRADED && core && s == BENTO_STATE_UNAVAILABLE)
                        return true;
                if (p == ADMISSION_DEFAULT && (core || is_limits(l)))
                        return true;
        }
        return false;
}

/* ---- text ---- */

static int put_wrapped(FILE *f, const char *text, size_t width, const char *first,
                       const char *indent)
{
        cleanup_free char *s = bento_wrap(text, width, first, indent);

        return s && fputs(s, f) >= 0 ? 0 : -1;
}

char *admission_refusal_text(const struct admission *a)
{
        char *buf = NULL, line[HOST_TEXT_MAX + 64];
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        bool pointer = false;
        int r;

        if (!f)
                return NULL;
        snprintf(line, sizeof(line), "refusing to run: %s", a->reason);
        r = put_wrapped(f, line, 78, "bento: ", "       ");
        for (int l = 0; l < BENTO_LAYER_MAX && r >= 0; l++) {
                const struct layer_status *s = host_report_get(&a->report, l);

                if (!a->shortfall[l])
                        continue;
                snprintf(line, sizeof(line), "%s (%s): %s", bento_layer_name(l),
                         bento_state_name(s->state), s->detail[0] ? s->detail : "not enforced");
                r = put_wrapped(f, line, 78, "  ", "    ");
                pointer = pointer || s->consequences[0];
        }
        if (pointer)
                fputs("  run `bento doctor` for everything the fallback tier does not confine.\n",
                      f);
        if (r >= 0 && a->advice == ADMISSION_ADVICE_LIMITS_WAIVABLE)
                r = put_wrapped(f,
                                "to proceed anyway, pass --allow-degraded and the script runs "
                                "unbounded, or drop `limits:` from the manifest so it no longer "
                                "asks for a cap this host cannot apply.",
                                78, "  ", "  ");
        else if (r >= 0 && a->advice == ADMISSION_ADVICE_LIMITS_DROP)
                r = put_wrapped(f,
                                "drop `limits:` from the manifest so it no longer asks for a cap "
                                "this host cannot apply (--strict does not waive a limit).",
                                78, "  ", "  ");
        if (fclose(f) != 0 || r < 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---- doctor ---- */

/* A manifest that needs exactly layer l (the filesystem layer always). */
static void needs_for(int l, struct admission_needs *n)
{
        *n = (struct admission_needs){.exec = MANIFEST_EXEC_ALL};
        n->network_rules = l == BENTO_LAYER_NETWORK;
        if (l == BENTO_LAYER_EXEC_BLOCK)
                n->exec = MANIFEST_EXEC_NONE;
        if (l == BENTO_LAYER_EXEC_STRICT)
                n->exec = MANIFEST_EXEC_NONE_STRICT;
        n->memory = l == BENTO_LAYER_LIMITS_MEMORY;
        n->pids = l == BENTO_LAYER_LIMITS_PIDS;
        n->cpu = l == BENTO_LAYER_LIMITS_CPU;
}

/* What layer l, as the probe has it, does to a run that needs it when
 * every other layer holds. */
static enum admission_effect effect_of(const struct host_report *probe, int l,
                                       struct admission *scratch)
{
        struct admission_needs n;
        struct host_report copy;

        if (bento_layer_report_only(l))
                return ADMISSION_EFFECT_HOST;
        memset(&copy, 0, sizeof(copy));
        for (int k = 0; k < BENTO_LAYER_MAX; k++)
                host_report_set(&copy, k, BENTO_STATE_ENFORCED, NULL, NULL);
        copy.layer[l] = *host_report_get(probe, l);
        needs_for(l, &n);
        admission_decide(&copy, &n, ADMISSION_DEFAULT, scratch);
        if (scratch->outcome == ADMISSION_REFUSED)
                return ADMISSION_EFFECT_REFUSED;
        return scratch->shortfall[l] ? ADMISSION_EFFECT_REPORTED : ADMISSION_EFFECT_NONE;
}

void admission_judge_host(const struct host_report *probe, bool shields_ok,
                          struct admission_host *ret)
{
        struct admission *a = calloc(1, sizeof(*a));
        struct admission_needs least = {.exec = MANIFEST_EXEC_ALL};

        memset(ret, 0, sizeof(*ret));
        ret->fully_enforced = host_report_fully_enforced(probe);
        if (!a) {
                /* cannot judge: say the worst rather than guess */
                ret->baseline_short = ret->baseline_hopeless = true;
                ret->exit_code = ADMISSION_EXIT_BASELINE;
                return;
        }
        admission_decide(probe, &least, ADMISSION_DEFAULT, a);
        ret->baseline_short = a->outcome == ADMISSION_REFUSED;
        admission_decide(probe, &least, ADMISSION_ALLOW_DEGRADED, a);
        ret->baseline_hopeless = a->outcome == ADMISSION_REFUSED;
        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                if (state_of(probe, l) == BENTO_STATE_ENFORCED)
                        continue;
                ret->n_short++;
                ret->effect[l] = effect_of(probe, l, a);
        }
        free(a);
        ret->exit_code = ret->baseline_short || !shields_ok ? ADMISSION_EXIT_BASELINE : 0;
}
