# SPDX-License-Identifier: Apache-2.0
"""linux.namespaces: created, inherited, joined by path, rejected."""

import json
import os
import socket
import subprocess

import pytest

from harness import (REAPER, expect_create_failure, ns_inode, proc_alive, proc_status, run_cmd, spawn,
                     wait_for, _forget)

# config type -> /proc/<pid>/ns entry
NS_FILE = {"pid": "pid", "network": "net", "ipc": "ipc", "uts": "uts", "mount": "mnt", "cgroup": "cgroup",
           "user": "user", "time": "time"}


def host_ns(kind):
    return os.stat("/proc/self/ns/%s" % kind).st_ino


def host_netdevs():
    with open("/proc/net/dev") as f:
        return sorted(line.split(":")[0].strip() for line in f.readlines()[2:])


@pytest.fixture
def sleeper():
    """Factory: a host process in namespaces of its own (via unshare), killed at teardown."""
    procs = []

    def make(*unshare_args, script="exec sleep 60"):
        p = spawn(["unshare"] + list(unshare_args) + ["sh", "-c", script], stdin=subprocess.DEVNULL,
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        return p

    yield make
    for p in procs:
        p.kill()
        p.wait(timeout=10)
        _forget(p)


@pytest.fixture
def netns():
    """A named network namespace (ip netns add) with a veth pair inside."""
    name = "bento-it-%s" % os.urandom(3).hex()
    res = run_cmd(["ip", "netns", "add", name], timeout=10)
    assert res.rc == 0, res
    try:
        res = run_cmd(["ip", "-n", name, "link", "add", "bt0", "type", "veth", "peer", "name", "bt1"], timeout=10)
        assert res.rc == 0, res
        yield name
    finally:
        run_cmd(["ip", "netns", "del", name], timeout=10)


def test_requested_namespaces_are_new_others_inherited(rt, bundle):
    b = bundle()
    res = rt.run_probe(b, "ns")
    ns = res.json()
    for kind in ("pid", "net", "ipc", "uts", "mnt"):
        assert ns[kind] != host_ns(kind), "%s namespace was not created" % kind
    for kind in ("user", "cgroup"):
        assert ns[kind] == host_ns(kind), "%s namespace was created but not requested" % kind


def test_state_reports_namespaces(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    st = rt.state_json(cid)
    entries = st["bento"]["namespaces"]
    assert sorted(e["type"] for e in entries) == sorted(["pid", "network", "ipc", "uts", "mount"])
    for e in entries:
        assert e["inode"] == ns_inode(pid, NS_FILE[e["type"]]), e
        assert e["joined"] is False, e
    mounts = st["bento"]["mounts"]
    for m in mounts:
        assert {"destination", "type", "source", "options"} <= set(m), m
    dests = {m["destination"] for m in mounts}
    assert {c["destination"] for c in b.config["mounts"]} <= dests, dests
    assert any(m["destination"] == "/proc" and m["type"] == "proc" for m in mounts), mounts
    # no user namespace: nothing to map
    assert not st["bento"].get("uidMap") and not st["bento"].get("gidMap"), st["bento"]


def test_pid_namespace(rt, bundle):
    b = bundle()
    steps = rt.run_script(b, ["pid"], ["pids"])
    assert steps[0].json()["ppid"] == 1  # sh is pid 1, the probe its child
    # only the container's own processes are visible: sh and the probe
    pids = steps[1].json()
    assert len(pids) == 2 and pids[0] == 1, pids

    b2 = bundle()
    b2.drop_ns("pid")
    pids = rt.run_probe(b2, "pids").json()
    assert os.getpid() in pids, "without a pid namespace the host's processes must be visible"


def test_network_namespace_has_only_loopback_up(rt, bundle):
    b = bundle()
    steps = rt.run_script(b, ["netdevs"], ["loopback"])
    devs = steps[0].json()
    assert [d["name"] for d in devs] == ["lo"], devs
    assert devs[0]["up"] is True, "loopback must be up"
    assert steps[1].line == "OK", steps[1]
    assert "eth0" in host_netdevs() or len(host_netdevs()) > 1


def test_without_network_namespace_host_interfaces_visible(rt, bundle):
    b = bundle()
    b.drop_ns("network")
    devs = rt.run_probe(b, "netdevs").json()
    assert sorted(d["name"] for d in devs) == host_netdevs()


def test_uts_namespace_hostname(rt, bundle):
    before = socket.gethostname()
    b = bundle()
    b.config["hostname"] = "ns-test-host"
    h = rt.run_probe(b, "hostname").json()
    assert h["hostname"] == "ns-test-host"
    assert socket.gethostname() == before


def test_cgroup_namespace(rt, bundle):
    b = bundle()
    b.set_ns("cgroup")
    facts = rt.run_probe(b, "facts").json()
    assert facts["ns"]["cgroup"] != host_ns("cgroup")
    lines = [l for l in facts["cgroup"].splitlines() if l]
    assert lines and all(l.rsplit(":", 1)[1] == "/" for l in lines), facts["cgroup"]

    b2 = bundle()
    facts = rt.run_probe(b2, "facts").json()
    assert facts["ns"]["cgroup"] == host_ns("cgroup")
    mem = [l for l in facts["cgroup"].splitlines() if ":memory:" in l]
    assert mem and mem[0].rsplit(":", 1)[1] != "/", "without a cgroup namespace the real path shows"


def test_join_named_netns(rt, bundle, netns):
    path = "/run/netns/%s" % netns
    b = bundle()
    b.set_ns("network", path)
    b.probe("netdevs")
    cid, pid = rt.create_ok(b)
    assert ns_inode(pid, "net") == os.stat(path).st_ino
    entries = {e["type"]: e for e in rt.state_json(cid)["bento"]["namespaces"]}
    assert entries["network"]["joined"] is True
    assert entries["network"]["path"] == path
    assert entries["network"]["inode"] == os.stat(path).st_ino
    assert entries["pid"]["joined"] is False
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    names = sorted(d["name"] for d in json.loads(rt.container_output(cid)))
    assert names == ["bt0", "bt1", "lo"]


def test_join_namespaces_of_a_process(rt, bundle, sleeper):
    p = sleeper("--net", "--uts", script="hostname joined-uts && exec sleep 60")
    wait_for(lambda: proc_alive(p.pid) and ns_inode(p.pid, "uts") != host_ns("uts")
             and open("/proc/%d/comm" % p.pid).read().strip() == "sleep", timeout=10, what="sleeper")
    b = bundle()
    b.set_ns("network", "/proc/%d/ns/net" % p.pid)
    b.set_ns("uts", "/proc/%d/ns/uts" % p.pid)
    del b.config["hostname"]
    facts = rt.run_probe(b, "facts").json()
    assert facts["ns"]["net"] == ns_inode(p.pid, "net")
    assert facts["ns"]["uts"] == ns_inode(p.pid, "uts")
    assert facts["hostname"]["hostname"] == "joined-uts"
    assert facts["ns"]["ipc"] != host_ns("ipc")


def test_join_namespace_of_wrong_type_rejected(rt, bundle, sleeper):
    p = sleeper("--ipc")
    wait_for(lambda: proc_alive(p.pid), timeout=10, what="sleeper")
    b = bundle()
    b.set_ns("network", "/proc/%d/ns/ipc" % p.pid)
    expect_create_failure(rt, b)


def test_join_missing_namespace_path_rejected(rt, bundle):
    b = bundle()
    b.set_ns("network", "/nonexistent/bento/netns")
    expect_create_failure(rt, b, message="/nonexistent/bento/netns")


def test_duplicate_namespace_type_rejected(rt, bundle):
    b = bundle()
    b.linux["namespaces"].append({"type": "network"})
    expect_create_failure(rt, b, message="linux.namespaces")


def test_unknown_namespace_type_rejected(rt, bundle):
    b = bundle()
    b.linux["namespaces"].append({"type": "bogus"})
    expect_create_failure(rt, b, message="linux.namespaces[5].type")


def test_hostname_needs_uts_namespace(rt, bundle):
    b = bundle()
    b.drop_ns("uts")
    b.config["hostname"] = "no-uts"
    expect_create_failure(rt, b, message="hostname")
    assert socket.gethostname() != "no-uts"


def test_user_namespace_as_root(rt, bundle):
    b = bundle()
    b.set_ns("user")
    b.linux["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    b.linux["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    b.set_args("/bin/sh", "-c", "/bin/bento-probe ids; /bin/bento-probe stat /bin/busybox; "
               "exec /bin/bento-probe sleep 60")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    wait_for(lambda: len(rt.container_output(cid).splitlines()) >= 2, timeout=10, what="probe output")
    ids_line, stat_line = rt.container_output(cid).splitlines()[:2]
    ids = json.loads(ids_line)
    assert (ids["uid"], ids["gid"]) == (0, 0)
    # files owned by host root are unmapped inside: they show as the overflow id
    assert json.loads(stat_line)["uid"] == 65534
    st = proc_status(pid)
    assert st["Uid"].split() == ["100000"] * 4, st["Uid"]
    assert st["Gid"].split() == ["100000"] * 4, st["Gid"]
    with open("/proc/%d/uid_map" % pid) as f:
        assert f.read().split() == ["0", "100000", "65536"]
    assert ns_inode(pid, "user") != host_ns("user")
    state = rt.state_json(cid)
    assert "100000" in state["bento"]["uidMap"] and "100000" in state["bento"]["gidMap"]
    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")
