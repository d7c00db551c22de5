# SPDX-License-Identifier: Apache-2.0
"""Rootless podman driving the runtime: podman run by an unprivileged user
with subordinate ids (engines/rootless.py), which calls the runtime as uid 0
of its own user namespace, with XDG_RUNTIME_DIR set and no --root.

    BENTO_BUILD=/abs/build /usr/bin/python3 -m pytest -q tests/integration/test_engines_rootless.py

The same tests check themselves against the peer runtimes, as
test_engines.py does (BENTO_ENGINE_RUNTIME=/usr/sbin/runc or
/usr/bin/crun).  What this host gives rootless podman -- cgroup v1 hybrid,
no systemd, nothing delegated -- is what the limit tests expect; see
docs/engines.md, "Rootless podman".
"""

import os
import re
import socket

import pytest

import engines
import harness
from engines import IMAGE
from engines.image import rootfs_tar
from engines.podman import valid_cid
from engines.pty import run_on_pty
from engines.rootless import RootlessPodman, RootlessUser, chown_tree
from engines.sandbox import Sandbox
from harness import wait_for

pytestmark = [pytest.mark.engines, pytest.mark.timeout(150)]

# What rootless podman needs beyond the rootful engine tests.
ROOTLESS_TOOLS = {"newuidmap": "uidmap", "newgidmap": "uidmap", "slirp4netns": "slirp4netns",
                  "setpriv": "util-linux", "podman": "podman", "conmon": "conmon"}


def explain(res):
    return "%s%s" % (res, engines.trace_tail())


@pytest.fixture(scope="module")
def rpodman(session_dir, private_mount_namespace):
    runtime = engines.checked_runtime(private_mount_namespace, ROOTLESS_TOOLS)
    tag = "bento-rl-" + os.urandom(3).hex()
    base = os.path.join(session_dir, tag)
    os.makedirs(base)
    user = RootlessUser()
    sandbox = Sandbox(engines.cgroup_view(runtime))
    problems = []
    p = None
    try:
        sandbox.enter()
        os.makedirs(os.path.join(base, "dev"))
        sandbox.open_tun(os.path.join(base, "dev"))
        binary = engines.traced_binary(runtime, os.path.join(base, "trace"))
        p = RootlessPodman(user, os.path.join(base, "podman"), os.path.join("/run", tag), binary)
        p.tag = tag
        tar = os.path.join(base, "rootfs.tar")
        rootfs_tar(tar)
        chown_tree(tar, user.uid, user.gid)
        res = p("import", tar, IMAGE, timeout=120)
        assert res.rc == 0, "podman import failed:\n%s" % res
        yield p
    finally:
        if p is not None:
            problems += p.teardown()
            left = p.runtime_state_dirs()
            if left:
                problems.append("the runtime kept state for containers podman removed: %s" % left)
        # podman's pause process, and whatever a failed test left
        stray = [x for x in user.end_processes() if "podman" not in x[1] and "catatonit" not in x[1]]
        if stray:
            problems.append("processes of %s left besides podman's pause process: %s" % (user.name, stray))
        problems += sandbox.leave()
        user.remove()
    assert not problems, "\n".join(problems)


class RootlessTest:
    def __init__(self, p, scratch):
        self.p = p
        self.scratch = scratch
        self.n = 0

    def __call__(self, *args, **kw):
        return self.p(*args, **kw)

    def run_argv(self, *args, detach=False, opts=()):
        self.n += 1
        argv = ["run", "--name", "%s-%d-%s" % (self.p.tag, self.n, os.urandom(2).hex())]
        argv += list(opts) or self.p.run_opts()
        argv += ["--detach"] if detach else ["--rm"]
        return argv + [IMAGE] + [str(a) for a in args]

    def run(self, *args, opts=(), **kw):
        return self.p(*self.run_argv(*args, opts=opts), **kw)

    def start_detached(self, *args, opts=()):
        res = self.p(*self.run_argv(*args, detach=True, opts=opts))
        assert res.rc == 0, "podman run -d failed:\n%s" % explain(res)
        cid = res.out.strip().splitlines()[-1]
        assert valid_cid(cid), res
        return cid

    def cleanup(self):
        return self.p.remove_all()


@pytest.fixture
def rpm(rpodman, test_dir):
    os.chmod(test_dir, 0o777)
    t = RootlessTest(rpodman, test_dir)
    yield t
    problems = t.cleanup()
    assert not problems, "debris left behind:\n" + "\n".join(problems) + engines.trace_tail()


SLEEPER = "trap 'exit 0' TERM; echo ready; while :; do sleep 0.1; done"


def test_rootless_podman_run_echo_and_exit_code(rpm):
    res = rpm.run("sh", "-c", "echo hello; id -u")
    assert res.rc == 0, explain(res)
    assert res.out.splitlines() == ["hello", "0"], explain(res)
    res = rpm.run("sh", "-c", "exit 3")
    assert res.rc == 3, explain(res)
    assert rpm.p.container_ids() == [], "--rm left containers"


