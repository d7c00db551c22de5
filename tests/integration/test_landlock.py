# SPDX-License-Identifier: Apache-2.0
"""process.landlock in the shape proposed for the OCI runtime-spec:
enforced on the target right before execve, reported in `state` and
`features`, and validated in `create` with JSON paths in the errors."""

import ctypes
import os

import pytest

from harness import expect_create_failure

SYS_landlock_create_ruleset = 444
LANDLOCK_CREATE_RULESET_VERSION = 1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def kernel_abi():
    abi = _libc.syscall(SYS_landlock_create_ruleset, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(abi, 0)


FS_READ_EXEC = ["execute", "read_file", "read_dir"]
FS_WRITE = ["write_file", "make_reg", "make_dir", "remove_file", "remove_dir", "truncate"]


def sandbox():
    """Read and execute under /bin and /proc, read and write under /tmp."""
    return {
        "handledAccess": {"handledAccessFS": FS_READ_EXEC + FS_WRITE},
        "rules": {"pathBeneath": [
            {"allowedAccess": FS_READ_EXEC, "paths": ["/bin", "/proc"]},
            {"allowedAccess": ["read_file", "read_dir"] + FS_WRITE, "paths": ["/tmp"]},
        ]},
    }


def landlock_bundle(bundle, landlock):
    b = bundle()
    # writable places: /tmp (allowed) and /dev/shm (not allowed)
    b.add_mount("/tmp", type="tmpfs", source="tmpfs", options=["nosuid", "nodev", "mode=1777"])
    if landlock is not None:
        b.process["landlock"] = landlock
    return b


CHECKS = [
    ("ls", "/bin"),
    ("read", "/proc/self/status"),
    ("write", "/tmp/allowed", "x"),
    ("read", "/tmp/allowed"),
    ("read", "/etc/hostname"),
    ("ls", "/etc"),
    ("write", "/dev/shm/denied", "x"),
]


def run_checks(rt, b):
    steps = rt.run_script(b, *CHECKS)
    return {c: s for c, s in zip(CHECKS, steps)}


@pytest.fixture(scope="module")
def abi():
    v = kernel_abi()
    assert v >= 1, "Landlock is not available on this kernel (machine.md promises ABI 7)"
    return v


def test_landlock_denies_what_the_rules_do_not_grant(rt, bundle, abi):
    got = run_checks(rt, landlock_bundle(bundle, sandbox()))
    for c in CHECKS[:4]:
        assert got[c].rc == 0, "allowed by the rules but refused: %r" % got[c]
    for c in CHECKS[4:]:
        assert got[c].rc == 1 and "EACCES" in got[c].text, "not granted but allowed: %r" % got[c]


def test_same_checks_pass_without_landlock(rt, bundle):
    """Control: the denials above come from Landlock, not from the bundle."""
    got = run_checks(rt, landlock_bundle(bundle, None))
    for c in CHECKS:
        assert got[c].rc == 0, "%r fails even without Landlock" % got[c]
    # and they did what they say: the writes landed, the reads and listings
    # saw the files (the ones Landlock denies above included)
    j = {c: got[c].json() for c in CHECKS if c[0] != "write"}
    assert got[("write", "/tmp/allowed", "x")].text.strip() == "OK", got
    assert j[("read", "/tmp/allowed")]["data"] == "x", got
    assert got[("write", "/dev/shm/denied", "x")].text.strip() == "OK", got
    assert "hostname" in j[("ls", "/etc")]["entries"], got
    assert "sh" in j[("ls", "/bin")]["entries"], got
    assert "Name:" in j[("read", "/proc/self/status")]["data"], got
    assert j[("read", "/etc/hostname")]["size"] > 0, got


def test_a_rule_on_a_file_keeps_only_the_file_rights(rt, bundle, abi):
    """Directory rights (read_dir, make_*) on a file path are dropped for
    that rule, which the kernel would refuse, and the file is granted the
    rest: it reads, while its directory still does not list."""
    ll = sandbox()
    ll["rules"]["pathBeneath"].append({"allowedAccess": FS_READ_EXEC + FS_WRITE, "paths": ["/etc/hostname"]})
    read, listing = rt.run_script(landlock_bundle(bundle, ll), ("read", "/etc/hostname"), ("ls", "/etc"))
    assert read.rc == 0 and read.json()["size"] > 0, read
    assert listing.rc == 1 and "EACCES" in listing.text, listing


def test_network_port_rules(rt, bundle, abi):
    if abi < 4:
        pytest.fail("network rules need Landlock ABI 4; this kernel has %d" % abi)
    b = bundle()
    b.process["landlock"] = {
        "handledAccess": {"handledAccessNetwork": ["bind_tcp"]},
        "rules": {"networkPort": [{"allowedAccess": ["bind_tcp"], "ports": [18081]}]},
    }
    ok, denied = rt.run_script(b, ("bind-port", "18081"), ("bind-port", "18082"))
    assert ok.rc == 0, ok
    assert denied.rc == 1 and "EACCES" in denied.text, denied


def test_state_and_features_report_the_abi(rt, bundle, abi):
    b = landlock_bundle(bundle, sandbox())
    b.probe("sleep", "30")
    cid, _ = rt.create_ok(b)
    ll = rt.state_json(cid)["bento"]["landlock"]
    assert ll["requested"] is True and ll["abi"] == abi, ll
    assert ll["bestEffort"] is True, ll
    assert sorted(ll["handledAccessFS"]) == sorted(FS_READ_EXEC + FS_WRITE), ll
    assert ll["unsupported"] == [], ll

    plain = bundle()
    plain.probe("sleep", "30")
    cid2, _ = rt.create_ok(plain)
    assert rt.state_json(cid2)["bento"]["landlock"] == {"requested": False, "abi": abi}

    res = rt.cmd("features")
    assert res.rc == 0, res
    assert res.json()["annotations"]["org.bento.landlock.abi"] == str(abi)


def test_missing_path_is_skipped_with_best_effort(rt, bundle, abi):
    ll = sandbox()
    ll["rules"]["pathBeneath"][0]["paths"].append("/no/such/dir")
    got = run_checks(rt, landlock_bundle(bundle, ll))
    assert got[CHECKS[0]].rc == 0, got[CHECKS[0]]
    assert got[CHECKS[4]].rc == 1 and "EACCES" in got[CHECKS[4]].text, got[CHECKS[4]]


def test_missing_path_fails_start_without_best_effort(rt, bundle, abi):
    ll = sandbox()
    ll["disableBestEffort"] = True
    ll["rules"]["pathBeneath"][1]["paths"].append("/no/such/dir")
    b = landlock_bundle(bundle, ll)
    b.probe("facts")
    cid, pid = rt.create_ok(b)
    res = rt.start(cid)
    assert res.rc not in (0, None), "start succeeded with an unenforceable ruleset:\n%s" % res
    assert "process.landlock.rules.pathBeneath[1].paths[1]" in res.err, res
    assert "/no/such/dir" in res.err, res
    assert rt.wait_pid_gone(pid), "the container survived the failed start"
    assert '"fds"' not in rt.container_output(cid), "the target ran without its sandbox"
    assert rt.state(cid).rc != 0


def test_no_new_privileges_is_required(rt, bundle):
    b = landlock_bundle(bundle, sandbox())
    b.process["noNewPrivileges"] = False
    expect_create_failure(rt, b, message=["process.landlock", "noNewPrivileges"])


BAD_SHAPES = [
    ({}, ["process.landlock.handledAccess"]),
    ({"handledAccess": {}}, ["process.landlock.handledAccess", "handles no access right"]),
    ({"handledAccess": {"handledAccessFS": "read_file"}},
     ["process.landlock.handledAccess.handledAccessFS", "array"]),
    ({"handledAccess": {"handledAccessFS": []}},
     ["process.landlock.handledAccess.handledAccessFS", "at least one"]),
    ({"handledAccess": {"handledAccessFS": ["read_file", "read"]}},
     ["process.landlock.handledAccess.handledAccessFS[1]", 'unknown filesystem access right "read"']),
    ({"handledAccess": {"handledAccessFS": ["read_file", 7]}},
     ["process.landlock.handledAccess.handledAccessFS[1]"]),
    ({"handledAccess": {"handledAccessNetwork": ["bind_udp"]}},
     ["process.landlock.handledAccess.handledAccessNetwork[0]", "unknown network access right"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]}, "disableBestEffort": "yes"},
     ["process.landlock.disableBestEffort"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]}, "rules": []},
     ["process.landlock.rules"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]}, "rules": {"pathBeneath": {}}},
     ["process.landlock.rules.pathBeneath"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["read_file"], "paths": ["/a"]}, "x"]}},
     ["process.landlock.rules.pathBeneath[1]"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["write_file"], "paths": ["/tmp"]}]}},
     ["process.landlock.rules.pathBeneath[0].allowedAccess[0]",
      '"write_file" is not listed in handledAccess.handledAccessFS']),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["read_file"]}]}},
     ["process.landlock.rules.pathBeneath[0].paths"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["read_file"], "paths": ["/ok", "relative"]}]}},
     ["process.landlock.rules.pathBeneath[0].paths[1]", "absolute"]),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": [], "paths": ["/tmp"]}]}},
     ["process.landlock.rules.pathBeneath[0].allowedAccess", "at least one"]),
    ({"handledAccess": {"handledAccessNetwork": ["connect_tcp"]},
      "rules": {"networkPort": [{"allowedAccess": ["connect_tcp"], "ports": [80, 70000]}]}},
     ["process.landlock.rules.networkPort[0].ports[1]"]),
    ({"handledAccess": {"handledAccessNetwork": ["connect_tcp"]},
      "rules": {"networkPort": [{"allowedAccess": ["bind_tcp"], "ports": [80]}]}},
     ["process.landlock.rules.networkPort[0].allowedAccess[0]",
      '"bind_tcp" is not listed in handledAccess.handledAccessNetwork']),
    ({"handledAccess": {"handledAccessFS": ["read_file"]},
      "rules": {"networkPort": [{"allowedAccess": ["read_file"], "ports": [80]}]}},
     ["process.landlock.rules.networkPort[0].allowedAccess[0]", "unknown network access right"]),
]


@pytest.mark.parametrize("landlock,message", BAD_SHAPES, ids=[str(i) for i in range(len(BAD_SHAPES))])
def test_bad_shapes_fail_create_with_the_json_path(rt, bundle, landlock, message):
    b = bundle()
    b.process["landlock"] = landlock
    expect_create_failure(rt, b, message=message)


def test_landlock_not_an_object_is_refused(rt, bundle):
    b = bundle()
    b.process["landlock"] = ["execute"]
    expect_create_failure(rt, b, message=["process.landlock"])


@pytest.mark.rootless
def test_landlock_in_a_rootless_container(rrt, rbundle, abi):
    got = run_checks(rrt, landlock_bundle(rbundle, sandbox()))
    for c in CHECKS[:4]:
        assert got[c].rc == 0, "allowed by the rules but refused: %r" % got[c]
    for c in CHECKS[4:]:
        assert got[c].rc == 1 and "EACCES" in got[c].text, "not granted but allowed: %r" % got[c]
