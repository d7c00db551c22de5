/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The words after a run (docs/cli/bento-run.md, "OUTPUT"), on stderr, each
 * triggered by what actually happened: which shields engaged, which
 * guarantees fell short, which destinations the egress proxy refused, and
 * one explanation of a failure (signal, blocked exec, ignored proxy,
 * HOME, PATH, or the general "denials are silent" hint), then the legend
 * that maps the errors a target sees to the manifest field that would
 * have allowed them.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "report/text.h"
#include "manifest/path.h"
#include "blocked.h"
#include "exec-record.h"
#include "degraded.h"
#include "run.h"
#include "report/text.h"

#define WRAP 78

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One paragraph, wrapped at 78 columns, every line "[bento] ". */
static void say(const char *fmt, ...)
{
        cleanup_free char *text = NULL;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        text_print_wrapped(stderr, text, WRAP, "[bento] ", "[bento] ");
}

/* The shield mounts by what the script sees of them. */
struct shield_tally {
        size_t hidden, read_only, discarded;
};

static struct shield_tally tally_shields(const struct policy *p)
{
        size_t kinds[SHIELD_MOUNT_MAX] = {0};

        for (size_t i = 0; i < p->n_shield_mounts; i++)
                kinds[p->shield_mounts[i].kind]++;
        return (struct shield_tally){
            .hidden = kinds[SHIELD_MOUNT_HIDDEN_DIR] + kinds[SHIELD_MOUNT_HIDDEN_FILE],
            .read_only = kinds[SHIELD_MOUNT_READ_ONLY] + kinds[SHIELD_MOUNT_READ_ONLY_FILE],
            .discarded = kinds[SHIELD_MOUNT_DISCARDED],
        };
}

static void shields_summary(const struct policy *p)
{
        struct shield_tally t = tally_shields(p);

        if (p->n_shield_mounts == 0)
                return;
        fprintf(stderr,
                "[bento] sandbox engaged: %zu credential/host-service path(s) shielded (%zu "
                "hidden",
                p->n_shield_mounts, t.hidden);
        if (t.read_only)
                fprintf(stderr, ", %zu read-only", t.read_only);
        if (t.discarded)
                fprintf(stderr, ", %zu discarded", t.discarded);
        fputs("); --json lists them\n", stderr);
}

/* docs/degraded.md: the Landlock-only tier mounts no shield; what it kept
 * hidden by granting around it, and the WARNING for what it could not. */
static void degraded_shields(const struct run_degraded *dg)
{
        size_t kept = 0;

        for (size_t i = 0; i < dg->n_hidden; i++)
                kept += dg->kept[i];
        if (kept)
                say("Landlock-only tier: %zu credential path(s) kept unreadable by granting "
                    "the entries around them instead of the directory that holds them; --json "
                    "lists them",
                    kept);
        if (dg->n_exposed == 0)
                return;
        say("WARNING: this host cannot shield credentials or persistence surfaces the way a full "
            "sandbox does; these paths a full run would have shielded are within the script's "
            "reach:");
        for (size_t i = 0; i < dg->n_exposed; i++) {
                cleanup_free char *line = text_printf(
                    "\"%s\" (%s): %s", dg->exposed[i].rule->path,
                    dg->exposed[i].rule->deny == SHIELD_DENY_ALL ? "hidden" : "read-only",
                    dg->exposed[i].why);

                if (line)
                        text_print_wrapped(stderr, line, WRAP, "[bento]   ", "[bento]     ");
        }
}

static void legend_line(const char *err, const char *field);

/* docs/degraded.md: what a denial looks like without namespaces. */
static void degraded_legend(const struct run_view *v, bool after_hint)
{
        const struct manifest *m = v->p->m;

        if (after_hint)
                say("if the script's error was a denial, this is what denials look like on the "
                    "Landlock-only tier:");
        else
                say("denials are reported by the script itself and do not change its exit code; "
                    "on the Landlock-only tier they look like this:");
        legend_line("Permission denied", "a path no `read:` grant covers, a write outside the "
                                         "`write:` grants, or a shielded path");
        legend_line("Operation not permitted",
                    m->exec == MANIFEST_EXEC_ALL
                        ? "an IP socket (the tier has no network), ptrace, or terminal injection"
                        : "a command (exec: none), an IP socket, ptrace, or terminal injection");
}

