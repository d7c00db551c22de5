/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the proposal (translate/profile/proposal*.c): one report
 * per exclusion and clamp, each checked for what it leaves out (and with
 * which reason) and for what it still proposes, against the fake host of
 * profile-fixture.h.
 */
#include "tap.h"
#include "profile-fixture.h"

/* ---- exclusions that say nothing (no grant is needed) ---- */

TEST(needless_reads_are_left_out_silently)
{
        struct profile_proposal p = {0};
        struct profile_context c = context();

        c.interpreter_resolved = at("%s/py/bin/python3", base);
        ASSERT_OK(propose_ctx("read ok %s/proj/probe.py\n"  /* the entrypoint */
                              "read ok %s/py/bin/python3\n" /* the interpreter */
                              "read ok %s/py/lib/os.py\n"   /* its runtime tree */
                              "read ok /usr/lib/x.so\n"     /* system trees */
                              "read ok /etc/ld.so.cache\n"
                              "read ok /etc/passwd\n"
                              "read ok /tmp\n" /* scratch */
                              "read ok /tmp/never-existed-here\n"
                              "read ok %s/proj/mtab\n" /* resolves into /proc */
                              "probe ok %s\n"          /* probe-only ancestors */
                              "probe ok %s/proj\n"
                              "read absent %s/proj/missing.py\n"  /* absent, still absent */
                              "probe absent %s/proj/data/nope\n"  /* a failed probe */
                              "read ok %s/proj/data/sample.txt\n" /* the one real read */
                              "end exit 0\n",
                              &c, &p));
        ASSERT_EQ(p.m->n_read, 1);
        ASSERT_STREQ(p.m->read[0], at("%s/proj/data/sample.txt", base));
        ASSERT_EQ(p.n_withheld, 0);
        ASSERT_EQ(p.n_flagged, 0);
        ASSERT_TRUE(p.complete);
        profile_proposal_done(&p);
}

TEST(an_absent_read_that_exists_on_the_host_is_proposed)
{
        struct profile_proposal p = {0};

        /* Home is an empty tmpfs while profiling: the host has the file. */
        ASSERT_OK(propose("read absent %s/home/notes.txt\nend exit 0\n", &p));
        ASSERT_EQ(p.m->n_read, 1);
        ASSERT_STREQ(p.m->read[0], at("%s/home/notes.txt", base));
        profile_proposal_done(&p);
}

TEST(a_probed_path_elsewhere_is_a_read)
{
        struct profile_proposal p = {0};

        ASSERT_OK(propose("probe ok %s/proj/data\nchdir ok %s/proj/out\nend exit 0\n", &p));
        ASSERT_EQ(p.m->n_read, 2);
        profile_proposal_done(&p);
}

/* ---- withheld, each with its reason, the rest still proposed ---- */

