# SPDX-License-Identifier: Apache-2.0
"""linux.resources and the cgroup verbs: limits applied, read back and
enforced (memory hog OOM-killed, fork bomb stopped, CPU quota throttling),
pause/resume, ps, update, kill --all, cgroupsPath placement, and no cgroup
left behind by delete, by a failed create, or by many containers at once."""

import json
import os
import time

import pytest

import harness
from harness import expect_create_failure, wait_for

MiB = 1 << 20
CGROOT = "/sys/fs/cgroup"


# -- host-side helpers --------------------------------------------------------

def caller_cgroups():
    """{hierarchy key: path} of this process, from /proc/self/cgroup."""
    out = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            hid, ctrls, path = line.rstrip("\n").split(":", 2)
            out["unified" if hid == "0" else ctrls] = path
    return out


def mount_points():
    """{hierarchy key: mount point} of the cgroup hierarchies."""
    out = {}
    keys = caller_cgroups().keys()
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, post = line.rstrip("\n").split(" - ", 1)
            fstype, _src, superopts = post.split(" ")[:3]
            mnt = pre.split(" ")[4]
            if fstype == "cgroup2":
                out.setdefault("unified", mnt)
            elif fstype == "cgroup":
                opts = set(superopts.split(","))
                for k in keys:
                    if k != "unified" and set(k.split(",")) <= opts:
                        out.setdefault(k, mnt)
    return out


def v1_key(ctrl):
    for k in caller_cgroups():
        if ctrl in k.split(","):
            return k
    raise AssertionError("no v1 hierarchy with %s on this host" % ctrl)


def cg_info(rt, cid):
    st = rt.state_json(cid)
    assert "cgroup" in st.get("bento", {}), "state has no cgroup facts:\n%s" % json.dumps(st, indent=1)
    return st["bento"]["cgroup"]


def host_dir(info, ctrl):
    key = v1_key(ctrl) if ctrl != "unified" else "unified"
    return mount_points()[key] + info["paths"][key]


def read_host(info, ctrl, name):
    with open(os.path.join(host_dir(info, ctrl), name)) as f:
        return f.read().strip()


def all_dirs(info):
    mp = mount_points()
    return [mp[k] + p for k, p in info["paths"].items()]


def pure_v2():
    """Only the unified hierarchy is mounted (most hosts today: Debian 12,
    Ubuntu 22.04, Fedora; the guest VM of `make check-vm`)."""
    return set(mount_points()) == {"unified"}


def limit(info, v1ctrl, v1file, v2file):
    """The host file holding a limit: v1's in that controller's hierarchy,
    or on pure v2 the unified one's."""
    if pure_v2():
        return read_host(info, "unified", v2file)
    return read_host(info, v1ctrl, v1file)


def default_base(mine, key):
    """Where a relative cgroup path starts: the caller's own cgroup, or on
    pure v2 its parent (the caller's cgroup holds processes, and v2 enables
    no controller below such a cgroup)."""
    base = mine[key].rstrip("/")
    return base.rsplit("/", 1)[0] if pure_v2() else base


def weight(shares):
    """cpu.shares as v2's cpu.weight, the conversion runc and crun use."""
    return 1 + ((shares - 2) * 9999) // 262142


def resources_bundle(bundle, resources, *args):
    b = bundle(*args) if args else bundle()
    b.linux["resources"] = resources
    return b


def assert_gone(dirs):
    left = [d for d in dirs if os.path.exists(d)]
    assert left == [], "cgroup directories left: %s" % left


def is_hybrid_or_v1():
    return any(k != "unified" for k in mount_points())




# -- placement, read-back, removal -------------------------------------------

