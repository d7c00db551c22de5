# SPDX-License-Identifier: Apache-2.0
"""Rootless podman on a systemd host with pure cgroup v2, as most people
run it: an ordinary user whose own systemd (user@UID.service) holds the
cgroup subtree systemd delegated to them, podman's systemd cgroup manager
talking to that systemd over the user's bus, and the runtime called by
podman as uid 0 of the user's namespace.  Limits hold there (the CI
machine's v1 hybrid makes podman drop them, see test_engines_rootless.py),
and pause works through cgroup.freeze.  Each scenario runs with
bento-runtime and with crun and runc, the references.

The user is the lingering one contrib/vm/guest-checks.sh made (it must
exist before the suite's private mount namespace does, see
test_vm_bento_run_limits.py); its real /run/user/UID is used, so these
tests do not enter the engine tests' sandbox, whose tmpfs on /run would
hide the user's bus."""

import os
import re
import shutil
import tempfile

import pytest

import engines
import harness
from engines import IMAGE
from engines.image import rootfs_tar
from engines.podman import valid_cid
from engines.rootless import RootlessPodman, chown_tree
from harness import wait_for
from test_vm_bento_run_limits import LingeringUser

MiB = 1 << 20
CRUN = "/usr/bin/crun"
RUNC = "/usr/sbin/runc"

pytestmark = [pytest.mark.timeout(300)]


class UserSystemdPodman(RootlessPodman):
    """Rootless podman with the systemd cgroup manager and the user's own
    XDG_RUNTIME_DIR and bus."""

    def __init__(self, user, base, rundir, runtime):
        super().__init__(user, os.path.join(base, "podman"), rundir, runtime)
        self.xdg = user.runtime_dir

    def env(self):
        env = super().env()
        env.update(self.user.env())
        return env

    def argv(self, *args, runtime=None):
        argv = super().argv(*args, runtime=runtime)
        i = argv.index("--cgroup-manager")
        argv[i + 1] = "systemd"
        return argv


def user_pids(uid, fragment):
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat("/proc/" + pid).st_uid == uid and fragment in harness._cmdline(int(pid)):
                out.append(int(pid))
        except OSError:
            pass
    return out


@pytest.fixture(scope="module", params=["bento-runtime", "crun", "runc"])
def upodman(request, session_dir):
    user = LingeringUser()
    runtime = {"bento-runtime": harness.RUNTIME, "crun": CRUN, "runc": RUNC}[request.param]
    base = os.path.join(session_dir, "vm-podman-" + request.param)
    os.makedirs(base)
    os.chmod(session_dir, 0o755)
    # podman wants a run root of at most 50 characters
    rundir = tempfile.mkdtemp(prefix="vmp.", dir="/tmp")
    os.chmod(rundir, 0o755)
    p = UserSystemdPodman(user, base, rundir, runtime)
    tar = os.path.join(base, "rootfs.tar")
    rootfs_tar(tar)
    chown_tree(base, user.uid, user.gid)
    problems = []
    try:
        res = p("import", tar, IMAGE, timeout=180)
        assert res.rc == 0, "podman import failed:\n%s" % res
        yield p
    finally:
        problems += p.teardown()
        # the pause process rootless podman keeps for its namespace
        for pid in user_pids(user.uid, "podman"):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        shutil.rmtree(rundir, ignore_errors=True)
    assert not problems, "\n".join(problems)


def run(p, *args, opts=()):
    argv = ["run", "--rm", "--network", "none"] + list(opts) + [IMAGE] + [str(a) for a in args]
    return p(*argv, timeout=180)


def explain(res):
    return "%s%s" % (res, engines.trace_tail())


def test_rootless_memory_and_pids_limits_hold_in_the_users_systemd(upodman):
    script = "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; cat /proc/self/cgroup"
    res = run(upodman, "sh", "-c", script, opts=["--memory", "64m", "--pids-limit", "20"])
    assert res.rc == 0, explain(res)
    lines = res.out.split()
    assert lines[:2] == [str(64 * MiB), "20"], res
    assert "Resource limits are not supported" not in res.err, res


def test_rootless_memory_hog_is_killed(upodman):
    # busybox: a 256 MiB string in a 32 MiB container
    hog = "x=$(head -c 268435456 /dev/zero | tr '\\0' x); echo survived ${#x}"
    res = run(upodman, "sh", "-c", hog, opts=["--memory", "32m", "--memory-swap", "32m"])
    assert res.rc == 137, explain(res)
    assert "survived" not in res.out, res


def test_rootless_container_scope_is_in_the_users_systemd(upodman):
    res = upodman("run", "--detach", "--network", "none", IMAGE, "sleep", "300", timeout=180)
    assert res.rc == 0, explain(res)
    cid = res.out.strip().splitlines()[-1]
    assert valid_cid(cid), res
    try:
        res = upodman("inspect", "--format", "{{.State.Pid}}", cid, timeout=60)
        assert res.rc == 0, res
        with open("/proc/%s/cgroup" % res.out.strip()) as f:
            cg = f.read().strip()
        m = re.fullmatch(r"0::(/user\.slice/user-%d\.slice/user@%d\.service/.*)" %
                         (upodman.user.uid, upodman.user.uid), cg)
        assert m, "the container is not in the user's systemd: %s" % cg
        events = "/sys/fs/cgroup%s/cgroup.events" % m.group(1)
        res = upodman("pause", cid, timeout=60)
        assert res.rc == 0, explain(res)
        wait_for(lambda: "frozen 1" in open(events).read(), timeout=10, what="the container to be frozen")
        res = upodman("unpause", cid, timeout=60)
        assert res.rc == 0, explain(res)
        wait_for(lambda: "frozen 0" in open(events).read(), timeout=10, what="the container to thaw")
        res = upodman("exec", cid, "sh", "-c", "echo inside; exit 5", timeout=60)
        assert res.rc == 5 and res.out == "inside\n", explain(res)
    finally:
        res = upodman("rm", "--force", "--time", "0", cid, timeout=90)
        assert res.rc == 0, explain(res)
    wait_for(lambda: not os.path.exists("/sys/fs/cgroup%s" % m.group(1)), timeout=30, what="the cgroup to go")
