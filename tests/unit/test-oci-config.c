/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the config.json model (bundle/oci-config*.c): a realistic
 * podman-style document reads into the expected model, unknown properties
 * are ignored, every rejection rule fires with the JSON path of the bad
 * value, and the writer is deterministic and round-trips byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "oci-config.h"
#include "tap.h"

static struct bento_err err;

/* The members every valid document needs, to build test documents from. */
#define HEAD        "\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"}"
#define USER        "\"user\":{\"uid\":0,\"gid\":0}"
#define PROC(extra) "\"process\":{" USER ",\"args\":[\"sh\"],\"cwd\":\"/\"" extra "}"
#define LINUX(body) "{" HEAD ",\"linux\":{" body "}}"

static const char podman[] =
    "{\"ociVersion\":\"1.0.2-dev\",\"x-vendor\":{\"anything\":[1,2]},"
    "\"process\":{\"terminal\":true,\"consoleSize\":{\"height\":24,\"width\":80},"
    "\"user\":{\"uid\":1000,\"gid\":1000,\"umask\":18,\"additionalGids\":[0,1,2,10],"
    "\"future\":1},"
    "\"args\":[\"/bin/sh\",\"-c\",\"echo hi\"],\"env\":[\"PATH=/usr/bin:/bin\",\"TERM=xterm\"],"
    "\"cwd\":\"/work\",\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
    "\"effective\":[\"CAP_CHOWN\"],\"permitted\":[],\"unknownSet\":[\"x\"]},"
    "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":512},"
    "{\"type\":\"RLIMIT_CORE\",\"hard\":18446744073709551615,\"soft\":18446744073709551615}],"
    "\"noNewPrivileges\":true,\"oomScoreAdj\":-500,\"apparmorProfile\":\"prof\","
    "\"selinuxLabel\":null,\"scheduler\":{\"policy\":\"SCHED_OTHER\"},"
    "\"landlock\":{\"handledAccessFS\":[\"read_file\"],\"rules\":{}}},"
    "\"root\":{\"path\":\"/var/lib/c/merged\",\"readonly\":true},"
    "\"hostname\":\"box\",\"domainname\":\"example\","
    "\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\","
    "\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},{\"destination\":\"/dev\",\"type\":"
    "\"tmpfs\",\"source\":\"tmpfs\",\"options\":[\"mode=755\"]},{\"destination\":\"/data\"}],"
    "\"hooks\":{\"prestart\":[{\"path\":\"/usr/bin/hook\",\"args\":[\"hook\",\"pre\"],"
    "\"env\":[],\"timeout\":5}],\"poststop\":[{\"path\":\"/bin/true\"}],\"weird\":[1]},"
    "\"annotations\":{\"org.z\":\"last\",\"io.container.manager\":\"libpod\",\"a\":\"\"},"
    "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\",\"path\":"
    "\"/run/netns/x\"},{\"type\":\"ipc\"},{\"type\":\"uts\"},{\"type\":\"mount\"},"
    "{\"type\":\"user\"},{\"type\":\"cgroup\"},{\"type\":\"time\"}],"
    "\"uidMappings\":[{\"containerID\":0,\"hostID\":100000,\"size\":65536}],"
    "\"gidMappings\":[{\"containerID\":0,\"hostID\":100000,\"size\":65536}],"
    "\"devices\":[{\"type\":\"c\",\"path\":\"/dev/fuse\",\"major\":10,\"minor\":229,"
    "\"fileMode\":438,\"uid\":0,\"gid\":0},{\"type\":\"p\",\"path\":\"/dev/pipe\"}],"
    "\"sysctl\":{\"net.ipv4.ping_group_range\":\"0 0\",\"kernel.msgmax\":\"8192\"},"
    "\"cgroupsPath\":\"/libpod_parent/libpod-abc\",\"rootfsPropagation\":\"rslave\","
    "\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"}],"
    "\"pids\":{\"limit\":2048},\"memory\":{\"limit\":-1}},"
    "\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":38,"
    "\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\"}]},"
    "\"maskedPaths\":[\"/proc/kcore\",\"/sys/firmware\"],\"readonlyPaths\":[\"/proc/sys\"],"
    "\"mountLabel\":\"system_u\",\"intelRdt\":{\"closID\":\"x\"}}}";

static int parse(const char *doc, struct oci_config **ret)
{
        bento_err_clear(&err);
        return oci_config_parse(doc, strlen(doc), ret, &err);
}

/* The document must be refused, with a message containing want. */
static int rejects(const char *doc, const char *want)
{
        struct oci_config *cfg = NULL;

        if (parse(doc, &cfg) >= 0) {
                oci_config_free(cfg);
                printf("#   accepted: %s\n", doc);
                return 0;
        }
        if (err.code != EINVAL || !strstr(err.msg, want)) {
                printf("#   message \"%s\" (code %d) lacks \"%s\"\n", err.msg, err.code, want);
                return 0;
        }
        return 1;
}