def test_limits_are_applied_read_back_and_removed(rt, bundle):
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB, "swap": 64 * MiB, "reservation": 32 * MiB},
                                  "cpu": {"shares": 512, "quota": 30000, "period": 100000, "cpus": "0"},
                                  "pids": {"limit": 40}},
                         "/bin/bento-probe", "sleep", "30")
    cid, pid = rt.create_ok(b)
    info = cg_info(rt, cid)
    assert info["driver"] == "cgroupfs"
    assert info["version"] in ("v1", "hybrid", "v2")
    # the state says what the kernel holds
    assert info["memory"]["limit"] == 64 * MiB and info["memory"]["reservation"] == 32 * MiB
    assert info["cpu"]["quota"] == 30000 and info["cpu"]["period"] == 100000 and info["cpu"]["cpus"] == "0"
    assert info["pids"]["limit"] == 40
    # ... and so do the files
    assert int(limit(info, "memory", "memory.limit_in_bytes", "memory.max")) == 64 * MiB
    if pure_v2():
        # memory.swap is memory+swap: equal to the limit, no swap at all
        assert read_host(info, "unified", "memory.swap.max") == "0"
        assert int(read_host(info, "unified", "memory.low")) == 32 * MiB
        assert int(read_host(info, "unified", "cpu.weight")) == weight(512)
        assert read_host(info, "unified", "cpu.max") == "30000 100000"
    else:
        assert int(read_host(info, "memory", "memory.memsw.limit_in_bytes")) == 64 * MiB
        assert int(read_host(info, "cpu", "cpu.shares")) == 512
        assert int(read_host(info, "cpu", "cpu.cfs_quota_us")) == 30000
    assert limit(info, "cpuset", "cpuset.cpus", "cpuset.cpus") == "0"
    assert limit(info, "pids", "pids.max", "pids.max") == "40"
    # the init sits in the container's cgroup in every hierarchy, below
    # where the caller is (the memory hierarchy is /process_api/<vm> here)
    mine = caller_cgroups()
    with open("/proc/%d/cgroup" % pid) as f:
        theirs = {("unified" if l.split(":")[0] == "0" else l.split(":")[1]): l.rstrip("\n").split(":", 2)[2]
                  for l in f}
    for key, path in info["paths"].items():
        assert theirs[key] == path, (key, theirs, info["paths"])
        base = default_base(mine, key)
        assert path == "%s/bento-%s" % (base, cid), (key, path, base)
    dirs = all_dirs(info)
    assert all(os.path.isdir(d) for d in dirs)
    rt.start_ok(cid)
    res = rt.delete(cid, force=True)
    assert res.rc == 0, res
    assert_gone(dirs)
    assert harness.cgroup_dirs_named(cid) == []


def test_no_resources_still_gets_a_cgroup_with_the_device_policy(rt, bundle):
    b = bundle("/bin/bento-probe", "sleep", "30")
    cid, pid = rt.create_ok(b)
    info = cg_info(rt, cid)
    # v1: the devices cgroup's list; v2: the eBPF program's allow rules, as recorded
    if pure_v2():
        devs = [r[len("allow "):] for r in info["devices"] if r.startswith("allow ")]
    else:
        devs = read_host(info, "devices", "devices.list").splitlines()
    assert "a *:* rwm" not in devs, "a root container must not get every device: %s" % devs
    for want in ("c 1:3 rwm", "c 1:5 rwm", "c 136:* rwm", "c 5:2 rwm", "c *:* m"):
        assert want in devs, (want, devs)
    assert rt.delete(cid, force=True).rc == 0
    assert_gone(all_dirs(info))


# -- enforcement from inside --------------------------------------------------

def test_memory_hog_is_killed_by_the_oom_killer_and_reported(rt, bundle):
    limits = {"memory": {"limit": 32 * MiB, "swap": 32 * MiB}}
    small = resources_bundle(bundle, limits)
    res = rt.run_probe(small, "hog", "4")
    assert res.out.strip() == "OK 4", res
    assert "OOM" not in res.err, res
    hog = resources_bundle(bundle, limits)
    res = rt.run_probe(hog, "hog", "512", expect_rc=137, timeout=60)
    assert "OK" not in res.out, "the hog got 512 MiB under a 32 MiB limit:\n%s" % res
    assert "killed by the OOM killer at its memory limit" in res.err, res
    assert harness.cgroup_dirs_named(res.cid) == []


def test_run_report_counts_oom_kills(rt, bundle, tmp_path):
    limits = {"memory": {"limit": 32 * MiB, "swap": 32 * MiB}}
    b = resources_bundle(bundle, limits)
    b.probe("hog", "512")
    report = str(tmp_path / "report.json")
    res = rt.run(b, None, "--report", report, timeout=60)
    assert res.rc == 137, res
    with open(report) as f:
        rep = json.load(f)
    assert rep["started"] and rep["status"] == {"signaled": 9}, rep
    assert rep["bento"]["oomKills"] >= 1, rep
    assert harness.cgroup_dirs_named(res.cid) == []


