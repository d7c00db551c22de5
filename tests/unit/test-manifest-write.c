/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/manifest/write.c: the canonical text of docs/approve.md, "How the file
 * is rewritten" for a full and a minimal manifest, quoting that survives a real YAML parser
 * (libyaml reads the output back here, independent of bento's own loader), parse(write(m)) == m
 * through bento's loader, and the atomic writer's rules: validation first, mode carried over minus
 * group/world write, 0600 for a new file, symlinks resolved, no temporary
 * file left behind, an error naming the directory when nothing can be
 * created in it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yaml.h>

#include "cleanup.h"
#include "fileio.h"
#include "manifest/write.h"
#include "tap.h"

static struct bento_err err;
static char dir[] = "/tmp/bento-mwrite-XXXXXX";

static const char *at(const char *name)
{
        static char buf[4][256];
        static int which;

        which = (which + 1) % 4;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
        return buf[which];
}

/* Everything in the test directory except "." and ".."; leftovers of a
 * write would show up here. */
static int entries(const char *d)
{
        cleanup_dir DIR *dp = opendir(d);
        struct dirent *e;
        int n = 0;

        while (dp && (e = readdir(dp)))
                n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
        return n;
}

static char *f_iargs[] = {"-u"};
static char *f_args[] = {"--b", "--a"};
static char *f_env[] = {"PATH", "HOME"};
static char *f_read[] = {"/two", "~/data"};
static char *f_write[] = {"/out/b"};
static struct manifest_net_rule f_net[] = {{"b.com", "80"}, {".a.com", "8000-8080"}};
static char *f_blocked[] = {"[2001:db8::1]:443"};

static struct manifest full(void)
{
        return (struct manifest){
            .path = "",
            .entrypoint = "./x",
            .interpreter = "python3",
            .interpreter_args = f_iargs,
            .n_interpreter_args = 1,
            .args = f_args,
            .n_args = 2,
            .env = f_env,
            .n_env = 2,
            .read = f_read,
            .n_read = 2,
            .write = f_write,
            .n_write = 1,
            .network = f_net,
            .n_network = 2,
            .exec = MANIFEST_EXEC_ALL,
            .limits = {.memory = "1M", .cpu = "50%", .pids = 128, .has_pids = true},
            .provenance = {.generated_by = "bento approve",
                           .generated_at = "2026-07-14T00:00:00Z",
                           .approves =
                               "aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad",
                           .blocked_hosts = f_blocked,
                           .n_blocked_hosts = 1},
        };
}

static struct manifest minimal(void)
{
        return (struct manifest){
            .path = "",
            .entrypoint = "./app.py",
            .interpreter = "",
            .limits = {.memory = "", .cpu = ""},
            .provenance = {.generated_by = "", .generated_at = "", .approves = ""},
        };
}

static const char full_policy[] = "entrypoint: \"./x\"\n"
                                  "interpreter: \"python3\"\n"
                                  "interpreter_args:\n"
                                  "  - \"-u\"\n"
                                  "args:\n"
                                  "  - \"--b\"\n"
                                  "  - \"--a\"\n"
                                  "env:\n"
                                  "  - \"PATH\"\n"
                                  "  - \"HOME\"\n"
                                  "read:\n"
                                  "  - \"/two\"\n"
                                  "  - \"~/data\"\n"
                                  "write:\n"
                                  "  - \"/out/b\"\n"
                                  "network:\n"
                                  "  - host: \"b.com\"\n"
                                  "    port: \"80\"\n"
                                  "  - host: \".a.com\"\n"
                                  "    port: \"8000-8080\"\n"
                                  "exec: \"all\"\n"
                                  "limits:\n"
                                  "  memory: \"1M\"\n"
                                  "  cpu: \"50%\"\n"
                                  "  pids: 128\n";

static const char full_provenance[] =
    "provenance:\n"
    "  generated-by: \"bento approve\"\n"
    "  generated-at: \"2026-07-14T00:00:00Z\"\n"
    "  approves: \"aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad\"\n"
    "  blocked-hosts:\n"
    "    - \"[2001:db8::1]:443\"\n";

TEST(setup)
{
        ASSERT_TRUE(mkdtemp(dir) != NULL);
}

TEST(canonical_full_manifest)
{
        struct manifest m = full();
        cleanup_free char *yaml = NULL;
        char want[sizeof(full_policy) + sizeof(full_provenance)];
        size_t len = 0;

        snprintf(want, sizeof(want), "%s%s", full_policy, full_provenance);
        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        ASSERT_STREQ(yaml, want);
        ASSERT_EQ(len, strlen(want));
}

TEST(policy_text_leaves_provenance_out)
{
        struct manifest m = full();
        cleanup_free char *yaml = NULL;
        size_t len = 0;

        ASSERT_OK(manifest_to_yaml(&m, MANIFEST_YAML_NO_PROVENANCE, &yaml, &len, &err));
        ASSERT_STREQ(yaml, full_policy);
}

TEST(minimal_manifest_writes_exec_and_nothing_empty)
{
        struct manifest m = minimal();
        cleanup_free char *yaml = NULL;
        size_t len = 0;

        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        ASSERT_STREQ(yaml, "entrypoint: \"./app.py\"\nexec: \"none\"\n");
}

TEST(limits_only_those_set)
{
        struct manifest m = minimal();
        cleanup_free char *a = NULL, *b = NULL;
        size_t len = 0;

        m.exec = MANIFEST_EXEC_NONE_STRICT;
        m.limits.cpu = "12.5%";
        ASSERT_OK(manifest_to_yaml(&m, 0, &a, &len, &err));
        ASSERT_STREQ(a, "entrypoint: \"./app.py\"\nexec: \"none-strict\"\n"
                        "limits:\n  cpu: \"12.5%\"\n");
        m.limits.cpu = "";
        m.limits.pids = 64;
        ASSERT_OK(manifest_to_yaml(&m, 0, &b, &len, &err));
        ASSERT_STREQ(b, "entrypoint: \"./app.py\"\nexec: \"none-strict\"\nlimits:\n  pids: 64\n");
}

TEST(provenance_with_only_blocked_hosts)
{
        struct manifest m = minimal();
        cleanup_free char *yaml = NULL;
        size_t len = 0;

        m.provenance.blocked_hosts = f_blocked;
        m.provenance.n_blocked_hosts = 1;
        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        ASSERT_STREQ(yaml, "entrypoint: \"./app.py\"\nexec: \"none\"\nprovenance:\n"
                           "  blocked-hosts:\n    - \"[2001:db8::1]:443\"\n");
}

/* The strings every YAML reader gets wrong when written plainly, and the
 * ones it must not touch (non-ASCII letters stay literal). */
static char *tricky[] = {
    "say \"hi\"",
    "back\\slash",
    "tab\there",
    "line\nbreak\r",
    "nel\xc2\x85",
    "ls\xe2\x80\xa8ps\xe2\x80\xa9",
    "bom\xef\xbb\xbf",
    "del\x7f",
    "caf\xc3\xa9 \xd7\xa9",
    "# not a comment",
    "- not a list",
    "yes",
    "~",
    "null",
    "*star &amp !bang",
    "{[,]}: x",
    "  padded  ",
    "",
    "\x01\x1b",
    "\xf0\x9f\x8d\xb1 bento",
};

TEST(quoting_escapes_what_must_be_escaped)
{
        char *args[] = {"a\"b\\c\td\ne\xc2\x85"
                        "f\xe2\x80\xa8g\xef\xbb\xbfh\x7f\x01i\xc3\xa9"};
        struct manifest m = minimal();
        cleanup_free char *yaml = NULL;
        size_t len = 0;

        m.args = args;
        m.n_args = 1;
        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        ASSERT_CONTAINS(yaml,
                        "  - \"a\\\"b\\\\c\\td\\ne\\x85f\\u2028g\\uFEFFh\\x7F\\x01i\xc3\xa9\"\n");
}

TEST(invalid_utf8_is_refused_naming_the_field)
{
        char *bad[] = {"/ok", "/bad\xc3("};
        char *overlong[] = {"\xc0\xaf"};
        char *surrogate[] = {"\xed\xa0\x80"};
        struct manifest m = minimal();
        char *yaml = NULL;
        size_t len = 0;

        m.read = bad;
        m.n_read = 2;
        ASSERT_EQ(manifest_to_yaml(&m, 0, &yaml, &len, &err), -EILSEQ);
        ASSERT_CONTAINS(err.msg, "read[1] is not valid UTF-8");
        ASSERT_TRUE(yaml == NULL);
        m.read = overlong, m.n_read = 1;
        ASSERT_EQ(manifest_to_yaml(&m, 0, &yaml, &len, &err), -EILSEQ);
        m.read = surrogate;
        ASSERT_EQ(manifest_to_yaml(&m, 0, &yaml, &len, &err), -EILSEQ);
        m = minimal();
        m.entrypoint = "\xff";
        ASSERT_EQ(manifest_to_yaml(&m, 0, &yaml, &len, &err), -EILSEQ);
        ASSERT_CONTAINS(err.msg, "manifest: entrypoint is not valid UTF-8");
}

/* Reading the output back with libyaml itself: the structure is what
 * the loader expects and every string comes back byte for byte. */
static void cleanup_yaml_parser_fn(yaml_parser_t **p)
{
        if (*p)
                yaml_parser_delete(*p);
}
static void cleanup_yaml_document_fn(yaml_document_t **d)
{
        if (*d)
                yaml_document_delete(*d);
}
#define cleanup_yaml_parser   __attribute__((cleanup(cleanup_yaml_parser_fn)))
#define cleanup_yaml_document __attribute__((cleanup(cleanup_yaml_document_fn)))

static yaml_document_t doc_storage;
static yaml_parser_t parser_storage;

/* Parse text into the static document; NULL on a YAML error. */
static yaml_node_t *load(const char *text, yaml_parser_t **parser, yaml_document_t **doc)
{
        if (!yaml_parser_initialize(&parser_storage))
                return NULL;
        *parser = &parser_storage;
        yaml_parser_set_input_string(*parser, (const unsigned char *) text, strlen(text));
        if (!yaml_parser_load(*parser, &doc_storage))
                return NULL;
        *doc = &doc_storage;
        return yaml_document_get_root_node(*doc);
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
        if (!map || map->type != YAML_MAPPING_NODE)
                return NULL;
        for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
             p++) {
                yaml_node_t *k = yaml_document_get_node(d, p->key);

                if (k->type == YAML_SCALAR_NODE && strcmp((char *) k->data.scalar.value, key) == 0)
                        return yaml_document_get_node(d, p->value);
        }
        return NULL;
}

