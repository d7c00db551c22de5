/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judging the name a manifest was given (name.h): open it through
 * no link; when a link is on the way, ask the journal what this name was
 * approved as, and open only the recorded target, again through no link.
 */
#include "name.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "journal.h"
#include "manifest/path.h"

char *approval_named_path(const char *path)
{
        cleanup_free char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);

        if (path[0] == '/')
                return path_clean(path);
        return cwd ? path_join(cwd, path) : NULL;
}

void approval_name_done(struct approval_name *n)
{
        if (!n)
                return;
        free(n->named);
        free(n->leads_to);
        free(n->approved);
        *n = (struct approval_name){0};
}

bool approval_name_ok(const struct approval_name *n)
{
        return n->verdict == APPROVAL_NAME_PLAIN || n->verdict == APPROVAL_NAME_APPROVED;
}

static int keep(char **dst, const char *s)
{
        *dst = strdup(s);
        return *dst ? 0 : -ENOMEM;
}

/* What the record filed under the name itself says about it. */
static int judge_name_record(struct approval_name *n, const struct journal_entry *e, bool *decided)
{
        *decided = true;
        if (!e->has_identity) {
                n->verdict = APPROVAL_NAME_OLD_RECORD;
                return 0;
        }
        if (strcmp(e->named_path, n->named) == 0 && strcmp(e->manifest_path, n->leads_to) == 0 &&
            strcmp(e->manifest_path, n->named) != 0) {
                n->verdict = APPROVAL_NAME_APPROVED;
                return 0;
        }
        /* The file at this name was approved (as itself, or as another
         * name's target), or the name was approved as a link elsewhere. */
        if (strcmp(e->manifest_path, n->named) == 0 || strcmp(e->named_path, n->named) == 0) {
                n->verdict = APPROVAL_NAME_REDIRECTED;
                n->approved_as_link = strcmp(e->manifest_path, n->named) != 0;
                return keep(&n->approved, e->manifest_path);
        }
        *decided = false;
        return 0;
}

/* No record of the name: perhaps one of the file it leads to. */
static int judge_file_record(struct approval_name *n)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        int r = journal_find(n->leads_to, &e);

        n->verdict = APPROVAL_NAME_UNRECORDED;
        if (r < 0)
                n->verdict = APPROVAL_NAME_UNTRUSTED;
        if (r <= 0 || strcmp(e->manifest_path, n->leads_to) != 0)
                return 0;
        if (!e->has_identity) {
                n->verdict = APPROVAL_NAME_OLD_RECORD;
                return 0;
        }
        return keep(&n->approved, e->named_path);
}

/* The name met a link: where it leads now and what the journal says. */
static int judge_link(struct approval_name *n, const char *path, struct bento_err *err)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        bool decided = false;
        struct stat st;
        int r;

        n->leads_to = realpath(n->named, NULL);
        if (!n->leads_to)
                return bento_err_set(err, errno, "manifest: cannot open '%s'", path);
        n->is_link = lstat(n->named, &st) == 0 && S_ISLNK(st.st_mode);
        r = journal_find(n->named, &e);
        if (r < 0) {
                n->verdict = APPROVAL_NAME_UNTRUSTED;
                return 0;
        }
        if (r > 0 && judge_name_record(n, e, &decided) < 0)
                return bento_err_set(err, ENOMEM, "manifest");
        if (!decided && judge_file_record(n) < 0)
                return bento_err_set(err, ENOMEM, "manifest");
        return 0;
}

/* The descriptor the verdict allows: the approved target through no
 * link, the name as it is now (follow), or none (1). */
static int open_judged(const struct approval_name *n, const char *path, bool follow, int *ret_fd,
                       struct bento_err *err)
{
        int fd;

        if (n->verdict == APPROVAL_NAME_APPROVED) {
                fd = trust_open_nolinks(n->leads_to);
        } else if (follow) {
                fd = open(n->named, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                fd = fd < 0 ? -errno : fd;
        } else {
                return 1;
        }
        if (fd == -ELOOP)
                return bento_err_setx(err, ESTALE,
                                      "manifest: %s moved while it was being read; run the "
                                      "command again",
                                      path);
        if (fd < 0)
                return bento_err_set(err, -fd, "manifest: cannot open '%s'", path);
        *ret_fd = fd;
        return 0;
}

int approval_load(const char *path, bool follow, struct approval_name *name, struct trust_loaded *l,
                  struct manifest_problems *problems, struct bento_err *err)
{
        const char *expect;
        int fd, r;

