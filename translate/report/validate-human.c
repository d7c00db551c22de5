/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate's human report (docs/validate.md, "The text report"), in its order: the
 * manifest's fields as written, each with what it lands on here and what
 * this host would refuse, then the footer, the callouts, and the verdict
 * lines (runnable, grants, relocatable, approval).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "permissions.h"
#include "text.h"
#include "validate.h"

#define LABEL "%-14s"

/* One "  note: ..." (or other tagged) paragraph, wrapped. */
static void sub(FILE *f, const char *tag, char *text)
{
        cleanup_free char *first = text_printf("  %s", tag);

        if (text && first)
                text_wrap(f, first, "        ", text);
        free(text);
}

/* A verdict line ("runnable:", "grants:") whose wrapped reason is text. */
static void verdict(FILE *f, const char *label, char *text)
{
        char first[16];

        snprintf(first, sizeof(first), LABEL, label);
        if (text)
                text_wrap(f, first, "    ", text);
        free(text);
}

static void on_host(FILE *f, const struct policy_path *pp, bool with_name)
{
        cleanup_free char *real = NULL, *written = NULL;

        if (!pp->real || strcmp(pp->real, pp->written) == 0)
                return;
        real = text_quote(pp->real);
        written = text_quote(pp->written);
        if (!real || !written)
                return;
        if (with_name)
                fprintf(f, "  on this host: %s (from %s)\n", real, written);
        else
                fprintf(f, "  on this host: %s\n", real);
}

static void refusals_for(FILE *f, const struct validate_report *r, enum validate_field field,
                         size_t index)
{
        for (size_t k = 0; r->p && k < r->p->n_refusals; k++) {
                const struct validate_place *pl = &r->refusal_places[k];

                if (pl->field != field ||
                    ((field == VALIDATE_FIELD_READ || field == VALIDATE_FIELD_WRITE) &&
                     pl->index != index))
                        continue;
                text_wrap(f, "  REFUSED: ", "    ", r->p->refusals[k].message);
        }
}

static void print_words(FILE *f, const char *label, char *const *v, size_t n, bool brackets)
{
        fprintf(f, LABEL, label);
        if (n == 0) {
                fputs("(none)\n", f);
                return;
        }
        fputs(brackets ? "[" : "", f);
        for (size_t i = 0; i < n; i++) {
                cleanup_free char *q = brackets ? NULL : text_quote(v[i]);

                fprintf(f, "%s%s", i ? " " : "", brackets ? v[i] : q ? q : "?");
        }
        fputs(brackets ? "]\n" : "\n", f);
}

static void print_targets(FILE *f, const struct validate_report *r)
{
        const struct manifest *m = r->m;

        fprintf(f, LABEL "%s - ok\n", "manifest:", m->path);
        fprintf(f, LABEL "%s\n", "entrypoint:", m->entrypoint);
        if (r->p)
                on_host(f, &r->p->entrypoint, false);
        refusals_for(f, r, VALIDATE_FIELD_ENTRYPOINT, 0);
        if (!*m->interpreter) {
                fprintf(f, LABEL "(none - the entrypoint is a compiled binary)\n", "interpreter:");
        } else {
                fprintf(f, LABEL "%s\n", "interpreter:", m->interpreter);
                if (r->p)
                        on_host(f, &r->p->interpreter, false);
        }
        if (m->n_interpreter_args > 0) {
                fputs("  args passed to the interpreter, before the entrypoint:", f);
                for (size_t i = 0; i < m->n_interpreter_args; i++) {
                        cleanup_free char *q = text_quote(m->interpreter_args[i]);

                        fprintf(f, " %s", q ? q : "?");
                }
                fputc('\n', f);
        }
        refusals_for(f, r, VALIDATE_FIELD_INTERPRETER, 0);
        if (m->n_args > 0)
                print_words(f, "args:", m->args, m->n_args, false);
}

