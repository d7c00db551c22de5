/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento approve <manifest> [--yes] (docs/approve.md, "What approve does, in order"): show the
 * permissions a manifest grants and what in them deserves a second look,
 * ask a human, then stamp the fingerprint into provenance.approves and
 * record the approval in this host's journal (docs/approve.md, "The approval journal").  The stamp
 * goes in as a minimal edit that keeps the author's comments (approval/stamp.h).
 *
 * Refusals (exit 125): a fatal trust flaw (docs/approve.md, "What approve does, in order"), a grant
 * run would refuse, no terminal to ask on without --yes, an answer other than yes, a failed write.
 * A stamp that could not be recorded in the journal still counts as approved, but the exit status
 * says something failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "approval/name.h"
#include "report/review.h"
#include "approval/stamp.h"
#include "approval/approval.h"
#include "cleanup.h"
#include "cli.h"
#include "commands.h"
#include "fileio.h"
#include "approval/journal.h"
#include "manifest/write.h"
#include "report/permissions.h"
#include "policy/policy.h"
#include "manifest/trust.h"

struct approve_opts {
        const char *path;
        bool yes;
};

/* Everything approve learns before it asks. */
struct approve_ctx {
        const char *path;
        bool yes;
        struct trust_loaded l;
        struct approval_name name; /* the name as given, and where it leads */
        struct policy *p;
        char *unresolved; /* why the grants could not be resolved */
        struct approval_status st;
};

static void ctx_done(struct approve_ctx *c)
{
        trust_loaded_done(&c->l);
        approval_name_done(&c->name);
        policy_free(c->p);
        free(c->unresolved);
}

enum { APPROVE_YES };

