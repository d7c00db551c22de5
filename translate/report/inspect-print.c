/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect's report: the bundle's policy in manifest terms, then what is
 * flagged.  Every string comes from a file bento may not have written, so
 * the human report quotes them (text.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "inspect.h"
#include "jsonw.h"
#include "text.h"

#define LABEL "%-14s"

static const char *const landlock_note =
    "process.landlock is bento-runtime's backstop; other OCI runtimes (crun, runc) ignore it, "
    "so under them the mounts alone confine writes";

static void put_quoted(FILE *f, const char *s)
{
        cleanup_free char *q = text_quote(s);

        fputs(q ? q : "?", f);
}

static void mounts_line(FILE *f, const struct inspect_report *r, const char *label,
                        enum inspect_role role)
{
        size_t n = 0;

        fprintf(f, LABEL, label);
        for (size_t i = 0; i < r->n_mounts; i++) {
                if (r->mounts[i].role != role)
                        continue;
                fputs(n++ ? " " : "", f);
                put_quoted(f, r->mounts[i].destination);
        }
        fputs(n ? "\n" : "(none)\n", f);
}

static void shields(FILE *f, const struct inspect_report *r)
{
        size_t n = 0;

        for (size_t i = 0; i < r->n_mounts; i++)
                n += r->mounts[i].role >= INSPECT_SHIELD_HIDDEN &&
                     r->mounts[i].role <= INSPECT_SHIELD_SCRATCH;
        fprintf(f, LABEL "%zu mounted\n", "shields:", n);
        for (size_t i = 0; i < r->n_mounts; i++) {
                if (r->mounts[i].role != INSPECT_SHIELD_PARENT)
                        continue;
                fprintf(f, "  %-10s ", inspect_role_name(r->mounts[i].role));
                put_quoted(f, r->mounts[i].destination);
                fputs(" (a mount point, so the shields inside cannot be renamed away)\n", f);
        }
        for (size_t i = 0; i < r->n_mounts; i++) {
                const struct inspect_mount *m = &r->mounts[i];

                if (m->role < INSPECT_SHIELD_HIDDEN || m->role > INSPECT_SHIELD_SCRATCH)
                        continue;
                fprintf(f, "  %-10s ", inspect_role_name(m->role));
                put_quoted(f, m->destination);
                fputc('\n', f);
        }
        if (r->n_identities)
                fprintf(f,
                        "  %zu host path(s) pinned by device and inode: bento-runtime refuses "
                        "one that changed since translate, runc and crun do not check\n",
                        r->n_identities);
        if (r->n_cleanup)
                fprintf(f,
                        "  after the run: %zu shield mount point(s) removed by bento's poststop "
                        "hook\n",
                        r->n_cleanup);
        for (size_t i = 0; i < r->n_opened; i++) {
                cleanup_free char *q = text_quote(r->opened[i].path);
                cleanup_free char *t =
                    text_printf("read grant %s opens a store bento shields (it holds %s): the "
                                "manifest named it, so the sandbox can read it",
                                q ? q : "?", r->opened[i].holds);

                if (t)
                        text_wrap(f, "  note: ", "        ", t);
        }
}

static void strv_line(FILE *f, const char *label, const struct bento_json *arr)
{
        fprintf(f, LABEL, label);
        if (!arr || arr->type != BENTO_JSON_ARRAY || arr->u.array.n == 0) {
                fputs("(none)\n", f);
                return;
        }
        for (size_t i = 0; i < arr->u.array.n; i++) {
                const struct bento_json *s = arr->u.array.items[i];

                fputs(i ? " " : "", f);
                put_quoted(f, s->type == BENTO_JSON_STRING ? s->u.string.s : "?");
        }
        fputc('\n', f);
}

static const char *number(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_NUMBER ? v->u.number.text : NULL;
}

static void limits(FILE *f, const struct inspect_report *r)
{
        const struct bento_json *res = bento_json_get(r->linux_, "resources");
        const char *mem = number(bento_json_get(res, "memory"), "limit");
        const char *quota = number(bento_json_get(res, "cpu"), "quota");
        const char *period = number(bento_json_get(res, "cpu"), "period");
        const char *pids = number(bento_json_get(res, "pids"), "limit");
        const char *sep = "";

        if (!mem && !quota && !pids)
                return;
        fprintf(f, LABEL, "limits:");
        if (mem)
                fprintf(f, "memory %s bytes", mem), sep = ", ";
        if (quota)
                fprintf(f, "%scpu %s us per %s us", sep, quota, period ? period : "?"), sep = ", ";
        if (pids)
                fprintf(f, "%spids %s", sep, pids);
        fputc('\n', f);
}

static void identity(FILE *f, const struct inspect_report *r)
{
        const struct bento_json *user = bento_json_get(r->process, "user");
        const char *uid = number(user, "uid"), *gid = number(user, "gid");
        const struct bento_json *ns = bento_json_get(r->linux_, "namespaces");

        fprintf(f, LABEL "uid %s, gid %s\n", "user:", uid ? uid : "?", gid ? gid : "?");
        fprintf(f, LABEL, "namespaces:");
        for (size_t i = 0; ns && ns->type == BENTO_JSON_ARRAY && i < ns->u.array.n; i++) {
                const char *t = inspect_str(ns->u.array.items[i], "type");

                fputs(i ? " " : "", f);
                put_quoted(f, t ? t : "?");
        }
        fputc('\n', f);
}

static void header(FILE *f, const struct inspect_report *r)
{
        const char *manifest = inspect_annotation(r, "org.bento.manifest");
        const char *args_cwd = inspect_str(r->process, "cwd");

        fprintf(f, LABEL, "bundle:");
        put_quoted(f, r->dir);
        fputc('\n', f);
        if (manifest) {
                const char *fp = inspect_annotation(r, "org.bento.fingerprint");
                const char *ap = inspect_annotation(r, "org.bento.approval");
                const char *ver = inspect_annotation(r, "org.bento.version");

                fprintf(f, LABEL, "manifest:");
                put_quoted(f, manifest);
                fputc('\n', f);
                if (fp) {
                        fputs("  fingerprint: ", f);
                        put_quoted(f, fp);
                        fputc('\n', f);
                }
                if (ap) {
                        fputs("  approval when translated: ", f);
                        put_quoted(f, ap);
                        fputc('\n', f);
                }
                if (ver) {
                        fputs("  written by bento ", f);
                        put_quoted(f, ver);
                        fputc('\n', f);
                }
        } else {
                fprintf(f,
                        LABEL "(no org.bento.* annotations: not written by bento, or "
                              "stripped)\n",
                        "manifest:");
        }
        strv_line(f, "runs:", bento_json_get(r->process, "args"));
        if (args_cwd) {
                fputs("  in: ", f);
                put_quoted(f, args_cwd);
                fputc('\n', f);
        }
}

void inspect_print_human(FILE *f, const struct inspect_report *r)
{
        header(f, r);
        mounts_line(f, r, "read:", INSPECT_READ);
        mounts_line(f, r, "write:", INSPECT_WRITE);
        mounts_line(f, r, "system:", INSPECT_SYSTEM);
        shields(f, r);
        strv_line(f, "env:", bento_json_get(r->process, "env"));
        fprintf(f, LABEL, "network:");
        if (!r->netns)
                fputs("the host's network (no network namespace)\n", f);
        else if (r->n_egress == 0)
                fputs("denied (no egress)\n", f);
        for (size_t i = 0; r->netns && i < r->n_egress; i++) {
                fputs(i ? " " : "[", f);
                put_quoted(f, r->egress[i]);
                fputs(i + 1 == r->n_egress ? "] through the bento-egress proxy\n" : "", f);
        }
        fprintf(f, LABEL "%s\n", "exec:", r->exec);
        text_wrap(f, "  ", "  ", r->exec_how);
        limits(f, r);
        identity(f, r);
        fprintf(f, LABEL "%s\n",
                "landlock:", bento_json_get(r->process, "landlock") ? "present" : "absent");
        text_wrap(f, "  note: ", "        ", landlock_note);
        fputc('\n', f);
        if (r->n_flags == 0) {
                text_wrap(f, "", "",
                          r->shields_checked
                              ? "nothing flagged: every part of this bundle is something a bento "
                                "manifest produces, and every shield this host needs is mounted."
                              : "nothing flagged: every part of this bundle is something a bento "
                                "manifest produces (shields not checked: the bundle carries no "
                                "org.bento.* annotations, or this host has no home anchor).");
                return;
        }
        fprintf(f, "FLAGGED - %zu thing%s no bento manifest produces:\n", r->n_flags,
                r->n_flags == 1 ? "" : "s");
        for (size_t i = 0; i < r->n_flags; i++) {
                cleanup_free char *clean = text_quote(r->flags[i]);
                size_t len = clean ? strlen(clean) : 0;

                /* The quoted form keeps forged newlines out; drop its quotes. */
                if (clean && len >= 2) {
                        clean[len - 1] = '\0';
                        text_wrap(f, "  - ", "    ", clean + 1);
                }
        }
}

static void json_mounts(struct bento_jsonw *w, const struct inspect_report *r, const char *key,
                        enum inspect_role role)
{
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n_mounts; i++)
                if (r->mounts[i].role == role)
                        bento_jsonw_string(w, r->mounts[i].destination);
        bento_jsonw_close_array(w);
}

