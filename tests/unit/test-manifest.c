/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The manifest loader and its rules (docs/manifest.md, "SYNTAX RULES"): every
 * malformed-manifest case with the words users match on and the place it
 * is reported at, the character screen, and rule matching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "manifest/manifest.h"
#include "tap.h"

/* Parse (len may include NUL bytes); returns the rendered problems, or NULL
 * when the manifest is valid. */
static char *problems_n(const char *yaml, size_t len)
{
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        struct manifest *m = NULL;
        char *out;

        if (manifest_parse(yaml, len, "t.yaml", &m, &p, &err) == 0) {
                manifest_free(m);
                return NULL;
        }
        out = p.n ? manifest_problems_render(&p) : strdup(err.msg);
        manifest_problems_done(&p);
        return out;
}

static char *problems(const char *yaml)
{
        return problems_n(yaml, strlen(yaml));
}

/* Expect a refusal whose text contains each needle. */
#define BAD(yaml, ...)                                                                             \
        do {                                                                                       \
                cleanup_free char *got_ = problems(yaml);                                          \
                const char *needles_[] = {__VA_ARGS__};                                            \
                if (!got_)                                                                         \
                        TAP_FAIL("accepted: %s", yaml);                                            \
                for (size_t k_ = 0; k_ < sizeof(needles_) / sizeof(needles_[0]); k_++)             \
                        ASSERT_CONTAINS(got_, needles_[k_]);                                       \
        } while (0)

#define GOOD(yaml)                                                                                 \
        do {                                                                                       \
                cleanup_free char *got_ = problems(yaml);                                          \
                if (got_)                                                                          \
                        TAP_FAIL("refused: %s -> %s", yaml, got_);                                 \
        } while (0)

#define EP "entrypoint: ./x\n"

/* ---- docs/manifest.md, "SYNTAX RULES" input-level constraints ---- */

TEST(explicit_tag)
{
        BAD(EP "read: [!!binary \"L2V0Yy9zaGFkb3c=\"]\n",
            "t.yaml:2:8: manifest: line 2 uses an explicit YAML tag");
        BAD(EP "read: !foo [/x]\n", "line 2 uses an explicit YAML tag");
        BAD(EP "limits: !!map {memory: 1M}\n", "explicit YAML tag");
        BAD("%TAG !e! tag:example.com,2000:\n---\nentrypoint: ./x\n", "explicit YAML tag");
}

TEST(anchor_alias_merge)
{
        BAD(EP "read: &a [/x]\nwrite: *a\n",
            "t.yaml:2:7: manifest: line 2 uses a YAML anchor, alias, or merge key");
        BAD(EP "read: [/x]\nwrite: [*a]\n", "line 3 uses a YAML anchor, alias, or merge key");
        BAD(EP "limits:\n  <<: {memory: 1M}\n", "line 3 uses a YAML anchor, alias, or merge key");
        /* A quoted "<<" is an ordinary (unknown) key, not a merge. */
        BAD(EP "limits:\n  \"<<\": 1\n", "unknown field \"<<\"");
}

TEST(legit_punctuation_is_not_a_reference)
{
        GOOD(EP "read: [/data/*]\n");
        GOOD(EP "args: [\"&a\", \"*b\", '!c', \"<<\"]\n");
        GOOD(EP "args: [a&b, x*y, e!]\n");
        GOOD(EP "# &anchor *alias !tag <<: merge\nread: [/x] # trailing & * !\n");
}

static char *nested(unsigned depth)
{
        size_t n = strlen(EP) + 8 + 2 * depth + 2;
        char *s = calloc(1, n), *p;

        if (!s)
                return NULL;
        p = stpcpy(stpcpy(s, EP), "read: ");
        memset(p, '[', depth);
        memset(p + depth, ']', depth);
        p[2 * depth] = '\n';
        return s;
}