static const struct {
        const char *body;
        const char *path; /* %s = base */
        enum profile_item_kind kind;
        enum profile_reason reason;
} withheld_cases[] = {
    {"read ok %s/home/.ssh/id_rsa\n", "%s/home/.ssh/id_rsa", PROFILE_ITEM_READ,
     PROFILE_WITHHELD_READ_SHIELDED},
    {"write ok %s/home/.ssh/new\n", "%s/home/.ssh", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_READ_SHIELDED},
    {"write ok %s/home/.vim/x.vim\n", "%s/home/.vim", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_WRITE_SHIELDED},
    {"read ok %s/home\n", "%s/home", PROFILE_ITEM_READ, PROFILE_WITHHELD_TOO_BROAD},
    {"read ok /\n", "/", PROFILE_ITEM_READ, PROFILE_WITHHELD_TOO_BROAD},
    {"write ok %s/home/x.txt\n", "%s/home", PROFILE_ITEM_WRITE, PROFILE_WITHHELD_TOO_BROAD},
    {"write ok /etc/app.conf\n", "/etc", PROFILE_ITEM_WRITE, PROFILE_WITHHELD_SYSTEM_TREE},
    {"write ok /var/lib/x/y\n", "/var/lib/x", PROFILE_ITEM_WRITE, PROFILE_WITHHELD_SYSTEM_TREE},
    {"write ok /home/someone-else/x\n", "/home/someone-else", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_SYSTEM_TREE},
    {"write ok /x.txt\n", "/", PROFILE_ITEM_WRITE, PROFILE_WITHHELD_SYSTEM_TREE},
    {"write ok /tmp/out.txt\n", "/tmp", PROFILE_ITEM_WRITE, PROFILE_WITHHELD_SANDBOX_SCRATCH},
    {"write ok /tmp/nowhere-xyz/out.txt\n", "/tmp/nowhere-xyz", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_SANDBOX_SCRATCH},
    {"read ok /tmp/x.sock\nunix connect /tmp/x.sock\n", "/tmp/x.sock", PROFILE_ITEM_READ,
     PROFILE_WITHHELD_UNIX_SOCKET},
    {"unix bind %s/proj/out/s.sock\n", "%s/proj/out/s.sock", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_UNIX_SOCKET},
    {"read ok %s/proj/a%1Bb\n",
     "%s/proj/a\x1b"
     "b",
     PROFILE_ITEM_READ, PROFILE_WITHHELD_UNREPRESENTABLE},
    {"read ok %s/proj/%FF\n", "%s/proj/\xff", PROFILE_ITEM_READ, PROFILE_WITHHELD_UNREPRESENTABLE},
    /* a write directory that is a file: run refuses the grant */
    {"write error %s/proj/file.txt/x\n", "%s/proj/file.txt", PROFILE_ITEM_WRITE,
     PROFILE_WITHHELD_RUN_REFUSED},
};

TEST(each_clamp_withholds_with_its_reason)
{
        for (size_t i = 0; i < sizeof(withheld_cases) / sizeof(withheld_cases[0]); i++) {
                struct profile_proposal p = {0};
                char body[1024];
                const char *path = at(withheld_cases[i].path, base);
                const struct profile_item *it;

                snprintf(body, sizeof(body), "%s%s", withheld_cases[i].body,
                         "read ok %s/proj/data/sample.txt\nend exit 0\n");
                if (propose(body, &p) < 0)
                        TAP_FAIL("case %zu: %s", i, err.msg);
                it = find(p.withheld, p.n_withheld, path, withheld_cases[i].reason);
                if (!it) {
                        for (size_t k = 0; k < p.n_withheld; k++)
                                printf("#   withheld %s %s\n", p.withheld[k].path,
                                       profile_reason_to_string(p.withheld[k].reason));
                        profile_proposal_done(&p);
                        TAP_FAIL("case %zu: %s not withheld as %s", i, path,
                                 profile_reason_to_string(withheld_cases[i].reason));
                }
                ASSERT_EQ(it->kind, withheld_cases[i].kind);
                /* Never proposed, and the unrelated read still is. */
                ASSERT_TRUE(!has(p.m->read, p.m->n_read, path));
                ASSERT_TRUE(!has(p.m->write, p.m->n_write, path));
                ASSERT_TRUE(has(p.m->read, p.m->n_read, at("%s/proj/data/sample.txt", base)));
                profile_proposal_done(&p);
        }
}

TEST(a_shielded_read_says_what_the_shield_holds)
{
        struct profile_proposal p = {0};
        cleanup_free char *line = NULL;
        const struct profile_item *it;

        ASSERT_OK(propose("read ok %s/home/.ssh/id_rsa\nend exit 0\n", &p));
        it = find(p.withheld, p.n_withheld, at("%s/home/.ssh/id_rsa", base),
                  PROFILE_WITHHELD_READ_SHIELDED);
        ASSERT_TRUE(it != NULL);
        ASSERT_EQ(it->holds, SHIELD_HOLDS_CREDENTIALS);
        line = profile_item_line(it);
        ASSERT_CONTAINS(line, "[bento] not proposing access to \"");
        ASSERT_CONTAINS(line, "/home/.ssh/id_rsa\" - it is a credential store bento shields on "
                              "every run");
        ASSERT_EQ(p.m->n_read, 0);
        profile_proposal_done(&p);
}