TEST(reads_podman_style_config)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        const struct oci_process *p;

        ASSERT_OK(parse(podman, &cfg));
        ASSERT_STREQ(cfg->oci_version, "1.0.2-dev");
        p = cfg->process;
        ASSERT_TRUE(p && p->terminal && p->has_console_size);
        ASSERT_EQ(p->console_width, 80);
        ASSERT_EQ(p->user.uid, 1000);
        ASSERT_TRUE(p->user.has_umask && p->user.umask == 18);
        ASSERT_EQ(p->user.n_additional_gids, 4);
        ASSERT_EQ(p->user.additional_gids[3], 10);
        ASSERT_EQ(p->n_args, 3);
        ASSERT_STREQ(p->args[2], "echo hi");
        ASSERT_TRUE(p->args[3] == NULL); /* NULL-terminated for execve */
        ASSERT_EQ(p->n_env, 2);
        ASSERT_STREQ(p->cwd, "/work");
        ASSERT_TRUE(p->capabilities->present[OCI_CAP_BOUNDING]);
        ASSERT_EQ(p->capabilities->n[OCI_CAP_BOUNDING], 2);
        ASSERT_TRUE(p->capabilities->present[OCI_CAP_PERMITTED]);
        ASSERT_EQ(p->capabilities->n[OCI_CAP_PERMITTED], 0);
        ASSERT_TRUE(!p->capabilities->present[OCI_CAP_AMBIENT]);
        ASSERT_EQ(p->n_rlimits, 2);
        ASSERT_EQ(p->rlimits[0].resource, RLIMIT_NOFILE);
        ASSERT_EQ(p->rlimits[0].soft, 512);
        ASSERT_TRUE(p->rlimits[1].hard == UINT64_MAX);
        ASSERT_TRUE(p->no_new_privileges && p->has_oom_score_adj && p->oom_score_adj == -500);
        ASSERT_STREQ(p->apparmor_profile, "prof");
        ASSERT_TRUE(p->selinux_label == NULL); /* null is absent */
        ASSERT_TRUE(p->landlock && p->landlock->type == BENTO_JSON_OBJECT);
        ASSERT_STREQ(cfg->root.path, "/var/lib/c/merged");
        ASSERT_TRUE(cfg->root.readonly);
        ASSERT_STREQ(cfg->hostname, "box");
        ASSERT_EQ(cfg->n_mounts, 3);
        ASSERT_EQ(cfg->mounts[0].n_options, 3);
        ASSERT_TRUE(cfg->mounts[2].type == NULL && cfg->mounts[2].source == NULL);
}

TEST(reads_hooks_annotations_linux)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        const struct oci_linux *l;

        ASSERT_OK(parse(podman, &cfg));
        ASSERT_EQ(cfg->n_hooks[OCI_HOOK_PRESTART], 1);
        ASSERT_TRUE(cfg->hooks[OCI_HOOK_PRESTART][0].has_env);
        ASSERT_EQ(cfg->hooks[OCI_HOOK_PRESTART][0].n_env, 0);
        ASSERT_EQ(cfg->hooks[OCI_HOOK_PRESTART][0].timeout, 5);
        ASSERT_TRUE(!cfg->hooks[OCI_HOOK_POSTSTOP][0].has_env);
        ASSERT_TRUE(!cfg->hooks[OCI_HOOK_POSTSTOP][0].has_timeout);
        ASSERT_EQ(cfg->n_annotations, 3); /* sorted by key */
        ASSERT_STREQ(cfg->annotations[0].key, "a");
        ASSERT_STREQ(cfg->annotations[1].key, "io.container.manager");
        ASSERT_STREQ(cfg->annotations[2].value, "last");
        ASSERT_STREQ(oci_config_annotation(cfg, "io.container.manager"), "libpod");
        ASSERT_TRUE(oci_config_annotation(cfg, "nope") == NULL);
        l = &cfg->linux_;
        ASSERT_TRUE(cfg->has_linux);
        ASSERT_EQ(l->n_namespaces, 8);
        ASSERT_STREQ(oci_config_namespace(cfg, OCI_NS_NETWORK)->path, "/run/netns/x");
        ASSERT_TRUE(oci_config_namespace(cfg, OCI_NS_TIME)->path == NULL);
        ASSERT_EQ(l->uid_mappings[0].host_id, 100000);
        ASSERT_EQ(l->gid_mappings[0].size, 65536);
        ASSERT_EQ(l->devices[0].type, 'c');
        ASSERT_EQ(l->devices[0].minor, 229);
        ASSERT_TRUE(l->devices[0].has_file_mode && l->devices[0].file_mode == 438);
        ASSERT_EQ(l->devices[1].major, -1); /* absent, allowed for p */
        ASSERT_STREQ(l->sysctl[0].key, "kernel.msgmax");
        ASSERT_STREQ(l->cgroups_path, "/libpod_parent/libpod-abc");
        ASSERT_STREQ(l->rootfs_propagation, "rslave");
        ASSERT_EQ(l->n_masked_paths, 2);
        ASSERT_STREQ(l->readonly_paths[0], "/proc/sys");
        ASSERT_STREQ(l->mount_label, "system_u");
        ASSERT_EQ(bento_json_get(bento_json_get(l->resources, "pids"), "limit")->u.number.u, 2048);
        ASSERT_STREQ(bento_json_get(l->seccomp, "defaultAction")->u.string.s, "SCMP_ACT_ERRNO");
}

TEST(minimal_config_and_nulls)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct oci_config *cfg2 = NULL;

        ASSERT_OK(parse("{" HEAD "}", &cfg));
        ASSERT_TRUE(cfg->process == NULL && !cfg->has_linux && cfg->n_mounts == 0);
        ASSERT_TRUE(oci_config_namespace(cfg, OCI_NS_PID) == NULL);
        ASSERT_OK(parse("{" HEAD ",\"process\":null,\"linux\":null,\"mounts\":null,"
                        "\"hostname\":null,\"annotations\":null,\"hooks\":null}",
                        &cfg2));
        ASSERT_TRUE(cfg2->process == NULL && !cfg2->has_linux);
        oci_config_free(cfg2);
        ASSERT_TRUE(oci_config_free(NULL) == NULL);
}