TEST(nesting_depth)
{
        cleanup_free char *deep = nested(33), *ok = nested(32);
        cleanup_free char *got = problems(deep), *got_ok = problems(ok);

        ASSERT_CONTAINS(got, "t.yaml:2:");
        ASSERT_CONTAINS(got, "line 2 nests more than 32 levels deep");
        /* 32 levels inside the top mapping are within the bound (docs/manifest.md, "SYNTAX RULES":
         * "more than 32"): what is refused then is the shape, not the depth. */
        ASSERT_CONTAINS(got_ok, "read[0] must be a string");
}

TEST(two_documents)
{
        BAD(EP "---\nentrypoint: ./y\n",
            "t.yaml:2:1: manifest: the input contains more than one YAML document; a manifest "
            "must be a single policy");
        GOOD("---\n" EP "...\n");
}

TEST(size_cap)
{
        size_t n = MANIFEST_MAX_BYTES + 1;
        cleanup_free char *big = malloc(n), *got = NULL;

        ASSERT_TRUE(big != NULL);
        memset(big, '#', n);
        got = problems_n(big, n);
        ASSERT_STREQ(got, "t.yaml: manifest: input is larger than 1048576 bytes, which is not a "
                          "manifest");
}

TEST(not_utf8)
{
        BAD(EP "read: [\"/x\xff\"]\n",
            "t.yaml: manifest: input is not valid UTF-8 text, so it is not a manifest");
        BAD("\xfe\xff\0e\0n", "not valid UTF-8");                /* UTF-16 with a BOM */
        BAD(EP "read: [\"\xed\xa0\x80\"]\n", "not valid UTF-8"); /* a surrogate */
}

TEST(unknown_keys_at_every_level)
{
        BAD(EP "unknown_grant: true\n", "t.yaml:2:1: manifest: unknown field \"unknown_grant\"");
        BAD(EP "network: [{host: a.com, port: \"443\", proto: tcp}]\n",
            "t.yaml:2:38: manifest: unknown field \"proto\" in a network rule");
        BAD(EP "limits: {memory: 1M, swap: 1M}\n", "unknown field \"swap\" in limits");
        BAD(EP "provenance: {generated-by: x, signed-by: y}\n",
            "unknown field \"signed-by\" in provenance");
        /* An embedded NUL cannot smuggle a known key past the comparison. */
        BAD("\"entrypoint\\0x\": ./x\n", "unknown field \"entrypointx\"");
}

TEST(unknown_key_escapes_are_not_echoed)
{
        cleanup_free char *got = problems(EP "\"\\e[31mred\\a\": 1\n");

        ASSERT_CONTAINS(got, "unknown field \"[31mred\"");
        ASSERT_TRUE(strchr(got, 0x1b) == NULL && strchr(got, 0x07) == NULL);
        BAD(EP "x\x1b[31m: 1\n", "not valid YAML"); /* raw ESC: libyaml refuses it */
}

TEST(bare_scalar_network_rule)
{
        BAD(EP "network: [\"api.example.com:443\"]\n",
            "t.yaml:2:11: manifest: network rule 0 must be a mapping with `host:` and `port:` "
            "keys",
            "- {host: api.example.com, port: \"443\"}");
        BAD(EP "network:\n  - {host: a.com, port: \"1\"}\n  - api.example.com:443\n",
            "t.yaml:4:5: manifest: network rule 1 must be a mapping");
}

TEST(shapes_and_duplicates)
{
        BAD(EP "read: /data\n", "t.yaml:2:7: manifest: read must be a list of strings");
        BAD(EP "read: [[/a]]\n", "read[0] must be a string");
        BAD(EP "entrypoint: ./y\n", "t.yaml:2:1: manifest: field \"entrypoint\" is given twice");
        BAD(EP "limits: [1]\n", "limits must be a mapping");
        BAD(EP "limits: {pids: many}\n", "limits.pids must be a whole number");
        BAD(EP "limits: {pids: \"5\"}\n", "limits.pids must be a whole number");
        BAD(EP "limits: {pids: 99999999999999999999}\n", "limits.pids is out of range");
        BAD(EP "network: [{host: [a], port: \"1\"}]\n", "network rule 0: host must be a string");
        BAD("- entrypoint: ./x\n", "t.yaml:1:1: manifest: the top level must be a mapping");
        BAD(EP "read: [a\n", "t.yaml:3:1: manifest: not valid YAML");
}