TEST(run_refusals_carry_runs_sentence)
{
        struct profile_proposal p = {0};
        const struct profile_item *it;

        ASSERT_OK(propose("write error %s/proj/file.txt/x\nend exit 0\n", &p));
        it = find(p.withheld, p.n_withheld, at("%s/proj/file.txt", base),
                  PROFILE_WITHHELD_RUN_REFUSED);
        ASSERT_TRUE(it != NULL);
        ASSERT_TRUE(it->detail != NULL && it->detail[0]);
        ASSERT_EQ(p.m->n_write, 0);
        profile_proposal_done(&p);
}

/* ---- flagged: kept, with a reason ---- */

TEST(flags_keep_the_grant)
{
        static const struct {
                const char *body, *path;
                enum profile_item_kind kind;
                enum profile_reason reason;
        } cases[] = {
            {"write ok %s/proj/x.txt\n", "%s/proj", PROFILE_ITEM_WRITE, PROFILE_FLAG_WHOLE_WORKDIR},
            {"read ok /home/zz-nobody/.ssh/config\n", "/home/zz-nobody/.ssh/config",
             PROFILE_ITEM_READ, PROFILE_FLAG_FOREIGN_HOME_SHIELD},
            {"write ok %s/home/.local/share/bash-completion/x\n",
             "%s/home/.local/share/bash-completion", PROFILE_ITEM_WRITE,
             PROFILE_FLAG_ABOVE_WRITE_SHIELD},
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct profile_proposal p = {0};
                char body[512];
                const char *path = at(cases[i].path, base);
                const struct profile_item *it;
                char *const *list;
                size_t n;

                mkdirs(at("%s/home/.local/share/bash-completion", base));
                snprintf(body, sizeof(body), "%s%s", cases[i].body, "end exit 0\n");
                if (propose(body, &p) < 0)
                        TAP_FAIL("case %zu: %s", i, err.msg);
                it = find(p.flagged, p.n_flagged, path, cases[i].reason);
                for (size_t k = 0; !it && k < p.n_withheld; k++)
                        printf("#   withheld %s %s\n", p.withheld[k].path,
                               profile_reason_to_string(p.withheld[k].reason));
                if (!it) {
                        profile_proposal_done(&p);
                        TAP_FAIL("case %zu: %s not flagged", i, path);
                }
                list = cases[i].kind == PROFILE_ITEM_READ ? p.m->read : p.m->write;
                n = cases[i].kind == PROFILE_ITEM_READ ? p.m->n_read : p.m->n_write;
                ASSERT_TRUE(has(list, n, path));
                profile_proposal_done(&p);
        }
}

/* The check resumed grants go through: the same judgement as the flag. */
/* A write directory is not flagged for the workspace shields it gets itself. */
TEST(a_plain_write_directory_is_not_flagged)
{
        struct profile_proposal p = {0};

        ASSERT_OK(propose("write ok %s/proj/out/x.txt\nend exit 0\n", &p));
        ASSERT_TRUE(has(p.m->write, p.m->n_write, at("%s/proj/out", base)));
        for (size_t i = 0; i < p.n_flagged; i++)
                if (p.flagged[i].reason == PROFILE_FLAG_ABOVE_WRITE_SHIELD)
                        TAP_FAIL("flagged above-write-shield: %s", p.flagged[i].path);
        profile_proposal_done(&p);
}

TEST(resumed_grants_reaching_another_homes_shields_are_found)
{
        struct profile_context c = context();
        char *paths[] = {"/home/zz-nobody/.ssh/config", /* inside another home's shield */
                         "/home/zz-nobody",             /* a shield inside the grant */
                         "/home/zz-nobody/src/x.c",     /* another home, no shield there */
                         (char *) at("%s/home/.ssh/id_rsa", base), /* our own: shielded anyway */
                         (char *) at("%s/proj/data", base)};
        bool got[5] = {false, false, true, true, true};

        ASSERT_OK(profile_foreign_shield_check(&c, paths, 5, got, &err));
        ASSERT_TRUE(got[0]);
        ASSERT_TRUE(got[1]);
        ASSERT_TRUE(!got[2]);
        ASSERT_TRUE(!got[3]);
        ASSERT_TRUE(!got[4]);
}

