/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for a shield set built once and shared (shield_set_copy(), policy_host.shields,
 * profile_context.shields): bento profile builds this host's set once per round and hands
 * copies to the round's policy, the proposal and run's refusals of the draft.  A copy must
 * answer as the original does, extending it must leave the original alone, and a proposal
 * made with a borrowed set must be the one made with a set of its own.  Against the fake
 * host of profile-fixture.h.
 */
#include "tap.h"
#include "profile-fixture.h"

static size_t workspace_rules(const struct shield_set *s)
{
        size_t n = 0;

        for (size_t i = 0; i < s->n_rules; i++)
                n += s->rules[i].origin == SHIELD_ORIGIN_WORKSPACE;
        return n;
}

static bool same_rule(const struct shield_rule *a, const struct shield_rule *b)
{
        if (!a || !b)
                return a == b;
        return strcmp(a->path, b->path) == 0 && strcmp(a->literal, b->literal) == 0 &&
               a->deny == b->deny && a->dir == b->dir && a->holds == b->holds &&
               a->origin == b->origin && a->source == b->source;
}

TEST(a_copy_answers_as_the_original)
{
        cleanup_shield_set struct shield_set *s = NULL, *c = NULL;

        ASSERT_OK(shields_build(&shield_env, &s, &err));
        c = shield_set_copy(s);
        ASSERT_TRUE(c != NULL);
        ASSERT_EQ(c->n_anchors, s->n_anchors);
        for (size_t i = 0; i < s->n_anchors; i++) {
                ASSERT_STREQ(c->anchors[i], s->anchors[i]);
                ASSERT_STREQ(c->resolved_anchors[i], s->resolved_anchors[i]);
                ASSERT_TRUE(c->anchors[i] != s->anchors[i]); /* its own strings */
        }
        ASSERT_TRUE(c->anchors[c->n_anchors] == NULL);
        ASSERT_EQ(c->n_rules, s->n_rules);
        ASSERT_TRUE(s->n_rules > 500);
        for (size_t i = 0; i < s->n_rules; i++) {
                ASSERT_TRUE(same_rule(&c->rules[i], &s->rules[i]));
                ASSERT_TRUE(c->rules[i].path != s->rules[i].path);
                /* Found through the copied path table as through the original's. */
                ASSERT_TRUE(same_rule(shields_covering(c, s->rules[i].path),
                                      shields_covering(s, s->rules[i].path)));
        }
        ASSERT_TRUE(shields_covering(c, at("%s/.ssh/id_rsa", home)) != NULL);
        ASSERT_TRUE(shields_covering(c, at("%s/data/sample.txt", proj)) == NULL);
}

TEST(extending_a_copy_leaves_the_original_as_it_was)
{
        cleanup_shield_set struct shield_set *s = NULL, *c = NULL;
        const char *writes[] = {proj};
        const char *added;
        size_t n;

        ASSERT_OK(shields_build(&shield_env, &s, &err));
        n = s->n_rules;
        c = shield_set_copy(s);
        ASSERT_TRUE(c != NULL);
        ASSERT_OK(shields_add_workspace(c, writes, 1, &err));
        ASSERT_TRUE(c->n_rules > n);
        added = c->rules[n].path; /* the checkout's .vscode, .git/hooks, ... */
        ASSERT_TRUE(c->rules[n].origin == SHIELD_ORIGIN_WORKSPACE);
        ASSERT_TRUE(same_rule(shields_covering(c, added), &c->rules[n]));
        ASSERT_EQ(s->n_rules, n);
        ASSERT_TRUE(shields_covering(s, added) == NULL);
        /* Freed apart: each owns what it holds (a shared string would be freed twice). */
        c = shield_set_free(c);
        ASSERT_TRUE(shields_covering(s, at("%s/.ssh", home)) != NULL);
}

/* What one proposal says, as text, to compare two. */
static char *summary(const struct profile_proposal *p)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return NULL;
        for (size_t i = 0; i < p->m->n_read; i++)
                fprintf(f, "read %s\n", p->m->read[i]);
        for (size_t i = 0; i < p->m->n_write; i++)
                fprintf(f, "write %s\n", p->m->write[i]);
        for (size_t i = 0; i < p->n_withheld; i++)
                fprintf(f, "withheld %s %s %s\n", p->withheld[i].path,
                        profile_reason_to_string(p->withheld[i].reason),
                        p->withheld[i].detail ? p->withheld[i].detail : "");
        for (size_t i = 0; i < p->n_flagged; i++)
                fprintf(f, "flagged %s %s\n", p->flagged[i].path,
                        profile_reason_to_string(p->flagged[i].reason));
        fclose(f);
        return text;
}

/* Every clamp that asks the shields: a shielded read, a write under a home shield kept
 * read-only, a write directory with workspace shields of its own, another home's shield, a
 * grant run refuses. */
static const char body[] = "read ok %s/home/.ssh/id_rsa\n"
                           "write ok %s/home/.vim/x.vim\n"
                           "write ok %s/proj/out/x.txt\n"
                           "write ok %s/proj/.vscode/settings.json\n"
                           "read ok /home/zz-nobody/.ssh/config\n"
                           "write error %s/proj/file.txt/x\n"
                           "read ok %s/proj/data/sample.txt\n"
                           "end exit 0\n";

TEST(a_proposal_with_a_borrowed_set_is_the_one_it_would_build)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct profile_proposal own = {0}, borrowed = {0};
        struct profile_context c = context();
        cleanup_free char *a = NULL, *b = NULL;
        size_t n;

        ASSERT_OK(propose_ctx(body, &c, &own));
        ASSERT_OK(shields_build(&shield_env, &s, &err));
        n = s->n_rules;
        c.shields = s;
        ASSERT_OK(propose_ctx(body, &c, &borrowed));
        a = summary(&own);
        b = summary(&borrowed);
        ASSERT_TRUE(a && b);
        ASSERT_CONTAINS(a, "read-shielded");
        ASSERT_CONTAINS(a, "run-refused");
        ASSERT_STREQ(b, a);
        /* The clamps and run's refusals extended copies, never the borrowed set. */
        ASSERT_EQ(s->n_rules, n);
        ASSERT_EQ(workspace_rules(s), 0);
        profile_proposal_done(&own);
        profile_proposal_done(&borrowed);
}

TEST(the_foreign_home_check_answers_the_same_with_a_borrowed_set)
{
        cleanup_shield_set struct shield_set *s = NULL;
        struct profile_context c = context();
        char *paths[] = {"/home/zz-nobody/.ssh/config", "/home/zz-nobody/src/x.c",
                         (char *) at("%s/data", proj)};
        bool own[3], borrowed[3];

        ASSERT_OK(profile_foreign_shield_check(&c, paths, 3, own, &err));
        ASSERT_OK(shields_build(&shield_env, &s, &err));
        c.shields = s;
        ASSERT_OK(profile_foreign_shield_check(&c, paths, 3, borrowed, &err));
        ASSERT_TRUE(own[0] && !own[1] && !own[2]);
        ASSERT_TRUE(memcmp(own, borrowed, sizeof(own)) == 0);
}

TAP_MAIN()
