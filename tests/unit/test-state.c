/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for bundle/state.c: the runtime's record round-trips and is
 * type-checked on the way back in (with JSON paths), and the OCI state
 * object has the members engines and hooks read, in a fixed order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "jsonw.h"
#include "state.h"
#include "tap.h"

static struct bento_err err;

static struct bento_applied_ns nss[] = {
    {.type = "pid", .inode = 4026532000ULL},
    {.type = "network", .inode = UINT64_MAX, .joined = true, .path = "/run/netns/x"},
};
static struct bento_applied_mount mounts[] = {
    {.destination = "/proc", .type = "proc", .source = "proc", .options = "rw,nosuid"},
    {.destination = "/data"},
};

/* A record using every field; extra is set by the tests that want it. */
static struct bento_record sample(void)
{
        return (struct bento_record){
            .id = "c1",
            .pid = 4242,
            .start_time = 123456789,
            .bundle = "/srv/bundle",
            .rootfs = "/srv/bundle/rootfs",
            .created = "2026-01-02T03:04:05.123456789Z",
            .owner = "root",
            .cgroup_path = "/bento/c1",
            .systemd_cgroup = true,
            .namespaces = nss,
            .n_namespaces = 2,
            .mounts = mounts,
            .n_mounts = 2,
            .uid_map = "0 1000 1\n",
            .gid_map = "0 1000 1\n",
        };
}

static int parse_record(const char *doc, struct bento_record **ret)
{
        bento_err_clear(&err);
        return bento_record_parse(doc, strlen(doc), ret, &err);
}

static int record_rejects(const char *doc, const char *want)
{
        struct bento_record *rec = NULL;

        if (parse_record(doc, &rec) >= 0) {
                bento_record_free(rec);
                printf("#   accepted: %s\n", doc);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   message \"%s\" lacks \"%s\"\n", err.msg, want);
                return 0;
        }
        return 1;
}

#define REC_HEAD                                                                                   \
        "\"id\":\"c\",\"pid\":1,\"startTime\":2,\"bundle\":\"/b\",\"rootfs\":\"/b/r\","            \
        "\"created\":\"t\",\"owner\":\"root\""

TEST(status_names)
{
        ASSERT_STREQ(bento_status_to_string(BENTO_STATUS_CREATING), "creating");
        ASSERT_STREQ(bento_status_to_string(BENTO_STATUS_CREATED), "created");
        ASSERT_STREQ(bento_status_to_string(BENTO_STATUS_RUNNING), "running");
        ASSERT_STREQ(bento_status_to_string(BENTO_STATUS_PAUSED), "paused");
        ASSERT_STREQ(bento_status_to_string(BENTO_STATUS_STOPPED), "stopped");
        ASSERT_TRUE(bento_status_to_string(_BENTO_STATUS_MAX) == NULL);
        ASSERT_TRUE(bento_status_to_string((enum bento_status) - 1) == NULL);
}

TEST(record_round_trip)
{
        struct bento_record rec = sample();
        cleanup_bento_json struct bento_json *extra = NULL;
        cleanup_bento_record struct bento_record *back = NULL;
        cleanup_free char *first = NULL;
        cleanup_free char *second = NULL;
        size_t n1 = 0, n2 = 0;

        const char *doc = "{\"seccomp\":\"installed\",\"landlockAbi\":4}";

        ASSERT_OK(bento_json_parse(doc, strlen(doc), 100, &extra, &err));
        rec.extra = extra;
        ASSERT_OK(bento_record_write(&rec, &first, &n1, &err));
        ASSERT_EQ(n1, strlen(first));
        ASSERT_OK(parse_record(first, &back));
        ASSERT_STREQ(back->id, "c1");
        ASSERT_EQ(back->pid, 4242);
        ASSERT_EQ(back->start_time, 123456789);
        ASSERT_STREQ(back->bundle, "/srv/bundle");
        ASSERT_STREQ(back->rootfs, "/srv/bundle/rootfs");
        ASSERT_STREQ(back->created, "2026-01-02T03:04:05.123456789Z");
        ASSERT_STREQ(back->owner, "root");
        ASSERT_STREQ(back->cgroup_path, "/bento/c1");
        ASSERT_TRUE(back->systemd_cgroup);
        ASSERT_EQ(back->n_namespaces, 2);
        ASSERT_TRUE(back->namespaces[1].inode == UINT64_MAX && back->namespaces[1].joined);
        ASSERT_STREQ(back->namespaces[1].path, "/run/netns/x");
        ASSERT_TRUE(back->namespaces[0].path == NULL && !back->namespaces[0].joined);
        /* the mount table is not stored: state.json must not grow with it */
        ASSERT_EQ(back->n_mounts, 0);
        ASSERT_TRUE(strstr(first, "\"mounts\"") == NULL && strstr(first, "/proc") == NULL);
        ASSERT_STREQ(back->uid_map, "0 1000 1\n");
        ASSERT_EQ(bento_json_get(back->extra, "landlockAbi")->u.number.u, 4);
        ASSERT_OK(bento_record_write(back, &second, &n2, &err));
        ASSERT_STREQ(first, second);
        ASSERT_CONTAINS(first, "\"applied\": {\n    \"seccomp\": \"installed\"");
}

