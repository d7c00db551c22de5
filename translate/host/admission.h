/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Admission (docs/cli/bento-run.md, "ADMISSION" and "EXIT STATUS"): given what the host probe found
 * (probe.h), what a manifest needs and the posture the user chose,
 * decide whether a run goes ahead, in which tier, or is refused, and with
 * which words and exit code.  `bento run` and `bento doctor` both decide
 * here, so doctor's verdict is the one run would reach.
 *
 * How `bento run` uses it, in the order of docs/cli/bento-run.md:
 *
 *      enum admission_posture posture;
 *      struct admission_needs needs;
 *      struct host_report probe;
 *      struct admission *a = calloc(1, sizeof(*a));  (about 20 KiB)
 *
 *      if (admission_posture_from_flags(strict, allow_degraded, &posture, &err) < 0)
 *              -> "bento: <err.msg>", exit ADMISSION_EXIT_REFUSED      (step 2)
 *      if (run_id && admission_check_run_id(run_id, &err) < 0)
 *              -> the same                                             (before probing)
 *      ... load, approve, resolve ...
 *      admission_needs_of(manifest, run_id != NULL, &needs);
 *      host_probe(NULL, NULL, &probe);
 *      admission_decide(&probe, &needs, posture, a);
 *      if (a->outcome == ADMISSION_REFUSED)
 *              -> print admission_refusal_text(a), exit a->exit_code (125);
 *                 --json: {"event":"refusal","reason":a->reason,"report":a->report}
 *      ADMISSION_FULL: the bundle for bento-runtime; ADMISSION_DEGRADED: the
 *      Landlock-only tier (docs/cli/bento-run.md, "ADMISSION").  a->report
 *      is the run's report: merge what the backend says it applied with
 *      host_report_set() (worse wins).
 *      After the target ended:
 *      if (admission_shortfall(&a->report, &needs, posture))
 *              -> keep the output, exit ADMISSION_EXIT_SHORTFALL (124)
 *
 * Nothing here prints; the texts come back as strings.
 */
#ifndef BENTO_ADMISSION_H
#define BENTO_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "probe.h"
#include "manifest/manifest.h"

/* The exit codes: docs/cli/bento.md and docs/cli/bento-run.md, "EXIT STATUS";
 * docs/doctor.md for the baseline. */
#define ADMISSION_EXIT_REFUSED   125 /* bento refused */
#define ADMISSION_EXIT_SHORTFALL 124 /* a guarantee lapsed during the run */
#define ADMISSION_EXIT_BASELINE  3   /* doctor: the baseline is short */

enum admission_posture {
        ADMISSION_DEFAULT,
        ADMISSION_STRICT,         /* --strict */
        ADMISSION_ALLOW_DEGRADED, /* --allow-degraded */
        ADMISSION_POSTURE_MAX,
};

/* What a run asks of the host. */
struct admission_needs {
        enum manifest_exec exec;
        bool memory, pids, cpu; /* limits: set */
        bool network_rules;     /* network: non-empty */
        bool run_id;            /* --run-id given */
};

enum admission_outcome {
        ADMISSION_FULL,     /* admitted: bento-runtime builds the full sandbox */
        ADMISSION_DEGRADED, /* admitted on the Landlock-only tier (--allow-degraded) */
        ADMISSION_REFUSED,
};

/* What a refusal may add after the short layers (docs/cli/bento-run.md, "ADMISSION"). */
enum admission_advice {
        ADMISSION_ADVICE_NONE,
        ADMISSION_ADVICE_LIMITS_WAIVABLE, /* --allow-degraded, or drop limits: */
        ADMISSION_ADVICE_LIMITS_DROP,     /* only dropping limits: helps (--strict) */
};

struct admission {
        enum admission_outcome outcome;
        int exit_code;                  /* 0 when admitted, ADMISSION_EXIT_REFUSED when not */
        char reason[HOST_TEXT_MAX];     /* the refusal reason (bento-run(1)); "" when admitted */
        bool required[BENTO_LAYER_MAX]; /* the layers this run needs */
        /* The required layers that are not enforced: under a refusal the
         * ones behind it, otherwise the gaps to report after the run. */
        bool shortfall[BENTO_LAYER_MAX];
        enum admission_advice advice;
        /* The run's report: the probe restricted to the required layers
         * (absent ones unavailable) plus the report-only layers. */
        struct host_report report;
};

/* --strict and --allow-degraded -> posture; both -> -EINVAL with the docs/cli/bento-run.md
 * conflict message ("--strict and --allow-degraded are opposites: ...
 * Pass one ..."). */
int admission_posture_from_flags(bool strict, bool allow_degraded, enum admission_posture *ret,
                                 struct bento_err *err);

/* docs/cli/bento-run.md, "ADMISSION": a run id is 1-64 letters, digits or underscores; else -EINVAL
 * with `run id "<id>" must be 1-64 characters of letters, digits, or underscore`. */
int admission_check_run_id(const char *id, struct bento_err *err);

/* The needs of a validated manifest. */
void admission_needs_of(const struct manifest *m, bool run_id, struct admission_needs *ret);

/* docs/cli/bento-run.md, "ADMISSION" required layers: filesystem always; network with rules;
 * exec-block unless exec: all, exec-strict for none-strict; a limits layer per limit. */
void admission_required(const struct admission_needs *n, bool ret[BENTO_LAYER_MAX]);

/* The decision of docs/cli/bento-run.md, "ADMISSION" (never fails; ret is overwritten). */
void admission_decide(const struct host_report *probe, const struct admission_needs *n,
                      enum admission_posture p, struct admission *ret);

/* docs/cli/bento-run.md, "EXIT STATUS", after the target finished: did a guarantee the run was
 * admitted on lapse (judged on `final`, the run's report after the backend's merge)? */
bool admission_shortfall(const struct host_report *final, const struct admission_needs *n,
                         enum admission_posture p);

/* The human refusal of docs/cli/bento-run.md, "ADMISSION" (lines ending in '\n', no "[bento]"
 * prefix): "bento: refusing to run: <reason>" wrapped, the short layers, the doctor pointer and the
 * limits advice.  Heap string, NULL when out of memory. */
char *admission_refusal_text(const struct admission *a);

/* ---- the host as a whole, for doctor (docs/doctor.md) ---- */

/* What a short layer does to a run under the default posture, found by
 * asking admission_decide() about a manifest that needs just that layer. */
enum admission_effect {
        ADMISSION_EFFECT_NONE,     /* enforced: nothing */
        ADMISSION_EFFECT_REFUSED,  /* manifests needing it are refused by default */
        ADMISSION_EFFECT_REPORTED, /* they run, and the gap is reported */
        ADMISSION_EFFECT_HOST,     /* report-only: no run changes */
};

struct admission_host {
        int exit_code;          /* 0, or ADMISSION_EXIT_BASELINE */
        bool baseline_short;    /* a run with the smallest needs would be refused */
        bool baseline_hopeless; /* ... even under --allow-degraded */
        bool fully_enforced;    /* host_report_fully_enforced(): report-only aside */
        enum admission_effect effect[BENTO_LAYER_MAX];
        size_t n_short; /* layers not enforced, report-only ones included */
};

/* doctor's verdict on a probe.  shields_ok: the credential shields can be
 * anchored (docs/manifest.md, "CREDENTIAL SHIELDS"); when false the exit code is
 * ADMISSION_EXIT_BASELINE. */
void admission_judge_host(const struct host_report *probe, bool shields_ok,
                          struct admission_host *ret);

#endif
