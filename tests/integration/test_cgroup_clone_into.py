# SPDX-License-Identifier: Apache-2.0
"""The init starts life in its cgroup2 cgroup: it is cloned with
clone3(CLONE_INTO_CGROUP) into the container's cgroup on the unified
hierarchy (hybrid's /sys/fs/cgroup/unified, or a pure v2 host, seen here
through test_cgroups.UnifiedOnlyView), so nothing moves it there with a
cgroup.procs write, which waits for an RCU grace period.  Watched with
strace, which also injects the failures: a clone3 that refuses the flag (as
before Linux 5.7) falls back to the write, any other failure is an error."""

import os
import re
import shutil

import pytest

import harness
from test_cgroups import (UnifiedOnlyView, assert_gone, caller_cgroups, cg_info, mount_points,
                          resources_bundle)

# deny everything but the default devices: a device policy (v1 devices
# cgroup, v2 eBPF program) needs no controller, so it works in both views
DEVICES = {"devices": [{"allow": False, "access": "rwm"}]}


class Traced(harness.Runtime):
    """inner's commands under strace -f: clone3 calls and writes (with the
    paths of their fds) go to self.log; inject: a strace --inject= spec."""

    def __init__(self, inner, log, inject=None):
        super().__init__(root=inner.root, scratch=inner.scratch)
        self.inner = inner
        self.log = log
        self.inject = inject
        self.ids = inner.ids  # the fixture's teardown deletes them
        self.pids = inner.pids

    def argv(self, args, global_opts=()):
        a = ["strace", "-f", "-qq", "-y", "-s", "256", "-o", self.log, "-e", "trace=clone3,write"]
        if self.inject:
            a += ["-e", "inject=" + self.inject]
        return a + self.inner.argv(args, global_opts)

    def lines(self):
        with open(self.log) as f:
            return f.read().splitlines()


@pytest.fixture(params=["host", "unified-only"])
def view(request, rt):
    """The runtime as it sees this host, and in a pure v2 view of it."""
    mp = mount_points()
    if "unified" not in mp:
        pytest.fail("this host has no cgroup2 mount")
    if shutil.which("strace") is None:
        pytest.fail("strace is not installed")
    if request.param == "host":
        return rt
    return UnifiedOnlyView(rt, sorted(m for k, m in mp.items() if k != "unified"))


def unified_dir(cid):
    return "%s%s/bento-%s" % (mount_points()["unified"], caller_cgroups()["unified"].rstrip("/"), cid)


def cgroup2_line(text):
    return [line for line in text.splitlines() if line.startswith("0::")]


def procs_writes(lines):
    return [line for line in lines if re.search(r"write\(\d+</[^>]*/cgroup\.procs>", line)]


def into_cgroup_clones(lines):
    return [line for line in lines if "clone3(" in line and "CLONE_INTO_CGROUP" in line]


def test_init_is_cloned_into_its_cgroup2_cgroup(view, bundle, test_dir):
    t = Traced(view, os.path.join(test_dir, "strace.log"))
    b = resources_bundle(bundle, DEVICES, "/bin/cat", "/proc/self/cgroup")
    res = t.run(b)
    assert res.rc == 0, res
    lines = t.lines()
    clones = into_cgroup_clones(lines)
    assert len(clones) == 1 and re.search(r"\) = [1-9]\d*$", clones[0]), "\n".join(lines)
    # nothing moved the init (or anything else) by pid on the way
    assert procs_writes(lines) == [], "\n".join(lines)
    # the container's own view: its cgroup2 cgroup is the container's
    path = unified_dir(res.cid)[len(mount_points()["unified"]):]
    assert cgroup2_line(res.out) == ["0::" + path], res


def test_created_init_is_the_only_process_of_its_cgroup2_cgroup(view, bundle):
    b = resources_bundle(bundle, DEVICES, "/bin/bento-probe", "sleep", "30")
    cid, pid = view.create_ok(b)
    info = cg_info(view, cid)
    d = mount_points()["unified"] + info["paths"]["unified"]
    assert d == unified_dir(cid), info
    with open(os.path.join(d, "cgroup.procs")) as f:
        assert f.read().split() == [str(pid)]
    with open("/proc/%d/cgroup" % pid) as f:
        assert cgroup2_line(f.read()) == ["0::" + info["paths"]["unified"]]
    dirs = [mount_points()[k] + p for k, p in info["paths"].items()]
    assert view.delete(cid, force=True).rc == 0
    assert_gone(dirs)


@pytest.mark.parametrize("errno", ["EINVAL", "E2BIG", "ENOSYS", "EOPNOTSUPP"])
def test_a_kernel_without_clone_into_cgroup_gets_the_write(rt, bundle, test_dir, errno):
    # the first clone3 is the init's: refused as an old kernel would
    t = Traced(rt, os.path.join(test_dir, "strace.log"), "clone3:error=%s:when=1" % errno)
    res = t.run(resources_bundle(bundle, DEVICES, "/bin/cat", "/proc/self/cgroup"))
    assert res.rc == 0, res
    lines = t.lines()
    assert any("(INJECTED)" in line for line in into_cgroup_clones(lines)), "\n".join(lines)
    writes = procs_writes(lines)
    assert len(writes) == 1 and "/unified/" in writes[0], "\n".join(lines)
    path = unified_dir(res.cid)[len(mount_points()["unified"]):]
    assert cgroup2_line(res.out) == ["0::" + path], res


def test_another_clone_into_cgroup_failure_is_an_error(rt, bundle, test_dir):
    t = Traced(rt, os.path.join(test_dir, "strace.log"), "clone3:error=EACCES:when=1")
    res = t.run(resources_bundle(bundle, DEVICES))
    assert res.rc != 0, res
    assert "CLONE_INTO_CGROUP" in res.err and "Permission denied" in res.err, res
    assert_gone([unified_dir(res.cid)])
