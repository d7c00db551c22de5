/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/cgroup/ without cgroups: linux.resources checked into limits
 * (memory sizes, -1 for unlimited, 0 for not set, the members refused on
 * v1 or v2), the numbers read back from cgroup files ("max", v1's
 * "unlimited" value) on a scratch directory that stands in for a mount,
 * and the container's cgroup paths chosen from cgroupsPath or taken from
 * a (hostile) state record, never the caller's own cgroup or one above it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/internal.h"
#include "cleanup.h"
#include "mountinfo.h"
#include "json.h"
#include "tap.h"

#define MiB (1024LL * 1024)

static struct bento_err err;
static struct bento_json *doc;
static struct cg_limits lim;

/* cg_limits_parse of the JSON text res in mode; doc keeps the tree alive
 * (lim points into it) until the next call. */
static int limits(const char *res, enum cg_mode mode)
{
        bento_json_free(doc);
        doc = NULL;
        bento_err_clear(&err);
        if (bento_json_parse(res, strlen(res), 1 << 20, &doc, &err) < 0) {
                printf("#   bad test JSON: %s\n", err.msg);
                exit(1);
        }
        return cg_limits_parse(doc, mode, "linux.resources", &lim, &err);
}

/* Refused in mode, with a message that contains want. */
static int refused(const char *res, enum cg_mode mode, const char *want)
{
        if (limits(res, mode) >= 0) {
                printf("#   accepted: %s\n", res);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   \"%s\" lacks \"%s\"\n", err.msg, want);
                return 0;
        }
        return 1;
}

TEST(memory_sizes_unlimited_and_unset)
{
        ASSERT_OK(limits("{\"memory\":{\"limit\":67108864,\"reservation\":33554432,"
                         "\"swap\":134217728,\"swappiness\":0}}",
                         CG_MODE_V1));
        ASSERT_TRUE(lim.has_mem_limit && lim.has_mem_reservation && lim.has_mem_swap);
        ASSERT_EQ(lim.mem_limit, 64 * MiB);
        ASSERT_EQ(lim.mem_reservation, 32 * MiB);
        ASSERT_EQ(lim.mem_swap, 128 * MiB);
        ASSERT_TRUE(lim.has_swappiness); /* 0 is a swappiness, not "unset" */
        ASSERT_EQ(lim.swappiness, 0);
        ASSERT_TRUE(cg_limits_any(&lim));

        ASSERT_OK(limits("{\"memory\":{\"limit\":-1,\"swap\":-1}}", CG_MODE_V2));
        ASSERT_TRUE(lim.has_mem_limit && lim.mem_limit == -1 && lim.mem_swap == -1);

        /* as in runc, 0 means "not set" */
        ASSERT_OK(limits("{\"memory\":{\"limit\":0},\"pids\":{\"limit\":0}}", CG_MODE_V1));
        ASSERT_TRUE(!lim.has_mem_limit && !lim.has_pids);
        ASSERT_TRUE(!cg_limits_any(&lim));
        ASSERT_OK(limits("{}", CG_MODE_V1));
        ASSERT_TRUE(!cg_limits_any(&lim));
        ASSERT_OK(cg_limits_parse(NULL, CG_MODE_V1, "linux.resources", &lim, &err));
}

TEST(memory_values_that_are_refused)
{
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":-2}}", CG_MODE_V1,
                            "linux.resources.memory.limit: expected -1 (unlimited) or a positive"));
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":1.5}}", CG_MODE_V1,
                            "memory.limit: expected an integer"));
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":\"64m\"}}", CG_MODE_V1,
                            "memory.limit: expected an integer"));
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":9223372036854775808}}", CG_MODE_V1,
                            "memory.limit: expected an integer"));
        ASSERT_TRUE(refused("{\"memory\":[]}", CG_MODE_V1, "memory: expected an object"));
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":67108864,\"swap\":1048576}}", CG_MODE_V1,
                            "memory.swap: memory+swap must be at least memory.limit"));
        ASSERT_TRUE(refused("{\"memory\":{\"limit\":-1,\"swap\":1048576}}", CG_MODE_V1,
                            "memory.swap: memory+swap must be at least memory.limit"));
        ASSERT_TRUE(refused("{\"memory\":{\"swap\":1048576}}", CG_MODE_V2,
                            "memory.swap: on cgroup v2 it needs memory.limit"));
        ASSERT_TRUE(refused("{\"memory\":{\"swappiness\":101}}", CG_MODE_V1,
                            "memory.swappiness: expected 0..100"));
        ASSERT_TRUE(refused("{\"memory\":{\"swappiness\":-1}}", CG_MODE_V1,
                            "memory.swappiness: expected an unsigned integer"));
        ASSERT_TRUE(refused("{\"memory\":{\"swappiness\":10}}", CG_MODE_V2,
                            "memory.swappiness: not supported by bento-runtime's cgroup driver "
                            "on cgroup v2"));
        ASSERT_TRUE(refused("{\"memory\":{\"useHierarchy\":true}}", CG_MODE_V1,
                            "memory.useHierarchy: not supported"));
        ASSERT_TRUE(refused("{\"memory\":{\"disableOOMKiller\":true}}", CG_MODE_V2,
                            "memory.disableOOMKiller: not supported"));
        ASSERT_TRUE(refused("{\"memory\":{\"disableOOMKiller\":1}}", CG_MODE_V1,
                            "memory.disableOOMKiller: expected a boolean"));
}

