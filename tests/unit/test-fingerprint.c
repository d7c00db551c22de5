/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/approval/fingerprint.c: the two golden vectors of
 * docs/approve.md, "How the fingerprint is computed" (the first comes from the original's test
 * suite, so it pins byte compatibility), the properties the algorithm promises (order of sorted
 * lists and provenance do not matter, order of args does), and the approval states of
 * docs/approve.md, "What the stamp is, and what it is not".  Most manifests are built by hand, so a
 * parser bug cannot hide a hashing bug; one test takes the vectors through the loader to pin the
 * defaults the hash is taken after.
 */
#include <string.h>

#include "cleanup.h"
#include "approval/fingerprint.h"
#include "tap.h"

static struct bento_err err;

/* The first vector of docs/approve.md, "How the fingerprint is computed", in the order the
 * original's test writes it. */
static char *g_args[] = {"--b", "--a"};
static char *g_env[] = {"PATH", "HOME", "LANG"};
static char *g_read[] = {"/two", "/one"};
static char *g_write[] = {"/out/b", "/out/a"};
static struct manifest_net_rule g_net[] = {{"b.com", "80"}, {"a.com", "443"}, {"a.com", "80"}};

static struct manifest golden(void)
{
        return (struct manifest){
            .path = "",
            .entrypoint = "./x",
            .interpreter = "python3",
            .args = g_args,
            .n_args = 2,
            .env = g_env,
            .n_env = 3,
            .read = g_read,
            .n_read = 2,
            .write = g_write,
            .n_write = 2,
            .network = g_net,
            .n_network = 3,
            .exec = MANIFEST_EXEC_ALL,
            .limits = {.memory = "1M", .cpu = "50%", .pids = 128, .has_pids = true},
            .provenance = {.generated_by = "", .generated_at = "", .approves = ""},
        };
}

static struct manifest minimal(void)
{
        return (struct manifest){
            .path = "",
            .entrypoint = "./app.py",
            .interpreter = "python3",
            .limits = {.memory = "", .cpu = ""},
            .provenance = {.generated_by = "", .generated_at = "", .approves = ""},
        };
}

#define GOLDEN  "aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad"
#define MINIMAL "3f666b7fd806dfa8a575c58b20ecaae09cf3b4a92757f9e20ac6ec87e19eaefc"

TEST(golden_vector_of_the_original)
{
        struct manifest m = golden();
        char hex[65];

        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_STREQ(hex, GOLDEN);
}

TEST(second_vector)
{
        struct manifest m = minimal();
        char hex[65];

        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_STREQ(hex, MINIMAL);
}

TEST(policy_lists_are_not_reordered)
{
        struct manifest m = golden();
        char hex[65];

        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_STREQ(m.env[0], "PATH");
        ASSERT_STREQ(m.read[0], "/two");
        ASSERT_STREQ(m.write[0], "/out/b");
        ASSERT_STREQ(m.network[0].host, "b.com");
}

TEST(sorted_lists_ignore_order_args_do_not)
{
        char *env[] = {"LANG", "PATH", "HOME"};
        char *read[] = {"/one", "/two"};
        struct manifest_net_rule net[] = {{"a.com", "80"}, {"b.com", "80"}, {"a.com", "443"}};
        char *args[] = {"--a", "--b"};
        struct manifest m = golden();
        char hex[65];

        m.env = env;
        m.read = read;
        m.network = net;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_STREQ(hex, GOLDEN);
        m.args = args;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, GOLDEN) != 0);
}

TEST(provenance_and_path_are_not_covered)
{
        char *blocked[] = {"evil.example:443"};
        struct manifest m = golden();
        char hex[65];

        m.path = "/somewhere/else.yaml";
        m.provenance.generated_by = "bento approve";
        m.provenance.generated_at = "2026-07-14T00:00:00Z";
        m.provenance.approves = GOLDEN;
        m.provenance.blocked_hosts = blocked;
        m.provenance.n_blocked_hosts = 1;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_STREQ(hex, GOLDEN);
}

