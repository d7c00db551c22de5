/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The end of a session (docs/cli/bento-profile.md, "WRITING THE RESULT"): the withheld and
 * flagged lines and the warnings, the merge into an existing --out (what it kept said), the
 * provenance and relocatable spellings, the atomic write, then the `wrote` line, the
 * --json document, and exit 0 or 4 with the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "session-internal.h"

static void print_lines(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                fprintf(stderr, "%s\n", v[i]);
}

static void print_items(const struct profile_item *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                cleanup_free char *line = profile_item_line(&v[i]);

                if (line)
                        fprintf(stderr, "%s\n", line);
        }
}

static int merge(const struct profile_ctx *c, struct manifest *m,
                 const struct profile_declined *declined, struct profile_merge_info *info,
                 struct bento_err *err)
{
        static const struct profile_declined none;
        cleanup_strv char **lines = NULL;
        size_t n = 0;
        int r;

        if (!c->existing)
                return 0;
        r = profile_merge(m, c->existing, c->out, c->home, declined ? declined : &none, info, err);
        if (r >= 0 && profile_merge_lines(info, &lines, &n) < 0)
                r = bento_err_set(err, ENOMEM, "merge");
        if (r < 0)
                return r;
        fprintf(stderr,
                "[bento] merging into the existing %s (its approval, if any, is void "
                "now):\n",
                c->out);
        print_lines(lines, n);
        return 0;
}

static int finish_and_write(const struct profile_ctx *c, struct profile_step *s,
                            const struct profile_declined *declined,
                            struct profile_merge_info *info, struct bento_err *err)
{
        cleanup_free char *warning = NULL;
        int r;

        r = merge(c, s->prop.m, declined, info, err);
        if (r >= 0)
                r = profile_finish(s->prop.m, s->obs.guard_blocked, s->obs.n_guard_blocked, c->out,
                                   c->home, 0, err);
        if (r >= 0)
                r = profile_write(c->out, s->prop.m, &warning, err);
        if (r >= 0 && warning)
                fprintf(stderr, "%s\n", warning);
        return r;
}

int profile_write_result(const struct profile_ctx *c, struct profile_step *s,
                         const struct profile_declined *declined, const char *incomplete_reason)
{
        struct profile_merge_info info = {0};
        struct bento_err err = {0};
        const char *reason = incomplete_reason;
        int r;

        print_items(s->prop.withheld, s->prop.n_withheld);
        print_items(s->prop.flagged, s->prop.n_flagged);
        print_lines(s->prop.warnings, s->prop.n_warnings);
        if (!reason && !s->prop.complete)
                reason = s->prop.incomplete_reason;
        /* The document says what the session concluded, the loop's reason included. */
        s->prop.complete = reason == NULL;
        s->prop.incomplete_reason = reason;
        r = finish_and_write(c, s, declined, &info, &err);
        if (r >= 0 && c->o->json &&
            profile_json_document(stdout, c->out, &s->prop, s->prop.m, c->existing ? &info : NULL,
                                  &err) >= 0)
                fflush(stdout);
        profile_merge_info_done(&info);
        if (r < 0)
                return profile_refuse(c->o, err.msg);
        fprintf(stderr,
                "\n[bento] wrote %s - review it, then run `bento validate %s` and `bento approve "
                "%s`.\n",
                c->out, c->out, c->out);
        if (!reason)
                return 0;
        fprintf(stderr,
                "[bento] the proposal is incomplete (%s) - bento exits with status 4; review "
                "it closely before approving.\n",
                reason);
        return PROFILE_EXIT_INCOMPLETE;
}