TEST(memory_switches_and_kernel_limits)
{
        ASSERT_OK(limits("{\"memory\":{\"disableOOMKiller\":true,\"useHierarchy\":false}}",
                         CG_MODE_HYBRID));
        ASSERT_TRUE(lim.has_oom_disable && lim.oom_disable);
        /* memory.kernel is checked, then dropped with a warning */
        ASSERT_OK(limits("{\"memory\":{\"kernel\":1048576}}", CG_MODE_V1));
        ASSERT_TRUE(!cg_limits_any(&lim));
        ASSERT_TRUE(refused("{\"memory\":{\"kernel\":-5}}", CG_MODE_V1, "memory.kernel"));
        /* kernelTCP: applied on v1, dropped on v2 */
        ASSERT_OK(limits("{\"memory\":{\"kernelTCP\":1048576}}", CG_MODE_V1));
        ASSERT_TRUE(lim.has_mem_kernel_tcp && lim.mem_kernel_tcp == MiB);
        ASSERT_OK(limits("{\"memory\":{\"kernelTCP\":1048576}}", CG_MODE_V2));
        ASSERT_TRUE(!lim.has_mem_kernel_tcp);
}

TEST(cpu_and_pids)
{
        ASSERT_OK(limits("{\"cpu\":{\"shares\":512,\"quota\":-1,\"period\":100000,"
                         "\"cpus\":\"0-2,4\",\"mems\":\"\"},\"pids\":{\"limit\":-1}}",
                         CG_MODE_V1));
        ASSERT_TRUE(lim.has_shares && lim.shares == 512);
        ASSERT_TRUE(lim.has_quota && lim.quota == -1);
        ASSERT_TRUE(lim.has_period && lim.period == 100000);
        ASSERT_STREQ(lim.cpus, "0-2,4");
        ASSERT_TRUE(lim.mems == NULL); /* "" asks for nothing */
        ASSERT_TRUE(lim.has_pids && lim.pids == -1);
        ASSERT_TRUE(refused("{\"cpu\":{\"cpus\":\"0-2;4\"}}", CG_MODE_V1,
                            "cpu.cpus: expected a list like"));
        ASSERT_TRUE(refused("{\"cpu\":{\"shares\":-1}}", CG_MODE_V1,
                            "cpu.shares: expected an unsigned integer"));
        ASSERT_TRUE(refused("{\"cpu\":{\"burst\":1}}", CG_MODE_V2, "cpu.burst: not supported"));
        ASSERT_TRUE(refused("{\"cpu\":{\"realtimeRuntime\":1000}}", CG_MODE_V2,
                            "cpu.realtimeRuntime: not supported"));
        ASSERT_OK(
            limits("{\"cpu\":{\"realtimeRuntime\":1000,\"realtimePeriod\":5000}}", CG_MODE_V1));
        ASSERT_TRUE(lim.has_rt_runtime && lim.rt_runtime == 1000 && lim.rt_period == 5000);
        ASSERT_TRUE(refused("{\"pids\":5}", CG_MODE_V1, "pids: expected an object"));
        ASSERT_TRUE(refused("{\"pids\":{\"limit\":-3}}", CG_MODE_V1, "pids.limit"));
}

