/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate --json (docs/validate.md): one indented document with the
 * manifest as written, what it resolves to on this host and every verdict
 * a CI gate needs.  Optional members are left out when empty.  A refused
 * grant leaves "runnable" true: a gate must check refused_grants too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "jsonw.h"
#include "json-parts.h"
#include "validate.h"

static void list(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        if (n > 0)
                bento_jsonw_kstrv(w, key, v, n);
}

static void resolved(struct bento_jsonw *w, const char *key, const struct policy_path *v, size_t n)
{
        bool any = false;

        for (size_t i = 0; i < n; i++) {
                if (!v[i].real || strcmp(v[i].real, v[i].written) == 0)
                        continue;
                if (!any) {
                        bento_jsonw_key(w, key);
                        bento_jsonw_open_array(w);
                        any = true;
                }
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", v[i].written);
                bento_jsonw_kstring(w, "on_host", v[i].real);
                bento_jsonw_close_object(w);
        }
        if (any)
                bento_jsonw_close_array(w);
}

static void network(struct bento_jsonw *w, const struct validate_report *r)
{
        const struct manifest *m = r->m;

        bento_jsonw_key(w, "network");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < m->n_network; i++) {
                bool v6 = strchr(m->network[i].host, ':') != NULL;
                cleanup_free char *s = NULL;

                if (asprintf(&s, "%s%s%s:%s", v6 ? "[" : "", m->network[i].host, v6 ? "]" : "",
                             m->network[i].port) < 0)
                        s = NULL;
                bento_jsonw_string(w, s); /* NULL records the failure */
        }
        bento_jsonw_close_array(w);
        if (r->n_blocked > 0) {
                bento_jsonw_key(w, "network_blocked");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < r->n_blocked; i++) {
                        const struct validate_blocked *b = &r->blocked[i];

                        bento_jsonw_open_object(w);
                        bento_jsonw_kstring(w, "host", b->host);
                        bento_jsonw_kstring(w, "port", b->port);
                        bento_jsonw_kstring(w, "rule_host", m->network[b->rule].host);
                        bento_jsonw_kstring(w, "rule_port", m->network[b->rule].port);
                        bento_jsonw_close_object(w);
                }
                bento_jsonw_close_array(w);
        }
        list(w, "network_blocked_unreadable", (char *const *) r->blocked_unreadable,
             r->n_blocked_unreadable);
}

static void shielded_grants(struct bento_jsonw *w, const struct validate_report *r)
{
        const struct policy *p = r->p;

        if (!p || r->n_opted == 0)
                return;
        bento_jsonw_key(w, "shielded_grants");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < p->n_reads; i++) {
                const struct shield_rule *rule = r->read_opt_in[i];

                if (rule)
                        report_json_shielded_grant(w, rule);
        }
        bento_jsonw_close_array(w);
}

static void limits(struct bento_jsonw *w, const struct manifest_limits *l)
{
        if (!*l->memory && !*l->cpu && !l->has_pids && !*l->tmp)
                return;
        bento_jsonw_key(w, "limits");
        bento_jsonw_open_object(w);
        if (*l->memory)
                bento_jsonw_kstring(w, "memory", l->memory);
        if (*l->cpu)
                bento_jsonw_kstring(w, "cpu", l->cpu);
        if (l->has_pids)
                bento_jsonw_kint(w, "pids", l->pids);
        if (*l->tmp)
                bento_jsonw_kstring(w, "tmp", l->tmp);
        bento_jsonw_close_object(w);
}

static const char *field_name(enum validate_field f)
{
        static const char *const names[] = {"entrypoint", "interpreter", "read", "write"};

        return f < VALIDATE_FIELD_MAX ? names[f] : "unknown";
}

static void host_verdicts(struct bento_jsonw *w, const struct validate_report *r)
{
        const struct policy *p = r->p;

        if (!p) {
                bento_jsonw_kstring(w, "resolve_error", r->resolve_error);
                return;
        }
        bento_jsonw_kbool(w, "runnable", p->n_problems == 0);
        list(w, "runnable_problems", p->problems, p->n_problems);
        /* the original's shape: run's refusal sentences; the details beside them */
        if (p->n_refusals > 0) {
                bento_jsonw_key(w, "refused_grants");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < p->n_refusals; i++)
                        bento_jsonw_string(w, p->refusals[i].message);
                bento_jsonw_close_array(w);
                bento_jsonw_key(w, "refused_grant_details");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < p->n_refusals; i++) {
                        bento_jsonw_open_object(w);
                        bento_jsonw_kstring(w, "field", field_name(r->refusal_places[i].field));
                        bento_jsonw_kstring(w, "grant", p->refusals[i].grant);
                        bento_jsonw_kstring(w, "reason", p->refusals[i].message);
                        bento_jsonw_close_object(w);
                }
                bento_jsonw_close_array(w);
        }
        if (!p->shields)
                bento_jsonw_kstring(w, "shields_unknown",
                                    p->shields_error ? p->shields_error : "no home directory");
}