        *name = (struct approval_name){0};
        if (problems)
                *problems = (struct manifest_problems){0};
        name->named = approval_named_path(path);
        if (!name->named)
                return bento_err_set(err, errno ? errno : ENOMEM, "manifest: '%s'", path);
        fd = trust_open_nolinks(name->named);
        if (fd < 0 && fd != -ELOOP)
                return bento_err_set(err, -fd, "manifest: cannot open '%s'", path);
        if (fd < 0) {
                r = judge_link(name, path, err);
                if (r == 0)
                        r = open_judged(name, path, follow, &fd, err);
                if (r != 0)
                        return r;
        }
        r = trust_load_fd(fd, path, NULL, l, problems, err);
        if (r < 0)
                return r;
        /* What was opened through no link must be where that led. */
        expect = name->verdict == APPROVAL_NAME_PLAIN      ? name->named
                 : name->verdict == APPROVAL_NAME_APPROVED ? name->leads_to
                                                           : NULL;
        if (expect && l->trust.real_path && strcmp(l->trust.real_path, expect) != 0) {
                trust_loaded_done(l);
                return bento_err_setx(err, ESTALE,
                                      "manifest: %s moved while it was being read; run the "
                                      "command again",
                                      path);
        }
        return 0;
}

/* "is now a symbolic link to X" or "now leads to X through a ...". */
static char *how_it_leads(const struct approval_name *n)
{
        char *s = NULL;

        if (asprintf(&s,
                     n->is_link ? "is now a symbolic link to %s"
                                : "now leads to %s through a symbolic link in a directory above "
                                  "it",
                     n->leads_to) < 0)
                return NULL;
        return s;
}

/* The middle of approval_name_problem(): what the journal says. */
static char *what_was_approved(const struct approval_name *n)
{
        char *s = NULL;
        int r = -1;

        switch (n->verdict) {
        case APPROVAL_NAME_UNRECORDED:
                r = n->approved
                        ? asprintf(&s, "this host approved that file only as %s", n->approved)
                        : asprintf(&s, "this host never approved a manifest under this "
                                       "name");
                break;
        case APPROVAL_NAME_OLD_RECORD:
                r = asprintf(&s, "its approval was recorded by an older bento that did not note "
                                 "where the name led, so nothing tells whether the link was "
                                 "there then");
                break;
        case APPROVAL_NAME_REDIRECTED:
                r = n->approved_as_link
                        ? asprintf(&s, "it was approved as a link to %s", n->approved)
                        : asprintf(&s, "it was approved when that name was the file itself");
                break;
        case APPROVAL_NAME_UNTRUSTED:
                r = asprintf(&s, "this host's approval journal is not private, so nothing can "
                                 "vouch that the link was approved (make the journal directory "
                                 "yours alone)");
                break;
        default:
                break;
        }
        return r < 0 ? NULL : s;
}

char *approval_name_problem(const struct approval_name *n, const char *path)
{
        cleanup_free char *how = NULL, *what = NULL;
        char *s = NULL;

        if (approval_name_ok(n) || !(how = how_it_leads(n)) || !(what = what_was_approved(n)))
                return NULL;
        if (asprintf(&s,
                     "%s %s, but %s; a name is approved only for where it led at approval. "
                     "Review what it points to, then run `bento approve %s` again",
                     path, how, what, path) < 0)
                return NULL;
        return s;
}

char *approval_name_callout(const struct approval_name *n, const char *path)
{
        cleanup_free char *how = NULL, *what = NULL;
        char *s = NULL;
        int r;

        if (approval_name_ok(n) || !(how = how_it_leads(n)))
                return NULL;
        if (n->verdict == APPROVAL_NAME_REDIRECTED) {
                what = what_was_approved(n);
                r = what ? asprintf(&s,
                                    "%s %s, but %s: make sure this is the manifest you "
                                    "mean to run under that name",
                                    path, how, what)
                         : -1;
        } else {
                r = asprintf(&s,
                             "%s %s: the approval covers this name leading there, and run "
                             "refuses the name once it leads anywhere else",
                             path, how);
        }
        return r < 0 ? NULL : s;
}
