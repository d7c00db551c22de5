/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento run --json (docs/cli/bento-run.md, "JSON OUTPUT"): one compact JSON object per
 * line on stdout.  Target output travels as base64 chunks, exactly as the
 * reads returned it; the last object is the verdict, a refusal or a
 * failure, and always carries the run's report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "jsonw.h"
#include "report/json-parts.h"
#include "blocked.h"
#include "exec-record.h"
#include "degraded.h"
#include "run.h"

static char *base64(const char *data, size_t len)
{
        static const char tbl[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char *out = malloc(4 * ((len + 2) / 3) + 1), *o = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len; i += 3) {
                unsigned v = (unsigned char) data[i] << 16;

                if (i + 1 < len)
                        v |= (unsigned char) data[i + 1] << 8;
                if (i + 2 < len)
                        v |= (unsigned char) data[i + 2];
                *o++ = tbl[(v >> 18) & 63];
                *o++ = tbl[(v >> 12) & 63];
                *o++ = i + 1 < len ? tbl[(v >> 6) & 63] : '=';
                *o++ = i + 2 < len ? tbl[v & 63] : '=';
        }
        *o = '\0';
        return out;
}

/* Finish w and write its line to stdout in one write. */
static int emit(struct bento_jsonw *w)
{
        cleanup_free char *buf = NULL;
        size_t len = 0, off = 0;

        if (bento_jsonw_finish(w, &buf, &len) < 0)
                return -EIO;
        while (off < len) {
                ssize_t n = write(STDOUT_FILENO, buf + off, len - off);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -EIO;
                off += (size_t) n;
        }
        return write(STDOUT_FILENO, "\n", 1) == 1 ? 0 : -EIO;
}

static int open_event(struct bento_jsonw *w, const char *event)
{
        struct bento_err ignored = {0};

        if (bento_jsonw_init(w, false, &ignored) < 0)
                return -ENOMEM;
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "event", event);
        return 0;
}

int run_event_output(int stream, const char *data, size_t len)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *b64 = base64(data, len);

        if (!b64 || open_event(&w, stream == 1 ? "stdout" : "stderr") < 0)
                return -ENOMEM;
        bento_jsonw_kstring(&w, "data", b64);
        bento_jsonw_close_object(&w);
        return emit(&w);
}

static void write_report(struct bento_jsonw *w, const struct host_report *r, const bool *required)
{
        bool any = false;

        bento_jsonw_key(w, "report");
        bento_jsonw_open_object(w);
        bento_jsonw_key(w, "layers");
        bento_jsonw_open_array(w);
        for (int l = 0; r && l < BENTO_LAYER_MAX; l++) {
                if (!r->present[l] && !(required && required[l]))
                        continue;
                any = true;
                report_json_layer(w, r, (enum bento_layer) l);
        }
        bento_jsonw_close_array(w);
        /* A report with no layers is never "fully enforced" (docs/cli/bento-run.md, "JSON OUTPUT").
         */
        bento_jsonw_kbool(w, "fully_enforced", any && host_report_fully_enforced(r));
        bento_jsonw_close_object(w);
}

static void write_dests(struct bento_jsonw *w, const char *key, const struct run_dest *d, size_t n)
{
        if (n == 0)
                return;
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "host", d[i].host);
                bento_jsonw_kstring(w, "port", d[i].port);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

/* docs/degraded.md: the shields the Landlock-only tier kept hidden by
 * granting around them, and those it left reachable. */
static void write_degraded_shields(struct bento_jsonw *w, const struct run_degraded *dg)
{
        size_t kept = 0;

        for (size_t i = 0; i < dg->n_hidden; i++)
                kept += dg->kept[i];
        if (kept) {
                bento_jsonw_key(w, "shields");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < dg->n_hidden; i++) {
                        if (!dg->kept[i])
                                continue;
                        bento_jsonw_open_object(w);
                        bento_jsonw_kstring(w, "path", dg->hidden[i]->path);
                        bento_jsonw_kstring(w, "kind", "hidden");
                        bento_jsonw_kstring_opt(w, "source", dg->hidden[i]->source);
                        bento_jsonw_close_object(w);
                }
                bento_jsonw_close_array(w);
        }
        bento_jsonw_key(w, "exposed");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < dg->n_exposed; i++) {
                const struct shield_rule *r = dg->exposed[i].rule;

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", r->path);
                bento_jsonw_kstring(w, "kind", r->deny == SHIELD_DENY_ALL ? "hidden" : "read-only");
                if (r->holds != SHIELD_HOLDS_NONE)
                        bento_jsonw_kstring(w, "holds", shield_holds_to_string(r->holds));
                bento_jsonw_kstring_opt(w, "source", r->source);
                bento_jsonw_kstring(w, "why", dg->exposed[i].why);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void write_shields(struct bento_jsonw *w, const struct policy *p,
                          const struct run_degraded *dg)
{
        bool opted = false;

        if (dg)
                write_degraded_shields(w, dg);
        else if (p->n_shield_mounts) {
                bento_jsonw_key(w, "shields");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < p->n_shield_mounts; i++) {
                        const struct shield_mount *sm = &p->shield_mounts[i];

                        bento_jsonw_open_object(w);
                        bento_jsonw_kstring(w, "path", sm->path);
                        bento_jsonw_kstring(w, "kind", shield_mount_kind_to_string(sm->kind));
                        bento_jsonw_kstring_opt(w, "source", sm->rule->source);
                        bento_jsonw_close_object(w);
                }
                bento_jsonw_close_array(w);
        }
        for (size_t i = 0; p->opted && p->shields && i < p->shields->n_rules; i++) {
                if (!p->opted[i])
                        continue;
                if (!opted) {
                        bento_jsonw_key(w, "shielded_grants");
                        bento_jsonw_open_array(w);
                }
                opted = true;
                report_json_shielded_grant(w, &p->shields->rules[i]);
        }
        if (opted)
                bento_jsonw_close_array(w);
}