TEST(every_field_is_covered)
{
        char *iargs[] = {"-u"};
        char *dup[] = {"/two", "/one", "/one"};
        struct manifest base = minimal(), m;
        char ref[65], hex[65];

        ASSERT_OK(manifest_fingerprint(&base, ref, &err));
        m = base, m.interpreter_args = iargs, m.n_interpreter_args = 1;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, ref) != 0);
        m = base, m.exec = MANIFEST_EXEC_NONE_STRICT;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, ref) != 0);
        m = base, m.limits.pids = 1, m.limits.has_pids = true;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, ref) != 0);
        m = base, m.limits.cpu = "50%";
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, ref) != 0);
        /* Duplicates are kept: one more "/one" is another policy. */
        m = base, m.read = dup, m.n_read = 2;
        ASSERT_OK(manifest_fingerprint(&m, ref, &err));
        m.n_read = 3;
        ASSERT_OK(manifest_fingerprint(&m, hex, &err));
        ASSERT_TRUE(strcmp(hex, ref) != 0);
}

/* The label and value are NUL-separated, so moving bytes between a host and
 * its port cannot produce the same stream. */
TEST(fields_cannot_bleed_into_each_other)
{
        struct manifest_net_rule a[] = {{"a.com", "4443"}}, b[] = {{"a.com4", "443"}};
        struct manifest m = minimal();
        char x[65], y[65];

        m.network = a, m.n_network = 1;
        ASSERT_OK(manifest_fingerprint(&m, x, &err));
        m.network = b;
        ASSERT_OK(manifest_fingerprint(&m, y, &err));
        ASSERT_TRUE(strcmp(x, y) != 0);
}

TEST(null_manifest_is_the_empty_string)
{
        char hex[65] = "x";

        ASSERT_OK(manifest_fingerprint(NULL, hex, &err));
        ASSERT_STREQ(hex, "");
        ASSERT_EQ(manifest_approval_state(NULL), MANIFEST_APPROVAL_UNAPPROVED);
}

TEST(approval_states)
{
        struct manifest m = golden();

        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_UNAPPROVED);
        m.provenance.approves = NULL;
        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_UNAPPROVED);
        m.provenance.approves = GOLDEN;
        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_CURRENT);
        m.provenance.approves = MINIMAL;
        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_STALE);
        /* Stamps are compared exactly: upper-case hex is someone else's. */
        m.provenance.approves = "AA2F73E71AB6923705CA40CD8C9096BECC6DCDC3CCCC2A834F2E62D777A624AD";
        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_STALE);
        m.provenance.approves = GOLDEN;
        m.exec = MANIFEST_EXEC_NONE;
        ASSERT_EQ(manifest_approval_state(&m), MANIFEST_APPROVAL_STALE);
}

TEST(approval_names)
{
        ASSERT_STREQ(manifest_approval_to_string(MANIFEST_APPROVAL_UNAPPROVED), "unapproved");
        ASSERT_STREQ(manifest_approval_to_string(MANIFEST_APPROVAL_CURRENT), "current");
        ASSERT_STREQ(manifest_approval_to_string(MANIFEST_APPROVAL_STALE), "stale");
        ASSERT_STREQ(manifest_approval_to_string(_MANIFEST_APPROVAL_MAX), "unapproved");
}

/* The same vectors from YAML text through the loader: the fingerprint is
 * taken after the parser's defaults (exec absent -> none), and neither
 * quoting, key order nor comments change it. */
static int fingerprint_text(const char *yaml, char hex[65])
{
        cleanup_manifest struct manifest *m = NULL;
        int r = manifest_parse(yaml, strlen(yaml), "t.yaml", &m, NULL, &err);

        return r < 0 ? r : manifest_fingerprint(m, hex, &err);
}

TEST(vectors_from_yaml)
{
        char hex[65];

        ASSERT_OK(fingerprint_text("entrypoint: ./app.py\ninterpreter: python3\n", hex));
        ASSERT_STREQ(hex, MINIMAL);
        ASSERT_OK(fingerprint_text("# reviewed\ninterpreter: \"python3\"\n"
                                   "entrypoint: './app.py'\nexec: none\n"
                                   "provenance: {generated-by: bento approve}\n",
                                   hex));
        ASSERT_STREQ(hex, MINIMAL);
        ASSERT_OK(fingerprint_text("entrypoint: ./x\ninterpreter: python3\nargs: [--b, --a]\n"
                                   "env: [PATH, HOME, LANG]\nread: [/two, /one]\n"
                                   "write: [/out/b, /out/a]\n"
                                   "network:\n  - {host: b.com, port: \"80\"}\n"
                                   "  - {host: a.com, port: \"443\"}\n"
                                   "  - {host: a.com, port: 80}\n"
                                   "exec: all\nlimits: {memory: 1M, cpu: 50%, pids: 128}\n",
                                   hex));
        ASSERT_STREQ(hex, GOLDEN);
}

TAP_MAIN();