TEST(rejects_document_shape)
{
        ASSERT_TRUE(rejects("[]", "expected a JSON object at the top level, got an array"));
        ASSERT_TRUE(
            rejects("{\"root\":{\"path\":\"r\"}}", "ociVersion: required property is missing"));
        ASSERT_TRUE(rejects("{\"ociVersion\":1,\"root\":{\"path\":\"r\"}}",
                            "ociVersion: expected a string, got a number"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"\",\"root\":{\"path\":\"r\"}}",
                            "ociVersion: must not be empty"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"1.0.2\"}", "root: required property is missing"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"1.0.2\",\"root\":\"r\"}",
                            "root: expected an object, got a string"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"1.0.2\",\"root\":{}}",
                            "root.path: required property is missing"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"\"}}",
                            "root.path: must not be empty"));
        ASSERT_TRUE(rejects("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\",\"readonly\":1}}",
                            "root.readonly: expected a boolean, got a number"));
        ASSERT_TRUE(
            rejects("{" HEAD ",\"hostname\":[]}", "hostname: expected a string, got an array"));
        ASSERT_TRUE(rejects("{" HEAD ",\"linux\":[]}", "linux: expected an object, got an array"));
}

TEST(rejects_json_level_problems_with_path)
{
        ASSERT_TRUE(rejects("{" HEAD ",\"annotations\":{\"k\":\"a\",\"k\":\"b\"}}",
                            "annotations: duplicate key \"k\""));
        ASSERT_TRUE(rejects("{" HEAD "," PROC("") ",\"ociVersion\":\"1\"}",
                            "duplicate key \"ociVersion\""));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER
                            ",\"args\":[\"a\\u0000b\"],\"cwd\":\"/\"}}",
                            "process.args[0]: string contains a NUL character"));
        ASSERT_TRUE(rejects("{" HEAD "} trailing", "invalid JSON"));
}

TEST(rejects_oversized_document)
{
        size_t len = OCI_CONFIG_MAX_BYTES + 1;
        cleanup_free char *big = malloc(len);
        struct oci_config *cfg = NULL;

        ASSERT_TRUE(big != NULL);
        memset(big, ' ', len);
        memcpy(big, "{" HEAD "}", strlen("{" HEAD "}"));
        ASSERT_EQ(oci_config_parse(big, len, &cfg, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "the limit is 64 MiB");
        ASSERT_OK(oci_config_parse(big, len - 1, &cfg, &err)); /* trailing spaces are fine */
        oci_config_free(cfg);
}

TEST(rejects_process_rules)
{
        ASSERT_TRUE(
            rejects("{" HEAD ",\"process\":[]}", "process: expected an object, got an array"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER ",\"cwd\":\"/\"}}",
                            "process.args: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER ",\"args\":[],\"cwd\":\"/\"}}",
                            "process.args: must have at least one entry"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER ",\"args\":[\"sh\",7],\"cwd\":\"/\"}}",
                            "process.args[1]: expected a string, got a number"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER ",\"args\":[\"sh\"]}}",
                            "process.cwd: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{" USER ",\"args\":[\"sh\"],\"cwd\":\"work\"}}",
                            "process.cwd: must be an absolute path, got \"work\""));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"env\":\"PATH=/\"") "}",
                            "process.env: expected an array of strings, got a string"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"terminal\":\"yes\"") "}",
                            "process.terminal: expected a boolean, got a string"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"consoleSize\":{\"height\":1}") "}",
                            "process.consoleSize.width: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"oomScoreAdj\":1001") "}",
                            "process.oomScoreAdj: must be between -1000 and 1000, got 1001"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"oomScoreAdj\":4294967296") "}",
                            "process.oomScoreAdj: expected a 32-bit integer, got 4294967296"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"landlock\":[]") "}",
                            "process.landlock: expected an object, got an array"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"capabilities\":{\"bounding\":\"CAP_KILL\"}") "}",
                            "process.capabilities.bounding: expected an array of strings"));
        ASSERT_TRUE(rejects("{" HEAD
                            "," PROC(",\"capabilities\":{\"ambient\":[\"CAP_KILL\",1]}") "}",
                            "process.capabilities.ambient[1]: expected a string, got a number"));
}

TEST(rejects_user_rules)
{
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD
                            ",\"process\":{\"user\":{\"gid\":0},\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.uid: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD
                            ",\"process\":{\"user\":{\"uid\":0},\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.gid: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":\"0\",\"gid\":0},"
                            "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.uid: expected an unsigned 32-bit integer, got a string"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":1.5,\"gid\":0},"
                            "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.uid: expected an unsigned 32-bit integer, got 1.5"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":-1,\"gid\":0},"
                            "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.uid: expected an unsigned 32-bit integer, got -1"));
        ASSERT_TRUE(
            rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":0,\"gid\":4294967296},"
                    "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                    "process.user.gid: expected an unsigned 32-bit integer, got 4294967296"));
        ASSERT_TRUE(
            rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":0,\"gid\":0,\"umask\":true},"
                    "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                    "process.user.umask: expected an unsigned 32-bit integer, got a boolean"));
        ASSERT_TRUE(rejects("{" HEAD ",\"process\":{\"user\":{\"uid\":0,\"gid\":0,"
                            "\"additionalGids\":[1,-2]},\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                            "process.user.additionalGids[1]: expected an unsigned 32-bit integer, "
                            "got -2"));
}

TEST(accepts_uint32_boundaries)
{
        cleanup_oci_config struct oci_config *cfg = NULL;

        ASSERT_OK(parse("{" HEAD ",\"process\":{\"user\":{\"uid\":4294967295,\"gid\":-0},"
                        "\"args\":[\"sh\"],\"cwd\":\"/\"}}",
                        &cfg));
        ASSERT_TRUE(cfg->process->user.uid == UINT32_MAX);
        ASSERT_EQ(cfg->process->user.gid, 0);
}

TEST(rejects_rlimit_rules)
{
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"rlimits\":[{\"type\":\"RLIMIT_FOO\",\"soft\":1,"
                                              "\"hard\":1}]") "}",
                            "process.rlimits[0].type: unknown rlimit \"RLIMIT_FOO\""));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"soft\":1,"
                                              "\"hard\":1},{\"type\":\"RLIMIT_NOFILE\",\"soft\":1,"
                                              "\"hard\":1},{\"type\":\"RLIMIT_CPU\",\"soft\":2,"
                                              "\"hard\":2}]") "}",
                            "process.rlimits[2].type: duplicate rlimit \"RLIMIT_CPU\""));
        ASSERT_TRUE(rejects("{" HEAD
                            "," PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"soft\":\"1\","
                                     "\"hard\":1}]") "}",
                            "process.rlimits[0].soft: expected an unsigned 64-bit integer, got a "
                            "string"));
        ASSERT_TRUE(rejects("{" HEAD
                            "," PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"soft\":1}]") "}",
                            "process.rlimits[0].hard: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CPU\",\"soft\":5,"
                                              "\"hard\":4}]") "}",
                            "process.rlimits[0]: soft limit 5 is above hard limit 4"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"rlimits\":[\"RLIMIT_CPU\"]") "}",
                            "process.rlimits[0]: expected an object, got a string"));
}