static void json_shields(struct bento_jsonw *w, const struct inspect_report *r)
{
        bento_jsonw_key(w, "shields");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n_mounts; i++) {
                const struct inspect_mount *m = &r->mounts[i];

                if (m->role < INSPECT_SHIELD_HIDDEN || m->role > INSPECT_SHIELD_SCRATCH)
                        continue;
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", m->destination);
                bento_jsonw_kstring(w, "kind", inspect_role_name(m->role));
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
        if (r->n_opened == 0)
                return;
        bento_jsonw_key(w, "shielded_grants");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < r->n_opened; i++) {
                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "path", r->opened[i].path);
                bento_jsonw_kstring(w, "holds", r->opened[i].holds);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}

static void json_policy(struct bento_jsonw *w, const struct inspect_report *r)
{
        const struct bento_json *res = bento_json_get(r->linux_, "resources");

        bento_jsonw_ktree_opt(w, "args", bento_json_get(r->process, "args"));
        bento_jsonw_kstring_opt(w, "cwd", inspect_str(r->process, "cwd"));
        bento_jsonw_ktree_opt(w, "env", bento_json_get(r->process, "env"));
        json_mounts(w, r, "read", INSPECT_READ);
        json_mounts(w, r, "write", INSPECT_WRITE);
        json_mounts(w, r, "system", INSPECT_SYSTEM);
        json_mounts(w, r, "pinned", INSPECT_SHIELD_PARENT);
        bento_jsonw_kuint(w, "mount_identities", r->n_identities);
        json_shields(w, r);
        bento_jsonw_key(w, "network");
        bento_jsonw_open_object(w);
        bento_jsonw_kbool(w, "namespace", r->netns);
        bento_jsonw_kstrv(w, "egress", (char *const *) r->egress, r->n_egress);
        bento_jsonw_close_object(w);
        bento_jsonw_kstring(w, "exec", r->exec);
        bento_jsonw_kstring(w, "exec_how", r->exec_how);
        bento_jsonw_kstring_opt(w, "exec_listener", r->listener);
        bento_jsonw_ktree_opt(w, "limits", res);
        bento_jsonw_ktree_opt(w, "user", bento_json_get(r->process, "user"));
        bento_jsonw_ktree_opt(w, "capabilities", bento_json_get(r->process, "capabilities"));
        bento_jsonw_ktree_opt(w, "namespaces", bento_json_get(r->linux_, "namespaces"));
        bento_jsonw_kbool(w, "landlock", bento_json_get(r->process, "landlock") != NULL);
        bento_jsonw_kstring(w, "landlock_note", landlock_note);
}

int inspect_print_json(FILE *f, const struct inspect_report *r, struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "bundle", r->dir);
        bento_jsonw_ktree_opt(&w, "annotations", r->annotations);
        json_policy(&w, r);
        bento_jsonw_kbool(&w, "shields_checked", r->shields_checked);
        bento_jsonw_kstrv(&w, "flags", r->flags, r->n_flags);
        bento_jsonw_close_object(&w);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return -err->code;
        if (fwrite(buf, 1, len, f) != len)
                return bento_err_set(err, EIO, "writing the report failed");
        return 0;
}