static yaml_node_t *seq_at(yaml_document_t *d, yaml_node_t *seq, size_t i)
{
        if (!seq || seq->type != YAML_SEQUENCE_NODE ||
            (size_t) (seq->data.sequence.items.top - seq->data.sequence.items.start) <= i)
                return NULL;
        return yaml_document_get_node(d, seq->data.sequence.items.start[i]);
}

/* A double-quoted scalar holding exactly want. */
static bool is_quoted(yaml_node_t *n, const char *want)
{
        return n && n->type == YAML_SCALAR_NODE &&
               n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE &&
               n->data.scalar.length == strlen(want) &&
               memcmp(n->data.scalar.value, want, n->data.scalar.length) == 0;
}

TEST(tricky_strings_survive_libyaml)
{
        cleanup_yaml_parser yaml_parser_t *parser = NULL;
        cleanup_yaml_document yaml_document_t *doc = NULL;
        struct manifest m = minimal();
        cleanup_free char *yaml = NULL;
        yaml_node_t *root, *args;
        size_t len = 0, n = sizeof(tricky) / sizeof(tricky[0]);

        m.args = tricky;
        m.n_args = n;
        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        root = load(yaml, &parser, &doc);
        ASSERT_TRUE(root != NULL);
        args = map_get(doc, root, "args");
        for (size_t i = 0; i < n; i++)
                if (!is_quoted(seq_at(doc, args, i), tricky[i]))
                        TAP_FAIL("args[%zu] did not come back", i);
        ASSERT_TRUE(seq_at(doc, args, n) == NULL);
}

