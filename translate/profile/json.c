/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento profile --json (docs/cli/bento-profile.md, "JSON OUTPUT"): one
 * document on stdout, every piece of prose on stderr.  The policy is the
 * manifest as written (relocatable spellings), in the shape validate
 * --json gives it, so one consumer reads both; withheld and flagged
 * entries carry the same reason words as the human lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "internal.h"
#include "jsonw.h"

static void list(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        if (n > 0)
                bento_jsonw_kstrv(w, key, v, n);
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

static void policy(struct bento_jsonw *w, const struct manifest *m)
{
        bento_jsonw_key(w, "policy");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "entrypoint", m->entrypoint);
        if (*m->interpreter)
                bento_jsonw_kstring(w, "interpreter", m->interpreter);
        list(w, "interpreter_args", m->interpreter_args, m->n_interpreter_args);
        list(w, "args", m->args, m->n_args);
        list(w, "env", m->env, m->n_env);
        list(w, "read", m->read, m->n_read);
        list(w, "write", m->write, m->n_write);
        bento_jsonw_key(w, "network");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < m->n_network; i++) {
                cleanup_free char *hp = profile_host_port(m->network[i].host, m->network[i].port);

                bento_jsonw_string(w, hp); /* NULL records the failure */
        }
        bento_jsonw_close_array(w);
        bento_jsonw_kstring(w, "exec", manifest_exec_to_string(m->exec));
        limits(w, &m->limits);
        bento_jsonw_close_object(w);
}

static void items(struct bento_jsonw *w, const char *key, const struct profile_item *v, size_t n)
{
        if (n == 0)
                return;
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < n; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "kind", profile_item_kind_to_string(v[i].kind));
                bento_jsonw_kstring_opt(w, "path", v[i].path);
                bento_jsonw_kstring_opt(w, "host", v[i].host);
                bento_jsonw_kstring_opt(w, "port", v[i].port);
                bento_jsonw_kstring(w, "reason", profile_reason_to_string(v[i].reason));
                if (v[i].holds != SHIELD_HOLDS_NONE)
                        bento_jsonw_kstring(w, "holds", shield_holds_to_string(v[i].holds));
                if (v[i].absent)
                        bento_jsonw_kbool(w, "absent", true);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void merged(struct bento_jsonw *w, const struct profile_merge_info *in)
{
        bento_jsonw_key(w, "merged");
        bento_jsonw_open_object(w);
        list(w, "kept_read", in->kept_read, in->n_kept_read);
        list(w, "kept_write", in->kept_write, in->n_kept_write);
        list(w, "kept_env", in->kept_env, in->n_kept_env);
        list(w, "kept_network", in->kept_network, in->n_kept_network);
        bento_jsonw_kbool(w, "exec_widened", in->exec_widened);
        bento_jsonw_kbool(w, "approval_voided", in->approval_voided);
        if (in->interpreter_changed)
                bento_jsonw_kstring(w, "interpreter_was", in->interpreter_was);
        if (in->interpreter_args_changed) {
                bento_jsonw_key(w, "interpreter_args_was");
                bento_jsonw_strv(w, in->interpreter_args_was, in->n_interpreter_args_was);
        }
        bento_jsonw_close_object(w);
}

static int emit(FILE *f, struct bento_jsonw *w, struct bento_err *err)
{
        cleanup_free char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_finish(w, &buf, &len) < 0)
                return -err->code;
        if (fwrite(buf, 1, len, f) != len || fflush(f) != 0)
                return bento_err_set(err, EIO, "writing the JSON document failed");
        return 0;
}

int profile_json_document(FILE *f, const char *out, const struct profile_proposal *p,
                          const struct manifest *written, const struct profile_merge_info *merge,
                          struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        const struct manifest_provenance *pv = &written->provenance;

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "manifest", out);
        bento_jsonw_kbool(&w, "complete", p->complete);
        bento_jsonw_kstring_opt(&w, "incomplete_reason", p->incomplete_reason);
        policy(&w, written);
        items(&w, "withheld", p->withheld, p->n_withheld);
        items(&w, "flagged", p->flagged, p->n_flagged);
        list(&w, "blocked_hosts", pv->blocked_hosts, pv->n_blocked_hosts);
        if (merge)
                merged(&w, merge);
        bento_jsonw_close_object(&w);
        return emit(f, &w, err);
}

int profile_json_refusal(FILE *f, const char *reason, const struct bento_json *report,
                         struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kbool(&w, "refused", true);
        bento_jsonw_kstring(&w, "reason", reason);
        bento_jsonw_key(&w, "report");
        if (report) {
                bento_jsonw_tree(&w, report);
        } else {
                bento_jsonw_open_object(&w);
                bento_jsonw_close_object(&w);
        }
        bento_jsonw_close_object(&w);
        return emit(f, &w, err);
}