TEST(empty_inputs)
{
        cleanup_free char *a = problems(""), *b = problems("# nothing\n"),
                          *c = problems("interpreter: python3\n");

        ASSERT_STREQ(a, "t.yaml: policy: entrypoint is required");
        ASSERT_STREQ(b, "t.yaml: policy: entrypoint is required");
        ASSERT_STREQ(c, "t.yaml:1:1: policy: entrypoint is required");
        GOOD(EP "read:\nwrite: ~\nenv: null\nnetwork:\nlimits:\nprovenance:\n");
}

/* ---- docs/manifest.md, "SYNTAX RULES" the character screen ---- */

TEST(screen_classes)
{
        BAD(EP "read: [\"/home/u/\xe2\x80\xae"
               "exe.bat\"]\n",
            "t.yaml:2:8: policy: value \"/home/u/exe.bat\" contains a bidirectional formatting "
            "character (U+202E), which is not allowed in a path or argument");
        BAD(EP "args: [\"a\xe2\x81\xa6"
               "b\"]\n",
            "a bidirectional formatting character (U+2066)");
        BAD(EP "args: [\"a\xe2\x80\xa8"
               "b\"]\n",
            "a line separator (U+2028)");
        BAD(EP "args: [\"a\\Pb\"]\n", "a line separator (U+2029)");
        BAD(EP "write: [\"a\xe2\x80\x8b\"]\n", "a zero-width or invisible character (U+200B)");
        BAD(EP "read: [\"a\xc2\xad\"]\n", "a zero-width or invisible character (U+00AD)");
        BAD(EP "read: [\"\xef\xbb\xbf/x\"]\n", "a zero-width or invisible character (U+FEFF)");
        BAD(EP "read: [\"x\xf3\xa0\x81\x81\"]\n", "invisible character (U+E0041)"); /* tag A */
        BAD(EP "read: [\"x\xe3\x85\xa4\"]\n", "invisible character (U+3164)");      /* ODI */
        BAD(EP "read: [\"x\xe1\xa0\x8e\"]\n", "invisible character (U+180E)");
        BAD(EP "args: [\"--flag\", \"val\\x07x\"]\n", "a control character (U+0007)");
        BAD(EP "args: [\"a\\tb\"]\n", "a control character (U+0009)");
        BAD(EP "args: [\"a\\x7fb\"]\n", "a control character (U+007F)");
        BAD(EP "args: [\"a\\x85b\"]\n", "a control character (U+0085)");
        BAD("entrypoint: \"./x\\x9b\"\n", "t.yaml:1:13: policy: value", "(U+009B)");
        BAD(EP "interpreter: \"sh\\r\"\n", "a control character (U+000D)");
        BAD(EP "interpreter_args: [\"-\\x01\"]\ninterpreter: sh\n", "(U+0001)");
}

TEST(screen_nul_byte)
{
        static const char yaml[] = EP "args: [\"--flag\", \"val\\0x\"]\n";
        cleanup_free char *got = problems(yaml);

        ASSERT_STREQ(got, "t.yaml:2:18: policy: value \"valx\" contains a control character "
                          "(U+0000), which is not allowed in a path or argument");
        BAD(EP "env: [\"A\\0B\"]\n", "control character (U+0000)");
        BAD(EP "provenance: {generated-by: \"x\\0\"}\n",
            "manifest: provenance value \"x\" contains a control character (U+0000)");
}