static void write_missing_reads(struct bento_jsonw *w, const struct policy *p)
{
        bool any = false;

        for (size_t i = 0; i < p->n_reads; i++) {
                if (p->reads[i].exists)
                        continue;
                if (!any) {
                        bento_jsonw_key(w, "missing_read_grants");
                        bento_jsonw_open_array(w);
                }
                any = true;
                bento_jsonw_string(w, p->reads[i].expanded);
        }
        if (any)
                bento_jsonw_close_array(w);
}

static void write_strv(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        if (n)
                bento_jsonw_kstrv(w, key, v, n);
}

static void write_autoexec(struct bento_jsonw *w, const struct run_autoexec *a)
{
        if (!a)
                return;
        write_strv(w, "changed_auto_exec", a->changed, a->n_changed);
        write_strv(w, "changed_git_settings", a->settings, a->n_settings);
        write_strv(w, "redirected_hooks", a->redirected, a->n_redirected);
        write_strv(w, "unresolved_hooks", a->unresolved, a->n_unresolved);
}

/* docs/cli/bento-run.md, "OUTPUT": the PATH directories the box does not carry. */
static void write_shadowed_dirs(struct bento_jsonw *w, const struct run_view *v)
{
        struct run_shadows s = {0};

        if (!run_view_shadows(v, &s))
                return;
        bento_jsonw_key(w, "shadowed_path_dirs");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < s.n; i++)
                if (run_shadow_new_dir(&s, i))
                        bento_jsonw_string(w, s.v[i].dir);
        bento_jsonw_close_array(w);
        run_shadows_done(&s);
}

static void write_accepted(struct bento_jsonw *w, const struct alias_scan *a)
{
        if (!a || a->n_hits == 0)
                return;
        bento_jsonw_key(w, "accepted_aliases");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < a->n_hits; i++)
                alias_hit_json(w, &a->hits[i]);
        bento_jsonw_close_array(w);
}

int run_event_verdict(const struct run_view *v)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (open_event(&w, "verdict") < 0)
                return -ENOMEM;
        bento_jsonw_kint(&w, "exit_code", v->shortfall ? 124 : v->out->exit_code);
        if (v->out->signal)
                bento_jsonw_kint(&w, "signal", v->out->signal);
        bento_jsonw_kint(&w, "egress_connections", v->egress->connections);
        write_dests(&w, "guard_blocked", v->egress->blocked, v->egress->n_blocked);
        if (v->blocked)
                write_strv(&w, "recorded_blocked_hosts", v->blocked->recorded,
                           v->blocked->n_recorded);
        write_dests(&w, "egress_denied", v->egress->denied, v->egress->n_denied);
        write_dests(&w, "gate_allowed", v->egress->gate_allowed, v->egress->n_gate_allowed);
        write_dests(&w, "gate_denied", v->egress->gate_denied, v->egress->n_gate_denied);
        write_dests(&w, "untunneled", v->egress->untunneled, v->egress->n_untunneled);
        write_shields(&w, v->p, v->degraded);
        write_report(&w, &v->a->report, v->a->required);
        if (v->shortfall)
                bento_jsonw_kbool(&w, "posture_shortfall", true);
        write_missing_reads(&w, v->p);
        write_autoexec(&w, v->autoexec);
        write_accepted(&w, v->accepted);
        write_shadowed_dirs(&w, v);
        if (v->exec_record)
                run_exec_record_json(&w, v->exec_record);
        bento_jsonw_close_object(&w);
        return emit(&w);
}

int run_event_refusal(const char *reason, const struct host_report *report)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (open_event(&w, "refusal") < 0)
                return -ENOMEM;
        bento_jsonw_kstring(&w, "reason", reason);
        write_report(&w, report, NULL);
        bento_jsonw_close_object(&w);
        return emit(&w);
}

int run_event_failed(const char *reason, const struct run_view *v)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (open_event(&w, "failed") < 0)
                return -ENOMEM;
        bento_jsonw_kstring(&w, "reason", reason);
        write_report(&w, &v->a->report, v->a->required);
        write_shields(&w, v->p, v->degraded);
        write_autoexec(&w, v->autoexec);
        write_accepted(&w, v->accepted);
        write_shadowed_dirs(&w, v);
        bento_jsonw_close_object(&w);
        return emit(&w);
}