def test_rootless_podman_detached_exec_stop_rm(rpm):
    cid = rpm.start_detached("sh", "-c", SLEEPER)
    wait_for(lambda: "ready" in rpm("logs", cid, timeout=30).out, timeout=15, what="the container to start")
    # container root is the user on the host
    pid = int(rpm.p.inspect(cid, "{{.State.Pid}}"))
    assert harness.proc_status(pid)["Uid"].split() == [str(rpm.p.user.uid)] * 4
    res = rpm("exec", cid, "sh", "-c", "echo in-exec; id -u; cat /proc/1/cmdline | tr '\\0' ' '; exit 5")
    assert res.rc == 5, explain(res)
    lines = res.out.splitlines()
    assert lines[:2] == ["in-exec", "0"] and lines[2].startswith("sh -c trap"), explain(res)
    res = rpm("stop", "--time", "10", cid, timeout=60)
    assert res.rc == 0, explain(res)
    assert rpm.p.inspect(cid, "{{.State.Status}} {{.State.ExitCode}}") == "exited 0"
    res = rpm("rm", cid, timeout=60)
    assert res.rc == 0, explain(res)
    assert rpm.p.container_ids() == []


def test_rootless_podman_tty(rpm):
    argv = rpm.p.argv(*rpm.run_argv("sh", "-c", "tty; [ -t 0 ] && [ -t 1 ] && echo stdio-is-a-tty; exit 4",
                                    opts=["--network", "none", "--tty", "--interactive"]))
    rc, text = run_on_pty(argv, rpm.p.env(), timeout=90)
    assert rc == 4, "rc %s, output:\n%s%s" % (rc, text, engines.trace_tail())
    assert re.search(r"(?m)^/dev/pts/\d+$", text), "no pty name from `tty`:\n%s" % text
    assert "stdio-is-a-tty" in text, text


def memory_on_v1():
    return os.path.isfile("/sys/fs/cgroup/memory/memory.limit_in_bytes")


def test_rootless_podman_memory_limit(rpm):
    """Nothing is delegated to the user here (no systemd of the user's
    own: tests/integration/vm/test_vm_rootless_podman.py has one).  On
    cgroup v1 podman drops the limit itself, with a warning, whichever the
    runtime (the runtime is never asked).  On v2 podman asks the runtime
    for a limit it has no cgroup to put in: refused, never dropped in
    silence, as runc refuses it."""
    script = "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max"
    res = rpm.run("sh", "-c", script, opts=["--network", "none", "--memory", "64m"])
    if memory_on_v1():
        assert res.rc == 0, explain(res)
        assert "Resource limits are not supported and ignored on cgroups V1 rootless systems" in res.err, \
            explain(res)
        assert int(res.out.strip()) > 64 << 20, explain(res)
        return
    if os.path.basename(rpm.p.runtime) == "crun":
        # crun 1.8 runs it without the limit and says nothing (docs/engines.md)
        assert res.rc == 0 and res.out.strip() == "max", explain(res)
        return
    assert res.rc != 0 and res.out == "", explain(res)
    if os.path.basename(rpm.p.runtime) == "bento-runtime":
        assert "rootless container: linux.resources needs a cgroup of its own, but there is no cgroup " \
            "delegated to this user" in res.err, explain(res)


def test_rootless_podman_without_cgroups(rpm):
    """--cgroups disabled: allowed for bento-runtime by contrib's
    runtime_supports_nocgroup, and handed to it as --cgroup-manager disabled
    (crun's spelling).  runc has no such mode: podman refuses it."""
    res = rpm.run("sh", "-c", "echo no-cgroups", opts=["--network", "none", "--cgroups", "disabled"])
    if os.path.basename(rpm.p.runtime) == "runc":
        assert res.rc == 125 and "not compatible with NoCgroups" in res.err, explain(res)
        return
    assert res.rc == 0, explain(res)
    assert res.out == "no-cgroups\n", explain(res)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_banner(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.settimeout(5)
            return s.recv(100).decode(errors="replace").strip()
    except OSError:
        return None


def test_rootless_podman_published_port(rpm):
    port = free_port()
    serve = "echo port-ok > /tmp/banner; echo ready; while :; do nc -l -p 8080 < /tmp/banner; done"
    cid = rpm.start_detached("sh", "-c", serve,
                             opts=["--network", "slirp4netns", "--publish", "127.0.0.1:%d:8080" % port])
    wait_for(lambda: "ready" in rpm("logs", cid, timeout=30).out, timeout=15, what="the server to start")
    got = wait_for(lambda: read_banner(port), timeout=20, interval=0.2, what="the published port to answer")
    assert got == "port-ok", got
    res = rpm("rm", "--force", "--time", "0", cid, timeout=60)
    assert res.rc == 0, explain(res)
    assert read_banner(port) is None, "the port is still published after rm"