TEST(screen_allows_ordinary_text)
{
        GOOD(EP "read: [\"/data/\xef\xbf\xbd\"]\n");                            /* a real U+FFFD */
        GOOD(EP "args: [\"\xe2\x9d\xa4\xef\xb8\x8f\"]\n");                      /* heart + U+FE0F */
        GOOD(EP "read: [\"/srv/\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\"]\n");         /* Hebrew */
        GOOD(EP "read: [\"/srv/\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7\"]\n"); /* Arabic */
        GOOD(EP "args: [\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\"]\n");
}

TEST(screen_is_reported_alone)
{
        cleanup_free char *got =
            problems(EP "read: [\"/home/u/\\u202Eexe.bat\"]\nenv: [\"1X\"]\nexec: yes\n");

        ASSERT_CONTAINS(got, "bidirectional formatting character");
        ASSERT_TRUE(strstr(got, "env name") == NULL && strstr(got, "problems") == NULL);
        ASSERT_TRUE(strstr(got, "\xe2\x80\xae") == NULL); /* never echoed */
}

/* ---- docs/manifest.md, "SYNTAX RULES" policy rules ---- */

TEST(interpreter_args_need_interpreter)
{
        BAD(EP "interpreter_args: [-u]\n",
            "t.yaml:2:20: policy: interpreter_args is set but interpreter is not");
        GOOD(EP "interpreter: python3\ninterpreter_args: [-u]\n");
}

TEST(empty_grants)
{
        BAD(EP "read: [\"\"]\n", "t.yaml:2:8: policy: read[0] is empty; a grant must name a path");
        BAD(EP "read: [/a, ~]\n", "t.yaml:2:12: policy: read[1] is empty", "\"~\"");
        BAD(EP "write: [null]\n", "policy: write[0] is empty");
        GOOD(EP "read: [\"~\"]\n");
        GOOD(EP "read: [\"~/\"]\n");
}

TEST(other_users_home)
{
        BAD(EP "read: [\"~operator/keys\"]\n",
            "t.yaml:2:8: policy: read[0] \"~operator/keys\" names another user's home directory",
            "\"./~operator/keys\"");
        BAD("entrypoint: ~root/x\n", "policy: entrypoint \"~root/x\" names another user's home");
        BAD(EP "interpreter: ~bob/python\n", "policy: interpreter \"~bob/python\" names");
        BAD(EP "write: [~root]\n", "write[0] \"~root\" names another user's home");
        GOOD(EP "read: [./~backup, data/~x, \"~\", ~/x]\n");
}

TEST(home_write)
{
        static const char *const bad[] = {"~", "~/", "~/.", "~/..", "~/../..", "~//", "~/a/.."};

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char yaml[128];
                cleanup_free char *got = NULL;

                snprintf(yaml, sizeof(yaml), EP "write: [\"%s\"]\n", bad[i]);
                got = problems(yaml);
                ASSERT_CONTAINS(got, "t.yaml:2:9: policy: write[0]");
                ASSERT_CONTAINS(got, "grants your home directory or a parent of it");
        }
        GOOD(EP "write: [\"~/out\", \"~/a/../b\"]\nread: [\"~\"]\n");
}

TEST(env_names)
{
        static const char *const bad[] = {"", "1ENV", "FOO=BAR", "FOO-BAR", "A B"};

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char yaml[128];
                cleanup_free char *got = NULL;

                snprintf(yaml, sizeof(yaml), EP "env: [\"%s\"]\n", bad[i]);
                got = problems(yaml);
                ASSERT_CONTAINS(got, "t.yaml:2:7: policy: invalid env name \"");
                ASSERT_CONTAINS(got, "^[A-Za-z_][A-Za-z0-9_]*$");
        }
        GOOD(EP "env: [_X1, lang, HOME]\n");
}