TEST(device_rules)
{
        ASSERT_OK(limits("{\"devices\":[{\"allow\":false,\"access\":\"rwm\"},"
                         "{\"allow\":true,\"type\":\"c\",\"major\":1,\"minor\":-1,"
                         "\"access\":\"rw\"}]}",
                         CG_MODE_V1));
        ASSERT_TRUE(lim.devices != NULL && lim.devices->u.array.n == 2);
        ASSERT_TRUE(refused("{\"devices\":[{\"access\":\"rwm\"}]}", CG_MODE_V1,
                            "devices[0].allow: expected a boolean"));
        ASSERT_TRUE(refused("{\"devices\":[{\"allow\":true},{\"allow\":true,\"type\":\"x\"}]}",
                            CG_MODE_V1, "devices[1].type: expected \"a\", \"c\" or \"b\""));
        ASSERT_TRUE(refused("{\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]}", CG_MODE_V1,
                            "devices[0].access: expected letters from \"rwm\""));
        ASSERT_TRUE(refused("{\"devices\":[{\"allow\":true,\"major\":-2}]}", CG_MODE_V1,
                            "devices[0].major"));
        ASSERT_TRUE(refused("{\"devices\":{}}", CG_MODE_V1, "devices: expected an array"));
}

TEST(unified_and_members_no_driver_applies)
{
        ASSERT_OK(limits("{\"unified\":{\"memory.high\":\"100000000\"}}", CG_MODE_V2));
        ASSERT_TRUE(lim.unified != NULL && cg_limits_any(&lim));
        ASSERT_TRUE(refused("{\"unified\":{\"memory.high\":\"1\"}}", CG_MODE_HYBRID,
                            "unified: not supported by bento-runtime's cgroup driver on a cgroup "
                            "v1 host"));
        ASSERT_TRUE(refused("{\"unified\":{\"cgroup.procs\":\"1\"}}", CG_MODE_V2,
                            "unified.cgroup.procs: not a controller file name"));
        ASSERT_TRUE(refused("{\"unified\":{\"../memory.max\":\"1\"}}", CG_MODE_V2,
                            "not a controller file name"));
        ASSERT_TRUE(refused("{\"unified\":{\"memory.max\":1}}", CG_MODE_V2,
                            "unified.memory.max: expected a string"));
        /* what no driver here applies is refused, unless it asks nothing */
        ASSERT_TRUE(refused("{\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":1}]}", CG_MODE_V1,
                            "linux.resources.hugepageLimits: not supported"));
        ASSERT_TRUE(refused("{\"network\":{\"classID\":1}}", CG_MODE_V1, "network"));
        ASSERT_OK(limits("{\"hugepageLimits\":[],\"network\":{},\"rdma\":null,\"unified\":{}}",
                         CG_MODE_V1));
        ASSERT_TRUE(!cg_limits_any(&lim));
        ASSERT_TRUE(refused("[]", CG_MODE_V1, "linux.resources: expected an object"));
}

TEST(controller_tokens_and_path_containment)
{
        ASSERT_TRUE(bento_mount_opts_all_in("cpu", "cpu,cpuacct"));
        ASSERT_TRUE(bento_mount_opts_all_in("cpuacct,cpu", "cpu,cpuacct"));
        ASSERT_TRUE(!bento_mount_opts_all_in("cpuset", "cpu,cpuacct"));
        ASSERT_TRUE(!bento_mount_opts_all_in("cpu,net_cls", "cpu,cpuacct"));
        ASSERT_TRUE(cg_path_within("/a/b", "/a"));
        ASSERT_TRUE(cg_path_within("/a", "/a"));
        ASSERT_TRUE(cg_path_within("/a", "/"));
        ASSERT_TRUE(!cg_path_within("/ab", "/a"));
        ASSERT_TRUE(!cg_path_within("/a", "/a/b"));
}

/* A hierarchy "mounted" at a scratch directory, the container at /c. */
static char mnt[] = "/tmp/bento-rt-cgroup-XXXXXX";

static void put(const char *file, const char *text)
{
        char p[256];
        FILE *f;

        snprintf(p, sizeof(p), "%s/c/%s", mnt, file);
        f = fopen(p, "w");
        if (!f)
                exit(1);
        fputs(text, f);
        fclose(f);
}

TEST(numbers_read_back_from_cgroup_files)
{
        struct cg_hier h = {.mnt = mnt, .path = "/c", .base = "/"};
        char dir[300], cmd[300];
        int64_t v = 0;

        ASSERT_TRUE(mkdtemp(mnt) != NULL);
        snprintf(dir, sizeof(dir), "mkdir '%s/c'", mnt);
        ASSERT_EQ(system(dir), 0);
        put("memory.max", "max\n");
        put("memory.limit_in_bytes", "9223372036854771712\n");
        put("pids.max", "1024\n");
        put("bad", "12abc\n");
        put("memory.events", "low 0\nhigh 2\nmax 5\noom 1\noom_kill 3\n");
        ASSERT_OK(cg_read_num(&h, "memory.max", &v));
        ASSERT_EQ(v, -1);
        ASSERT_OK(cg_read_num(&h, "memory.limit_in_bytes", &v)); /* v1's "unlimited" */
        ASSERT_EQ(v, -1);
        ASSERT_OK(cg_read_num(&h, "pids.max", &v));
        ASSERT_EQ(v, 1024);
        ASSERT_EQ(cg_read_num(&h, "bad", &v), -EINVAL);
        ASSERT_EQ(cg_read_num(&h, "missing", &v), -ENOENT);
        ASSERT_OK(cg_read_keyed(&h, "memory.events", "oom_kill", &v));
        ASSERT_EQ(v, 3);
        ASSERT_OK(cg_read_keyed(&h, "memory.events", "oom", &v)); /* not "oom_kill" */
        ASSERT_EQ(v, 1);
        ASSERT_EQ(cg_read_keyed(&h, "memory.events", "high_kill", &v), -ENOENT);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", mnt);
        ASSERT_EQ(system(cmd), 0);
}

