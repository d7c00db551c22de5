/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for writing a profile's result (translate/profile/merge.c,
 * relocate.c, json.c) against the fake host of profile-fixture.h: the
 * docs' own probe.py example as an exact manifest, the merge with an
 * existing --out (same and different entrypoint, kept grants, declined
 * paths, exec widening and demotion, the approval voided), the
 * relocatable spellings and the --json document.
 */
#include "tap.h"
#include "profile-fixture.h"
#include "json.h"
#include "jsonr.h"
#include "manifest/write.h"

#define NOW 1786968000 /* 2026-08-17T12:00:00Z */

static struct manifest *load_text(const char *name, const char *yaml)
{
        struct manifest_problems probs = {0};
        struct manifest *m = NULL;
        FILE *f = fopen(name, "we");

        if (!f)
                return NULL;
        fputs(yaml, f);
        fclose(f);
        if (manifest_load(name, &m, &probs, &err) < 0)
                printf("# %s\n", err.msg);
        manifest_problems_done(&probs);
        return m;
}

/* The probe.py example: reads ./data/sample.txt, writes ./out/x.txt,
 * CONNECTs example.com:443, under a profile that also saw the usual noise
 * (the interpreter's libraries, its stat of the script's directory). */
static int example(struct profile_proposal *p, struct profile_observation *o)
{
        struct profile_context c = context();
        struct run_dest denied[] = {{"example.com", "443"}};
        struct run_egress e = {.denied = denied, .n_denied = 1};
        char text[4096];

        snprintf(text, sizeof(text),
                 "observe 1\nread ok /usr/lib/python3.11/os.py\nprobe ok %s\nprobe ok %s\n"
                 "read ok %s\nread ok %s/data/sample.txt\nwrite ok %s/out/x.txt\nend exit 0\n",
                 base, proj, script, proj, proj);
        if (profile_observation_parse(text, strlen(text), o, &err) < 0 ||
            profile_observation_add_egress(o, &e, &err) < 0)
                return -err.code;
        return profile_propose(o, &c, p, &err);
}

TEST(the_docs_example_gives_exactly_that_manifest)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        cleanup_free char *yaml = NULL, *warning = NULL;
        cleanup_manifest struct manifest *back = NULL;
        struct manifest_problems probs = {0};
        const char *out = at("%s/probe.py.manifest.yaml", proj);
        size_t len = 0;

        ASSERT_OK(example(&p, &o));
        ASSERT_TRUE(p.complete);
        ASSERT_OK(profile_finish(p.m, o.guard_blocked, o.n_guard_blocked, out, home, NOW, &err));
        ASSERT_OK(manifest_to_yaml(p.m, 0, &yaml, &len, &err));
        ASSERT_STREQ(yaml, "entrypoint: \"./probe.py\"\n"
                           "interpreter: \"python3\"\n"
                           "env:\n"
                           "  - \"HOME\"\n"
                           "  - \"LOGNAME\"\n"
                           "  - \"USER\"\n"
                           "read:\n"
                           "  - \"./data/sample.txt\"\n"
                           "write:\n"
                           "  - \"./out\"\n"
                           "network:\n"
                           "  - host: \"example.com\"\n"
                           "    port: \"443\"\n"
                           "exec: \"none\"\n"
                           "provenance:\n"
                           "  generated-by: \"bento profile\"\n"
                           "  generated-at: \"2026-08-17T12:00:00Z\"\n");
        /* Written atomically, and it parses back to the same policy. */
        ASSERT_OK(profile_write(out, p.m, &warning, &err));
        ASSERT_TRUE(warning == NULL);
        ASSERT_OK(manifest_load(out, &back, &probs, &err));
        ASSERT_STREQ(back->write[0], "./out");
        ASSERT_STREQ(back->provenance.approves, "");
        manifest_problems_done(&probs);
        unlink(out);
        profile_proposal_done(&p);
        profile_observation_done(&o);
}

TEST(relocatable_spellings)
{
        static const struct {
                const char *path, *dir, *home, *want;
        } cases[] = {
            {"/p/m/data/x", "/p/m", "/h", "./data/x"},
            {"/p/m", "/p/m", "/h", "."},
            {"/p/mm/x", "/p/m", "/h", "/p/mm/x"}, /* component boundaries */
            {"/h/notes.txt", "/p/m", "/h", "~/notes.txt"},
            {"/h", "/p/m", "/h/", "~"},
            {"/h/m/x", "/h/m", "/h", "./x"}, /* the manifest dir wins over home */
            {"/h/x", "/p", "relative", "/h/x"},
            {"/x", "/p", "/", "/x"}, /* a home of / spells nothing */
            {"/x", "/p", NULL, "/x"},
            {"python3", "/p", "/h", "python3"},
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_free char *got =
                    profile_relocatable(cases[i].path, cases[i].dir, cases[i].home);

                ASSERT_STREQ(got, cases[i].want);
        }
}