TEST(exec_modes)
{
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        cleanup_manifest struct manifest *m = NULL;

        BAD(EP "exec: yes\n",
            "t.yaml:2:7: policy: invalid exec mode \"yes\": want one of none, none-strict, all");
        BAD(EP "exec: None\n", "invalid exec mode \"None\"");
        GOOD(EP "exec: none\n");
        GOOD(EP "exec: \"\"\n");
        ASSERT_OK(manifest_parse(EP, strlen(EP), "t.yaml", &m, &p, &err));
        ASSERT_EQ(m->exec, MANIFEST_EXEC_NONE);
        ASSERT_STREQ(manifest_exec_to_string(m->exec), "none");
        m = manifest_free(m);
        ASSERT_OK(manifest_parse(EP "exec: none-strict\n", strlen(EP) + 18, "t", &m, &p, &err));
        ASSERT_STREQ(manifest_exec_to_string(m->exec), "none-strict");
        m = manifest_free(m);
        ASSERT_OK(manifest_parse(EP "exec: all\n", strlen(EP) + 10, "t", &m, &p, &err));
        ASSERT_STREQ(manifest_exec_to_string(m->exec), "all");
}

static char *rule(const char *host, const char *port)
{
        char yaml[1024];

        snprintf(yaml, sizeof(yaml), EP "network:\n  - host: \"%s\"\n    port: \"%s\"\n", host,
                 port);
        return problems(yaml);
}

TEST(network_hosts)
{
        static const struct {
                const char *host, *want;
        } bad[] = {
            {"", "t.yaml:3:11: policy: network rule 0: empty host"},
            {"127.1", "host \"127.1\" is not a canonical IP address (write a full dotted-quad"},
            {"2130706433", "not a canonical IP address"},
            {"127.0.0.01", "not a canonical IP address"},
            {"::ffff:10.0.0.1", "host \"::ffff:10.0.0.1\" is not canonical (write it as "
                                "10.0.0.1)"},
            {"2001:DB8::1", "is not canonical (write it as 2001:db8::1)"},
            {"2001:db8:0:0:0:0:0:1", "(write it as 2001:db8::1)"},
            {"foo.123", "host \"foo.123\" is not a valid hostname"},
            {".", "suffix wildcard needs a domain after the dot"},
            {".10.0.0.1", "suffix wildcard cannot cover an IP address"},
            {"example.com\\n", "contains control or reserved characters"},
            {"a b.com", "contains control or reserved characters"},
            {"fe80::1%eth0", "contains control or reserved characters"},
            {"-a.com", "is not a valid hostname"},
            {"a..com", "is not a valid hostname"},
            {"a.com.", "is not a valid hostname"},
            {"a_b.com", "is not a valid hostname"},
            {"..com", "is not a valid hostname"},
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cleanup_free char *got = rule(bad[i].host, "443");

                ASSERT_CONTAINS(got, bad[i].want);
                ASSERT_CONTAINS(got, "policy: network rule 0: ");
        }
        {
                char host[300];
                cleanup_free char *got = NULL;

                memset(host, 'a', 254);
                host[254] = '\0';
                got = rule(host, "443");
                ASSERT_CONTAINS(got, "too long");
        }
        static const char *const good[] = {"*",           ".example.com",    "10.0.0.5",
                                           "2001:db8::1", "api.example.com", "localhost",
                                           "x-1.b2.io"};
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                cleanup_free char *got = rule(good[i], "443");

                if (got)
                        TAP_FAIL("%s refused: %s", good[i], got);
        }
}

