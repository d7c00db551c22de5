# SPDX-License-Identifier: Apache-2.0
"""bento-runtime as uid 0 of a user namespace that an unprivileged user
(uid 65534) made: how rootless podman calls its runtime, with
XDG_RUNTIME_DIR set and no --root.  The bundles have no user namespace of
their own (podman's do not): the container runs in the caller's.

The runtime is not root on the host there, so it must behave as runc does
(base/rootless.h): its state under $XDG_RUNTIME_DIR, no cgroup when no limit
needs one, and a refusal when a limit does but nothing is delegated."""

import json
import os
import signal

import pytest

import harness
from harness import ROOTLESS_GID, ROOTLESS_UID, Bundle, Runtime, expect_create_failure, ns_inode, proc_status, wait_for

pytestmark = pytest.mark.rootless

SETPRIV = ["setpriv", "--reuid=%d" % ROOTLESS_UID, "--regid=%d" % ROOTLESS_GID, "--clear-groups"]


@pytest.fixture
def holder(rootless_supported):
    """A process holding a user namespace of uid 65534 (0 -> 65534): every
    runtime call of a test enters this one namespace, as rootless podman's
    calls all enter the namespace of its pause process."""
    p = harness.spawn(SETPRIV + ["unshare", "-Ur", "sleep", "600"])
    try:
        wait_for(lambda: ns_inode(p.pid, "user") != os.stat("/proc/self/ns/user").st_ino, timeout=10,
                 what="the holder's user namespace")
        yield p.pid
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        harness._forget(p)


@pytest.fixture
def nsrt(holder, test_dir, xdg_runtime_dir):
    scratch = os.path.join(test_dir, "nsscratch")
    os.makedirs(scratch)
    os.chown(scratch, ROOTLESS_UID, ROOTLESS_GID)
    runtime = Runtime(root=os.path.join(xdg_runtime_dir, "bento-runtime"), scratch=scratch, rootless=True,
                      xdg_runtime_dir=xdg_runtime_dir, use_root_option=False)
    runtime.enter = ["nsenter", "--user", "--preserve-credentials", "--target", str(holder)]
    runtime.holder = holder
    yield runtime
    problems = runtime.cleanup()
    assert not problems, "debris left behind:\n" + "\n".join(problems)


@pytest.fixture
def nsbundle(test_dir, rootfs_template):
    """Factory for bundles as rootless podman writes them: no user
    namespace, devpts with gid=5 (unmapped here), the rootfs owned by host
    root (the overflow uid inside)."""
    n = [0]

    def make(*args):
        n[0] += 1
        return Bundle(os.path.join(test_dir, "nsbundle%d" % n[0]), rootfs_template,
                      args or ["/bin/bento-probe", "ids"])

    return make


def test_list_in_a_fresh_user_namespace(rrt):
    """The issue's reproduction: `unshare -Ur bento-runtime list`."""
    rrt.enter = ["unshare", "-Ur"]
    res = rrt.cmd("list", "--format", "json")
    assert res.rc == 0, res
    assert json.loads(res.out or "[]") == [], res
    st = os.stat(os.path.join(rrt.xdg, "bento-runtime"))
    assert (st.st_uid, st.st_mode & 0o777) == (ROOTLESS_UID, 0o700), st


def test_root_login_in_a_user_namespace_keeps_run(rrt):
    """USER=root marks a root login inside a container (runc's rule): the
    default state root stays /run/bento-runtime, which uid 65534 may not use."""
    rrt.enter = ["unshare", "-Ur"]
    env = rrt.env()
    env["USER"] = "root"
    res = rrt.cmd("list", env=env)
    # "cannot create state root" or, when it exists, "cannot list" it
    assert res.rc != 0 and "/run/bento-runtime" in res.err and "Permission denied" in res.err, res
    assert not os.path.exists(os.path.join(rrt.xdg, "bento-runtime"))


