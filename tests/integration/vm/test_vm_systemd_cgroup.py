# SPDX-License-Identifier: Apache-2.0
"""bento-runtime's systemd cgroup driver (--systemd-cgroup) on a real
systemd host: the container init lands in a transient scope whose limits
systemd itself holds and enforces, and the scope is gone after delete."""

import os
import subprocess

import harness
from test_cgroups import resources_bundle

MiB = 1 << 20
SD = ["--systemd-cgroup"]


def unit_property(unit, prop):
    res = subprocess.run(["systemctl", "show", "-P", prop, unit], capture_output=True, text=True, timeout=30)
    return res.stdout.strip()


def own_cgroup(pid):
    with open("/proc/%d/cgroup" % pid) as f:
        return f.read().strip()


def test_memory_limit_lands_in_a_transient_scope(rt, bundle):
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}})
    b.set_args("/bin/sleep", "600")
    cid = rt.new_id()
    b.linux["cgroupsPath"] = "system.slice:bento:%s" % cid
    cid, pid = rt.create_ok(b, cid, global_opts=SD)
    unit = "bento-%s.scope" % cid
    assert own_cgroup(pid) == "0::/system.slice/%s" % unit
    assert unit_property(unit, "ActiveState") == "active"
    assert unit_property(unit, "MemoryMax") == str(64 * MiB)
    with open("/sys/fs/cgroup/system.slice/%s/memory.max" % unit) as f:
        assert f.read().strip() == str(64 * MiB)
    rt.start_ok(cid)
    assert rt.kill(cid, "KILL").rc == 0
    harness.wait_for(lambda: rt.status(cid) == "stopped", what="container stopped")
    assert rt.delete(cid).rc == 0
    harness.wait_for(lambda: unit_property(unit, "ActiveState") in ("inactive", ""), what="scope gone")
    assert harness.cgroup_dirs_named(cid) == []


def test_the_scope_limit_is_enforced(rt, bundle):
    limits = {"memory": {"limit": 32 * MiB, "swap": 32 * MiB}}
    fits = resources_bundle(bundle, limits)
    res = rt.run_probe(fits, "hog", "4", global_opts=SD)
    assert res.out.strip() == "OK 4", res
    hog = resources_bundle(bundle, limits)
    res = rt.run_probe(hog, "hog", "512", expect_rc=137, global_opts=SD, timeout=120)
    assert "OK" not in res.out, "the hog got 512 MiB under a 32 MiB limit:\n%s" % res
    assert harness.cgroup_dirs_named(res.cid) == []


def test_a_cgroups_path_of_the_wrong_form_is_refused(rt, bundle):
    b = bundle("/bin/true")
    b.linux["cgroupsPath"] = "/not/a/slice/triple"
    res = rt.create(b, rt.new_id(), global_opts=SD)
    assert res.rc != 0
    assert 'with --systemd-cgroup it must be "slice:prefix:name"' in res.err, res


def test_cgroupfs_without_a_path_goes_beside_the_callers_cgroup(rt, bundle):
    """The cgroupfs driver and no cgroupsPath on a pure v2 systemd host: the
    caller's own cgroup (this service) holds processes, so the container's
    cgroup is made beside it, where controllers can be enabled, and its
    memory limit is in force there."""
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB}})
    b.set_args("/bin/sleep", "600")
    cid, pid = rt.create_ok(b)
    caller = own_cgroup(os.getpid()).split("::", 1)[1]
    beside = "%s/bento-%s" % (caller.rsplit("/", 1)[0], cid)
    assert own_cgroup(pid) == "0::%s" % beside
    with open("/sys/fs/cgroup%s/memory.max" % beside) as f:
        assert f.read().strip() == str(64 * MiB)
    rt.start_ok(cid)
    assert rt.kill(cid, "KILL").rc == 0
    harness.wait_for(lambda: rt.status(cid) == "stopped", what="container stopped")
    assert rt.delete(cid).rc == 0
    assert harness.cgroup_dirs_named(cid) == []


def test_the_scope_carries_every_limit_update_and_freeze(rt, bundle):
    """The systemd driver with memory, pids and cpu limits: systemd's
    properties and the scope's files agree; update changes both; pause and
    resume freeze and thaw the scope through cgroup.freeze."""
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB, "swap": 64 * MiB},
                                  "pids": {"limit": 40},
                                  "cpu": {"quota": 50000, "period": 100000, "shares": 512}})
    b.set_args("/bin/sleep", "600")
    cid = rt.new_id()
    b.linux["cgroupsPath"] = "system.slice:bento:%s" % cid
    cid, pid = rt.create_ok(b, cid, global_opts=SD)
    unit = "bento-%s.scope" % cid
    scope = "/sys/fs/cgroup/system.slice/%s" % unit

    def files():
        return {f: open(os.path.join(scope, f)).read().strip()
                for f in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")}

    assert files() == {"memory.max": str(64 * MiB), "memory.swap.max": "0", "pids.max": "40",
                       "cpu.max": "50000 100000"}, files()
    assert unit_property(unit, "TasksMax") == "40"
    assert unit_property(unit, "CPUQuotaPerSecUSec") == "500ms"
    rt.start_ok(cid)
    res = rt.cmd("update", "--memory", str(96 * MiB), "--memory-swap", str(96 * MiB), "--pids-limit", "50",
                 "--cpu-quota", "25000", cid, global_opts=SD)
    assert res.rc == 0, res
    assert files() == {"memory.max": str(96 * MiB), "memory.swap.max": "0", "pids.max": "50",
                       "cpu.max": "25000 100000"}, files()
    events = os.path.join(scope, "cgroup.events")
    assert rt.cmd("pause", cid, global_opts=SD).rc == 0
    harness.wait_for(lambda: "frozen 1" in open(events).read(), what="the scope frozen")
    assert rt.status(cid) == "paused"
    assert rt.cmd("resume", cid, global_opts=SD).rc == 0
    harness.wait_for(lambda: "frozen 0" in open(events).read(), what="the scope thawed")
    assert rt.status(cid) == "running"
    assert rt.kill(cid, "KILL").rc == 0
    harness.wait_for(lambda: rt.status(cid) == "stopped", what="container stopped")
    assert rt.delete(cid).rc == 0
    harness.wait_for(lambda: not os.path.exists(scope), what="scope gone")