/* docs/manifest.md, "CREDENTIAL SHIELDS": read grants that opted a shield out. */
static void opted_in(const struct policy *p)
{
        bool any = false;

        for (size_t i = 0; p->opted && p->shields && i < p->shields->n_rules; i++) {
                const struct shield_rule *r = &p->shields->rules[i];

                if (!p->opted[i])
                        continue;
                if (!any)
                        say("WARNING: this policy explicitly grants paths that bento normally "
                            "shields, so the script could read them. Review that this is "
                            "intended:");
                any = true;
                fprintf(stderr, "[bento]   \"%s\" - %s\n", r->literal,
                        shield_holds_to_string(r->holds));
                if (strcmp(r->literal, r->path) != 0)
                        fprintf(stderr, "[bento]     on this host: \"%s\"\n", r->path);
        }
}

/* "[bento]   <layer> (<tier> tier): <state> - <why>", continuation lines
 * indented under it (docs/cli/bento-run.md, "OUTPUT"). */
static void layer_line(const char *layer, const char *tier, const char *state, const char *why)
{
        cleanup_free char *text = NULL;

        if (asprintf(&text, "%s (%s tier): %s - %s", layer, tier, state, why) < 0)
                return;
        text_print_wrapped(stderr, text, WRAP, "[bento]   ", "[bento]     ");
}

/* One shadowed name, or a directory bento could not list; every name
 * here was enumerated on the host, so it is printed quoted. */
static void shadow_line(const struct run_shadow *x)
{
        cleanup_free char *inside = NULL, *host = NULL, *q_in = NULL, *q_host = NULL,
                          *q_name = NULL, *q_dir = NULL;

        if (!x->name) {
                q_dir = text_quote(x->dir);
                if (q_dir)
                        fprintf(stderr, "[bento]   anything under %s (bento cannot list it)\n",
                                q_dir);
                return;
        }
        inside = path_join(x->carried, x->name);
        host = path_join(x->dir, x->name);
        q_in = inside ? text_quote(inside) : NULL;
        q_host = host ? text_quote(host) : NULL;
        q_name = text_quote(x->name);
        if (q_in && q_host && q_name)
                fprintf(stderr, "[bento]   %s resolves to %s in the box, not %s\n", q_name, q_in,
                        q_host);
}

/* docs/cli/bento-run.md, "OUTPUT". */
static void path_shadow_note(const struct run_view *v)
{
        struct run_shadows s = {0};

        if (!run_view_shadows(v, &s))
                return;
        say("note: PATH is passed through, but the box does not carry every directory on it, "
            "so these commands resolve to another copy inside (or the directory's contents "
            "are unknown):");
        for (size_t i = 0; i < s.n; i++)
                shadow_line(&s.v[i]);
        say("Grant each of these directories in `read:` to run the host's copies:");
        for (size_t i = 0; i < s.n; i++)
                if (run_shadow_new_dir(&s, i)) {
                        cleanup_free char *dir = text_quote(s.v[i].dir);

                        fprintf(stderr, "[bento]   %s\n", dir ? dir : s.v[i].dir);
                }
        run_shadows_done(&s);
}

static void degradations(const struct run_view *v)
{
        const struct host_report *rep = &v->a->report;
        bool header = false;

        for (int l = 0; l < BENTO_LAYER_MAX; l++) {
                const struct layer_status *s;
                char text[2 * HOST_TEXT_MAX + 8];

                if (!v->a->required[l] || bento_layer_report_only((enum bento_layer) l))
                        continue;
                s = host_report_get(rep, (enum bento_layer) l);
                if (s->state == BENTO_STATE_ENFORCED)
                        continue;
                if (!header)
                        fputs("[bento] this host does not enforce everything your policy asked "
                              "for:\n",
                              stderr);
                header = true;
                host_report_disclosure(s, text, sizeof(text));
                layer_line(bento_layer_name((enum bento_layer) l),
                           bento_tier_name(bento_layer_tier((enum bento_layer) l)),
                           bento_state_name(s->state), text);
        }
        if (header)
                say("Run `bento doctor` for what this host enforces, or pass --strict to refuse "
                    "such runs instead.");
}

static void quoted_lines(char *const *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                fprintf(stderr, "[bento]   \"%s\"\n", v[i]);
}

/* docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT", items 7 and 8 of docs/cli/bento-run.md,
 * "OUTPUT". */