TEST(full_manifest_structure_under_libyaml)
{
        static const char *const keys[] = {
            "entrypoint", "interpreter", "interpreter_args", "args",      "env", "read", "write",
            "network",    "exec",        "limits",           "provenance"};
        cleanup_yaml_parser yaml_parser_t *parser = NULL;
        cleanup_yaml_document yaml_document_t *doc = NULL;
        struct manifest m = full();
        cleanup_free char *yaml = NULL;
        yaml_node_t *root, *rule, *pids;
        size_t len = 0, i = 0;

        ASSERT_OK(manifest_to_yaml(&m, 0, &yaml, &len, &err));
        root = load(yaml, &parser, &doc);
        ASSERT_TRUE(root && root->type == YAML_MAPPING_NODE);
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
             p++, i++) {
                yaml_node_t *k = yaml_document_get_node(doc, p->key);

                ASSERT_TRUE(i < sizeof(keys) / sizeof(keys[0]));
                ASSERT_STREQ((char *) k->data.scalar.value, keys[i]);
        }
        ASSERT_EQ(i, sizeof(keys) / sizeof(keys[0]));
        rule = seq_at(doc, map_get(doc, root, "network"), 1);
        ASSERT_TRUE(is_quoted(map_get(doc, rule, "host"), ".a.com"));
        ASSERT_TRUE(is_quoted(map_get(doc, rule, "port"), "8000-8080"));
        ASSERT_TRUE(is_quoted(map_get(doc, root, "exec"), "all"));
        pids = map_get(doc, map_get(doc, root, "limits"), "pids");
        ASSERT_TRUE(pids && pids->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
        ASSERT_STREQ((char *) pids->data.scalar.value, "128");
        ASSERT_TRUE(is_quoted(
            seq_at(doc, map_get(doc, map_get(doc, root, "provenance"), "blocked-hosts"), 0),
            "[2001:db8::1]:443"));
}

