/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The refusal that keeps bento's approval journal out of every write
 * grant (approval/journal.h, issue 14).  A script that can write the journal can
 * file a record of approval for any manifest, and a later run believes
 * it.  The journal's shield (docs/manifest.md, "CREDENTIAL SHIELDS") does not settle this: it
 * follows XDG_STATE_HOME only on the runs that set it, so an earlier run without it could have
 * written the directory a later XDG_STATE_HOME names.  A write grant that holds the journal root or
 * its approvals directory, as named or with symlinks resolved, is therefore refused, shielded or
 * not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "approval/journal.h"
#include "manifest/path.h"
#include "internal.h"

static void paths_free(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

/* Each write grant twice: expanded as docs/manifest.md, "PATH RESOLUTION" says (cleaned) and
 * symlink-resolved. */
static char **grant_paths(const struct policy *p)
{
        char **v = calloc(2 * p->n_writes + 1, sizeof(char *));

        for (size_t i = 0; v && i < p->n_writes; i++) {
                const struct policy_path *g = &p->writes[i];

                v[2 * i] = g->expanded ? path_clean(g->expanded) : NULL;
                v[2 * i + 1] = g->real ? path_clean(g->real) : NULL;
                if ((g->expanded && !v[2 * i]) || (g->real && !v[2 * i + 1])) {
                        paths_free(v, 2 * p->n_writes);
                        return NULL;
                }
        }
        return v;
}

int policy_check_journal(struct policy *p, struct bento_err *err)
{
        char **paths = grant_paths(p);
        cleanup_free char *where = NULL;
        const struct policy_path *g;
        struct shield_refusal last;
        char *msg = NULL;
        size_t at = 0, k = 0;
        int r;

        if (!paths)
                return bento_err_set(err, ENOMEM, "approval journal");
        r = journal_within((const char *const *) paths, 2 * p->n_writes, &at, &where);
        paths_free(paths, 2 * p->n_writes);
        if (r < 0)
                return bento_err_set(err, ENOMEM, "approval journal");
        if (r == 0)
                return 0;
        g = &p->writes[at / 2];
        if (asprintf(&msg,
                     "write grant \"%s\" holds bento's approval journal \"%s\", where the script "
                     "could file a record of approval that a later run believes; keep the "
                     "journal out of every write grant: set XDG_STATE_HOME to a directory no "
                     "manifest grants (the journal is $XDG_STATE_HOME/bento/approvals), or "
                     "narrow the grant",
                     g->expanded, where) < 0)
                msg = NULL;
        r = policy_refuse(p, SHIELD_CHECK_JOURNAL, g->expanded, msg, err);
        if (r < 0 || !journal_relocated())
                return r < 0 ? r : 0;
        /* A state home XDG_STATE_HOME put inside a grant also trips the later
         * checks of docs/manifest.md, "GRANTS A RUN REFUSES", but they name a shield that moved
         * with it
         * (".../state/nvim"), not the journal and the remedy: this refusal
         * goes ahead of them (only a write grant of "/" says more), to be
         * the one run words.  The default state home is part of a home,
         * and the refusal for a home (narrow the grant) says it best. */
        while (k < p->n_refusals - 1 && p->refusals[k].check == SHIELD_CHECK_WRITE_ROOT)
                k++;
        last = p->refusals[p->n_refusals - 1];
        memmove(p->refusals + k + 1, p->refusals + k,
                (p->n_refusals - 1 - k) * sizeof(*p->refusals));
        p->refusals[k] = last;
        return 0;
}