static void autoexec_notes(const struct run_autoexec *a)
{
        if (!a)
                return;
        if (a->n_changed) {
                say("note: the run changed files that this host executes later without "
                    "reading them (build scripts, package hooks, CI workflows, git hooks). "
                    "Review them before the next build, commit or push:");
                quoted_lines(a->changed, a->n_changed);
        }
        if (a->n_settings) {
                say("note: the run added or changed git settings that make git run a command "
                    "on this host (the next git status, diff or fetch there would run it). "
                    "Review them before using git in that checkout:");
                quoted_lines(a->settings, a->n_settings);
        }
        if (a->n_redirected) {
                say("note: the run moved git's hooks directory (core.hooksPath) to:");
                quoted_lines(a->redirected, a->n_redirected);
        }
        if (a->n_unresolved) {
                say("note: git did not say where the hooks of these write grants live, so a "
                    "changed hook there would not be listed above:");
                quoted_lines(a->unresolved, a->n_unresolved);
        }
}

/* Whether egress_notes said something (then the generic hints stay quiet). */
static bool egress_warned(const struct run_egress *e)
{
        return e->n_blocked || e->n_denied || e->n_untunneled || e->n_gate_denied;
}

static void dest_lines(const struct run_dest *d, size_t n)
{
        for (size_t i = 0; i < n; i++)
                fprintf(stderr, "[bento]   \"%s\" port \"%s\"\n", d[i].host, d[i].port);
}

static void egress_notes(const struct run_view *v)
{
        const struct run_egress *e = v->egress;

        if (e->n_blocked) {
                say("the egress guard refused these allowed destinations because they resolved "
                    "to addresses the sandbox must not reach (loopback, link-local, private or "
                    "cloud metadata space):");
                dest_lines(e->blocked, e->n_blocked);
                say("This is usually split-horizon DNS. To reach a private service, list its IP "
                    "address literally in `network:`; loopback and metadata addresses are never "
                    "reachable.");
        }
        if (e->n_denied) {
                say("the egress allowlist refused these destinations (no `network:` rule "
                    "covers them):");
                dest_lines(e->denied, e->n_denied);
                say("The script saw only a 403 from the proxy. To allow one, add it to "
                    "`network:` and approve the manifest again.");
        }
        if (e->n_gate_allowed) {
                say("the network gate admitted these destinations, which no `network:` rule "
                    "covers:");
                dest_lines(e->gate_allowed, e->n_gate_allowed);
        }
        if (e->n_gate_denied) {
                say("the network gate refused these destinations (it said no, or gave no "
                    "answer in time):");
                dest_lines(e->gate_denied, e->n_gate_denied);
                say("The script saw only a 403 from the proxy.");
        }
        if (e->n_untunneled) {
                say("these destinations were addressed as plain http:// through the proxy, "
                    "without CONNECT, so a rule granting them carries no traffic:");
                dest_lines(e->untunneled, e->n_untunneled);
                say("The script got a 400 (not a 403): the proxy forwards only CONNECT tunnels. "
                    "Use https, or a client that tunnels (curl --proxytunnel); editing the "
                    "manifest will not help.");
        }
}

static const char *sig_name(int sig)
{
        const char *n = sigabbrev_np(sig);

        return n ? n : "unknown";
}

static void limits_words(const struct manifest_limits *l, char *buf, size_t size)
{
        size_t o = 0;

        buf[0] = '\0';
        if (*l->memory)
                o += (size_t) snprintf(buf + o, size - o, "memory %s", l->memory);
        if (*l->cpu && o < size)
                o += (size_t) snprintf(buf + o, size - o, "%scpu %s", o ? ", " : "", l->cpu);
        if (l->has_pids && o < size)
                snprintf(buf + o, size - o, "%spids %lld", o ? ", " : "", (long long) l->pids);
}

/* docs/cli/bento-run.md, "OUTPUT", the signal notice: certain when the target died of the
 * signal, probable for an exit code in 129..159 (the way a shell reports a
 * child's death, though a script may also exit with it).  Limits are blamed
 * only when the sandbox's cgroup counted an OOM kill. */