def test_pids_limit_stops_a_fork_bomb(rt, bundle):
    limit = 16
    b = resources_bundle(bundle, {"pids": {"limit": limit}})
    steps = rt.run_script(b, ["forks", "5"], ["forks", "200"])
    few, bomb = steps[0].json(), steps[1].json()
    assert few == {"forked": 5, "errno": None}, steps
    # the shell and the probe hold two of the slots
    assert bomb["errno"] == "EAGAIN", steps
    assert limit - 4 <= bomb["forked"] <= limit - 2, steps


def test_cpu_quota_throttles_and_is_visible_inside(rt, bundle):
    b = resources_bundle(bundle, {"cpu": {"quota": 20000, "period": 100000}})
    b.set_ns("cgroup")
    b.add_mount("/sys/fs/cgroup", type="cgroup", source="cgroup", options=["nosuid", "noexec", "nodev", "ro"])
    cpu_dir = "/sys/fs/cgroup/%s" % v1_key("cpu") if is_hybrid_or_v1() else "/sys/fs/cgroup"
    quota_file = "cpu.cfs_quota_us" if is_hybrid_or_v1() else "cpu.max"
    steps = rt.run_script(b, ["read", "/proc/self/cgroup"], ["read", "%s/%s" % (cpu_dir, quota_file)],
                          ["spin", "2"], timeout=60)
    text = steps[0].json()["data"]
    cpu_line = [l for l in text.splitlines() if ":cpu:" in l or ":cpu," in l or l.startswith("0::")]
    assert cpu_line and all(l.endswith(":/") for l in cpu_line), \
        "inside its cgroup namespace the container should be at the root: %r" % text
    qtext = steps[1].json()["data"]
    assert qtext.split()[0] == "20000", qtext
    spin = steps[2].json()
    ratio = spin["cpu"] / spin["wall"]
    assert spin["wall"] >= 1.9 and ratio < 0.35, "20%% quota but the probe got %.0f%% of a CPU: %s" % (
        ratio * 100, spin)


def test_cpu_shares_and_cpuset_inside(rt, bundle):
    cpu = "1" if os.cpu_count() > 1 else "0"
    b = resources_bundle(bundle, {"cpu": {"shares": 256, "cpus": cpu, "mems": "0"}}, "/bin/bento-probe", "sleep", "30")
    cid, pid = rt.create_ok(b)
    info = cg_info(rt, cid)
    assert info["cpu"]["cpus"] == cpu
    if pure_v2():
        assert read_host(info, "unified", "cpu.weight") == str(weight(256))
    else:
        assert info["cpu"]["shares"] == 256
        assert read_host(info, "cpu", "cpu.shares") == "256"
    with open("/proc/%d/status" % pid) as f:
        allowed = [l.split()[1] for l in f if l.startswith("Cpus_allowed_list")]
    assert allowed == [cpu], allowed
    assert rt.delete(cid, force=True).rc == 0


def test_device_rules_are_enforced(rt, bundle):
    b = bundle()
    # what podman sends (deny everything), then a rule that takes /dev/zero
    # (a default device) away again
    b.linux["resources"] = {"devices": [{"allow": False, "access": "rwm"},
                                        {"allow": False, "type": "c", "major": 1, "minor": 5, "access": "rwm"}]}
    steps = rt.run_script(b, ["write", "/dev/null"], ["write", "/dev/zero"])
    assert steps[0].line == "OK", steps
    assert steps[1].line == "EPERM", "the devices cgroup should refuse 1:5: %s" % steps


# -- failures leave nothing ---------------------------------------------------

@pytest.mark.parametrize("resources,message", [
    ({"memory": {"limit": 1}}, "memory.limit"),
    ({"cpu": {"cpus": str((os.cpu_count() or 1) + 7)}}, "cpu.cpus"),
    ({"cpu": {"shares": 1}}, "cpu.shares"),
    ({"memory": {"limit": 64 * MiB, "swap": 32 * MiB}}, "linux.resources.memory.swap"),
    ({"pids": {"limit": "many"}}, "linux.resources.pids.limit"),
])
def test_impossible_limits_fail_create_and_leave_no_cgroup(rt, bundle, resources, message):
    b = resources_bundle(bundle, resources)
    expect_create_failure(rt, b, message=message)


def test_a_limit_that_does_not_take_is_an_error(rt, bundle):
    # the kernel clamps cpu.shares to 2..262144: asking for 1 leaves 2
    res = expect_create_failure(rt, resources_bundle(bundle, {"cpu": {"shares": 1}}), message="cpu.shares")
    if pure_v2():
        # v2 has no shares: the weight it maps to does not exist for 1
        assert "1 is outside 2..262144" in res.err, res
    else:
        assert "kernel holds 2" in res.err, res


