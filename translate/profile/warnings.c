/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When an observation is not the whole story (docs/profile.md, "Incomplete
 * proposals"): accesses the observer could not name, connections the proxy
 * could not name, a run that did not finish, and the one failure that is
 * almost always the sandbox's PATH rather than the script (a shell that
 * exits 127 without ever trying to run a program).  Each becomes a
 * WARNING line; the first two reasons decide the exit status 4.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "internal.h"
#include "jsonr.h"
#include "report/text.h"

static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", NULL};

static bool is_shell(const char *interp)
{
        const char *base;

        if (!interp || !*interp)
                return false;
        base = strrchr(interp, '/');
        base = base ? base + 1 : interp;
        for (size_t i = 0; shells[i]; i++)
                if (strcmp(base, shells[i]) == 0)
                        return true;
        return false;
}

static int warn(struct profile_proposal *p, char *line)
{
        int r;

        if (!line)
                return -ENOMEM;
        r = bento_strv_append(&p->warnings, &p->n_warnings, line);
        free(line);
        return r;
}

static char *dropped_line(const struct profile_observation *o)
{
        return text_printf("[bento] WARNING: the observer could not name %lu file access(es) the "
                           "target made (first: %s, %s); the proposal may be missing grants the "
                           "program needs",
                           o->dropped_total, o->n_dropped ? o->dropped[0].name : "?",
                           o->n_dropped ? o->dropped[0].reason : "?");
}

static char *unfinished_line(const struct profile_observation *o)
{
        if (!o->finished)
                return strdup("[bento] WARNING: the profiled run did not finish: the observer's "
                              "report ended before the target did, so later accesses are "
                              "missing");
        if (o->end_signal)
                return text_printf("[bento] WARNING: the profiled run did not finish: the target "
                                   "was killed by signal %d, so later accesses are missing",
                                   o->end_code);
        return text_printf("[bento] WARNING: the profiled run did not finish: the target exited "
                           "with status %d, possibly because a grant it needed was missing",
                           o->end_code);
}

int profile_warnings(const struct profile_observation *o, const struct profile_context *c,
                     struct profile_proposal *p, struct bento_err *err)
{
        bool finished = o->finished && !o->end_signal && o->end_code == 0;
        int r = 0;

        if (o->dropped_total > 0)
                r = warn(p, dropped_line(o));
        if (r >= 0 && o->dropped_connects > 0)
                r = warn(p, text_printf("[bento] WARNING: the egress proxy refused %ld "
                                        "connection(s) it could not name; the proposal may be "
                                        "missing network rules",
                                        o->dropped_connects));
        if (r >= 0 && !finished)
                r = warn(p, unfinished_line(o));
        if (r >= 0 && o->finished && !o->end_signal && o->end_code == 127 && o->n_execs == 0 &&
            is_shell(c->interpreter))
                r = warn(p, strdup("[bento] WARNING: the script exited 127 without running any "
                                   "program: a bare command name is searched only in "
                                   "/usr/bin:/bin inside the sandbox; call the command by its "
                                   "absolute path"));
        if (r < 0)
                return bento_err_set(err, ENOMEM, "the proposal");
        p->complete = finished && o->dropped_total == 0;
        if (!finished)
                p->incomplete_reason = "the profiled run did not finish";
        else if (o->dropped_total > 0)
                p->incomplete_reason = "the observer could not name every access the target made";
        return 0;
}