static void put_at(const char *dir, const char *file, const char *text)
{
        char p[300];
        FILE *f;

        snprintf(p, sizeof(p), "%s%s/%s", mnt, dir, file);
        f = fopen(p, "w");
        if (!f)
                exit(1);
        fputs(text, f);
        fclose(f);
}

static void read_at(const char *dir, const char *file, char *out, size_t size)
{
        char p[300];
        FILE *f;

        snprintf(p, sizeof(p), "%s%s/%s", mnt, dir, file);
        out[0] = '\0';
        f = fopen(p, "r");
        if (!f)
                return;
        if (!fgets(out, (int) size, f))
                out[0] = '\0';
        fclose(f);
}

/* v2: the root and every cgroup between it and the container's hand the
 * controllers down (the container's own cgroup does not: it is a leaf). */
TEST(controllers_are_enabled_down_to_the_leafs_parent)
{
        static const char *const dirs[] = {"", "/a", "/a/b", "/a/b/ctr"};
        struct cg_hier h = {.mnt = mnt, .path = "/a/b/ctr", .base = "/", .v2 = true};
        char cmd[400], got[256];

        strcpy(mnt, "/tmp/bento-rt-cgroup-XXXXXX");
        ASSERT_TRUE(mkdtemp(mnt) != NULL);
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/a/b/ctr'", mnt);
        ASSERT_EQ(system(cmd), 0);
        for (size_t i = 0; i < 4; i++) {
                put_at(dirs[i], "cgroup.controllers", "cpu memory pids\n");
                put_at(dirs[i], "cgroup.subtree_control", "\n");
        }
        ASSERT_OK(cg_enable_controllers(&h, &err));
        for (size_t i = 0; i < 3; i++) {
                read_at(dirs[i], "cgroup.subtree_control", got, sizeof(got));
                ASSERT_STREQ(got, "+cpu +memory +pids");
        }
        read_at("/a/b/ctr", "cgroup.subtree_control", got, sizeof(got));
        ASSERT_STREQ(got, "\n");

        /* one level below the root: the root only */
        h.path = "/a";
        put_at("", "cgroup.subtree_control", "\n");
        put_at("/a", "cgroup.subtree_control", "\n");
        ASSERT_OK(cg_enable_controllers(&h, &err));
        read_at("", "cgroup.subtree_control", got, sizeof(got));
        ASSERT_STREQ(got, "+cpu +memory +pids");
        read_at("/a", "cgroup.subtree_control", got, sizeof(got));
        ASSERT_STREQ(got, "\n");
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", mnt);
        ASSERT_EQ(system(cmd), 0);
}

/* Two hierarchies; the caller sits in /process_api/me in the v1 one. */
static void layout(struct cg_layout *l)
{
        *l = (struct cg_layout){.mode = CG_MODE_HYBRID, .n = 2};
        l->h[0] = (struct cg_hier){.key = strdup("memory"), .base = strdup("/process_api/me")};
        l->h[1] = (struct cg_hier){.key = strdup("unified"), .v2 = true, .base = strdup("/")};
}