@pytest.mark.parametrize("member,value", [
    ("hugepageLimits", [{"pageSize": "2MB", "limit": 2 * MiB}]),
    ("network", {"classID": 1}),
    ("rdma", {"mlx5_0": {"hcaHandles": 3}}),
    ("unified", {"memory.high": "100000000"}),
])
def test_unsupported_members_are_refused_with_their_path(rt, bundle, member, value):
    b = resources_bundle(bundle, {member: value})
    if member == "unified" and pure_v2():
        # only v2 has the unified files: written as given, and what the
        # kernel holds (memory rounded down to whole pages) is in force
        cid, _ = rt.create_ok(b)
        page = os.sysconf("SC_PAGESIZE")
        assert read_host(cg_info(rt, cid), "unified", "memory.high") == str(100000000 // page * page)
        assert rt.delete(cid, force=True).rc == 0
        return
    expect_create_failure(rt, b, message="linux.resources.%s" % member)


def test_empty_unsupported_members_are_accepted(rt, bundle):
    b = resources_bundle(bundle, {"blockIO": {}, "hugepageLimits": [], "network": {}, "unified": {}})
    # the container really ran: its own exit status comes back
    rt.run_probe(b, "exit", "7", expect_rc=7)


@pytest.mark.skipif(os.path.exists("/run/systemd/system"),
                    reason="systemd runs on this host: --systemd-cgroup is not refused here "
                           "(test_systemd_cgroup_without_a_bus_is_a_clear_error covers its failure)")
def test_systemd_cgroup_without_systemd_is_a_clear_error(rt, bundle):
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}})
    cid = rt.new_id()
    res = rt.create(b, cid, global_opts=["--systemd-cgroup"])
    assert res.rc != 0, res
    assert "systemd is not running" in res.err and "--systemd-cgroup" in res.err, res
    harness.assert_nothing_left(rt, cid, b)



def test_systemd_cgroup_without_a_bus_is_a_clear_error(rt, bundle, test_dir):
    """Past the first check (/run/systemd/system is there), a systemd whose
    bus cannot be reached is the second clear error, on any host: the
    runtime runs in a mount namespace of its own whose /run is an empty
    tmpfs but for that directory, so neither a real systemd's bus nor the
    host's /run is seen, and nothing outside the namespace changes."""
    wrapper = os.path.join(test_dir, "runtime-with-a-systemd-and-no-bus")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec unshare --mount --propagation private sh -c "
                "'mount -t tmpfs -o size=64k,mode=755 bento-test-run /run && "
                "mkdir -p /run/systemd/system && exec \"$0\" \"$@\"' %s \"$@\"\n" % rt.binary)
    os.chmod(wrapper, 0o755)
    real, rt.binary = rt.binary, wrapper
    try:
        b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}})
        cid = rt.new_id()
        res = rt.create(b, cid, global_opts=["--systemd-cgroup"])
    finally:
        rt.binary = real
    assert res.rc != 0, res
    assert "--systemd-cgroup: cannot connect to systemd's system bus" in res.err, res
    assert "systemd is not running" not in res.err, res
    harness.assert_nothing_left(rt, cid, b)


# -- verbs --------------------------------------------------------------------

COUNTER = "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo $i; sleep 0.02; done"


def out_lines(rt, cid):
    return len(rt.container_output(cid).splitlines())


def test_pause_freezes_and_resume_thaws(rt, bundle):
    b = bundle("/bin/sh", "-c", COUNTER)
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    wait_for(lambda: out_lines(rt, cid) > 3, timeout=10, what="the counter to run")
    res = rt.cmd("pause", cid)
    assert res.rc == 0, res
    assert rt.status(cid) == "paused"
    info = cg_info(rt, cid)
    assert limit(info, "freezer", "freezer.state", "cgroup.freeze") == ("1" if pure_v2() else "FROZEN")
    assert harness.proc_state(pid) in ("S", "D"), harness.proc_state(pid)
    before = out_lines(rt, cid)
    time.sleep(0.6)
    assert out_lines(rt, cid) == before, "a paused container made progress"
    assert rt.cmd("pause", cid).rc != 0, "pausing a paused container should fail"
    res = rt.cmd("resume", cid)
    assert res.rc == 0, res
    assert rt.status(cid) == "running"
    wait_for(lambda: out_lines(rt, cid) > before + 3, timeout=10, what="the counter to go on")
    assert rt.cmd("resume", cid).rc != 0, "resuming a running container should fail"
    # a paused container can still be deleted
    assert rt.cmd("pause", cid).rc == 0
    assert rt.delete(cid, force=True).rc == 0
    assert rt.wait_pid_gone(pid)