/* The hits of one side under key, when there are any. */
static void write_aliases(struct bento_jsonw *w, const struct alias_scan *a, bool write_side,
                          const char *key)
{
        bool any = false;

        for (size_t i = 0; i < a->n_hits; i++) {
                if (a->hits[i].write_side != write_side)
                        continue;
                if (!any)
                        bento_jsonw_key(w, key), bento_jsonw_open_array(w);
                any = true;
                alias_hit_json(w, &a->hits[i]);
        }
        if (any)
                bento_jsonw_close_array(w);
}

static void notes(struct bento_jsonw *w, const struct validate_report *r)
{
        const struct policy *p = r->p;
        bool any = false;

        for (size_t i = 0; p && i < p->n_reads; i++) {
                if (p->reads[i].stat_errno != ENOENT)
                        continue;
                if (!any)
                        bento_jsonw_key(w, "missing_read_grants"), bento_jsonw_open_array(w);
                any = true;
                bento_jsonw_string(w, p->reads[i].real);
        }
        if (any)
                bento_jsonw_close_array(w);
        any = false;
        for (size_t i = 0; p && i < p->n_writes; i++) {
                if (!validate_fileish(&p->writes[i]))
                        continue;
                if (!any)
                        bento_jsonw_key(w, "fileish_write_grants"), bento_jsonw_open_array(w);
                any = true;
                bento_jsonw_string(w, p->writes[i].real);
        }
        if (any)
                bento_jsonw_close_array(w);
        write_aliases(w, &r->aliases, false, "credential_aliases");
        write_aliases(w, &r->aliases, true, "write_protected_aliases");
        if (r->aliases.partial)
                bento_jsonw_kbool(w, "credential_aliases_partial", true);
        bento_jsonw_kstring_opt(w, "unshieldable_runtime_dir", r->runtime_dir_unshieldable);
        any = false;
        for (size_t i = 0; p && p->shields && i < p->shields->n_unshieldable; i++) {
                if (!any)
                        bento_jsonw_key(w, "unshieldable_relocations"), bento_jsonw_open_object(w);
                any = true;
                bento_jsonw_kstring(w, p->shields->unshieldable[i].variable,
                                    p->shields->unshieldable[i].value);
        }
        if (any)
                bento_jsonw_close_object(w);
}

static void relocatable(struct bento_jsonw *w, const struct validate_report *r)
{
        bento_jsonw_kbool(w, "relocatable", r->n_pins == 0);
        if (r->n_pins == 0)
                return;
        /* the original's shape: `field "path"` phrases; the parts beside them */
        bento_jsonw_key(w, "pinned_paths");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n_pins; i++) {
                cleanup_free char *pin = validate_pin_text(&r->pins[i]);

                bento_jsonw_string(w, pin); /* NULL records the failure */
        }
        bento_jsonw_close_array(w);
        bento_jsonw_key(w, "pinned_path_details");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n_pins; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "field", r->pins[i].field);
                bento_jsonw_kstring(w, "path", r->pins[i].path);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

int validate_print_json(FILE *f, const struct validate_report *r, bool show_relocatable,
                        struct bento_err *err)
{
        const struct manifest *m = r->m;
        const struct policy *p = r->p;
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "entrypoint", m->entrypoint);
        if (*m->interpreter)
                bento_jsonw_kstring(&w, "interpreter", m->interpreter);
        list(&w, "interpreter_args", m->interpreter_args, m->n_interpreter_args);
        list(&w, "args", m->args, m->n_args);
        list(&w, "env", m->env, m->n_env);
        list(&w, "read", m->read, m->n_read);
        list(&w, "write", m->write, m->n_write);
        if (p) {
                resolved(&w, "resolved_read", p->reads, p->n_reads);
                resolved(&w, "resolved_write", p->writes, p->n_writes);
        }
        network(&w, r);
        shielded_grants(&w, r);
        bento_jsonw_kstring(&w, "exec", manifest_exec_to_string(m->exec));
        limits(&w, &m->limits);
        bento_jsonw_kstring(&w, "approval", manifest_approval_to_string(r->approval.state));
        if (r->approval.fingerprint[0])
                bento_jsonw_kstring(&w, "fingerprint", r->approval.fingerprint);
        host_verdicts(&w, r);
        notes(&w, r);
        if (r->n_callouts > 0)
                bento_jsonw_kstrv(&w, "callouts", r->callouts, r->n_callouts);
        if (show_relocatable)
                relocatable(&w, r);
        bento_jsonw_close_object(&w);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return -err->code;
        if (fwrite(buf, 1, len, f) != len)
                return bento_err_set(err, EIO, "writing the report failed");
        return 0;
}
