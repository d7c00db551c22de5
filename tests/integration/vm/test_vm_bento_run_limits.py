# SPDX-License-Identifier: Apache-2.0
"""`bento run` with `limits:` on a systemd host with pure cgroup v2: the run's
cgroup is a transient scope that bento-runtime asks systemd for, named
bento-run-<id>.scope -- in system.slice for root, and for a normal user in
the user's own systemd (user@UID.service), the only place systemd lets that
user hold a cgroup with controllers.  The limits are in force there, the
scope is gone after the run, and a user without a systemd instance of their
own is refused with the reason rather than run unbounded."""

import json
import os
import pwd
import subprocess

import pytest

import harness
from harness import wait_for
from test_bento_run import World, prose

MiB = 1 << 20

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    subprocess.run(["rm", "-rf", "--one-file-system", w.tmp], check=False)


def systemctl(*args):
    res = subprocess.run(["systemctl"] + list(args), capture_output=True, text=True, timeout=30)
    return res.stdout.strip()


def read(path):
    with open(path) as f:
        return f.read().strip()


class LingeringUser:
    """The normal user contrib/vm/guest-checks.sh made (BENTO_VM_USER),
    whose systemd runs without a login (loginctl enable-linger), with its
    bus at /run/user/UID/bus.  It is made there, before the suite enters its
    private mount namespace, which would not see the tmpfs logind mounts on
    /run/user/UID later."""

    def __init__(self):
        name = os.environ.get("BENTO_VM_USER")
        assert name, "BENTO_VM_USER is not set: contrib/vm/guest-checks.sh makes the lingering user"
        pw = pwd.getpwnam(name)
        self.name, self.uid, self.gid = name, pw.pw_uid, pw.pw_gid
        self.runtime_dir = "/run/user/%d" % self.uid
        self.manager = "/sys/fs/cgroup/user.slice/user-%d.slice/user@%d.service" % (self.uid, self.uid)
        assert os.path.exists(os.path.join(self.runtime_dir, "bus")), \
            "the lingering user's systemd has no bus at %s/bus" % self.runtime_dir

    def env(self):
        return {"XDG_RUNTIME_DIR": self.runtime_dir,
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=%s/bus" % self.runtime_dir}


@pytest.fixture(scope="module")
def lingering_user():
    return LingeringUser()


# The script says where it is and waits until the test has looked at its
# scope from outside (out/go), so the scope is seen while it lives.
WAITER = """echo started > out/flag
i=0
while [ ! -e out/go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
echo done
"""


def limits_manifest(world, run_as=None):
    os.makedirs(os.path.join(world.work, "out"))
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nwrite: [./out]\n"
                       "limits: {memory: 64M, pids: 32}\n", script=WAITER)
    world.approve(m)
    if run_as is not None:
        world.become(run_as.uid, run_as.gid)
    return m