def test_ps_lists_the_processes(rt, bundle):
    b = bundle("/bin/sh", "-c", "sleep 100 & sleep 100 & wait")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    wait_for(lambda: len(rt.cmd("ps", "--format", "json", cid).json()) == 3, timeout=10,
             what="three processes in the cgroup")
    pids = rt.cmd("ps", "--format", "json", cid).json()
    assert pid in pids and pids == sorted(pids)
    for p in pids:
        assert harness.proc_alive(p)
    table = rt.cmd("ps", cid)
    assert table.rc == 0 and table.lines()[0].split()[0] == "PID" and str(pid) in table.out, table
    assert rt.cmd("ps", "--format", "yaml", cid).rc != 0
    assert rt.delete(cid, force=True).rc == 0


def test_kill_all_reaches_a_forked_child_without_a_pid_namespace(rt, bundle):
    b = bundle("/bin/sh", "-c", "sleep 300 & sleep 300 & wait")
    b.drop_ns("pid")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    wait_for(lambda: len(rt.cmd("ps", "--format", "json", cid).json()) == 3, timeout=10, what="the children")
    pids = rt.cmd("ps", "--format", "json", cid).json()
    res = rt.kill(cid, "KILL", all=True)
    assert res.rc == 0, res
    for p in pids:
        assert rt.wait_pid_gone(p), "pid %d survived kill --all" % p
    assert rt.delete(cid).rc == 0


def test_update_changes_limits_and_state(rt, bundle, test_dir):
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}, "pids": {"limit": 30}},
                         "/bin/bento-probe", "sleep", "60")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    info = cg_info(rt, cid)
    f = os.path.join(test_dir, "res.json")
    with open(f, "w") as fh:
        json.dump({"memory": {"limit": 128 * MiB}}, fh)
    res = rt.cmd("update", "--resources=" + f, cid)  # podman's spelling
    assert res.rc == 0, res
    assert int(limit(info, "memory", "memory.limit_in_bytes", "memory.max")) == 128 * MiB
    assert cg_info(rt, cid)["memory"]["limit"] == 128 * MiB
    res = rt.cmd("update", "--resources", "-", cid, input=json.dumps({"pids": {"limit": 77}}))  # containerd's
    assert res.rc == 0, res
    assert limit(info, "pids", "pids.max", "pids.max") == "77"
    res = rt.cmd("update", "--memory", str(96 * MiB), "--cpu-quota", "50000", "--cpu-period", "100000", cid)
    assert res.rc == 0, res
    now = cg_info(rt, cid)
    assert now["memory"]["limit"] == 96 * MiB and now["cpu"]["quota"] == 50000 and now["pids"]["limit"] == 77
    # refused updates change nothing and say why
    res = rt.cmd("update", "--cpu-shares", "1", cid)
    assert res.rc != 0 and "cpu.shares" in res.err, res
    # (blkio.leaf_weight went with CFQ: this kernel has none; v2 never had
    # it, and there it is ignored aloud)
    res = rt.cmd("update", "--resources", "-", cid, input=json.dumps({"blockIO": {"leafWeight": 10}}))
    if pure_v2():
        assert res.rc == 0 and "leafWeight: 10 ignored" in res.err, res
    else:
        assert res.rc != 0 and "blockIO.leafWeight" in res.err, res
    assert cg_info(rt, cid)["memory"]["limit"] == 96 * MiB
    assert rt.delete(cid, force=True).rc == 0
    assert rt.cmd("update", "--memory", str(64 * MiB), cid).rc != 0


# -- cgroupsPath --------------------------------------------------------------

def test_relative_cgroups_path_is_below_the_caller(rt, bundle):
    cid = rt.new_id()
    b = resources_bundle(bundle, {"pids": {"limit": 10}}, "/bin/bento-probe", "sleep", "30")
    b.linux["cgroupsPath"] = "grp-%s/ctr" % cid
    rt.create_ok(b, cid)
    info = cg_info(rt, cid)
    mine = caller_cgroups()
    for key, path in info["paths"].items():
        assert path == "%s/grp-%s/ctr" % (default_base(mine, key), cid), (key, path)
    assert rt.delete(cid, force=True).rc == 0
    assert harness.cgroup_dirs_named(cid) == [], "the parent made for the path should go too"