static void print_grants(FILE *f, const struct validate_report *r, bool write)
{
        const struct manifest *m = r->m;
        const struct policy *p = r->p;
        const char *what = write ? "write" : "read";
        size_t n = p ? (write ? p->n_writes : p->n_reads) : 0;

        print_words(f, write ? "write:" : "read:", write ? m->write : m->read,
                    write ? m->n_write : m->n_read, true);
        for (size_t i = 0; i < n; i++) {
                const struct policy_path *g = write ? &p->writes[i] : &p->reads[i];
                const struct shield_rule *opt = write ? NULL : r->read_opt_in[i];
                cleanup_free char *q = text_quote(g->written);

                on_host(f, g, true);
                if (write ? r->write_broad[i] : r->read_broad[i])
                        sub(f, "note: ",
                            text_printf("%s: %s is a whole home or top-level directory, far more "
                                        "than a script needs.",
                                        what, q ? q : "?"));
                if (opt) {
                        cleanup_free char *store = text_quote(opt->literal);

                        sub(f, "note: ",
                            text_printf("this grant names a %s bento shields on every run, "
                                        "exactly: %s. Naming it lifts that one shield as a "
                                        "read-only exception, and every run warns about it.",
                                        validate_holds_noun((int) opt->holds),
                                        store ? store : "?"));
                }
                refusals_for(f, r, write ? VALIDATE_FIELD_WRITE : VALIDATE_FIELD_READ, i);
        }
}

static bool env_listed(const struct manifest *m, const char *name)
{
        for (size_t i = 0; i < m->n_env; i++)
                if (strcmp(m->env[i], name) == 0)
                        return true;
        return false;
}

/* docs/manifest.md, "ENVIRONMENT": what HOME is inside the sandbox, always stated. */
static void home_note(FILE *f, const struct manifest *m)
{
        const char *home = getenv("HOME");
        bool listed = env_listed(m, "HOME");

        if (listed && home) {
                cleanup_free char *q = text_quote(home);

                fprintf(f, "  HOME inside the sandbox: %s (this host's)\n", q ? q : "?");
                return;
        }
        if (listed)
                sub(f, "note: ",
                    text_printf("env HOME is allowed by the manifest but not set on this host, "
                                "so it is not passed through."));
        sub(f, "note: ",
            text_printf("HOME inside the sandbox is /tmp (a private scratch directory under "
                        "--allow-degraded), not your home directory, so `~` in the script "
                        "expands there. Grants are matched against host paths: a script that "
                        "expands `~` itself will miss them. Write absolute paths in the script, "
                        "or add HOME to env: to pass this host's value through."));
}

static void print_env(FILE *f, const struct manifest *m)
{
        print_words(f, "env:", m->env, m->n_env, true);
        home_note(f, m);
        for (size_t i = 0; i < m->n_env; i++) {
                if (strcmp(m->env[i], "HOME") == 0 || getenv(m->env[i]))
                        continue;
                sub(f, "note: ",
                    text_printf("env %s is allowed by the manifest but not set on this host; the "
                                "script will not see it. Pass it with --env %s=VALUE.",
                                m->env[i], m->env[i]));
        }
}

static bool loopback(const char *host)
{
        size_t n = strlen(host);

        return strcmp(host, "localhost") == 0 || strcmp(host, "localhost.") == 0 ||
               (n > 10 && strcmp(host + n - 10, ".localhost") == 0) ||
               strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0;
}

static void print_network(FILE *f, const struct validate_report *r)
{
        const struct manifest *m = r->m;

        fprintf(f, LABEL, "network:");
        if (m->n_network == 0)
                fputs("denied (no egress)", f);
        for (size_t i = 0; i < m->n_network; i++) {
                bool v6 = strchr(m->network[i].host, ':') != NULL;

                fprintf(f, "%s%s%s%s:%s", i ? " " : "[", v6 ? "[" : "", m->network[i].host,
                        v6 ? "]" : "", m->network[i].port);
        }
        fputs(m->n_network ? "]\n" : "\n", f);
        for (size_t i = 0; i < r->n_blocked; i++) {
                const struct validate_blocked *b = &r->blocked[i];
                cleanup_free char *h = text_quote(m->network[b->rule].host);
                cleanup_free char *p = text_quote(m->network[b->rule].port);
                cleanup_free char *dh = text_quote(b->host);
                cleanup_free char *dp = text_quote(b->port);

                sub(f, "note: ",
                    text_printf("network %s port %s covers a destination an earlier run "
                                "reached, %s port %s, which the egress guard refused because "
                                "it resolved to loopback, private, link-local or metadata space; "
                                "runs will refuse it too.",
                                h ? h : "?", p ? p : "?", dh ? dh : "?", dp ? dp : "?"));
        }
        for (size_t i = 0; i < r->n_blocked_unreadable; i++) {
                cleanup_free char *q = text_quote(r->blocked_unreadable[i]);

                sub(f, "note: ",
                    text_printf("provenance.blocked-hosts entry %s is not host:port; it was "
                                "probably hand-edited, and is ignored.",
                                q ? q : "?"));
        }
        for (size_t i = 0; i < m->n_network; i++) {
                cleanup_free char *q = NULL;

                if (!loopback(m->network[i].host))
                        continue;
                q = text_quote(m->network[i].host);
                sub(f, "note: ",
                    text_printf("%s is a loopback address. The sandbox exempts loopback from the "
                                "egress proxy, but its loopback is its own: this rule will NOT "
                                "reach a service on the host's loopback, and the proxy refuses "
                                "loopback destinations.",
                                q ? q : "?"));
        }
}