def run_and_look(world, m, scope_dir, run_id, env=None):
    """Start `bento run --run-id` in the background, read the scope's files
    while the script waits, then let it finish."""
    flag = os.path.join(world.work, "out", "flag")
    e = dict(world.env)
    e.update(env or {})
    p = harness.spawn(list(world.wrap) + [os.path.join(harness.BUILD, "bin", "bento"), "run", "--run-id", run_id, m],
                      env=e, cwd=world.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = {}
    try:
        wait_for(lambda: os.path.exists(flag) or p.poll() is not None, timeout=90, what="the script to start")
        assert p.poll() is None, "bento run ended early: %s" % (p.communicate(timeout=30),)
        seen["memory.max"] = read(os.path.join(scope_dir, "memory.max"))
        seen["memory.swap.max"] = read(os.path.join(scope_dir, "memory.swap.max"))
        seen["pids.max"] = read(os.path.join(scope_dir, "pids.max"))
        seen["procs"] = read(os.path.join(scope_dir, "cgroup.procs")).split()
        # whose they are, for those still there (the script's sleeps come and go)
        seen["owners"] = set()
        for pid in seen["procs"]:
            try:
                seen["owners"].add(os.stat("/proc/%s" % pid).st_uid)
            except FileNotFoundError:
                pass
    finally:
        open(os.path.join(world.work, "out", "go"), "w").close()
        try:
            out, err = p.communicate(timeout=90)
        finally:
            harness._forget(p)
    return p.returncode, out.decode(), err.decode(), seen


def test_root_run_is_capped_in_a_system_scope(world):
    m = limits_manifest(world)
    scope = "/sys/fs/cgroup/system.slice/bento-run-vmroot.scope"
    rc, out, err, seen = run_and_look(world, m, scope, "vmroot")
    assert rc == 0, (out, err)
    assert out == "done\n", (out, err)
    assert seen["memory.max"] == str(64 * MiB), seen
    assert seen["memory.swap.max"] == "0", seen
    assert seen["pids.max"] == "32", seen
    assert seen["procs"], "nothing ran in %s" % scope
    wait_for(lambda: not os.path.exists(scope), timeout=30, what="the scope to go")
    assert systemctl("show", "-P", "ActiveState", "bento-run-vmroot.scope") in ("inactive", "")


def test_doctor_says_limits_go_through_systemd(world):
    res = world.bento("doctor", "--json")
    assert res.rc == 0, res
    cg = json.loads(res.out)["host"]["cgroup"]
    assert cg["mode"] == "v2" and cg["driver"] == "systemd", cg
    assert cg["memory"]["usable"] and cg["memory"]["cgroup"] == "/sys/fs/cgroup", cg


def test_root_memory_hog_is_killed_in_its_scope(world):
    world.probe()
    m = world.manifest("entrypoint: ./bento-probe\nargs: [hog, \"512\"]\nexec: none-strict\n"
                       "limits: {memory: 32M, pids: 32}\n")
    world.approve(m)
    res = world.run(m, "--run-id", "vmhog", timeout=120)
    assert res.rc == 137, res
    assert "OK 512" not in res.out
    text = prose(res.err)
    assert "the manifest declares limits (memory 32M, pids 32)" in text, res
    assert "OOM killer ended" in text, res
    assert not os.path.exists("/sys/fs/cgroup/system.slice/bento-run-vmhog.scope")


def test_user_run_is_capped_in_the_users_own_systemd(world, lingering_user):
    u = lingering_user
    m = limits_manifest(world, run_as=u)
    scope = os.path.join(u.manager, "user.slice", "bento-run-vmuser.scope")
    rc, out, err, seen = run_and_look(world, m, scope, "vmuser", env=u.env())
    assert rc == 0, (out, err)
    assert out == "done\n", (out, err)
    assert seen["memory.max"] == str(64 * MiB), seen
    assert seen["pids.max"] == "32", seen
    # the sandbox runs as the user: its init and the script are the user's
    assert seen["owners"] == {u.uid}, seen
    wait_for(lambda: not os.path.exists(scope), timeout=30, what="the user's scope to go")


def test_user_fork_bomb_stops_at_the_pids_cap(world, lingering_user):
    u = lingering_user
    world.probe()
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nread: [./bento-probe]\n"
                       "limits: {pids: 16}\n", script="./bento-probe forks 200\n")
    world.approve(m)
    world.become(u.uid, u.gid)
    res = world.run(m, env=u.env(), timeout=120)
    assert res.rc == 0, res
    got = json.loads(res.out.strip().splitlines()[-1])
    # sh and the probe count too: at most 16 tasks in the sandbox
    assert 0 < got["forked"] <= 14 and got["errno"] == "EAGAIN", got


def test_user_doctor_names_the_users_systemd(world, lingering_user):
    u = lingering_user
    world.become(u.uid, u.gid)
    res = world.bento("doctor", "--json", env=u.env())
    assert res.rc == 0, res
    cg = json.loads(res.out)["host"]["cgroup"]
    assert cg["driver"] == "systemd", cg
    for ctrl in ("memory", "pids", "cpu"):
        assert cg[ctrl]["usable"] and cg[ctrl]["cgroup"] == u.manager, cg


def test_user_without_a_systemd_of_their_own_is_refused(world):
    """nobody has no user manager and no bus: limits cannot be applied,
    and the run says so instead of running unbounded."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nlimits: {memory: 64M}\n", script="echo ran\n")
    world.approve(m)
    world.become(harness.ROOTLESS_UID, harness.ROOTLESS_GID)
    res = world.run(m)
    assert res.rc == 125, res
    text = prose(res.err)
    assert "the manifest requests resource limits this host cannot enforce" in text, res
    assert "limits-memory (unavailable):" in text, res
    assert res.out == ""