def test_absolute_cgroups_path_is_from_the_hierarchy_root(rt, bundle):
    cid = rt.new_id()
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}}, "/bin/bento-probe", "sleep", "30")
    b.linux["cgroupsPath"] = "/abs-%s/ctr" % cid
    rt.create_ok(b, cid)
    info = cg_info(rt, cid)
    assert set(info["paths"].values()) == {"/abs-%s/ctr" % cid}
    assert int(limit(info, "memory", "memory.limit_in_bytes", "memory.max")) == 64 * MiB
    assert rt.delete(cid, force=True).rc == 0
    assert harness.cgroup_dirs_named(cid) == []


def test_cgroups_path_may_not_climb(rt, bundle):
    b = bundle()
    b.linux["cgroupsPath"] = "../../escape"
    expect_create_failure(rt, b, message="cgroupsPath")


# -- many at once -------------------------------------------------------------

@pytest.mark.timeout(240)
def test_twenty_limited_containers_at_once_leave_no_cgroups(rt, bundle):
    runs = []
    for i in range(20):
        b = resources_bundle(bundle, {"memory": {"limit": 32 * MiB}, "pids": {"limit": 20},
                                      "cpu": {"shares": 100 + i}}, "/bin/bento-probe", "hog", "2")
        cid = rt.new_id("cg")
        runs.append((cid, rt.spawn_run(b, cid)))
    rcs = [(cid, rt.finish_spawned(p, timeout=120)) for cid, p in runs]
    bad = [(cid, rc, rt.container_output(cid)) for cid, rc in rcs if rc != 0]
    assert bad == [], bad
    for cid, _ in runs:
        assert harness.cgroup_dirs_named(cid) == [], cid


# -- rootless -----------------------------------------------------------------

@pytest.mark.rootless
def test_rootless_without_resources_runs_without_a_cgroup(rrt, rbundle):
    b = rbundle("/bin/bento-probe", "sleep", "30")
    cid, pid = rrt.create_ok(b)
    st = rrt.state_json(cid)
    assert "cgroup" not in st.get("bento", {}), st
    assert rrt.delete(cid, force=True).rc == 0


@pytest.mark.rootless
def test_rootless_with_resources_and_no_delegation_is_a_clear_error(rrt, rbundle):
    b = rbundle()
    b.linux["resources"] = {"memory": {"limit": 64 * MiB}}
    res = expect_create_failure(rrt, b, message="rootless")
    assert "delegated" in res.err, res


def test_features_report_cgroup_drivers(rt):
    res = rt.cmd("features")
    assert res.rc == 0, res
    cg = res.json()["linux"]["cgroup"]
    assert cg["v1"] is True and cg["v2"] is True and cg["systemd"] is True


# -- a cgroup mount hidden under a later one ----------------------------------

class CoveredMountsView(harness.Runtime):
    """The runtime in a mount namespace where a tmpfs covers /sys/fs/cgroup
    and every hierarchy is mounted again below it as "<name>-2": mountinfo
    still lists the covered mounts first, and only the later ones can be
    reached."""

    SCRIPT = (
        "t=$(mktemp -d) && mount --rbind /sys/fs/cgroup \"$t\" && "
        "mount -t tmpfs tmpfs /sys/fs/cgroup && "
        "for d in \"$t\"/*; do [ -L \"$d\" ] && continue; n=${d##*/}; "
        "mkdir \"/sys/fs/cgroup/$n-2\" && mount --bind \"$d\" \"/sys/fs/cgroup/$n-2\" || exit 99; done && "
        "umount -l \"$t\" && rmdir \"$t\" && exec \"$@\"")
    # on pure v2 /sys/fs/cgroup is the one hierarchy itself
    SCRIPT_V2 = (
        "t=$(mktemp -d) && mount --rbind /sys/fs/cgroup \"$t\" && "
        "mount -t tmpfs tmpfs /sys/fs/cgroup && mkdir /sys/fs/cgroup/unified-2 && "
        "mount --bind \"$t\" /sys/fs/cgroup/unified-2 && "
        "umount -l \"$t\" && rmdir \"$t\" && exec \"$@\"")

    def __init__(self, rt):
        super().__init__(root=rt.root, scratch=rt.scratch)
        self.ids = rt.ids  # the fixture's teardown deletes them, from the host's view
        self.pids = rt.pids

    def argv(self, args, global_opts=()):
        script = self.SCRIPT_V2 if pure_v2() else self.SCRIPT
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh"] + \
            super().argv(args, global_opts)