static void signal_notice(const struct run_view *v, int sig)
{
        const struct run_outcome *out = v->out;
        char limits[256];

        if (out->signal)
                say("the script was killed by signal %d (SIG%s); bento reports it as exit %d.", sig,
                    sig_name(sig), out->exit_code);
        else
                say("exit %d is how a death by signal %d (SIG%s) is reported, though a script "
                    "can also exit with that code itself.",
                    out->exit_code, sig, sig_name(sig));
        if (sig == SIGSYS)
                say("bento's filters kill only on a foreign-architecture (32-bit or x32) system "
                    "call; a permission the manifest withholds is refused with EPERM instead. So "
                    "this is most likely that guard, or a filter of the program's own.");
        limits_words(&v->p->m->limits, limits, sizeof(limits));
        if (sig == SIGKILL && out->oom_kills > 0)
                say("the manifest declares limits (%s), and exceeding one kills the run exactly "
                    "this way: the kernel's OOM killer ended %ld process(es) in the sandbox's "
                    "cgroup, so the script most likely hit its memory cap.",
                    limits, out->oom_kills);
}

/* NAME reached the target from this host or --env, not as bento's
 * default (docs/manifest.md, "ENVIRONMENT"). */
static bool passed(const struct run_view *v, const char *name)
{
        return run_passed_value(v->p->m, v->o, name) != NULL;
}

static bool grants_under_home(const struct policy *p)
{
        size_t hl = p->home ? strlen(p->home) : 0;

        for (size_t i = 0; hl && i < p->n_reads + p->n_writes; i++) {
                const char *g =
                    i < p->n_reads ? p->reads[i].expanded : p->writes[i - p->n_reads].expanded;

                if (strncmp(g, p->home, hl) == 0 && (g[hl] == '/' || g[hl] == '\0'))
                        return true;
        }
        return false;
}

static bool shell_interpreter(const struct policy *p)
{
        static const char *const shells[] = {"sh",  "bash", "dash",    "ksh", "mksh",
                                             "zsh", "ash",  "busybox", "fish"};
        const char *i = p->interpreter.real ? p->interpreter.real : p->m->interpreter;
        const char *base = strrchr(i, '/');

        base = base ? base + 1 : i;
        for (size_t k = 0; k < sizeof(shells) / sizeof(shells[0]); k++)
                if (strcmp(base, shells[k]) == 0)
                        return true;
        return false;
}

void run_home_note(const struct policy *p)
{
        say("note: HOME inside the sandbox is /tmp, so `~` in the script expands there, not to "
            "your home directory \"%s\". Grants are matched against host paths, so a script "
            "that builds paths from ~ misses them. Use absolute paths, or add HOME to `env:`.",
            p->home ? p->home : "");
}

/* docs/cli/bento-run.md, "OUTPUT": the first explanation that applies; returns true when it
 * was the generic hint (then the legend says "if it was a denial"). */
static bool explain_failure(const struct run_view *v, bool exec_enforced)
{
        const struct run_outcome *out = v->out;
        const struct manifest *m = v->p->m;

        if (out->signal || (out->exit_code > 128 && out->exit_code < 160)) {
                signal_notice(v, out->signal ? out->signal : out->exit_code - 128);
                return false;
        }
        if (out->exit_code == 126 && exec_enforced && m->exec != MANIFEST_EXEC_ALL) {
                say("exit 126 is the shell's \"could not execute\" code. This manifest runs under "
                    "exec: %s, which blocks subprocesses: a blocked execve surfaces as a "
                    "permission error that shells report as 126. Set `exec: all` if the script "
                    "must run other programs.",
                    manifest_exec_to_string(m->exec));
                return false;
        }
        if (m->n_network && out->exit_code != 0 && v->egress->connections == 0) {
                say("the manifest allows network destinations, but the script made no "
                    "connection through bento's egress proxy. bento intercepts egress with "
                    "HTTP_PROXY/HTTPS_PROXY; a program that ignores the proxy settings cannot "
                    "reach even the allowlisted hosts.");
                return false;
        }
        if (v->shortfall || egress_warned(v->egress))
                return false;
        if (!passed(v, "HOME") && grants_under_home(v->p)) {
                run_home_note(v->p);
                return false;
        }
        if (out->exit_code == 127 && !passed(v, "PATH") && shell_interpreter(v->p)) {
                say("exit 127 is the shell's \"command not found\". PATH in the sandbox is "
                    "/usr/bin:/bin, so a bare command name is only looked up there. Grant the "
                    "tool's directory in `read:`, add PATH to `env:`, or call it by its "
                    "absolute path.");
                return false;
        }
        say("the script exited %d. bento's denials are silent (the script sees an error such as "
            "\"No such file or directory\"), so its own error output is the only evidence. "
            "%zu read and %zu write path(s) granted%s%s%s. To see where each grant lands on "
            "this host and what it would refuse, run:",
            out->exit_code, m->n_read, m->n_write, m->n_network ? "" : ", no network: rules",
            m->exec == MANIFEST_EXEC_ALL ? "" : ", and exec: ",
            m->exec == MANIFEST_EXEC_ALL ? "" : manifest_exec_to_string(m->exec));
        fprintf(stderr, "[bento]   bento validate \"%s\"\n", m->path);
        return true;
}