TEST(tmp_grants_are_flagged_but_the_scripts_own_tmp_dir_is_not)
{
        struct profile_proposal p = {0};
        struct profile_context c = context();
        char other[600], own[700], body[2048];

        snprintf(other, sizeof(other), "%s/shared.txt", tmpdir);
        touch(other);
        mkdirs(at("%s/proj", tmpdir));
        touch(at("%s/proj/s.py", tmpdir));
        snprintf(own, sizeof(own), "%s/proj/s.py", tmpdir);
        snprintf(body, sizeof(body), "read ok %s\nwrite ok %s/proj/out/x\nend exit 0\n", other,
                 tmpdir);
        /* The script elsewhere: /tmp/.../shared.txt is steerable. */
        ASSERT_OK(propose_ctx(body, &c, &p));
        ASSERT_TRUE(find(p.flagged, p.n_flagged, other, PROFILE_FLAG_TARGET_STEERABLE_TMP));
        ASSERT_TRUE(has(p.m->read, p.m->n_read, other));
        /* A missing dir under /tmp is the box's scratch */
        ASSERT_TRUE(find(p.withheld, p.n_withheld, at("%s/proj/out", tmpdir),
                         PROFILE_WITHHELD_SANDBOX_SCRATCH));
        profile_proposal_done(&p);
        /* The script under /tmp: its own directory's writes are real. */
        c.entrypoint = own;
        ASSERT_OK(propose_ctx(body, &c, &p));
        ASSERT_TRUE(has(p.m->write, p.m->n_write, at("%s/proj/out", tmpdir)));
        ASSERT_TRUE(!find(p.flagged, p.n_flagged, at("%s/proj/out", tmpdir),
                          PROFILE_FLAG_TARGET_STEERABLE_TMP));
        ASSERT_TRUE(find(p.flagged, p.n_flagged, other, PROFILE_FLAG_TARGET_STEERABLE_TMP));
        profile_proposal_done(&p);
}

TEST(a_grant_run_refuses_loses_its_flags)
{
        struct profile_proposal p = {0};

        /* ~/.config holds DenyWrite rules (flag) and credential stores run
         * refuses a write grant to contain (withheld): withheld wins. */
        mkdirs(at("%s/home/.config", base));
        ASSERT_OK(propose("write ok %s/home/.config/x.txt\nend exit 0\n", &p));
        ASSERT_TRUE(find(p.withheld, p.n_withheld, at("%s/home/.config", base),
                         PROFILE_WITHHELD_RUN_REFUSED));
        ASSERT_EQ(p.n_flagged, 0);
        ASSERT_EQ(p.m->n_write, 0);
        profile_proposal_done(&p);
}

TEST(reads_under_a_proposed_write_are_dropped)
{
        struct profile_proposal p = {0};

        ASSERT_OK(propose("read ok %s/proj/out/in.txt\nwrite ok %s/proj/out/x.txt\n"
                          "read ok %s/proj/data/sample.txt\nend exit 0\n",
                          &p));
        ASSERT_EQ(p.m->n_write, 1);
        ASSERT_STREQ(p.m->write[0], at("%s/proj/out", base));
        ASSERT_EQ(p.m->n_read, 1);
        ASSERT_STREQ(p.m->read[0], at("%s/proj/data/sample.txt", base));
        profile_proposal_done(&p);
}

/* ---- network, exec, env ---- */

TEST(network_rules_from_recorded_connects)
{
        struct profile_observation o = {0};
        struct profile_proposal p = {0};
        struct profile_context c = context();
        struct run_dest denied[] = {
            {"Example.COM.", "443"}, {"example.com", "443"}, {"*", "80"},     {".evil.test", "80"},
            {"ok.test", "1-100"},    {"b.test", "08"},       {"a.test", "80"}};
        struct run_dest untunneled[] = {{"10.1.2.3", "53"}};
        struct run_egress e = {
            .denied = denied, .n_denied = 7, .untunneled = untunneled, .n_untunneled = 1};

        ASSERT_OK(profile_observation_parse("observe 1\nend exit 0\n", 22, &o, &err));
        ASSERT_OK(profile_observation_add_egress(&o, &e, &err));
        ASSERT_OK(profile_propose(&o, &c, &p, &err));
        ASSERT_EQ(p.m->n_network, 2); /* a.test, example.com: normalised, deduplicated, sorted */
        ASSERT_STREQ(p.m->network[0].host, "a.test");
        ASSERT_STREQ(p.m->network[1].host, "example.com");
        ASSERT_STREQ(p.m->network[1].port, "443");
        ASSERT_EQ(p.n_withheld, 5); /* the wildcard, suffix, range, bad port, untunneled */
        for (size_t i = 0; i < p.n_withheld; i++) {
                ASSERT_EQ(p.withheld[i].kind, PROFILE_ITEM_NETWORK);
                if (strcmp(p.withheld[i].host, "10.1.2.3") == 0)
                        ASSERT_EQ(p.withheld[i].reason, PROFILE_WITHHELD_NOT_TUNNELED);
                else
                        ASSERT_EQ(p.withheld[i].reason, PROFILE_WITHHELD_UNREPRESENTABLE);
        }
        profile_proposal_done(&p);
        profile_observation_done(&o);
}