TEST(record_minimal_and_unknown_members)
{
        cleanup_bento_record struct bento_record *rec = NULL;

        /* an older record's "mounts" array is an unknown member now */
        ASSERT_OK(parse_record("{" REC_HEAD ",\"future\":{\"x\":[1]},\"cgroupPath\":null,"
                               "\"mounts\":[{\"type\":\"x\"}]}",
                               &rec));
        ASSERT_TRUE(rec->cgroup_path == NULL && rec->n_namespaces == 0 && rec->extra == NULL);
        ASSERT_EQ(rec->n_mounts, 0);
        ASSERT_TRUE(!rec->systemd_cgroup);
        ASSERT_TRUE(bento_record_free(NULL) == NULL);
}

/* An intent record says so, and only an intent record does. */
TEST(record_creating_round_trip)
{
        struct bento_record rec = sample();
        cleanup_bento_record struct bento_record *back = NULL;
        cleanup_bento_record struct bento_record *plain = NULL;
        cleanup_free char *buf = NULL;
        cleanup_free char *buf2 = NULL;
        size_t n = 0;

        rec.creating = true;
        ASSERT_OK(bento_record_write(&rec, &buf, &n, &err));
        ASSERT_CONTAINS(buf, "\"creating\": true");
        ASSERT_OK(parse_record(buf, &back));
        ASSERT_TRUE(back->creating);
        rec.creating = false;
        ASSERT_OK(bento_record_write(&rec, &buf2, &n, &err));
        ASSERT_TRUE(strstr(buf2, "creating") == NULL);
        ASSERT_OK(parse_record(buf2, &plain));
        ASSERT_TRUE(!plain->creating);
        ASSERT_EQ(parse_record("{" REC_HEAD ",\"creating\":1}", &back), -EINVAL);
}

TEST(record_rejects_with_path)
{
        ASSERT_TRUE(record_rejects("[]", "expected a JSON object at the top level"));
        ASSERT_TRUE(record_rejects("{\"pid\":1}", "id: required property is missing"));
        ASSERT_TRUE(record_rejects("{\"id\":\"\",\"pid\":1}", "id: must not be empty"));
        ASSERT_TRUE(
            record_rejects("{\"id\":\"c\",\"pid\":\"1\"}",
                           "pid: expected an integer between 0 and 2147483647, got a string"));
        ASSERT_TRUE(
            record_rejects("{\"id\":\"c\",\"pid\":-5}", "pid: expected an integer between 0"));
        ASSERT_TRUE(record_rejects("{\"id\":\"c\",\"pid\":1,\"startTime\":1.5}",
                                   "startTime: expected an unsigned 64-bit integer, got 1.5"));
        ASSERT_TRUE(record_rejects("{\"id\":\"c\",\"pid\":1,\"startTime\":1,\"bundle\":\"rel\"}",
                                   "bundle: must be an absolute path"));
        ASSERT_TRUE(
            record_rejects("{" REC_HEAD ",\"namespaces\":[{\"type\":\"pid\",\"inode\":-1}]}",
                           "namespaces[0].inode: expected an unsigned 64-bit integer, got -1"));
        ASSERT_TRUE(record_rejects("{" REC_HEAD ",\"namespaces\":[{\"inode\":1}]}",
                                   "namespaces[0].type: required property is missing"));
        ASSERT_TRUE(record_rejects("{" REC_HEAD ",\"systemdCgroup\":\"yes\"}",
                                   "systemdCgroup: expected a boolean, got a string"));
        ASSERT_TRUE(record_rejects("{" REC_HEAD ",\"applied\":[1]}",
                                   "applied: expected an object, got an array"));
        ASSERT_TRUE(record_rejects("{" REC_HEAD ",\"owner\":\"x\"}", "duplicate key \"owner\""));
}