TEST(a_spelling_that_would_not_validate_stays_absolute)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        const char *out = at("%s/probe.py.manifest.yaml", proj);

        ASSERT_OK(example(&p, &o));
        /* A write grant of the whole home (an existing file may hold one):
         * "~" is refused as a write grant by the manifest checks, so the
         * absolute spelling is kept, while the read next to it moves. */
        ASSERT_OK(bento_strv_append(&p.m->write, &p.m->n_write, home));
        ASSERT_OK(bento_strv_append(&p.m->read, &p.m->n_read, at("%s/notes.txt", home)));
        ASSERT_OK(profile_finish(p.m, NULL, 0, out, home, NOW, &err));
        ASSERT_STREQ(p.m->write[1], home);
        ASSERT_STREQ(p.m->read[1], "~/notes.txt");
        ASSERT_STREQ(p.m->entrypoint, "./probe.py");
        profile_proposal_done(&p);
        profile_observation_done(&o);
}

TEST(blocked_hosts_keep_only_what_a_rule_allows)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        struct profile_dest blocked[] = {
            {"example.com", "443"}, {"other.test", "443"}, {"example.com", "443"}};

        ASSERT_OK(example(&p, &o));
        ASSERT_OK(profile_finish(p.m, blocked, 3, at("%s/m.yaml", proj), home, NOW, &err));
        ASSERT_EQ(p.m->provenance.n_blocked_hosts, 1);
        ASSERT_STREQ(p.m->provenance.blocked_hosts[0], "example.com:443");
        profile_proposal_done(&p);
        profile_observation_done(&o);
}

/* ---- merge ---- */

TEST(merging_into_another_entrypoints_manifest_is_refused)
{
        cleanup_manifest struct manifest *m =
            load_text(at("%s/other.yaml", proj), "entrypoint: ./other.py\n");
        cleanup_manifest struct manifest *same =
            load_text(at("%s/same.yaml", proj), "entrypoint: ./probe.py\n");
        const char *out = at("%s/other.yaml", proj);

        ASSERT_TRUE(m && same);
        ASSERT_EQ(profile_merge_check(m, out, script, home, &err), -EEXIST);
        ASSERT_CONTAINS(err.msg, "refusing to merge into ");
        ASSERT_CONTAINS(err.msg, "it is a manifest for \"");
        ASSERT_CONTAINS(err.msg, "/proj/other.py\", not \"");
        ASSERT_OK(profile_merge_check(same, at("%s/same.yaml", proj), script, home, &err));
        unlink(at("%s/other.yaml", proj));
        unlink(at("%s/same.yaml", proj));
}

TEST(merge_unions_keeps_and_declines)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        struct profile_merge_info info = {0};
        const char *out = at("%s/probe.py.manifest.yaml", proj);
        char *declined_reads[] = {(char *) at("%s/old-declined", proj)};
        struct profile_declined declined = {.reads = declined_reads, .n_reads = 1};
        cleanup_manifest struct manifest *old = load_text(
            out, "entrypoint: ./probe.py\ninterpreter: /usr/bin/python3.9\n"
                 "args: [--fast]\nenv: [HOME, EXTRA]\n"
                 "read: [./kept.txt, ./old-declined, ./data/sample.txt]\n"
                 "write: [./out]\nnetwork:\n  - {host: old.test, port: \"80\"}\n"
                 "exec: all\nlimits:\n  memory: 64M\n"
                 "provenance:\n  approves: "
                 "\"aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad\"\n");
        char **lines = NULL;
        size_t n_lines = 0;

        ASSERT_TRUE(old != NULL);
        ASSERT_OK(example(&p, &o));
        ASSERT_OK(profile_merge(p.m, old, out, home, &declined, &info, &err));
        /* existing first, then this run's, deduplicated, declined removed */
        ASSERT_EQ(p.m->n_read, 2);
        ASSERT_STREQ(p.m->read[0], at("%s/kept.txt", proj));
        ASSERT_STREQ(p.m->read[1], at("%s/data/sample.txt", proj));
        ASSERT_EQ(p.m->n_write, 1);
        ASSERT_EQ(p.m->n_env, 4); /* HOME, EXTRA, LOGNAME, USER */
        ASSERT_STREQ(p.m->env[1], "EXTRA");
        ASSERT_EQ(p.m->n_network, 2);
        ASSERT_STREQ(p.m->network[0].host, "old.test");
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_ALL); /* all if either */
        ASSERT_TRUE(!info.exec_widened);
        ASSERT_STREQ(p.m->interpreter, "python3"); /* this run's, the change noted */
        ASSERT_TRUE(info.interpreter_changed);
        ASSERT_STREQ(info.interpreter_was, "/usr/bin/python3.9");
        ASSERT_EQ(p.m->n_args, 1); /* args and limits kept */
        ASSERT_STREQ(p.m->limits.memory, "64M");
        ASSERT_TRUE(info.approval_voided);
        ASSERT_EQ(info.n_kept_read, 1);
        ASSERT_STREQ(info.kept_read[0], "./kept.txt");
        ASSERT_EQ(info.n_kept_network, 1);
        ASSERT_EQ(info.n_kept_env, 1);
        ASSERT_OK(profile_merge_lines(&info, &lines, &n_lines));
        ASSERT_EQ(n_lines, 4);
        ASSERT_CONTAINS(lines[0], "interpreter changed");
        ASSERT_STREQ(lines[1], "[bento]   kept from the existing manifest, not shown by this "
                               "run: read \"./kept.txt\"");
        bento_strv_free_n(lines, n_lines);
        /* the approval does not survive: provenance is this run's */
        ASSERT_OK(profile_finish(p.m, NULL, 0, out, home, NOW, &err));
        ASSERT_STREQ(p.m->provenance.approves, "");
        profile_merge_info_done(&info);
        profile_proposal_done(&p);
        profile_observation_done(&o);
        unlink(out);
}