TEST(network_ports)
{
        static const struct {
                const char *port, *want;
        } bad[] = {
            {"", "t.yaml:4:11: policy: network rule 0: empty port (use a number, a lo-hi "
                 "range, or \"*\")"},
            {"0", "port \"0\" out of range 1-65535"},
            {"65536", "port \"65536\" out of range 1-65535"},
            {"1-70000", "out of range 1-65535"},
            {"-80", "port \"-80\" must be plain decimal"},
            {"+443", "must be plain decimal"},
            {"08080", "must be plain decimal"},
            {"http", "must be plain decimal"},
            {"443-80", "port range \"443-80\" is inverted"},
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cleanup_free char *got = rule("a.com", bad[i].port);

                ASSERT_CONTAINS(got, bad[i].want);
        }
        GOOD(EP "network: [{host: a.com, port: \"*\"}, {host: b.com, port: \"8000-9000\"}]\n");
        /* An integer scalar is its decimal string. */
        GOOD(EP "network: [{host: a.com, port: 443}]\n");
        BAD(EP "network: [{host: a.com}]\n", "t.yaml:2:11: policy: network rule 0: empty port");
}

TEST(every_bad_rule_is_listed)
{
        cleanup_free char *got =
            problems(EP "network: [{host: a.com, port: \"0\"}, {host: \".\", port: \"1\"}]\n");

        ASSERT_CONTAINS(got, "the manifest has 2 problems:");
        ASSERT_CONTAINS(got, "network rule 0: port \"0\"");
        ASSERT_CONTAINS(got, "network rule 1: host \".\"");
}

TEST(limits_memory)
{
        BAD(EP "limits: {memory: 128m}\n",
            "t.yaml:2:18: policy: limits.memory: size \"128m\" must spell its suffix uppercase "
            "(\"128M\")");
        BAD(EP "limits: {memory: 100MB}\n",
            "policy: limits.memory: invalid size \"100MB\", want a plain byte count or a K/M/G "
            "suffix (e.g. \"128M\")");
        BAD(EP "limits: {memory: 1.5G}\n", "invalid size \"1.5G\"");
        BAD(EP "limits: {memory: 1T}\n", "invalid size \"1T\"");
        BAD(EP "limits: {memory: \"128 M\"}\n", "invalid size \"128 M\"");
        BAD(EP "limits: {memory: -1G}\n", "size \"-1G\" cannot be negative");
        BAD(EP "limits: {memory: 8000000000000000000K}\n", "is too large");
        BAD(EP "limits: {memory: 99999999999999999999999}\n", "is too large");
        BAD(EP "limits: {memory: 0}\n", "policy: limits.memory \"0\" is zero");
        GOOD(EP "limits: {memory: 128M}\n");
        GOOD(EP "limits: {memory: 1G}\n");
        GOOD(EP "limits: {memory: 1048576}\n");
}

TEST(limits_cpu)
{
        static const char *const not_plain[] = {"NaN%", "-10%",    "07%", ".5%",
                                                "50.%", "12.345%", "1e3%"};

        BAD(EP "limits: {cpu: 100}\n",
            "t.yaml:2:15: policy: limits.cpu \"100\" must be a percentage (e.g. \"100%\")");
        for (size_t i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]); i++) {
                char yaml[128];
                cleanup_free char *got = NULL;

                snprintf(yaml, sizeof(yaml), EP "limits: {cpu: \"%s\"}\n", not_plain[i]);
                got = problems(yaml);
                ASSERT_CONTAINS(got, "must be a plain decimal percentage");
        }
        BAD(EP "limits: {cpu: 0%}\n", "\"0%\" is zero; the smallest quota is \"0.01%\"");
        BAD(EP "limits: {cpu: 0.00%}\n", "is zero");
        BAD(EP "limits: {cpu: 21474836.48%}\n", "too large");
        BAD(EP "limits: {cpu: 99999999999999999999%}\n", "too large");
        GOOD(EP "limits: {cpu: 21474836.47%}\n");
        GOOD(EP "limits: {cpu: 50%}\n");
        GOOD(EP "limits: {cpu: 12.5%}\n");
        GOOD(EP "limits: {cpu: 250%}\n");
}