TEST(record_size_cap)
{
        size_t len = BENTO_STATE_MAX_BYTES + 1;
        cleanup_free char *big = malloc(len);
        struct bento_record *rec = NULL;

        ASSERT_TRUE(big != NULL);
        memset(big, ' ', len);
        big[0] = '{';
        big[len - 1] = '}';
        ASSERT_EQ(bento_record_parse(big, len, &rec, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "the document is 16,777,217 bytes; the limit is 16 MiB");
}

/* A record the reader would refuse for its size is not written either:
 * create fails instead of leaving a container no verb can read. */
TEST(record_writer_refuses_oversize)
{
        struct bento_record rec = sample();
        size_t big = BENTO_STATE_MAX_BYTES;
        cleanup_free char *map = malloc(big + 1);
        char *out = NULL;
        size_t len = 0;

        ASSERT_TRUE(map != NULL);
        memset(map, '1', big);
        map[big] = '\0';
        rec.uid_map = map;
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "cannot write the state record: it is 16,7");
        ASSERT_CONTAINS(err.msg, " bytes; the limit is 16 MiB");
        ASSERT_TRUE(out == NULL && len == 0);
}

TEST(record_writer_refuses_incomplete)
{
        struct bento_record rec = sample();
        cleanup_bento_json struct bento_json *arr = bento_json_new_array();
        char *out = NULL;
        size_t len = 0;

        rec.id = NULL;
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "id is not set");
        rec = sample();
        rec.bundle = "relative";
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "bundle must be an absolute path");
        rec = sample();
        rec.pid = -1;
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EINVAL);
        rec = sample();
        rec.extra = arr;
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "extra must be a JSON object");
        rec = sample();
        rec.namespaces[0].type = NULL;
        ASSERT_EQ(bento_record_write(&rec, &out, &len, &err), -EINVAL);
        rec.namespaces[0].type = "pid";
        ASSERT_TRUE(out == NULL);
}

TEST(oci_state_compact)
{
        struct bento_oci_state st = {
            .id = "c1",
            .status = BENTO_STATUS_CREATED,
            .pid = 77,
            .bundle = "/b",
        };
        cleanup_free char *out = NULL;
        size_t len = 0;

        ASSERT_OK(bento_oci_state_write(&st, false, &out, &len, &err));
        ASSERT_STREQ(out, "{\"ociVersion\":\"" BENTO_OCI_VERSION "\",\"id\":\"c1\",\"status\":"
                          "\"created\",\"pid\":77,\"bundle\":\"/b\",\"annotations\":{}}");
        ASSERT_EQ(len, strlen(out));
}

TEST(oci_state_with_config_and_record)
{
        struct oci_kv kv[] = {{"org.z", "2"}, {"io.a", "1"}};
        struct oci_config cfg = {.annotations = kv, .n_annotations = 2};
        struct bento_record rec = sample();
        cleanup_bento_json struct bento_json *extra = NULL;
        cleanup_bento_json struct bento_json *doc = NULL;
        struct bento_oci_state st = {
            .id = "c1",
            .status = BENTO_STATUS_STOPPED,
            .pid = 0,
            .bundle = "/b",
            .rootfs = "/b/rootfs",
            .created = "2026-01-01T00:00:00Z",
            .owner = "root",
            .cfg = &cfg,
            .rec = &rec,
        };
        const struct bento_json *bento;
        cleanup_free char *out = NULL;
        size_t len = 0;

        const char *ex = "{\"mounts\":\"shadow\",\"seccomp\":{\"filters\":2}}";

        ASSERT_OK(bento_json_parse(ex, strlen(ex), 100, &extra, &err));
        rec.extra = extra;
        ASSERT_OK(bento_oci_state_write(&st, true, &out, &len, &err));
        ASSERT_TRUE(len > 0 && out[len - 1] == '\n');
        ASSERT_CONTAINS(out,
                        "{\n  \"ociVersion\": \"" BENTO_OCI_VERSION "\",\n  \"id\": \"c1\",\n"
                        "  \"status\": \"stopped\",\n  \"pid\": 0,\n  \"bundle\": \"/b\",\n"
                        "  \"rootfs\": \"/b/rootfs\",\n  \"created\": \"2026-01-01T00:00:00Z\",\n"
                        "  \"owner\": \"root\",\n  \"annotations\": {\n    \"io.a\": \"1\",\n"
                        "    \"org.z\": \"2\"\n  },\n  \"bento\": {");
        /* the output is valid under our own strict reader (no duplicate keys) */
        ASSERT_OK(bento_json_parse(out, len, 1 << 20, &doc, &err));
        bento = bento_json_get(doc, "bento");
        ASSERT_EQ(bento_json_get(bento, "namespaces")->u.array.n, 2);
        ASSERT_STREQ(bento_json_get(bento_json_get(bento, "namespaces")->u.array.items[1], "path")
                         ->u.string.s,
                     "/run/netns/x");
        ASSERT_EQ(bento_json_get(bento, "mounts")->type, BENTO_JSON_ARRAY); /* extra's skipped */
        ASSERT_STREQ(bento_json_get(bento, "uidMap")->u.string.s, "0 1000 1\n");
        ASSERT_EQ(bento_json_get(bento_json_get(bento, "seccomp"), "filters")->u.number.u, 2);
}