TEST(a_declined_exec_demotes_and_a_new_exec_widens)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        struct profile_merge_info info = {0};
        const char *out = at("%s/m.yaml", proj);
        struct profile_declined no_exec = {.exec = true};
        cleanup_manifest struct manifest *all =
            load_text(out, "entrypoint: ./probe.py\nexec: all\n");
        cleanup_manifest struct manifest *none =
            load_text(out, "entrypoint: ./probe.py\nexec: none\n");

        ASSERT_TRUE(all && none);
        ASSERT_OK(example(&p, &o));
        ASSERT_OK(profile_merge(p.m, all, out, home, &no_exec, &info, &err));
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_NONE);
        profile_merge_info_done(&info);
        p.m->exec = MANIFEST_EXEC_ALL; /* this run exec'd */
        ASSERT_OK(profile_merge(p.m, none, out, home, NULL, &info, &err));
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_ALL);
        ASSERT_TRUE(info.exec_widened);
        ASSERT_TRUE(!info.approval_voided);
        profile_merge_info_done(&info);
        profile_proposal_done(&p);
        profile_observation_done(&o);
        unlink(out);
}

/* ---- --json ---- */

static const struct bento_json *get(const struct bento_json *o, const char *k)
{
        return o ? bento_json_get(o, k) : NULL;
}

TEST(the_json_document)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        struct profile_merge_info info = {.exec_widened = true, .approval_voided = true};
        struct bento_json *j = NULL;
        cleanup_free char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        const char *out = at("%s/probe.py.manifest.yaml", proj);
        const struct bento_json *policy, *withheld;
        char body[2048];
        struct profile_context c = context();

        ASSERT_TRUE(f != NULL);
        snprintf(body, sizeof(body),
                 "observe 1\nread ok %s/.ssh/id_rsa\nread ok %s/data/sample.txt\nend exit 2\n",
                 home, proj);
        ASSERT_OK(profile_observation_parse(body, strlen(body), &o, &err));
        ASSERT_OK(profile_propose(&o, &c, &p, &err));
        ASSERT_OK(profile_finish(p.m, NULL, 0, out, home, NOW, &err));
        ASSERT_OK(profile_json_document(f, out, &p, p.m, &info, &err));
        fclose(f);
        ASSERT_OK(bento_json_parse(text, len, 1 << 20, &j, &err));
        ASSERT_STREQ(get(j, "manifest")->u.string.s, out);
        ASSERT_TRUE(!get(j, "complete")->u.boolean);
        ASSERT_STREQ(get(j, "incomplete_reason")->u.string.s, "the profiled run did not finish");
        policy = get(j, "policy");
        ASSERT_STREQ(get(policy, "entrypoint")->u.string.s, "./probe.py");
        ASSERT_STREQ(get(policy, "exec")->u.string.s, "none");
        ASSERT_EQ(get(policy, "network")->type, BENTO_JSON_ARRAY);
        withheld = get(j, "withheld");
        ASSERT_TRUE(withheld && withheld->type == BENTO_JSON_ARRAY);
        ASSERT_EQ(withheld->u.array.n, 1);
        ASSERT_STREQ(get(withheld->u.array.items[0], "kind")->u.string.s, "read");
        ASSERT_STREQ(get(withheld->u.array.items[0], "reason")->u.string.s, "read-shielded");
        ASSERT_STREQ(get(withheld->u.array.items[0], "holds")->u.string.s, "credentials");
        ASSERT_TRUE(get(j, "flagged") == NULL); /* empty lists are left out */
        ASSERT_TRUE(get(j, "blocked_hosts") == NULL);
        ASSERT_TRUE(get(get(j, "merged"), "exec_widened")->u.boolean);
        bento_json_free(j);
        profile_proposal_done(&p);
        profile_observation_done(&o);
}

TEST(the_json_refusal)
{
        cleanup_free char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        ASSERT_TRUE(f != NULL);
        ASSERT_OK(profile_json_refusal(f, "refusing to merge into m.yaml", NULL, &err));
        fclose(f);
        ASSERT_STREQ(text, "{\n  \"refused\": true,\n  \"reason\": \"refusing to merge into "
                           "m.yaml\",\n  \"report\": {}\n}\n");
}

TAP_MAIN()
