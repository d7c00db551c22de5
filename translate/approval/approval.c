/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval state and its messages (approval.h, docs/approve.md, "What the stamp is, and what it
 * is not", docs/approve.md, "The approval journal", docs/validate.md).  The state itself is
 * fingerprint.c's comparison; this file adds the journal verdict and turns both into what users
 * read.
 */
#include "approval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"

enum manifest_approval approval_check(const struct manifest *m, const char *real_path,
                                      struct approval_status *ret)
{
        struct approval_status s = {.state = MANIFEST_APPROVAL_UNAPPROVED,
                                    .journal = JOURNAL_ABSENT};
        cleanup_free char *real = NULL;
        struct bento_err err = {0};

        if (m && manifest_fingerprint(m, s.fingerprint, &err) < 0)
                s.fingerprint[0] = '\0';
        s.stamped = m && m->provenance.approves && *m->provenance.approves;
        if (!s.stamped)
                s.state = MANIFEST_APPROVAL_UNAPPROVED;
        else if (s.fingerprint[0] && strcmp(s.fingerprint, m->provenance.approves) == 0)
                s.state = MANIFEST_APPROVAL_CURRENT;
        else
                s.state = MANIFEST_APPROVAL_STALE;
        if (!real_path && m && m->path && *m->path) {
                real = realpath(m->path, NULL);
                real_path = real;
        }
        if (s.stamped && real_path)
                s.journal = journal_lookup(real_path, m->provenance.approves, NULL);
        if (ret)
                *ret = s;
        return s.state;
}

char *approval_refusal(enum manifest_approval state, const char *path)
{
        char *s = NULL;
        int r;

        if (state == MANIFEST_APPROVAL_CURRENT)
                return NULL;
        if (state == MANIFEST_APPROVAL_STALE)
                r = asprintf(&s,
                             "refusing to run: the manifest's permissions changed since it was "
                             "approved; the stamp is only a hash of the approved permissions, "
                             "so the file cannot say which field changed. Review it with `bento "
                             "approve %s` (it shows the changed lines when this host recorded "
                             "the earlier approval), or pass --allow-unapproved to run it as it "
                             "stands",
                             path);
        else
                r = asprintf(&s,
                             "refusing to run: the manifest is not approved; read the "
                             "permissions it grants (`bento validate %s`), stamp them with "
                             "`bento approve %s`, or pass --allow-unapproved to run it without "
                             "an approval",
                             path, path);
        return r < 0 ? NULL : s;
}

/* One "[bento] " paragraph, wrapped at 78 columns on word boundaries (a
 * word longer than a line stays whole). */
static void put_wrapped(FILE *f, const char *text)
{
        const size_t width = 78, prefix = 8;
        size_t col = 0;

        while (*text) {
                size_t n = strcspn(text, " ");

                if (col == 0) {
                        fputs("[bento] ", f);
                        col = prefix;
                } else if (col + 1 + n > width) {
                        fputs("\n[bento] ", f);
                        col = prefix;
                } else {
                        fputc(' ', f);
                        col++;
                }
                fwrite(text, 1, n, f);
                col += n;
                text += n;
                text += strspn(text, " ");
        }
        if (col)
                fputc('\n', f);
}

static void stamp_note(FILE *f, const struct approval_status *s)
{
        if (s->state != MANIFEST_APPROVAL_CURRENT || s->journal == JOURNAL_MATCHES)
                return;
        if (s->journal == JOURNAL_UNTRUSTED)
                put_wrapped(f, "this host's approval journal is not private, so it cannot vouch "
                               "that these permissions were approved here: the stamp reflects a "
                               "review this host cannot confirm. Make the journal directory "
                               "yours alone, then run `bento approve` after reading them.");
        else if (s->journal == JOURNAL_UNAUTHENTICATED)
                put_wrapped(f, "this host holds no record of approving these permissions: the "
                               "journal's record of them is not authenticated by this host's "
                               "journal key (it was written by a bento before records were "
                               "signed, or not by `bento approve` here), so the stamp reflects "
                               "a review this host cannot confirm; run `bento approve` here "
                               "after reading them to make it yours.");
        else
                put_wrapped(f, "this host holds no record of approving these permissions, so "
                               "the stamp reflects someone else's review; run `bento approve` "
                               "here after reading them to make it yours.");
}

char *approval_notes(const struct approval_status *s, const struct trust_report *trust)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        if (!f)
                return NULL;
        for (size_t i = 0; s && s->stamped && trust && i < trust->n_flaws; i++) {
                cleanup_free char *line = NULL;

                if (asprintf(&line,
                             "%s - its approval stamp attests only what whoever can write it "
                             "leaves there.",
                             trust->flaws[i].reason) < 0)
                        line = NULL;
                if (line)
                        put_wrapped(f, line);
                if (trust->flaws[i].hint)
                        put_wrapped(f, trust->flaws[i].hint);
        }
        if (s)
                stamp_note(f, s);
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}

const char *approval_describe(enum manifest_approval state)
{
        switch (state) {
        case MANIFEST_APPROVAL_CURRENT:
                return "current (approved for these permissions)";
        case MANIFEST_APPROVAL_STALE:
                return "STALE - the permissions changed since this manifest was approved\n"
                       "the stamp is a hash, so it cannot say which field changed;\n"
                       "`bento approve` shows the changed lines if this host recorded the "
                       "approval";
        case MANIFEST_APPROVAL_UNAPPROVED:
        default:
                return "not approved - run `bento approve` after reviewing the permissions "
                       "above";
        }
}

const char *approval_strict_failure(enum manifest_approval state)
{
        switch (state) {
        case MANIFEST_APPROVAL_CURRENT:
                return NULL;
        case MANIFEST_APPROVAL_STALE:
                return "manifest approval is stale: permissions changed since it was approved "
                       "(run `bento approve` to review them again)";
        case MANIFEST_APPROVAL_UNAPPROVED:
        default:
                return "manifest is not approved";
        }
}