TEST(oci_state_refuses_bad_input)
{
        struct bento_oci_state st = {.id = "c1", .status = _BENTO_STATUS_MAX, .bundle = "/b"};
        char *out = NULL;
        size_t len = 0;

        ASSERT_EQ(bento_oci_state_write(&st, false, &out, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "invalid status");
        st.status = BENTO_STATUS_RUNNING;
        st.bundle = NULL;
        ASSERT_EQ(bento_oci_state_write(&st, false, &out, &len, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "\"bundle\" is required");
        st.bundle = "/b";
        st.id = "\xc3";
        ASSERT_EQ(bento_oci_state_write(&st, false, &out, &len, &err), -EILSEQ);
        ASSERT_TRUE(out == NULL);
}

/* The state put into a message is the object bento_oci_state_write makes,
 * byte for byte, and what its parse written again (how the seccomp agent's
 * message carried it before) makes: escapes, sorted annotations, numbers. */
TEST(oci_state_put_is_the_written_object)
{
        struct oci_kv kv[] = {{"org.z", "quote \" and \\ and \u00e9"}, {"io.a", "tab\there"}};
        struct oci_config cfg = {.annotations = kv, .n_annotations = 2};
        struct bento_oci_state st = {.id = "c1",
                                     .status = BENTO_STATUS_CREATING,
                                     .pid = 123456,
                                     .bundle = "/b/\u00fc",
                                     .cfg = &cfg};
        cleanup_bento_json struct bento_json *tree = NULL;
        cleanup_jsonw struct bento_jsonw w = {0}, w2 = {0};
        cleanup_free char *alone = NULL, *put = NULL, *again = NULL, *want = NULL;
        size_t len = 0;

        ASSERT_OK(bento_oci_state_write(&st, false, &alone, &len, &err));
        ASSERT_OK(bento_jsonw_init(&w, false, &err));
        bento_jsonw_open_object(&w);
        bento_jsonw_key(&w, "state");
        bento_oci_state_put(&w, &st);
        bento_jsonw_close_object(&w);
        ASSERT_OK(bento_jsonw_finish(&w, &put, &len));
        ASSERT_TRUE(asprintf(&want, "{\"state\":%s}", alone) > 0);
        ASSERT_STREQ(put, want);
        ASSERT_OK(bento_json_parse(alone, strlen(alone), 1 << 20, &tree, &err));
        ASSERT_OK(bento_jsonw_init(&w2, false, &err));
        bento_jsonw_open_object(&w2);
        bento_jsonw_ktree_opt(&w2, "state", tree);
        bento_jsonw_close_object(&w2);
        ASSERT_OK(bento_jsonw_finish(&w2, &again, &len));
        ASSERT_STREQ(again, put);
}

TEST(oci_state_put_refuses_a_bad_status)
{
        struct bento_oci_state st = {.id = "c1", .status = _BENTO_STATUS_MAX, .bundle = "/b"};
        cleanup_jsonw struct bento_jsonw w = {0};
        char *out = NULL;
        size_t len = 0;

        ASSERT_OK(bento_jsonw_init(&w, false, &err));
        bento_oci_state_put(&w, &st);
        ASSERT_TRUE(bento_jsonw_finish(&w, &out, &len) < 0);
        ASSERT_TRUE(out == NULL);
}

TAP_MAIN()