static void print_exec_limits(FILE *f, const struct manifest *m)
{
        fprintf(f, LABEL "%s\n", "exec:", permissions_exec_words(m->exec));
        if (m->exec == MANIFEST_EXEC_NONE_STRICT)
                sub(f, "note: ",
                    text_printf("the fork/clone filter is written for x86-64 (amd64) only; a "
                                "syscall made through another architecture's entry is killed."));
        else if (m->exec == MANIFEST_EXEC_NONE)
                sub(f, "note: ",
                    text_printf("execveat is blocked as well: the exec gate lets exactly one "
                                "exec through, the runtime's own start of the entrypoint."));
        permissions_print_limits(f, &m->limits);
}

static void print_footer(FILE *f, const struct validate_report *r)
{
        const struct policy *p = r->p;
        cleanup_free char *text = NULL;

        if (!p)
                text = text_printf("Everything not listed above is denied. This host could not "
                                   "resolve the grants, so none was checked against the "
                                   "credential shields.");
        else if (!p->shields)
                text = text_printf("Everything not listed above is denied, but the credential "
                                   "shields could not be anchored on this host (%s), so nothing "
                                   "was checked against them and a run here is refused.",
                                   p->shields_error ? p->shields_error : "no home directory");
        else if (r->n_opted > 0)
                text = text_printf("Everything not listed above is denied. Credentials, SSH keys "
                                   "and shell profiles stay shielded even under the grants above, "
                                   "EXCEPT the %zu shielded path%s this manifest grants by name "
                                   "(noted above).",
                                   r->n_opted, r->n_opted == 1 ? "" : "s");
        else
                text = text_printf("Everything not listed above is denied. Credentials, SSH keys "
                                   "and shell profiles stay shielded even under the grants "
                                   "above.");
        fputc('\n', f);
        if (text)
                text_wrap(f, "", "", text);
        if (r->n_callouts == 0)
                return;
        fputs("\nWorth a second look:\n", f);
        for (size_t i = 0; i < r->n_callouts; i++)
                text_wrap(f, "  - ", "    ", r->callouts[i]);
}

static void print_runnable(FILE *f, const struct validate_report *r)
{
        const struct policy *p = r->p;

        fputc('\n', f);
        if (!p) {
                verdict(f, "runnable:",
                        text_printf("unknown - this host could not answer: it could not resolve "
                                    "the manifest's paths (%s)",
                                    r->resolve_error ? r->resolve_error : "unknown reason"));
                return;
        }
        if (p->n_problems == 0) {
                fprintf(f, LABEL "yes (the entrypoint and interpreter resolve on this host)\n",
                        "runnable:");
                return;
        }
        fprintf(f, LABEL "NO - this host cannot start what the manifest names\n", "runnable:");
        for (size_t i = 0; i < p->n_problems; i++)
                text_wrap(f, "  ", "    ", p->problems[i]);
}