const struct bento_opt cmd_approve_opts[] = {
    {"yes", 'y', BENTO_OPT_BOOL, APPROVE_YES, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

static int parse_args(int argc, char **argv, struct approve_opts *o)
{
        struct bento_argv a;
        struct bento_argv_hit h;
        struct bento_err err = {0};
        int npos = 0, r;

        cli_argv_init(&a, argc, argv);
        while ((r = bento_argv_next(&a, cmd_approve_opts, &h, &err)) > 0) {
                if (h.id == BENTO_ARGV_OPERAND && npos++ == 0)
                        o->path = h.value;
                else if (h.id == APPROVE_YES)
                        o->yes = h.on;
        }
        if (r < 0)
                return cli_usage_problem("approve", &a, &err);
        return cli_one_operand("approve", "a manifest path", npos);
}

static int load(struct approve_ctx *c)
{
        struct manifest_problems problems = {0};
        struct bento_err err = {0};
        cleanup_free char *shown = NULL;

        /* Approving is how a name through a link becomes approved, so
         * the name is followed as it is now; the review shows where. */
        if (approval_load(c->path, true, &c->name, &c->l, &problems, &err) == 0)
                return 0;
        shown = problems.n > 0 ? manifest_problems_render(&problems) : NULL;
        fprintf(stderr, "bento: %s\n", shown ? shown : err.msg);
        manifest_problems_done(&problems);
        return BENTO_EXIT_REFUSED;
}

/* Step 1: refuse on a fatal flaw, warn about the others. */
static int check_trust(const struct approve_ctx *c)
{
        const struct trust_report *t = &c->l.trust;
        const struct trust_flaw *fatal = trust_first_fatal(t);

        if (fatal) {
                fprintf(stderr, "bento: refusing to approve %s: %s%s%s\n", c->path, fatal->reason,
                        fatal->hint ? "; " : "", fatal->hint ? fatal->hint : "");
                return BENTO_EXIT_REFUSED;
        }
        for (size_t i = 0; i < t->n_flaws; i++) {
                fprintf(stderr, "[bento] warning: %s\n", t->flaws[i].reason);
                if (t->flaws[i].hint)
                        fprintf(stderr, "[bento] %s\n", t->flaws[i].hint);
        }
        return 0;
}

/* Step 2: resolve a copy of the grants; refuse what run would refuse. */
static int check_grants(struct approve_ctx *c)
{
        struct bento_err err = {0};

        if (policy_resolve(c->l.m, NULL, &c->p, &err) < 0) {
                c->unresolved = strdup(err.msg);
                return 0;
        }
        if (!c->p->shields)
                fprintf(stderr,
                        "[bento] note: the credential shields cannot be anchored on this host "
                        "(%s), so the grants were not checked against them\n",
                        c->p->shields_error ? c->p->shields_error : "no home directory");
        if (c->p->n_refusals == 0)
                return 0;
        fprintf(stderr, "bento: not approved: the policy holds a grant run refuses; fix the "
                        "manifest, then approve it again:\n");
        for (size_t i = 0; i < c->p->n_refusals; i++)
                fprintf(stderr, "  %s\n", c->p->refusals[i].message);
        return BENTO_EXIT_REFUSED;
}

/* Step 4: the summary and the callouts. */
static int print_review(const struct approve_ctx *c)
{
        cleanup_free char *name_callout = approval_name_callout(&c->name, c->path);
        struct approval_review rv = {
            c->l.m, c->p, c->unresolved, c->l.trust.real_path, c->name.named, name_callout};
        cleanup_strv char **callouts = NULL;
        size_t n = 0;

        printf("%-14s%s\n", "manifest:", c->path);
        if (c->name.leads_to)
                printf("%-14s%s\n", "leads to:", c->name.leads_to);
        permissions_print(stdout, c->l.m);
        printf("\nEverything not listed above is denied. Credentials, SSH keys and shell "
               "profiles\nstay shielded even under the grants above.\n");
        if (approval_callouts(&rv, &callouts, &n) < 0) {
                fprintf(stderr, "bento: not approved: out of memory\n");
                return BENTO_EXIT_REFUSED;
        }
        if (n > 0)
                printf("\nWorth a second look before stamping:\n");
        for (size_t i = 0; i < n; i++)
                printf("  - %s\n", callouts[i]);
        return 0;
}

static void explain_no_diff(enum journal_verdict v)
{
        switch (v) {
        case JOURNAL_UNTRUSTED:
                printf("This host's approval journal is not private, so its record is not used "
                       "to show what changed;\nreview every permission above.\n");
                break;
        case JOURNAL_UNAUTHENTICATED:
                printf("This host's record of the earlier approval is not authenticated by its "
                       "journal key, so it is\nnot used to show what changed; review every "
                       "permission above.\n");
                break;
        case JOURNAL_FOREIGN:
                printf("This host's record is of another approval than the stamp in the file "
                       "(it was restamped\nelsewhere), so what changed cannot be shown; review "
                       "every permission above.\n");
                break;
        default:
                printf("This host holds no record of the earlier approval, so what changed "
                       "cannot be shown;\nreview every permission above.\n");
        }
}

/* Step 5: why this is a re-approval, and the diff when the journal has it. */
static void print_reapproval(const struct approve_ctx *c)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        cleanup_free char *now = NULL, *diff = NULL;
        struct bento_err err = {0};
        enum journal_verdict v;
        size_t len = 0;

        if (c->st.state == MANIFEST_APPROVAL_UNAPPROVED)
                return;
        if (c->st.state == MANIFEST_APPROVAL_CURRENT) {
                if (c->st.journal == JOURNAL_UNAUTHENTICATED)
                        printf("\n%s carries a current stamp, but this host's record of "
                               "approving it is not\nauthenticated by its journal key.\n",
                               c->path);
                else if (c->st.journal != JOURNAL_MATCHES)
                        printf("\n%s carries a current stamp, but this host holds no record of "
                               "approving it.\n",
                               c->path);
                return;
        }
        printf("\n%s was approved before, but its permissions changed since.\n", c->path);
        v = journal_lookup(c->l.trust.real_path, c->l.m->provenance.approves, &e);
        if (v != JOURNAL_MATCHES || !e ||
            manifest_to_yaml(c->l.m, MANIFEST_YAML_NO_PROVENANCE, &now, &len, &err) < 0 ||
            !(diff = journal_diff(e->policy, now))) {
                explain_no_diff(v);
                return;
        }
        printf("Last approved %s%s; what changed since:\n%s", e->stamped_at,
               e->reviewed ? "" : ", non-interactively - nobody read it", diff);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
        interrupted = sig;
}

/* Read one answer; returns 1 for yes, 0 for anything else, -1 when the
 * prompt was cancelled (EOF or a signal). */
static int ask(void)
{
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
        FILE *tty = fopen("/dev/tty", "r+e");
        FILE *in = tty ? tty : stdin, *out = tty ? tty : stderr;
        cleanup_free char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        char *s;

        /* No SA_RESTART: a Ctrl-C must end the read, and be told apart
         * from a "no". */
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        fputs("\nApprove these permissions? [y/N] > ", out);
        fflush(out);
        n = getline(&line, &cap, in);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (tty)
                fclose(tty);
        if (n < 0 || interrupted)
                return -1;
        for (s = line; *s == ' ' || *s == '\t'; s++)
                ;
        s[strcspn(s, " \t\r\n")] = '\0';
        return strcasecmp(s, "y") == 0 || strcasecmp(s, "yes") == 0;
}

/* Step 6. */
static int confirm(const struct approve_ctx *c)
{
        struct termios t;
        int r;

        fflush(stdout);
        if (c->yes)
                return 0;
        if (tcgetattr(STDIN_FILENO, &t) < 0) {
                fprintf(stderr, "bento: not approved: stdin is not a terminal, so nobody can "
                                "answer the confirmation; attach a terminal, or pass --yes to "
                                "stamp without asking\n");
                return BENTO_EXIT_REFUSED;
        }
        r = ask();
        if (r < 0)
                fprintf(stderr, "\nbento: not approved: the confirmation was cancelled\n");
        else if (r == 0)
                fprintf(stderr, "bento: not approved: the answer was not yes; edit the manifest "
                                "or run `bento approve` again when it is ready\n");
        return r == 1 ? 0 : BENTO_EXIT_REFUSED;
}

/* Step 7, the journal half: a failure here leaves a valid stamp.  The
 * record says what was approved by identity: the name as given, whether
 * it was a link, the real path and the file the stamp went to (info). */
static int record(const struct approve_ctx *c, const char *policy_text, const char *stamped_at,
                  const struct manifest_write_info *info)
{
        struct journal_entry e = {
            .fingerprint = (char *) c->st.fingerprint,
            .policy = (char *) policy_text,
            .manifest_path = c->l.trust.real_path,
            .stamped_at = (char *) stamped_at,
            .reviewed = !c->yes,
            .has_identity = true,
            .named_path = c->name.named,
            .named_symlink = c->name.is_link,
            .dev = (uint64_t) info->dev,
            .ino = (uint64_t) info->ino,
        };
        struct bento_err err = {0};

        if (journal_record(&e, &err) == 0)
                return 0;
        fprintf(stderr,
                "[bento] the approval is stamped in %s, but this host could not record it "
                "(%s); a later re-approval cannot show what changed, and a run through a "
                "symbolic link to it is refused\n",
                c->path, err.msg);
        return BENTO_EXIT_REFUSED;
}

/* The file must still hold what was reviewed: an edit made while the
 * prompt waited would otherwise be stamped unseen, or overwritten.  It is
 * read again where it was loaded from, through no link. */
static int unchanged(const struct approve_ctx *c)
{
        cleanup_close int fd = trust_open_nolinks(c->l.trust.real_path);
        cleanup_free char *now = NULL;
        struct bento_err err = {0};
        size_t len = 0;

        if (fd >= 0 && bento_read_fd(fd, c->path, MANIFEST_MAX_BYTES, &now, &len, &err) == 0 &&
            len == c->l.len && memcmp(now, c->l.data, len) == 0)
                return 0;
        fprintf(stderr,
                "bento: not approved: %s changed while it was being reviewed; run `bento "
                "approve` again to review what it holds now\n",
                c->path);
        return BENTO_EXIT_REFUSED;
}

/* Step 7: stamp, write, record. */
static int stamp(struct approve_ctx *c)
{
        char now[32];
        struct approval_stamp s = {c->st.fingerprint, now};
        struct approval_stamped out = {0};
        struct manifest_write_info info = {0};
        cleanup_free char *policy_text = NULL;
        struct bento_err err = {0};
        size_t len = 0;
        int r;

        approval_now_rfc3339(now);
        r = manifest_to_yaml(c->l.m, MANIFEST_YAML_NO_PROVENANCE, &policy_text, &len, &err);
        if (r == 0)
                r = approval_stamp_text(c->l.m, c->l.data, c->l.len, &s, &out, &err);
        /* The file that was reviewed, wherever the name led (check_trust()
         * refused a manifest whose real path is unknown). */
        if (r == 0)
                r = manifest_write_bytes(c->l.trust.real_path, out.text, out.len, &info, &err);
        free(out.text);
        if (r < 0) {
                fprintf(stderr, "bento: not approved: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        if (!out.textual)
                fprintf(stderr,
                        "[bento] the stamp could not be added as a small edit, so %s was "
                        "rewritten in canonical form; its comments and layout were "
                        "not kept\n",
                        c->path);
        if (info.clamped)
                fprintf(stderr,
                        "[bento] %s was group/world-writable (%04o); writing it back as %04o - "
                        "only its owner can rewrite the approved policy now\n",
                        c->path, (unsigned) info.old_mode, (unsigned) info.new_mode);
        r = record(c, policy_text, now, &info);
        printf("approved %s for its current permissions.\n", c->path);
        return r;
}

static int approve(struct approve_ctx *c)
{
        int r = load(c);

        if (r == 0)
                r = check_trust(c);
        if (r == 0)
                r = check_grants(c);
        if (r != 0)
                return r;
        approval_check(c->l.m, c->l.trust.real_path, &c->st);
        if (c->st.state == MANIFEST_APPROVAL_CURRENT && c->st.journal == JOURNAL_MATCHES &&
            c->l.trust.n_flaws == 0 && approval_name_ok(&c->name)) {
                printf("%s is already approved for its current permissions.\n", c->path);
                return 0;
        }
        if (!c->st.fingerprint[0]) {
                fprintf(stderr, "bento: not approved: the fingerprint cannot be computed\n");
                return BENTO_EXIT_REFUSED;
        }
        r = print_review(c);
        if (r != 0)
                return r;
        print_reapproval(c);
        r = confirm(c);
        if (r == 0)
                r = unchanged(c);
        return r != 0 ? r : stamp(c);
}

int cmd_approve(int argc, char **argv)
{
        struct approve_opts o = {0};
        struct approve_ctx c = {0};
        int r;

        r = parse_args(argc, argv, &o);
        if (r != 0)
                return r;
        c.path = o.path;
        c.yes = o.yes;
        r = approve(&c);
        ctx_done(&c);
        if (fflush(stdout) != 0 && r == 0) {
                fprintf(stderr, "bento: writing the report failed\n");
                r = BENTO_EXIT_REFUSED;
        }
        return r;
}