TEST(limits_first_problem_only_and_pids)
{
        cleanup_free char *got = problems(EP "limits: {memory: 1x, cpu: 1, pids: -1}\n");

        ASSERT_STREQ(got, "t.yaml:2:18: policy: limits.memory: invalid size \"1x\", want a plain "
                          "byte count or a K/M/G suffix (e.g. \"128M\")");
        BAD(EP "limits: {pids: -1}\n", "t.yaml:2:16: policy: limits.pids must not be negative");
        BAD(EP "limits: {memory: 128M, pids: 0}\n", "t.yaml:2:30: policy: limits.pids is zero");
        GOOD(EP "limits: {pids: 32}\n");
}

TEST(limits_parsed_values)
{
        static const char yaml[] = EP "limits: {memory: 128M, cpu: 12.5%, pids: 7}\n";
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        cleanup_manifest struct manifest *m = NULL;

        ASSERT_OK(manifest_parse(yaml, strlen(yaml), "t.yaml", &m, &p, &err));
        ASSERT_EQ(m->limits.memory_bytes, 128ull << 20);
        ASSERT_EQ(m->limits.cpu_hundredths, 1250);
        ASSERT_EQ(m->limits.pids, 7);
        ASSERT_TRUE(m->limits.has_pids);
}

TEST(provenance_screen)
{
        BAD(EP "provenance: {generated-by: \"tool\\a\"}\n",
            "t.yaml:2:28: manifest: provenance value \"tool\" contains a control character "
            "(U+0007)");
        BAD(EP "provenance: {blocked-hosts: [\"a\\u200b:443\"]}\n", "provenance value \"a",
            "zero-width or invisible character (U+200B)");
        GOOD(EP "provenance:\n  generated-by: bento approve\n  generated-at: "
                "2026-07-14T00:00:00Z\n  approves: "
                "aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad\n  "
                "blocked-hosts: [\"[2001:db8::1]:443\"]\n");
        /* Policy problems come first; the provenance screen only after. */
        BAD(EP "exec: yes\nprovenance: {generated-by: \"t\\a\"}\n", "invalid exec mode");
}

TEST(multi_problem_rendering)
{
        cleanup_free char *got = problems("env: [\"OUT \xe2\x86\x90 note\"]\nread: [\"\"]\n"
                                          "limits: {pids: -1}\n");

        ASSERT_STREQ(got,
                     "the manifest has 4 problems:\n"
                     "  t.yaml:1:1: policy: entrypoint is required\n"
                     "  t.yaml:2:8: policy: read[0] is empty; a grant must name a path (an "
                     "unquoted ~ is YAML's null: write \"~\" in quotes for your home "
                     "directory)\n"
                     "  t.yaml:1:7: policy: invalid env name \"OUT \xe2\x86\x90 note\": want a "
                     "name matching ^[A-Za-z_][A-Za-z0-9_]*$ (env: lists the names of "
                     "variables to pass through, not their values)\n"
                     "  t.yaml:3:16: policy: limits.pids must not be negative (it is -1)");
}

TEST(err_summary_is_one_line)
{
        static const char yaml[] = "read: [\"\"]\nexec: yes\n";
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        struct manifest *m = NULL;

        ASSERT_EQ(manifest_parse(yaml, strlen(yaml), "t.yaml", &m, &p, &err), -EINVAL);
        ASSERT_EQ(p.n, 3);
        ASSERT_CONTAINS(err.msg, "the manifest has 3 problems: t.yaml:1:1: policy: entrypoint");
        ASSERT_TRUE(strchr(err.msg, '\n') == NULL);
        ASSERT_TRUE(m == NULL);
        manifest_problems_done(&p);
}