TEST(exec_all_only_when_an_exec_ran_and_env_is_the_discovery_names)
{
        struct profile_proposal p = {0};

        ASSERT_OK(propose("exec error /usr/bin/nope\nend exit 0\n", &p));
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_NONE);
        ASSERT_EQ(p.m->n_env, 3);
        ASSERT_STREQ(p.m->env[0], "HOME");
        profile_proposal_done(&p);
        /* the first image is the target itself, which the observer started */
        ASSERT_OK(propose("exec ok /usr/bin/sh\nend exit 0\n", &p));
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_NONE);
        profile_proposal_done(&p);
        ASSERT_OK(propose("exec ok /usr/bin/sh\nexec ok /usr/bin/ls\nend exit 0\n", &p));
        ASSERT_EQ(p.m->exec, MANIFEST_EXEC_ALL);
        profile_proposal_done(&p);
}

/* ---- warnings and completeness ---- */

TEST(warnings_and_the_incomplete_reasons)
{
        struct profile_proposal p = {0};
        struct profile_context c = context();

        ASSERT_OK(propose("dropped mount unhandled-syscall\nend exit 0\n", &p));
        ASSERT_TRUE(!p.complete);
        ASSERT_STREQ(p.incomplete_reason,
                     "the observer could not name every access the target made");
        ASSERT_EQ(p.n_warnings, 1);
        ASSERT_CONTAINS(p.warnings[0], "[bento] WARNING: the observer could not name 1 file "
                                       "access(es)");
        profile_proposal_done(&p);

        ASSERT_OK(propose("end exit 2\n", &p));
        ASSERT_TRUE(!p.complete);
        ASSERT_STREQ(p.incomplete_reason, "the profiled run did not finish");
        ASSERT_CONTAINS(p.warnings[0], "exited with status 2");
        profile_proposal_done(&p);

        ASSERT_OK(propose("read ok %s/proj/data/sample.txt\n", &p)); /* no end line */
        ASSERT_STREQ(p.incomplete_reason, "the profiled run did not finish");
        ASSERT_EQ(p.m->n_read, 1); /* what was seen is still proposed */
        profile_proposal_done(&p);

        /* A shell exiting 127 without any exec: the PATH hint. */
        c.interpreter = "bash";
        ASSERT_OK(propose_ctx("end exit 127\n", &c, &p));
        ASSERT_EQ(p.n_warnings, 2);
        ASSERT_CONTAINS(p.warnings[1], "/usr/bin:/bin");
        ASSERT_CONTAINS(p.warnings[1], "absolute path");
        profile_proposal_done(&p);
        /* ... but not when it did try to exec something. */
        ASSERT_OK(propose_ctx("exec absent /usr/bin/x\nend exit 127\n", &c, &p));
        ASSERT_EQ(p.n_warnings, 1);
        profile_proposal_done(&p);
        /* ... nor for python. */
        ASSERT_OK(propose("end exit 127\n", &p));
        ASSERT_EQ(p.n_warnings, 1);
        profile_proposal_done(&p);
}

TEST(a_sigsys_death_makes_the_observation_unusable)
{
        struct profile_proposal p = {0};

        ASSERT_EQ(propose("read ok %s/proj/data/sample.txt\nsigsys 12\nend signal 31\n", &p),
                  -EPERM);
        ASSERT_CONTAINS(err.msg, "SIGSYS");
        ASSERT_TRUE(p.m == NULL);
}

TAP_MAIN()