static void legend_line(const char *err, const char *field)
{
        cleanup_free char *text = NULL;

        if (asprintf(&text, "\"%s\" - %s", err, field) < 0)
                return;
        text_print_wrapped(stderr, text, WRAP, "[bento]   ", "[bento]     ");
}

/* docs/cli/bento-run.md, "OUTPUT" */
static void denial_legend(const struct run_view *v, bool after_hint, bool exec_enforced)
{
        const struct manifest *m = v->p->m;
        struct shield_tally t = tally_shields(v->p);

        if (after_hint)
                say("if the script's error was a denial, this is what denials look like:");
        else
                say("denials are reported by the script itself and do not change its exit code; "
                    "they look like this:");
        if (m->n_write == 0)
                legend_line("Read-only file system", "the manifest grants no `write:` directory");
        else if (t.read_only)
                legend_line("Read-only file system",
                            "a path outside the `write:` grants, or a shielded path inside one");
        else
                legend_line("Read-only file system", "a path outside the `write:` grants");
        legend_line("No such file or directory",
                    "a path no `read:` or `write:` grant covers, or a shielded one "
                    "(indistinguishable from really absent)");
        if (m->n_network == 0)
                legend_line("Network is unreachable",
                            "the manifest grants no `network:` rules (an unresolvable name "
                            "means the same)");
        if (m->exec != MANIFEST_EXEC_ALL && exec_enforced)
                legend_line("Operation not permitted", m->exec == MANIFEST_EXEC_NONE_STRICT
                                                           ? "on a command: exec: none-strict"
                                                           : "on a command: exec: none");
        if (t.hidden)
                say("  hidden shields raise no error at all: the script sees an empty directory "
                    "or a zero-byte file.");
        if (t.discarded)
                say("  a write to a discarded shield succeeds and lands on a scratch mount that "
                    "goes away with the run.");
}

/* docs/cli/bento-run.md, "OUTPUT": aliases the user acknowledged are listed on every run. */
static void accepted_aliases(const struct alias_scan *a)
{
        for (int side = 0; a && side < 2; side++) {
                bool any = false;

                for (size_t i = 0; i < a->n_hits; i++) {
                        if (a->hits[i].write_side != side)
                                continue;
                        if (!any)
                                say(side ? "WARNING: these paths were writable as second names of "
                                           "files the shields keep read-only, inside a tree "
                                           "acknowledged with --accept-alias:"
                                         : "WARNING: these paths were readable as second names "
                                           "of shielded credentials, inside a tree "
                                           "acknowledged with --accept-alias:");
                        any = true;
                        fprintf(stderr, "[bento]   \"%s\" aliases \"%s\"\n", a->hits[i].path,
                                a->hits[i].target);
                }
        }
}

void run_report_human(const struct run_view *v)
{
        const struct run_outcome *out = v->out;
        bool exec_enforced =
            host_report_get(&v->a->report, BENTO_LAYER_EXEC_BLOCK)->state == BENTO_STATE_ENFORCED;
        bool hint = false;

        accepted_aliases(v->accepted);
        if (v->degraded)
                degraded_shields(v->degraded);
        else
                shields_summary(v->p);
        opted_in(v->p);
        path_shadow_note(v);
        degradations(v);
        autoexec_notes(v->autoexec);
        egress_notes(v);
        run_blocked_note(v->blocked);
        if (out->exit_code != 0 || out->signal)
                hint = explain_failure(v, exec_enforced);
        /* docs/cli/bento-run.md, "OUTPUT": not after the egress warnings, which already say what
         * was refused. */
        if (((out->exit_code == 0 && !out->signal && !egress_warned(v->egress)) || hint) &&
            v->degraded)
                degraded_legend(v, hint);
        else if ((out->exit_code == 0 && !out->signal && !egress_warned(v->egress)) || hint)
                denial_legend(v, hint, exec_enforced);
        if (v->exec_record)
                run_exec_record_human(v->exec_record);
        if (v->shortfall)
                say("the script ran, but the guarantees listed above lapsed during the run, so "
                    "its exit code is withheld (exit 124).");
}