TEST(model_as_written)
{
        static const char yaml[] =
            "entrypoint: ./run.sh\ninterpreter: sh\ninterpreter_args: [-eu]\nargs: [a, \"\"]\n"
            "read: [/data/*]\nwrite: [./out]\nnetwork: [{host: a.com, port: 443}]\n";
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        cleanup_manifest struct manifest *m = NULL;

        ASSERT_OK(manifest_parse(yaml, strlen(yaml), "t.yaml", &m, &p, &err));
        ASSERT_STREQ(m->path, "t.yaml");
        ASSERT_STREQ(m->entrypoint, "./run.sh");
        ASSERT_EQ(m->n_args, 2);
        ASSERT_STREQ(m->args[1], "");
        ASSERT_STREQ(m->read[0], "/data/*");
        ASSERT_EQ(m->read_places[0].line, 5);
        ASSERT_EQ(m->read_places[0].col, 8);
        ASSERT_STREQ(m->network[0].port, "443");
        ASSERT_STREQ(m->provenance.approves, "");
        ASSERT_STREQ(m->limits.memory, "");
        ASSERT_TRUE(!m->limits.has_pids);
}

TEST(validate_code_built_model)
{
        struct manifest m = {0};
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        char *env[] = {"1X"};

        ASSERT_EQ(manifest_validate(&m, "built", &p, &err), -EINVAL);
        ASSERT_STREQ(err.msg, "built: policy: entrypoint is required");
        manifest_problems_done(&p);
        m.entrypoint = "./x";
        ASSERT_OK(manifest_validate(&m, "built", NULL, &err));
        m.env = env;
        m.n_env = 1;
        ASSERT_EQ(manifest_validate(&m, "built", NULL, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "invalid env name \"1X\"");
}

/* ---- docs/manifest.md, "NETWORK RULES" matching ---- */

TEST(network_matching)
{
        struct manifest_net_rule rules[] = {
            {".example.com", "443"},
            {"API.test.io", "8000-9000"},
            {"10.0.0.1", "*"},
            {"exact.org", "80"},
        };
        struct manifest m = {.network = rules, .n_network = 4};
        struct manifest none = {0};

        ASSERT_TRUE(manifest_network_allows(&m, "a.example.com", "443"));
        ASSERT_TRUE(manifest_network_allows(&m, "x.y.EXAMPLE.com.", "443"));
        ASSERT_TRUE(!manifest_network_allows(&m, "example.com", "443"));
        ASSERT_TRUE(!manifest_network_allows(&m, "a.example.com", "444"));
        ASSERT_TRUE(manifest_network_allows(&m, "api.test.io", "8500"));
        ASSERT_TRUE(manifest_network_allows(&m, "api.test.io.", "9000"));
        ASSERT_TRUE(!manifest_network_allows(&m, "api.test.io", "9001"));
        ASSERT_TRUE(manifest_network_allows(&m, "10.0.0.1", "22"));
        ASSERT_TRUE(!manifest_network_allows(&m, "10.0.0.2", "22"));
        ASSERT_TRUE(manifest_network_allows(&m, "exact.org", "80"));
        ASSERT_TRUE(!manifest_network_allows(&m, "exact.org", "080"));
        ASSERT_TRUE(!manifest_network_allows(&m, "sub.exact.org", "80"));
        ASSERT_TRUE(!manifest_network_allows(&none, "exact.org", "80"));
        rules[3] = (struct manifest_net_rule){"*", "*"};
        ASSERT_TRUE(manifest_network_allows(&m, "anything.at.all", "1"));
}

TEST(load_from_file)
{
        char path[] = "/tmp/bento-test-manifest-XXXXXX";
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        cleanup_manifest struct manifest *m = NULL;
        int fd = mkstemp(path);

        ASSERT_TRUE(fd >= 0);
        ASSERT_EQ(write(fd, EP, strlen(EP)), (long) strlen(EP));
        close(fd);
        ASSERT_OK(manifest_load(path, &m, &p, &err));
        ASSERT_STREQ(m->path, path);
        unlink(path);
        ASSERT_TRUE(manifest_load(path, &m, &p, &err) < 0);
        ASSERT_CONTAINS(err.msg, "manifest");
}

TAP_MAIN()