TEST(rejects_mount_and_hook_rules)
{
        ASSERT_TRUE(rejects("{" HEAD ",\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"tmpfs\"}]}",
                            "mounts[1].destination: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD ",\"mounts\":[{\"destination\":\"\"}]}",
                            "mounts[0].destination: must not be empty"));
        ASSERT_TRUE(rejects("{" HEAD ",\"mounts\":[{\"destination\":\"/a\",\"options\":[1]}]}",
                            "mounts[0].options[0]: expected a string, got a number"));
        ASSERT_TRUE(
            rejects("{" HEAD ",\"mounts\":{}}", "mounts: expected an array, got an object"));
        ASSERT_TRUE(rejects("{" HEAD ",\"hooks\":{\"prestart\":[{\"path\":\"hook\"}]}}",
                            "hooks.prestart[0].path: must be an absolute path, got \"hook\""));
        ASSERT_TRUE(rejects("{" HEAD ",\"hooks\":{\"createRuntime\":[{\"args\":[\"x\"]}]}}",
                            "hooks.createRuntime[0].path: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD ",\"hooks\":{\"poststop\":[{\"path\":\"/a\"},"
                            "{\"path\":\"/b\",\"timeout\":0}]}}",
                            "hooks.poststop[1].timeout: must be greater than zero, got 0"));
        ASSERT_TRUE(rejects("{" HEAD
                            ",\"hooks\":{\"poststart\":[{\"path\":\"/b\",\"timeout\":-3}]}}",
                            "hooks.poststart[0].timeout: must be greater than zero, got -3"));
        ASSERT_TRUE(rejects("{" HEAD
                            ",\"hooks\":{\"startContainer\":[{\"path\":\"/b\",\"timeout\":1.5}]}}",
                            "hooks.startContainer[0].timeout: expected a 32-bit integer, got 1.5"));
        ASSERT_TRUE(rejects("{" HEAD
                            ",\"hooks\":{\"createContainer\":[{\"path\":\"/b\",\"env\":[false]}]}}",
                            "hooks.createContainer[0].env[0]: expected a string, got a boolean"));
}

TEST(rejects_namespace_and_mapping_rules)
{
        ASSERT_TRUE(rejects(
            LINUX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"ipc\"},{\"type\":\"foo\"}]"),
            "linux.namespaces[2].type: unknown namespace type \"foo\""));
        ASSERT_TRUE(
            rejects(LINUX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"pid\",\"path\":\"/p\"}]"),
                    "linux.namespaces[1].type: duplicate namespace type \"pid\""));
        ASSERT_TRUE(rejects(LINUX("\"namespaces\":[{\"path\":\"/p\"}]"),
                            "linux.namespaces[0].type: required property is missing"));
        ASSERT_TRUE(rejects(LINUX("\"namespaces\":[{\"type\":\"net\"}]"),
                            "linux.namespaces[0].type: unknown namespace type \"net\""));
        ASSERT_TRUE(rejects(LINUX("\"namespaces\":[{\"type\":\"network\",\"path\":\"netns\"}]"),
                            "linux.namespaces[0].path: must be an absolute path"));
        ASSERT_TRUE(rejects(LINUX("\"uidMappings\":[{\"containerID\":0,\"size\":1}]"),
                            "linux.uidMappings[0].hostID: required property is missing"));
        ASSERT_TRUE(
            rejects(LINUX("\"gidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":-1}]"),
                    "linux.gidMappings[0].size: expected an unsigned 32-bit integer, got -1"));
        ASSERT_TRUE(rejects(LINUX("\"uidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":0}]"),
                            "linux.uidMappings[0].size: must be greater than zero"));
        ASSERT_TRUE(rejects(LINUX("\"uidMappings\":[{\"containerID\":0,\"hostID\":4294967295,"
                                  "\"size\":2}]"),
                            "linux.uidMappings[0]: range of 2 ids"));
}

TEST(rejects_device_rules)
{
        ASSERT_TRUE(rejects(
            LINUX("\"devices\":[{\"type\":\"x\",\"path\":\"/dev/x\"}]"),
            "linux.devices[0].type: expected one of \"c\", \"b\", \"u\", \"p\", got \"x\""));
        ASSERT_TRUE(rejects(LINUX("\"devices\":[{\"type\":\"cc\",\"path\":\"/dev/x\"}]"),
                            "linux.devices[0].type: expected one of"));
        ASSERT_TRUE(rejects(LINUX("\"devices\":[{\"type\":\"c\",\"path\":\"dev/x\",\"major\":1,"
                                  "\"minor\":3}]"),
                            "linux.devices[0].path: must be an absolute path"));
        ASSERT_TRUE(
            rejects(LINUX("\"devices\":[{\"type\":\"p\",\"path\":\"/p\"},{\"type\":\"b\","
                          "\"path\":\"/dev/sda\",\"minor\":0}]"),
                    "linux.devices[1].major: required property is missing (for type \"b\")"));
        ASSERT_TRUE(
            rejects(LINUX("\"devices\":[{\"type\":\"u\",\"path\":\"/dev/x\",\"major\":1}]"),
                    "linux.devices[0].minor: required property is missing (for type \"u\")"));
        ASSERT_TRUE(rejects(LINUX("\"devices\":[{\"type\":\"c\",\"path\":\"/dev/x\",\"major\":1,"
                                  "\"minor\":3,\"fileMode\":-1}]"),
                            "linux.devices[0].fileMode: expected an unsigned 32-bit integer"));
        ASSERT_TRUE(rejects(LINUX("\"devices\":[{\"path\":\"/dev/x\"}]"),
                            "linux.devices[0].type: required property is missing"));
}