def test_covered_cgroup_mounts_are_not_used(rt, bundle):
    crt = CoveredMountsView(rt)
    b = resources_bundle(bundle, {"pids": {"limit": 33}}, "/bin/bento-probe", "sleep", "30")
    cid, _pid = crt.create_ok(b)
    info = cg_info(crt, cid)
    key = v1_key("pids") if is_hybrid_or_v1() else "unified"
    # the files the runtime wrote are the host's, seen through the later mounts
    assert read_host(info, "pids" if key != "unified" else "unified", "pids.max") == "33"
    dirs = all_dirs(info)
    assert crt.delete(cid, force=True).rc == 0
    assert_gone(dirs)


# -- the cgroup v2 code paths -------------------------------------------------

class UnifiedOnlyView(harness.Runtime):
    """The runtime in a mount namespace where only the cgroup2 mount is
    left (as crun needs on this host), so it sees a pure v2 host: one
    unified hierarchy, which here holds no memory, cpu or pids controller."""

    def __init__(self, rt, v1_mounts):
        super().__init__(root=rt.root, scratch=rt.scratch)
        self.v1_mounts = v1_mounts
        self.ids = rt.ids  # the fixture's teardown deletes them, from the host's view
        self.pids = rt.pids

    def argv(self, args, global_opts=()):
        script = "for m in %s; do umount -l \"$m\" || exit 99; done; exec \"$@\"" % " ".join(self.v1_mounts)
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh"] + \
            super().argv(args, global_opts)


@pytest.fixture
def v2rt(rt):
    mp = mount_points()
    if "unified" not in mp:
        pytest.fail("this host has no cgroup2 mount; the v2 view needs one")
    return UnifiedOnlyView(rt, sorted(m for k, m in mp.items() if k != "unified"))


def test_v2_placement_freezer_kill_and_removal(v2rt, bundle):
    b = bundle("/bin/sh", "-c", "sleep 300 & sleep 300 & wait")
    b.drop_ns("pid")
    cid, pid = v2rt.create_ok(b)
    info = cg_info(v2rt, cid)
    assert info["version"] == "v2" and list(info["paths"]) == ["unified"], info
    d = mount_points()["unified"] + info["paths"]["unified"]
    assert info["paths"]["unified"] == "%s/bento-%s" % (default_base(caller_cgroups(), "unified"), cid)
    v2rt.start_ok(cid)
    wait_for(lambda: len(v2rt.cmd("ps", "--format", "json", cid).json()) == 3, timeout=10, what="the children")
    assert v2rt.cmd("pause", cid).rc == 0
    with open(os.path.join(d, "cgroup.freeze")) as f:
        assert f.read().strip() == "1"
    assert v2rt.status(cid) == "paused"
    assert v2rt.cmd("resume", cid).rc == 0 and v2rt.status(cid) == "running"
    pids = v2rt.cmd("ps", "--format", "json", cid).json()
    res = v2rt.kill(cid, "KILL", all=True)  # cgroup.kill
    assert res.rc == 0, res
    for p in pids:
        assert v2rt.wait_pid_gone(p), "pid %d survived kill --all" % p
    assert v2rt.delete(cid).rc == 0
    assert not os.path.exists(d)


def test_v2_limit_without_its_controller_is_an_error(v2rt, bundle):
    # where the unified hierarchy has no pids or memory controller (the CI
    # host's, whose controllers are all bound to v1), refusing is the only
    # honest answer; on a pure v2 host the same limits are applied
    if pure_v2():
        v2rt.run_probe(resources_bundle(bundle, {"pids": {"limit": 10}}), "facts")
    else:
        res = expect_create_failure(v2rt, resources_bundle(bundle, {"pids": {"limit": 10}}), message="pids.max")
        assert "No such file" in res.err, res
    # and v2 has no per-cgroup swappiness at all
    expect_create_failure(v2rt, resources_bundle(bundle, {"memory": {"swappiness": 10}}),
                          message="linux.resources.memory.swappiness")