static mode_t mode_of(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t) -1;
}

static bool has_content(const char *path, const char *want)
{
        cleanup_free char *data = NULL;
        size_t len = 0;

        return bento_read_file(path, 1 << 20, &data, &len, &err) == 0 && strcmp(data, want) == 0;
}

TEST(new_file_is_0600)
{
        struct manifest m = minimal();
        struct manifest_write_info info = {.existed = true};
        mode_t old = umask(0);

        ASSERT_OK(manifest_write_file(at("new.yaml"), &m, &info, &err));
        umask(old);
        ASSERT_EQ(mode_of(at("new.yaml")), 0600);
        ASSERT_TRUE(has_content(at("new.yaml"), "entrypoint: \"./app.py\"\nexec: \"none\"\n"));
        ASSERT_TRUE(!info.existed && !info.clamped);
        ASSERT_EQ(info.new_mode, 0600);
        ASSERT_EQ(entries(dir), 1);
}

TEST(existing_mode_kept_minus_group_and_world_write)
{
        struct manifest m = full();
        struct manifest_write_info info;

        ASSERT_OK(bento_write_file_atomic(at("m.yaml"), "old\n", 4, 0666, &err));
        ASSERT_OK(manifest_write_file(at("m.yaml"), &m, &info, &err));
        ASSERT_EQ(mode_of(at("m.yaml")), 0644);
        ASSERT_TRUE(info.existed && info.clamped);
        ASSERT_EQ(info.old_mode, 0666);
        ASSERT_EQ(info.new_mode, 0644);
        ASSERT_OK(chmod(at("m.yaml"), 0640));
        ASSERT_OK(manifest_write_file(at("m.yaml"), &m, &info, &err));
        ASSERT_EQ(mode_of(at("m.yaml")), 0640);
        ASSERT_TRUE(info.existed && !info.clamped);
        ASSERT_OK(chmod(at("m.yaml"), 04755));
        ASSERT_OK(manifest_write_file(at("m.yaml"), &m, &info, &err));
        ASSERT_EQ(mode_of(at("m.yaml")), 0755);
        ASSERT_EQ(entries(dir), 2);
}

