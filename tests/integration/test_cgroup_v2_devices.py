# SPDX-License-Identifier: Apache-2.0
"""linux.resources.devices on cgroup v2: the eBPF BPF_CGROUP_DEVICE program
the runtime builds from the rule list.  The runtime runs in the unified-only
mount namespace of test_cgroups.py (a pure v2 view of this host); device
programs need no controller, so they work there although the hierarchy has
none enabled.  Checked from inside (open and mknod answer EPERM for denied
devices, later rules win) and from outside (BPF_PROG_QUERY on the cgroup,
the program gone with the cgroup)."""

import ctypes
import json
import os
import struct

import pytest

from harness import wait_for
from test_cgroups import UnifiedOnlyView, cg_info, mount_points, resources_bundle

# what podman sends: deny everything (the runtime adds the defaults back)
PODMAN = [{"allow": False, "access": "rwm"}]

SYS_BPF = 321  # x86_64
BPF_PROG_QUERY = 16
BPF_PROG_GET_FD_BY_ID = 13
BPF_CGROUP_DEVICE = 6


@pytest.fixture
def v2rt(rt):
    mp = mount_points()
    if "unified" not in mp:
        pytest.fail("this host has no cgroup2 mount; the v2 view needs one")
    if os.uname().machine != "x86_64":
        pytest.skip("the bpf(2) number used here is x86_64's")
    return UnifiedOnlyView(rt, sorted(m for k, m in mp.items() if k != "unified"))


def _bpf(cmd, attr):
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(attr, 128)
    r = libc.syscall(SYS_BPF, cmd, buf, 128)
    return r, ctypes.get_errno(), buf.raw


def device_progs(cgdir):
    """Ids of the BPF_CGROUP_DEVICE programs attached to the cgroup itself."""
    fd = os.open(cgdir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        ids = (ctypes.c_uint32 * 64)()
        # union bpf_attr.query: target_fd, attach_type, query_flags,
        # attach_flags, prog_ids (u64), prog_cnt
        attr = struct.pack("=IIIIQI", fd, BPF_CGROUP_DEVICE, 0, 0, ctypes.addressof(ids), 64)
        r, err, raw = _bpf(BPF_PROG_QUERY, attr)
        assert r == 0, "BPF_PROG_QUERY: %s" % os.strerror(err)
        cnt = struct.unpack_from("=I", raw, 24)[0]
        return list(ids[:cnt])
    finally:
        os.close(fd)


def prog_exists(pid):
    r, err, _ = _bpf(BPF_PROG_GET_FD_BY_ID, struct.pack("=I", pid))
    if r >= 0:
        os.close(r)
        return True
    assert err == 2, "BPF_PROG_GET_FD_BY_ID: %s" % os.strerror(err)  # ENOENT
    return False


def cgdir(info):
    return mount_points()["unified"] + info["paths"]["unified"]


def devices_bundle(bundle, rules):
    """A container with the rules, and CAP_MKNOD (not in the default set),
    so the device program is the only thing that can refuse a mknod."""
    b = resources_bundle(bundle, {"devices": rules})
    for kind in ("bounding", "effective", "permitted"):
        b.process["capabilities"][kind].append("CAP_MKNOD")
    return b


def test_podman_rules_allow_the_defaults_and_deny_the_rest(v2rt, bundle):
    b = devices_bundle(bundle, PODMAN)
    steps = v2rt.run_script(b, ["write", "/dev/null"], ["write", "/dev/full"],
                            ["mknod", "/dev/mem2", "c", "1", "2"], ["write", "/dev/mem2"],
                            ["mknod", "/dev/blk", "b", "7", "0"], ["write", "/dev/blk"])
    assert steps[0].line == "OK", steps
    assert steps[1].line == "ENOSPC", steps
    # "c *:* m" and "b *:* m" are defaults: making the node is allowed,
    # opening it is not
    assert steps[2].line == "OK", steps
    assert steps[3].line == "EPERM", steps
    assert steps[4].line == "OK", steps
    assert steps[5].line == "EPERM", steps


def test_later_rules_win(v2rt, bundle):
    # take /dev/zero away, and mknod of char devices; then give 1:2 back
    rules = PODMAN + [{"allow": False, "type": "c", "major": 1, "minor": 5, "access": "rwm"},
                      {"allow": False, "type": "c", "access": "m"},
                      {"allow": True, "type": "c", "major": 1, "minor": 2, "access": "rw"}]
    steps = v2rt.run_script(devices_bundle(bundle, rules), ["write", "/dev/zero"], ["write", "/dev/full"],
                            ["mknod", "/dev/x", "c", "1", "3"], ["write", "/dev/null"])
    assert steps[0].line == "EPERM", "1:5 is denied by a later rule: %s" % steps
    assert steps[1].line != "EPERM", steps
    assert steps[2].line == "EPERM", "mknod of char devices is denied: %s" % steps
    assert steps[3].line == "OK", steps


def test_explicit_allow_gives_a_denied_device_back(v2rt, bundle):
    rules = PODMAN + [{"allow": False, "type": "c", "major": 1, "minor": 5, "access": "rwm"},
                      {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "rw"},
                      {"allow": True, "type": "c", "major": 1, "minor": 2, "access": "rw"}]
    steps = v2rt.run_script(devices_bundle(bundle, rules), ["write", "/dev/zero"],
                            ["mknod", "/dev/mem2", "c", "1", "2"], ["write", "/dev/mem2"])
    assert steps[0].line == "OK", steps
    assert steps[1].line == "OK", steps
    # allowed by the program: the open reaches the (absent) driver
    assert steps[2].line == "ENXIO", steps


def test_allow_all_lets_every_device_through(v2rt, bundle):
    steps = v2rt.run_script(devices_bundle(bundle, PODMAN + [{"allow": True, "access": "rwm"}]),
                            ["mknod", "/dev/mem2", "c", "1", "2"], ["write", "/dev/mem2"])
    assert steps[0].line == "OK" and steps[1].line == "ENXIO", steps


def test_program_is_recorded_survives_update_and_goes_with_the_cgroup(v2rt, bundle):
    b = devices_bundle(bundle, PODMAN + [{"allow": True, "type": "b", "major": 8, "minor": -1, "access": "r"}])
    b.process["args"] = ["/bin/bento-probe", "sleep", "60"]
    cid, _pid = v2rt.create_ok(b)
    info = cg_info(v2rt, cid)
    d = cgdir(info)
    devs = info["devices"]
    assert devs[0] == "deny a *:* rwm", devs
    for want in ("allow c 1:3 rwm", "allow c *:* m", "allow c 136:* rwm", "allow b 8:* r"):
        assert want in devs, (want, devs)
    assert devs.index("allow b 8:* r") > devs.index("deny a *:* rwm", 1), devs
    progs = device_progs(d)
    assert len(progs) == 1, progs
    v2rt.start_ok(cid)
    res = v2rt.cmd("update", "--resources", "-", cid, input=json.dumps({}))
    assert res.rc == 0, res
    res = v2rt.cmd("update", "--resources", "-", cid, input=json.dumps({"devices": PODMAN}))
    assert res.rc != 0 and "fixed at create" in res.err, res
    assert device_progs(d) == progs, "update must leave the one program attached"
    assert cg_info(v2rt, cid)["devices"] == devs
    assert v2rt.delete(cid, force=True).rc == 0
    assert not os.path.exists(d)
    wait_for(lambda: not prog_exists(progs[0]), timeout=10, what="the device program to be released")