TEST(container_paths_from_cgroups_path)
{
        struct cg_layout l;

        layout(&l);
        ASSERT_OK(cg_layout_choose_paths(&l, NULL, "hygiene1", &err));
        ASSERT_STREQ(l.h[0].path, "/process_api/me/bento-hygiene1");
        ASSERT_STREQ(l.h[1].path, "/bento-hygiene1");
        cg_layout_done(&l);

        layout(&l);
        ASSERT_OK(cg_layout_choose_paths(&l, "//pods/x//", "id", &err));
        ASSERT_STREQ(l.h[0].path, "/pods/x");
        cg_layout_done(&l);

        layout(&l);
        ASSERT_OK(cg_layout_choose_paths(&l, "a/b", "id", &err));
        ASSERT_STREQ(l.h[0].path, "/process_api/me/a/b");
        cg_layout_done(&l);

        /* never ".." nor the caller's own cgroup or one above it */
        layout(&l);
        ASSERT_EQ(cg_layout_choose_paths(&l, "a/../../x", "id", &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "linux.cgroupsPath \"a/../../x\": not a usable cgroup path");
        cg_layout_done(&l);
        layout(&l);
        ASSERT_EQ(cg_layout_choose_paths(&l, "/process_api", "id", &err), -EINVAL);
        cg_layout_done(&l);
        layout(&l);
        ASSERT_EQ(cg_layout_choose_paths(&l, "/process_api/me", "id", &err), -EINVAL);
        cg_layout_done(&l);
}

/* A pure v2 host: the caller's cgroup (a service) holds processes, so a
 * relative path starts at its parent, where controllers can be enabled. */
TEST(container_paths_on_pure_v2_start_beside_the_caller)
{
        struct cg_layout l = {.mode = CG_MODE_V2, .n = 1};

        l.h[0] = (struct cg_hier){
            .key = strdup("unified"), .v2 = true, .base = strdup("/system.slice/ci.service")};
        ASSERT_OK(cg_layout_choose_paths(&l, NULL, "v2", &err));
        ASSERT_STREQ(l.h[0].path, "/system.slice/bento-v2");
        cg_layout_done(&l);

        l = (struct cg_layout){.mode = CG_MODE_V2, .n = 1};
        l.h[0] = (struct cg_hier){.key = strdup("unified"), .v2 = true, .base = strdup("/a")};
        ASSERT_OK(cg_layout_choose_paths(&l, "pods/x", "v2", &err));
        ASSERT_STREQ(l.h[0].path, "/pods/x");
        cg_layout_done(&l);

        /* absolute paths are the hierarchy's own, as before */
        l = (struct cg_layout){.mode = CG_MODE_V2, .n = 1};
        l.h[0] = (struct cg_hier){.key = strdup("unified"), .v2 = true, .base = strdup("/a/b")};
        ASSERT_OK(cg_layout_choose_paths(&l, "/x", "v2", &err));
        ASSERT_STREQ(l.h[0].path, "/x");
        cg_layout_done(&l);

        /* the caller at the root: the root */
        l = (struct cg_layout){.mode = CG_MODE_V2, .n = 1};
        l.h[0] = (struct cg_hier){.key = strdup("unified"), .v2 = true, .base = strdup("/")};
        ASSERT_OK(cg_layout_choose_paths(&l, NULL, "v2", &err));
        ASSERT_STREQ(l.h[0].path, "/bento-v2");
        cg_layout_done(&l);
}

static int set_paths(struct cg_layout *l, const char *applied)
{
        cleanup_bento_json struct bento_json *j = NULL;

        bento_err_clear(&err);
        if (bento_json_parse(applied, strlen(applied), 4096, &j, &err) < 0)
                exit(1);
        return cg_layout_set_paths(l, j, &err);
}

TEST(container_paths_from_a_state_record)
{
        struct cg_layout l;

        layout(&l);
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/process_api/me/bento-x\"},"
                                "\"created\":{\"memory\":1}}"),
                  0);
        ASSERT_STREQ(l.h[0].path, "/process_api/me/bento-x");
        ASSERT_EQ(l.h[0].made, 1);
        ASSERT_TRUE(l.h[1].path == NULL); /* not named: unused */
        /* a hierarchy this host does not have is reported */
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"pids\":\"/bento-x\"}}"), 1);
        /* a made count out of range counts as nothing made */
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/x\"},\"created\":{\"memory\":99}}"), 0);
        ASSERT_EQ(l.h[0].made, 0);

        /* hostile records */
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/process_api\"}}"), -EPERM);
        ASSERT_CONTAINS(err.msg, "is, or contains, the runtime's own cgroup /process_api/me");
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"unified\":\"/\"}}"), -EPERM);
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/a/../process_api\"}}"), -EINVAL);
        ASSERT_CONTAINS(err.msg, "applied.cgroup.paths.memory: not a canonical");
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/a//b\"}}"), -EINVAL);
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"/a/\"}}"), -EINVAL);
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":\"a\"}}"), -EINVAL);
        ASSERT_EQ(set_paths(&l, "{\"paths\":{\"memory\":7}}"), -EINVAL);
        ASSERT_EQ(set_paths(&l, "{}"), -EINVAL);
        ASSERT_CONTAINS(err.msg, "applied.cgroup.paths missing");
        cg_layout_done(&l);
        bento_json_free(doc);
}

TAP_MAIN()