TEST(rejects_linux_misc_rules)
{
        ASSERT_TRUE(
            rejects(LINUX("\"sysctl\":{\"net.ipv4.ip_forward\":1}"),
                    "linux.sysctl[\"net.ipv4.ip_forward\"]: expected a string, got a number"));
        ASSERT_TRUE(rejects(LINUX("\"sysctl\":[\"a=b\"]"),
                            "linux.sysctl: expected an object, got an array"));
        ASSERT_TRUE(rejects("{" HEAD ",\"annotations\":{\"org.a\":{\"x\":1}}}",
                            "annotations[\"org.a\"]: expected a string, got an object"));
        ASSERT_TRUE(rejects(LINUX("\"rootfsPropagation\":\"recursive\""),
                            "linux.rootfsPropagation: unknown propagation \"recursive\""));
        ASSERT_TRUE(rejects(LINUX("\"maskedPaths\":[\"/proc/kcore\",\"sys\"]"),
                            "linux.maskedPaths[1]: must be an absolute path, got \"sys\""));
        ASSERT_TRUE(rejects(LINUX("\"readonlyPaths\":[\"proc\"]"),
                            "linux.readonlyPaths[0]: must be an absolute path"));
        ASSERT_TRUE(rejects(LINUX("\"resources\":\"max\""), "linux.resources: expected an object"));
        ASSERT_TRUE(
            rejects(LINUX("\"seccomp\":[]"), "linux.seccomp: expected an object, got an array"));
        ASSERT_TRUE(rejects(LINUX("\"cgroupsPath\":5"), "linux.cgroupsPath: expected a string"));
        ASSERT_TRUE(rejects(LINUX("\"mountLabel\":false"), "linux.mountLabel: expected a string"));
}

static const char small_doc[] =
    "{\"linux\":{\"namespaces\":[{\"type\":\"pid\"}],\"sysctl\":{}},\"annotations\":"
    "{\"b\":\"2\",\"a\":\"1\"}," PROC("") ",\"root\":{\"path\":\"rootfs\"},"
                                          "\"ociVersion\":\"1.0.2\"}";

static const char small_golden[] = "{\n"
                                   "  \"ociVersion\": \"1.0.2\",\n"
                                   "  \"process\": {\n"
                                   "    \"terminal\": false,\n"
                                   "    \"user\": {\n"
                                   "      \"uid\": 0,\n"
                                   "      \"gid\": 0\n"
                                   "    },\n"
                                   "    \"args\": [\n"
                                   "      \"sh\"\n"
                                   "    ],\n"
                                   "    \"cwd\": \"/\",\n"
                                   "    \"noNewPrivileges\": false\n"
                                   "  },\n"
                                   "  \"root\": {\n"
                                   "    \"path\": \"rootfs\",\n"
                                   "    \"readonly\": false\n"
                                   "  },\n"
                                   "  \"annotations\": {\n"
                                   "    \"a\": \"1\",\n"
                                   "    \"b\": \"2\"\n"
                                   "  },\n"
                                   "  \"linux\": {\n"
                                   "    \"namespaces\": [\n"
                                   "      {\n"
                                   "        \"type\": \"pid\"\n"
                                   "      }\n"
                                   "    ]\n"
                                   "  }\n"
                                   "}\n";

TEST(writer_golden_output)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_free char *out = NULL;
        size_t len = 0;

        ASSERT_OK(parse(small_doc, &cfg));
        ASSERT_OK(oci_config_write(cfg, &out, &len, &err));
        ASSERT_STREQ(out, small_golden);
        ASSERT_EQ(len, strlen(small_golden));
}

TEST(writer_round_trips_full_config)
{
        cleanup_oci_config struct oci_config *a = NULL;
        cleanup_oci_config struct oci_config *b = NULL;
        cleanup_free char *first = NULL;
        cleanup_free char *second = NULL;
        cleanup_free char *again = NULL;
        size_t n1 = 0, n2 = 0, n3 = 0;

        ASSERT_OK(parse(podman, &a));
        ASSERT_OK(oci_config_write(a, &first, &n1, &err));
        ASSERT_OK(parse(first, &b));
        ASSERT_OK(oci_config_write(b, &second, &n2, &err));
        ASSERT_STREQ(first, second);
        ASSERT_OK(oci_config_write(a, &again, &n3, &err)); /* same model, same bytes */
        ASSERT_STREQ(first, again);
        /* what the model holds is all there */
        ASSERT_CONTAINS(first, "\"memory\": {\n        \"limit\": -1\n      }");
        ASSERT_CONTAINS(first, "\"hard\": 18446744073709551615");
        ASSERT_CONTAINS(first, "\"env\": []");
        ASSERT_CONTAINS(first, "\"permitted\": []");
        ASSERT_CONTAINS(first, "\"landlock\": {");
        ASSERT_TRUE(strstr(first, "intelRdt") == NULL); /* unknown: not in the model */
        ASSERT_TRUE(strstr(first, "x-vendor") == NULL);
        ASSERT_EQ(b->linux_.devices[1].major, -1);
        ASSERT_EQ(b->process->rlimits[1].soft, UINT64_MAX);
}