TEST(symlink_is_resolved_not_replaced)
{
        struct manifest m = minimal();
        char target[256];
        struct stat st;
        ssize_t n;

        ASSERT_OK(mkdir(at("real"), 0755));
        ASSERT_OK(bento_write_file_atomic(at("real/app.yaml"), "old\n", 4, 0620, &err));
        ASSERT_OK(symlink("real/app.yaml", at("link.yaml")));
        ASSERT_OK(manifest_write_file(at("link.yaml"), &m, NULL, &err));
        ASSERT_TRUE(lstat(at("link.yaml"), &st) == 0 && S_ISLNK(st.st_mode));
        n = readlink(at("link.yaml"), target, sizeof(target) - 1);
        ASSERT_TRUE(n > 0);
        target[n] = '\0';
        ASSERT_STREQ(target, "real/app.yaml");
        ASSERT_TRUE(has_content(at("real/app.yaml"), "entrypoint: \"./app.py\"\nexec: \"none\"\n"));
        ASSERT_EQ(mode_of(at("real/app.yaml")), 0600);
        ASSERT_EQ(entries(at("real")), 1);
}

TEST(dangling_symlink_and_non_files_are_refused)
{
        struct manifest m = minimal();

        ASSERT_OK(symlink("nowhere.yaml", at("dangling.yaml")));
        ASSERT_EQ(manifest_write_file(at("dangling.yaml"), &m, NULL, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "symbolic link to a missing file");
        ASSERT_EQ(manifest_write_file(at("real"), &m, NULL, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "not a regular file");
        ASSERT_TRUE(manifest_write_file(at("missing/app.yaml"), &m, NULL, &err) == -ENOENT);
        ASSERT_TRUE(access(at("nowhere.yaml"), F_OK) < 0);
}

TEST(invalid_manifest_is_never_written)
{
        char *bad[] = {"FOO=BAR"};
        struct manifest m = minimal();

        m.entrypoint = "";
        ASSERT_EQ(manifest_write_file(at("bad.yaml"), &m, NULL, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "entrypoint is required");
        m = minimal();
        m.env = bad, m.n_env = 1;
        ASSERT_EQ(manifest_write_file(at("bad.yaml"), &m, NULL, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "invalid env name");
        ASSERT_EQ(manifest_write_file(at("bad.yaml"), NULL, NULL, &err), -EINVAL);
        ASSERT_TRUE(access(at("bad.yaml"), F_OK) < 0);
}

static bool str_eq(const char *a, const char *b)
{
        return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool strv_eq(char *const *a, size_t na, char *const *b, size_t nb)
{
        if (na != nb)
                return false;
        for (size_t i = 0; i < na; i++)
                if (!str_eq(a[i], b[i]))
                        return false;
        return true;
}

/* Everything the canonical form carries; the path and the places are the
 * loader's bookkeeping, not policy. */
static bool manifest_eq(const struct manifest *a, const struct manifest *b)
{
        const struct manifest_limits *la = &a->limits, *lb = &b->limits;
        const struct manifest_provenance *pa = &a->provenance, *pb = &b->provenance;

        if (a->n_network != b->n_network)
                return false;
        for (size_t i = 0; i < a->n_network; i++)
                if (!str_eq(a->network[i].host, b->network[i].host) ||
                    !str_eq(a->network[i].port, b->network[i].port))
                        return false;
        return str_eq(a->entrypoint, b->entrypoint) && str_eq(a->interpreter, b->interpreter) &&
               strv_eq(a->interpreter_args, a->n_interpreter_args, b->interpreter_args,
                       b->n_interpreter_args) &&
               strv_eq(a->args, a->n_args, b->args, b->n_args) &&
               strv_eq(a->env, a->n_env, b->env, b->n_env) &&
               strv_eq(a->read, a->n_read, b->read, b->n_read) &&
               strv_eq(a->write, a->n_write, b->write, b->n_write) && a->exec == b->exec &&
               str_eq(la->memory, lb->memory) && str_eq(la->cpu, lb->cpu) && la->pids == lb->pids &&
               str_eq(pa->generated_by, pb->generated_by) &&
               str_eq(pa->generated_at, pb->generated_at) && str_eq(pa->approves, pb->approves) &&
               strv_eq(pa->blocked_hosts, pa->n_blocked_hosts, pb->blocked_hosts,
                       pb->n_blocked_hosts);
}

/* parse(write(m)) == m, and writing the parsed copy gives the same bytes. */
static int round_trip(const struct manifest *m)
{
        cleanup_manifest struct manifest *back = NULL;
        cleanup_free char *yaml = NULL, *again = NULL;
        size_t len = 0, len2 = 0;

        if (manifest_to_yaml(m, 0, &yaml, &len, &err) < 0 ||
            manifest_parse(yaml, len, "rt.yaml", &back, NULL, &err) < 0)
                return -1;
        if (!manifest_eq(m, back))
                return -2;
        if (manifest_to_yaml(back, 0, &again, &len2, &err) < 0 || strcmp(yaml, again) != 0)
                return -3;
        return 0;
}

/* Valid values that YAML would read as something else when written
 * plainly (args are not path-screened beyond control characters). */
static char *rt_args[] = {
    "say \"hi\"",
    "back\\slash",
    "# not a comment",
    "- not a list",
    "yes",
    "~",
    "null",
    "123",
    "*star &amp !bang",
    "{[,]}: x",
    "  padded  ",
    "",
    "caf\xc3\xa9 \xd7\xa9",
    "\xf0\x9f\x8d\xb1 bento",
    "'single'",
    "key: value",
    "@at `tick` %pct",
};

TEST(round_trip_through_the_parser)
{
        struct manifest m = full(), n = minimal();

        ASSERT_EQ(round_trip(&m), 0);
        ASSERT_EQ(round_trip(&n), 0);
        n.args = rt_args;
        n.n_args = sizeof(rt_args) / sizeof(rt_args[0]);
        n.exec = MANIFEST_EXEC_NONE_STRICT;
        n.limits.memory = "512K";
        ASSERT_EQ(round_trip(&n), 0);
}

TEST(written_file_parses_back)
{
        cleanup_manifest struct manifest *back = NULL;
        struct manifest m = full();

        ASSERT_OK(manifest_write_file(at("rt.yaml"), &m, NULL, &err));
        ASSERT_OK(manifest_load(at("rt.yaml"), &back, NULL, &err));
        ASSERT_TRUE(manifest_eq(&m, back));
}

/* Run as an unprivileged uid (root ignores directory permissions), in a
 * child so the test process keeps its identity. */
static int write_as_nobody(const char *path)
{
        struct manifest m = minimal();
        pid_t pid = fork();
        int status = 0;

        if (pid == 0) {
                if (geteuid() == 0 &&
                    (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
                        _exit(3);
                if (manifest_write_file(path, &m, NULL, &err) != -EACCES)
                        _exit(1);
                _exit(strstr(err.msg, "write and search permission") && strstr(err.msg, dir) ? 0
                                                                                             : 2);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

TEST(unwritable_directory_is_named)
{
        ASSERT_OK(mkdir(at("ro"), 0755));
        ASSERT_OK(bento_write_file_atomic(at("ro/app.yaml"), "old\n", 4, 0666, &err));
        ASSERT_OK(chmod(dir, 0755));
        ASSERT_OK(chmod(at("ro"), 0555));
        ASSERT_EQ(write_as_nobody(at("ro/app.yaml")), 0);
        ASSERT_OK(chmod(dir, 0700));
        ASSERT_TRUE(has_content(at("ro/app.yaml"), "old\n"));
        ASSERT_EQ(entries(at("ro")), 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st, (void) flag, (void) ftw;
        return remove(path) < 0 ? -1 : 0;
}

TEST(teardown)
{
        ASSERT_OK(nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS));
}

TAP_MAIN();