def test_lifecycle_as_root_of_a_user_namespace(nsrt, nsbundle):
    b = nsbundle("/bin/sh", "-c", "/bin/bento-probe ids; exec /bin/bento-probe sleep 60")
    cid, pid = nsrt.create_ok(b)
    assert os.path.isdir(os.path.join(nsrt.xdg, "bento-runtime", cid)), os.listdir(nsrt.xdg)
    assert nsrt.status(cid) == "created"
    # the caller's user namespace, not one of its own; its own pid namespace
    assert ns_inode(pid, "user") == ns_inode(nsrt.holder, "user")
    assert ns_inode(pid, "pid") != ns_inode(nsrt.holder, "pid")
    st = proc_status(pid)
    assert st["Uid"].split() == [str(ROOTLESS_UID)] * 4, st["Uid"]
    # nothing delegated and no limit asked for: the caller's cgroups
    with open("/proc/%d/cgroup" % pid) as f, open("/proc/%d/cgroup" % nsrt.holder) as g:
        assert f.read() == g.read()
    assert harness.cgroup_dirs_named(cid) == []

    nsrt.start_ok(cid)
    wait_for(lambda: nsrt.container_output(cid).strip(), timeout=10, what="probe output")
    ids = json.loads(nsrt.container_output(cid).splitlines()[0])
    assert (ids["uid"], ids["euid"], ids["gid"]) == (0, 0, 0), ids
    assert nsrt.status(cid) == "running"

    res = nsrt.cmd("exec", cid, "/bin/bento-probe", "ids")
    assert res.rc == 0, res
    assert res.json()["uid"] == 0, res

    nsrt.terminate_and_delete(cid, pid)


def test_a_limit_without_a_delegated_cgroup_is_refused(nsrt, nsbundle):
    """As runc: a limit that has no cgroup to go in fails the create (crun
    1.8 runs the container without it on cgroup v1)."""
    b = nsbundle()
    b.linux["resources"] = {"memory": {"limit": 64 << 20}}
    expect_create_failure(nsrt, b, message=["linux.resources needs a cgroup", "no cgroup delegated",
                                            "Permission denied"])


def test_rootless_false_makes_cgroup_errors_fatal(nsrt, nsbundle):
    b = nsbundle()
    expect_create_failure(nsrt, b, global_opts=["--rootless", "false"],
                          message=["cannot make cgroup", "Permission denied"])
    res = nsrt.run(b, global_opts=["--rootless", "auto"])
    assert res.rc == 0 and res.json()["uid"] == 0, res
    res = nsrt.cmd("list", global_opts=["--rootless", "maybe"])
    assert res.rc != 0 and "--rootless" in res.err and "'maybe'" in res.err, res



def test_systemd_driver_uses_the_user_bus(rrt, nsbundle):
    """uid 0 of a user namespace talks to the user's systemd, as crun does
    under rootless podman: the runtime sees /run/systemd/system (a tmpfs on
    /run in a mount namespace of its own) but no bus, and names the one it
    tried."""
    rrt.enter = ["unshare", "-Ur", "--mount", "--propagation", "private", "sh", "-c",
                 "mount -t tmpfs -o size=64k,mode=755 bento-test-run /run && mkdir -p /run/systemd/system && "
                 "exec \"$0\" \"$@\""]
    b = nsbundle()
    expect_create_failure(rrt, b, global_opts=["--systemd-cgroup"],
                          message="--systemd-cgroup: cannot connect to systemd's user bus")


def test_rootless_true_as_root_keeps_the_device_policy(rt, bundle):
    """--rootless true forgives cgroup errors; it does not let root on the
    host, whose container can make device nodes, go without its cgroup and
    the device policy in it."""
    b = bundle("/bin/bento-probe", "sleep", "60")
    cid, pid = rt.create_ok(b, None, global_opts=["--rootless", "true"])
    dev = [d for d in harness.cgroup_dirs_named(cid) if d.startswith("/sys/fs/cgroup/devices/")]
    if os.path.isdir("/sys/fs/cgroup/devices"):
        assert len(dev) == 1, harness.cgroup_dirs_named(cid)
        with open(os.path.join(dev[0], "devices.list")) as f:
            rules = f.read().split("\n")
        assert "a *:* rwm" not in rules and "c 1:3 rwm" in rules, rules
    else:
        assert harness.cgroup_dirs_named(cid), "no cgroup made for %s" % cid
    res = rt.delete(cid, force=True)
    assert res.rc == 0, res