static void grant_notes(FILE *f, const struct validate_report *r)
{
        const struct policy *p = r->p;

        for (size_t i = 0; p && i < p->n_writes; i++) {
                const struct policy_path *w = &p->writes[i];
                cleanup_free char *q = text_quote(w->written);

                if (!validate_fileish(w))
                        continue;
                sub(f, "note: ",
                    text_printf("the write grant %s is spelled like a file, but write grants "
                                "are directories: a directory of that name will be created, so "
                                "the script's own write to it fails with \"is a directory\". "
                                "Grant its parent directory instead.",
                                q ? q : "?"));
        }
        for (size_t i = 0; p && i < p->n_reads; i++) {
                cleanup_free char *q = text_quote(p->reads[i].written);

                if (p->reads[i].stat_errno != ENOENT)
                        continue;
                sub(f, "note: ",
                    text_printf("the read grant %s names nothing on this host. That is harmless "
                                "if the script creates it; otherwise it is likely a typo or a "
                                "moved directory, and it will look like a permission problem.",
                                q ? q : "?"));
        }
        for (size_t i = 0; i < r->aliases.n_hits; i++) {
                cleanup_free char *a = text_quote(r->aliases.hits[i].path);
                cleanup_free char *c = text_quote(r->aliases.hits[i].target);

                if (r->aliases.hits[i].write_side)
                        sub(f, "note: ",
                            text_printf("%s is a second name (a hard link or a bind mount) for "
                                        "%s, which the shields keep read-only, inside a write "
                                        "grant: the sandbox could change it through that name. "
                                        "Remove the alias (a copy is fine) or make the grant a "
                                        "read grant.",
                                        a ? a : "?", c ? c : "?"));
                else
                        sub(f, "note: ",
                            text_printf("%s is a second name (a hard link or a bind mount) for "
                                        "the shielded credential %s, inside a grant: the "
                                        "sandbox could read the credential through it. Remove "
                                        "the alias or narrow the grant.",
                                        a ? a : "?", c ? c : "?"));
        }
        if (r->aliases.partial)
                sub(f, "note: ",
                    text_printf("the alias scan was cut short (it reads at most %d "
                                "directory entries, and something may have been unreadable), so "
                                "an alias it did not reach is not listed.",
                                ALIAS_SCAN_BUDGET));
        if (r->runtime_dir_unshieldable) {
                cleanup_free char *q = text_quote(r->runtime_dir_unshieldable);

                sub(f, "note: ",
                    text_printf("XDG_RUNTIME_DIR is %s, which no shield can follow: the service "
                                "sockets in it are reachable through any grant that covers it.",
                                q ? q : "?"));
        }
        for (size_t i = 0; p && p->shields && i < p->shields->n_unshieldable; i++) {
                const struct shield_unshieldable *u = &p->shields->unshieldable[i];
                cleanup_free char *q = text_quote(u->value);

                if (strcmp(u->variable, "XDG_RUNTIME_DIR") == 0)
                        continue;
                sub(f, "note: ",
                    text_printf("$%s -> %s names a path the shields cannot reach, so what the "
                                "variable points to is not shielded.",
                                u->variable, q ? q : "?"));
        }
}

static void print_grants_verdict(FILE *f, const struct validate_report *r)
{
        const struct policy *p = r->p;

        if (!p) {
                fprintf(f, LABEL "unknown - the grants could not be resolved on this host\n",
                        "grants:");
        } else if (!p->shields) {
                verdict(f, "grants:",
                        text_printf("unknown - this host could not work out where its shields "
                                    "anchor, so no grant was checked against them (%s)",
                                    p->shields_error ? p->shields_error : "no home directory"));
        } else if (p->n_refusals > 0) {
                fprintf(f, LABEL "NO - the grants marked REFUSED above cannot be honored\n",
                        "grants:");
        } else {
                fprintf(f, LABEL "yes (this host can honor every grant)\n", "grants:");
        }
        grant_notes(f, r);
}

static void print_relocatable(FILE *f, const struct validate_report *r)
{
        fputc('\n', f);
        if (r->n_pins == 0) {
                fprintf(f, LABEL "yes (every path anchors to the manifest's own directory)\n",
                        "relocatable:");
                return;
        }
        fprintf(f, LABEL "NO - these paths pin it to this host's layout:\n", "relocatable:");
        for (size_t i = 0; i < r->n_pins; i++) {
                cleanup_free char *q = text_quote(r->pins[i].path);

                fprintf(f, "  %s %s\n", r->pins[i].field, q ? q : "?");
        }
}

static void print_approval(FILE *f, const struct validate_report *r)
{
        const char *d = approval_describe(r->approval.state);
        size_t n = strcspn(d, "\n");

        fprintf(f, "\n" LABEL "%.*s\n", "approval:", (int) n, d);
        while (d[n] == '\n') {
                d += n + 1;
                n = strcspn(d, "\n");
                fprintf(f, "  %.*s\n", (int) n, d);
        }
}

void validate_print_human(FILE *f, const struct validate_report *r, bool show_relocatable)
{
        print_targets(f, r);
        print_grants(f, r, false);
        print_grants(f, r, true);
        print_env(f, r->m);
        print_network(f, r);
        print_exec_limits(f, r->m);
        print_footer(f, r);
        print_runnable(f, r);
        print_grants_verdict(f, r);
        if (show_relocatable)
                print_relocatable(f, r);
        print_approval(f, r);
}