TEST(writer_handles_built_models)
{
        struct oci_kv kv[] = {{"z", "1"}, {"a", "2"}};
        struct oci_kv dup[] = {{"k", "1"}, {"k", "2"}};
        struct oci_config cfg = {.oci_version = "1.0.2", .root = {.path = "rootfs"}};
        cleanup_free char *out = NULL;
        char *bad = NULL;
        size_t len = 0;

        cfg.annotations = kv;
        cfg.n_annotations = 2;
        ASSERT_OK(oci_config_write(&cfg, &out, &len, &err));
        ASSERT_CONTAINS(out, "\"a\": \"2\",\n    \"z\": \"1\""); /* sorted on output */
        cfg.annotations = dup;
        ASSERT_EQ(oci_config_write(&cfg, &bad, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "duplicate key \"k\"");
        cfg.n_annotations = 0;
        cfg.root.path = NULL;
        ASSERT_EQ(oci_config_write(&cfg, &bad, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "\"path\" is required");
        cfg.root.path = "\xff";
        ASSERT_EQ(oci_config_write(&cfg, &bad, &len, &err), -EILSEQ);
        ASSERT_TRUE(bad == NULL);
}

TEST(load_from_file)
{
        char dir[] = "/tmp/bento-test-XXXXXX";
        char path[64], link[64];
        cleanup_oci_config struct oci_config *cfg = NULL;
        struct oci_config *none = NULL;

        ASSERT_TRUE(mkdtemp(dir) != NULL);
        snprintf(path, sizeof(path), "%s/config.json", dir);
        snprintf(link, sizeof(link), "%s/link.json", dir);
        ASSERT_OK(bento_write_file_atomic(path, podman, strlen(podman), 0644, &err));
        ASSERT_OK(oci_config_load(path, &cfg, &err));
        ASSERT_STREQ(cfg->hostname, "box");
        ASSERT_TRUE(symlink(path, link) == 0);
        ASSERT_EQ(oci_config_load(link, &none, &err), -ELOOP);
        ASSERT_CONTAINS(err.msg, "symbolic link");
        ASSERT_OK(bento_write_file_atomic(path, "{\"ociVersion\":\"1\"}", 18, 0644, &err));
        ASSERT_EQ(oci_config_load(path, &none, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "/config.json: root: required property is missing");
        unlink(link);
        unlink(path);
        ASSERT_EQ(oci_config_load(path, &none, &err), -ENOENT);
        ASSERT_CONTAINS(err.msg, "config.json");
        rmdir(dir);
}

TEST(enum_tables)
{
        ASSERT_STREQ(oci_ns_type_to_string(OCI_NS_NETWORK), "network");
        ASSERT_TRUE(oci_ns_type_to_string(_OCI_NS_MAX) == NULL);
        for (int t = 0; t < _OCI_NS_MAX; t++)
                ASSERT_EQ(oci_ns_type_from_string(oci_ns_type_to_string(t)), t);
        ASSERT_EQ(oci_ns_type_from_string("net"), -1);
        ASSERT_STREQ(oci_hook_kind_to_string(OCI_HOOK_CREATE_CONTAINER), "createContainer");
        ASSERT_TRUE(oci_hook_kind_to_string(_OCI_HOOK_KIND_MAX) == NULL);
        ASSERT_STREQ(oci_cap_set_to_string(OCI_CAP_AMBIENT), "ambient");
        ASSERT_EQ(oci_rlimit_from_string("RLIMIT_RTTIME"), RLIMIT_RTTIME);
        ASSERT_EQ(oci_rlimit_from_string("RLIMIT_MSGQUEUE"), RLIMIT_MSGQUEUE);
        ASSERT_EQ(oci_rlimit_from_string("rlimit_cpu"), -1);
        ASSERT_STREQ(oci_rlimit_to_string(RLIMIT_SIGPENDING), "RLIMIT_SIGPENDING");
        /* every Linux rlimit has a name */
        for (int r = 0; r < RLIMIT_NLIMITS; r++)
                ASSERT_EQ(oci_rlimit_from_string(oci_rlimit_to_string(r)), r);
}

TEST(lists_known_properties_the_model_does_not_carry)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_oci_config struct oci_config *plain = NULL;

        ASSERT_OK(parse("{" HEAD ",\"process\":{" USER ",\"args\":[\"sh\"],\"cwd\":\"/\","
                        "\"scheduler\":{\"policy\":\"SCHED_FIFO\"}},"
                        "\"mounts\":[{\"destination\":\"/a\"},{\"destination\":\"/b\","
                        "\"uidMappings\":[]}],"
                        "\"linux\":{\"personality\":{\"domain\":\"LINUX32\"},"
                        "\"netDevices\":{},\"timeOffsets\":null}}",
                        &cfg));
        /* scheduler, personality and idmapped mounts are modelled now */
        ASSERT_EQ(cfg->n_unmodelled, 1);
        ASSERT_STREQ(cfg->unmodelled[0], "linux.netDevices");
        /* unknown vendor properties are not listed: they are ignored */
        ASSERT_OK(parse("{" HEAD ",\"linux\":{\"x-future\":1}}", &plain));
        ASSERT_EQ(plain->n_unmodelled, 0);
}

TEST(parses_idmapped_mount)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        cleanup_oci_config struct oci_config *again = NULL;
        cleanup_free char *out = NULL;
        size_t len = 0;

        ASSERT_OK(parse("{" HEAD ",\"mounts\":[{\"destination\":\"/d\",\"source\":\"/s\","
                        "\"options\":[\"bind\"],"
                        "\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}],"
                        "\"gidMappings\":[{\"containerID\":5,\"hostID\":2000,\"size\":3}]}]}",
                        &cfg));
        ASSERT_EQ(cfg->mounts[0].n_uid_mappings, 1);
        ASSERT_EQ(cfg->mounts[0].uid_mappings[0].host_id, 1000);
        ASSERT_EQ(cfg->mounts[0].n_gid_mappings, 1);
        ASSERT_EQ(cfg->mounts[0].gid_mappings[0].container_id, 5);
        ASSERT_EQ(cfg->mounts[0].gid_mappings[0].size, 3);
        ASSERT_EQ(cfg->n_unmodelled, 0);
        /* written back for the config copy `state` and `exec` read */
        ASSERT_OK(oci_config_write(cfg, &out, &len, &err));
        ASSERT_OK(parse(out, &again));
        ASSERT_EQ(again->mounts[0].n_uid_mappings, 1);
        ASSERT_EQ(again->mounts[0].uid_mappings[0].host_id, 1000);
        ASSERT_EQ(again->mounts[0].gid_mappings[0].host_id, 2000);
        ASSERT_TRUE(rejects("{" HEAD ",\"mounts\":[{\"destination\":\"/d\",\"uidMappings\":"
                            "[{\"containerID\":0,\"hostID\":1,\"size\":0}]}]}",
                            "mounts[0].uidMappings[0].size: must be greater than zero"));
}

/* The file `exec --process` reads: a process object on its own. */
static int parse_process(const char *doc, struct oci_process **ret)
{
        bento_err_clear(&err);
        return oci_process_parse(doc, strlen(doc), ret, &err);
}

TEST(parses_lone_process)
{
        cleanup_oci_process struct oci_process *p = NULL;

        ASSERT_OK(parse_process("{\"terminal\":true,\"consoleSize\":{\"height\":30,\"width\":"
                                "100}," USER ",\"args\":[\"sh\",\"-c\",\"id\"],"
                                "\"env\":[\"A=1\"],\"cwd\":\"/tmp\",\"noNewPrivileges\":true,"
                                "\"capabilities\":{\"bounding\":[\"CAP_KILL\"]},"
                                "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":64,"
                                "\"hard\":128}],\"x-unknown\":{}}",
                                &p));
        ASSERT_TRUE(p->terminal && p->has_console_size && p->no_new_privileges);
        ASSERT_EQ(p->console_height, 30);
        ASSERT_EQ(p->console_width, 100);
        ASSERT_EQ(p->n_args, 3);
        ASSERT_STREQ(p->args[2], "id");
        /* vectors made by the parser end in NULL (execve takes them as is) */
        ASSERT_TRUE(p->args[3] == NULL && p->env[1] == NULL);
        ASSERT_STREQ(p->cwd, "/tmp");
        ASSERT_TRUE(p->capabilities && p->capabilities->present[OCI_CAP_BOUNDING]);
        ASSERT_EQ(p->n_rlimits, 1);
        ASSERT_EQ(p->rlimits[0].hard, 128);
        ASSERT_TRUE(oci_process_free(NULL) == NULL);
}

TEST(rejects_lone_process_rules)
{
        struct oci_process *p = NULL;

        /* paths start at the object: no "process." prefix */
        ASSERT_TRUE(parse_process("{" USER ",\"args\":[],\"cwd\":\"/\"}", &p) == -EINVAL);
        ASSERT_STREQ(err.msg, "args: must have at least one entry");
        ASSERT_TRUE(parse_process("{" USER ",\"args\":[\"sh\"],\"cwd\":\"rel\"}", &p) == -EINVAL);
        ASSERT_CONTAINS(err.msg, "cwd: must be an absolute path");
        ASSERT_TRUE(parse_process("{\"args\":[\"sh\"],\"cwd\":\"/\"}", &p) == -EINVAL);
        ASSERT_CONTAINS(err.msg, "user: required property is missing");
        ASSERT_TRUE(parse_process("[]", &p) == -EINVAL);
        ASSERT_CONTAINS(err.msg, "expected a JSON object at the top level");
        ASSERT_TRUE(parse_process("{" USER ",\"args\":[\"sh\"],\"cwd\":\"/\",\"cwd\":\"/x\"}", &p) <
                    0);
        ASSERT_CONTAINS(err.msg, "duplicate");
        ASSERT_TRUE(parse_process("{" USER ",\"args\":[\"sh\"],\"cwd\":\"/\","
                                  "\"ioPriority\":{\"class\":\"IOPRIO_CLASS_BE\",\"priority\":9}}",
                                  &p) == -EINVAL);
        ASSERT_STREQ(err.msg, "ioPriority.priority: must be between 0 and 7, got 9");
        /* null reads as absent there too */
        ASSERT_OK(
            parse_process("{" USER ",\"args\":[\"sh\"],\"cwd\":\"/\",\"scheduler\":null}", &p));
        p = oci_process_free(p);
        ASSERT_TRUE(p == NULL);
}

/* ---- runtime-spec 1.2 process attributes ------------------------------------ */

#define ATTRS                                                                                      \
        "\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"nice\":-3,\"flags\":"                      \
        "[\"SCHED_FLAG_RESET_ON_FORK\",\"SCHED_FLAG_DL_OVERRUN\"],\"runtime\":0,"                  \
        "\"deadline\":20000000,\"period\":30000000},"                                              \
        "\"ioPriority\":{\"class\":\"IOPRIO_CLASS_IDLE\"},"                                        \
        "\"execCPUAffinity\":{\"initial\":\"0-3,7\",\"final\":\"\"}"

TEST(reads_process_attributes)
{
        cleanup_oci_config struct oci_config *cfg = NULL;
        const struct oci_process *p;

        ASSERT_OK(parse(
            "{" HEAD "," PROC(
                "," ATTRS) ",\"linux\":{\"personality\":{\"domain\":"
                           "\"LINUX32\",\"flags\":[]},\"memoryPolicy\":{\"mode\":\"MPOL_BIND\","
                           "\"nodes\":\"0-1\",\"flags\":[\"MPOL_F_STATIC_NODES\"]}}}",
            &cfg));
        p = cfg->process;
        ASSERT_TRUE(p->scheduler && p->io_priority && p->exec_cpu_affinity);
        ASSERT_EQ(p->scheduler->policy, 6);
        ASSERT_EQ(p->scheduler->nice, -3);
        ASSERT_EQ(p->scheduler->flags, 0x05);
        /* an explicit 0 is told apart from a missing one (DEADLINE needs both) */
        ASSERT_TRUE(p->scheduler->has_runtime && p->scheduler->runtime == 0);
        ASSERT_TRUE(p->scheduler->has_deadline && p->scheduler->deadline == 20000000);
        ASSERT_EQ(p->scheduler->period, 30000000);
        ASSERT_EQ(p->io_priority->ioclass, 3);
        ASSERT_EQ(p->io_priority->priority, 0);
        ASSERT_STREQ(p->exec_cpu_affinity->initial, "0-3,7");
        ASSERT_STREQ(p->exec_cpu_affinity->final, "");
        ASSERT_EQ(cfg->linux_.personality->domain, 0x0008);
        ASSERT_EQ(cfg->linux_.memory_policy->mode, 2);
        ASSERT_EQ(cfg->linux_.memory_policy->flags, 1ul << 15);
        ASSERT_STREQ(cfg->linux_.memory_policy->nodes, "0-1");
        ASSERT_EQ(cfg->n_unmodelled, 0);
        ASSERT_STREQ(oci_name_of(oci_sched_policies, 2), "SCHED_RR");
        ASSERT_TRUE(oci_name_of(oci_mempolicy_modes, 99) == NULL);
}

TEST(writer_round_trips_process_attributes)
{
        static const char doc[] =
            "{" HEAD "," PROC("," ATTRS) ",\"linux\":{\"personality\":{\"domain\":\"LINUX\"},"
                                         "\"memoryPolicy\":{\"mode\":\"MPOL_LOCAL\",\"flags\":["
                                         "\"MPOL_F_RELATIVE_NODES\","
                                         "\"MPOL_F_NUMA_BALANCING\"]}}}";
        cleanup_oci_config struct oci_config *a = NULL;
        cleanup_oci_config struct oci_config *b = NULL;
        cleanup_free char *first = NULL;
        cleanup_free char *second = NULL;
        size_t n1 = 0, n2 = 0;

        ASSERT_OK(parse(doc, &a));
        ASSERT_OK(oci_config_write(a, &first, &n1, &err));
        ASSERT_OK(parse(first, &b));
        ASSERT_OK(oci_config_write(b, &second, &n2, &err));
        ASSERT_STREQ(first, second);
        ASSERT_CONTAINS(first, "\"policy\": \"SCHED_DEADLINE\"");
        ASSERT_CONTAINS(first, "\"runtime\": 0,");
        /* flags come out in the table's order */
        ASSERT_CONTAINS(first, "\"MPOL_F_NUMA_BALANCING\",\n        \"MPOL_F_RELATIVE_NODES\"");
        ASSERT_CONTAINS(first, "\"class\": \"IOPRIO_CLASS_IDLE\",\n      \"priority\": 0");
        ASSERT_CONTAINS(first, "\"initial\": \"0-3,7\"");
        ASSERT_CONTAINS(first, "\"domain\": \"LINUX\"");
        ASSERT_EQ(b->process->scheduler->flags, a->process->scheduler->flags);
}

TEST(rejects_process_attribute_rules)
{
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"scheduler\":{\"policy\":\"SCHED_X\"}") "}",
                            "process.scheduler.policy: unknown scheduling policy \"SCHED_X\" "
                            "(expected SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_ISO, "
                            "SCHED_IDLE or SCHED_DEADLINE)"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"scheduler\":{}") "}",
                            "process.scheduler.policy: required property is missing"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"scheduler\":{\"policy\":\"SCHED_OTHER\","
                                              "\"nice\":20}") "}",
                            "process.scheduler.nice: must be between -20 and 19, got 20"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"scheduler\":{\"policy\":\"SCHED_OTHER\","
                                              "\"flags\":[\"SCHED_FLAG_RECLAIM\",\"NOPE\"]}") "}",
                            "process.scheduler.flags[1]: unknown scheduler flag \"NOPE\""));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"scheduler\":{\"policy\":\"SCHED_OTHER\","
                                              "\"runtime\":-1}") "}",
                            "process.scheduler.runtime: expected an unsigned"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"ioPriority\":{\"class\":\"BE\"}") "}",
                            "process.ioPriority.class: unknown I/O priority class \"BE\""));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"execCPUAffinity\":{\"final\":\"1,\"}") "}",
                            "process.execCPUAffinity.final: \"1,\" is not a CPU list"));
        ASSERT_TRUE(rejects("{" HEAD "," PROC(",\"execCPUAffinity\":{\"initial\":\"8192\"}") "}",
                            "process.execCPUAffinity.initial: CPU 8192 is past the largest Linux "
                            "allows (8191)"));
        ASSERT_TRUE(
            rejects(LINUX("\"personality\":{\"domain\":\"LINUX32\",\"flags\":[\"X\"]}"),
                    "linux.personality.flags[0]: runtime-spec defines no personality flags"));
        ASSERT_TRUE(rejects(LINUX("\"personality\":{\"domain\":\"linux\"}"),
                            "linux.personality.domain: unknown personality domain \"linux\""));
        ASSERT_TRUE(rejects(LINUX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"nodes\":\"0 1\"}"),
                            "linux.memoryPolicy.nodes: \"0 1\" is not a node list"));
        ASSERT_TRUE(rejects(LINUX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"nodes\":\"1024\"}"),
                            "linux.memoryPolicy.nodes: node 1024 is past the largest Linux allows "
                            "(1023)"));
        ASSERT_TRUE(rejects(LINUX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"flags\":[1]}"),
                            "linux.memoryPolicy.flags[0]: expected a string"));
}

TAP_MAIN()
