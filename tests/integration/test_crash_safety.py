# SPDX-License-Identifier: Apache-2.0
"""Crash safety: bento-runtime killed (SIGKILL) at any step of create, start,
kill or delete leaves nothing that `delete --force` cannot clean.

The kill points come from the runtime itself: each verb is run once under
strace (the runtime's own process only, no -f) to list its system calls;
the world outside the runtime changes only at a system call, so a kill
just after each call that can change something (mkdir, write, rename,
clone, unlink, a signal, a message to the init...) reaches every distinct
state the verb can leave.  A kill is `strace -e inject=<call>:signal=KILL:
when=<n>`: the signal arrives as the runtime enters its n-th call of that
name, before the call runs, and only the traced runtime gets it (never the
container's processes, never anything else on the host).

After each kill the container is recovered as an operator would: `state`
(it must answer, "creating" for a half-made container), `kill` (it must
not refuse a container whose init exists), then `delete --force`; and the
test asserts that nothing is left: no state entry, no cgroup directory in
any hierarchy, no process (the init, a hook), no mount, no /dev/shm entry;
and that the id can be used again (create, start, delete).

The soak (test_soak_random_kills) does the same at random points, a few
hundred times within a time bound, and prints its figures; `make check`
runs it with BENTO_CRASH_SOAK set (the `check-soak` target), the ordinary
integration run does a short one.
"""

import collections
import os
import random
import re
import shutil
import signal
import time

import pytest

import harness
from harness import REAPER, cgroup_dirs_named, host_mounts, proc_alive, proc_children, run_cmd, wait_for

STRACE = shutil.which("strace") or "/usr/bin/strace"

# System calls after which the state of the world outside the runtime may
# differ: a kill right after each of them reaches every distinct state.
# An open counts when it can create or write; a close when it closes such a
# file, a socket or a pipe (the init sees the other end of those close).
EFFECTS = {
    "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "write", "writev",
    "pwrite64", "fchmod", "fchmodat", "mknod", "mknodat", "clone", "clone3", "fork", "vfork", "kill", "tgkill",
    "pidfd_send_signal", "sendmsg", "sendto", "connect", "flock", "close_range", "wait4", "waitid",
    "ftruncate", "fsync", "linkat", "symlinkat",
}
OPENS_FD = {"socketpair", "pipe2", "socket", "dup", "dup2", "dup3"}

TRACE_LINE = re.compile(r"^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|\?)")


def _effects(lines):
    """[(call, changes something)] for strace output lines."""
    held = set()  # fds whose close the world can notice
    out = []
    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        call, args, ret = m.group(1), m.group(2), m.group(3)
        effect = call in EFFECTS
        if call in ("open", "openat") and re.search(r"O_WRONLY|O_RDWR|O_CREAT", args) and ret.isdigit():
            effect = True
            held.add(int(ret))
        elif call in OPENS_FD or (call == "fcntl" and "F_DUPFD" in args):
            held.update(int(x) for x in re.findall(r"\d+", args.split("[", 1)[-1])[:2] if "[" in args)
            if ret.isdigit() and call != "socketpair" and call != "pipe2":
                held.add(int(ret))
        elif call == "close" and args.strip().isdigit():
            fd = int(args.strip())
            effect = fd in held
            held.discard(fd)
        out.append((call, effect))
    return out


def _trace(rt, args, name):
    """Run the runtime with args under strace; the result and its calls
    [(call, changes something)].  -D: strace runs as a detached
    grandchild, so the runtime stays our child (and the init it makes for
    `create` too), as without strace."""
    out = os.path.join(rt.scratch, "%s.strace" % name)
    res = run_cmd([STRACE, "-D", "-qq", "-o", out, "--"] + rt.argv(args), env=rt.env(), timeout=60)
    with open(out) as f:
        calls = _effects(f)
    os.unlink(out)
    return res, calls


def kill_points(calls):
    """(call, n) for a kill on entering the n-th `call`: the first call, and
    the one after every call that changes something."""
    seen = collections.Counter()
    points = []
    for i, (c, _) in enumerate(calls):
        seen[c] += 1
        # (a call this strace has no name for cannot be named in inject=;
        # the kill lands on the next one)
        if c.startswith("syscall_"):
            continue
        if i == 0 or calls[i - 1][1] or calls[i - 1][0].startswith("syscall_"):
            points.append((c, seen[c]))
    return points


def _killed_run(rt, args, call, n):
    """The runtime with args, SIGKILLed on entering its n-th `call`."""
    inject = "inject=%s:signal=KILL:when=%d" % (call, n)
    return run_cmd([STRACE, "-D", "-qq", "-o", "/dev/null", "-e", "trace=" + call, "-e", inject, "--"] + rt.argv(args),
                   env=rt.env(), timeout=60)


def _shm_entries(cid):
    try:
        return sorted(e for e in os.listdir("/dev/shm") if cid in e)
    except OSError:
        return []


def _new_live_children(before):
    REAPER.reap_now()
    with REAPER.lock:
        live = set(REAPER.live)
    return [p for p in proc_children(os.getpid()) if p not in before and p not in live and proc_alive(p)]


class Rig:
    """One container id and bundle, driven through kill points."""

    def __init__(self, rt, bundle, test_dir):
        self.rt = rt
        self.cid = "crash-" + os.urandom(3).hex()
        self.hook_log = os.path.join(test_dir, "hook.log")
        self.b = bundle("/bin/sleep", "30")
        # the setting: memory and pids limits (a cgroup in every
        # hierarchy), and a hook the runtime runs during create
        self.b.linux["resources"] = {"memory": {"limit": 64 << 20}, "pids": {"limit": 64}}
        self.b.config["hooks"] = {"createRuntime": [{"path": "/bin/true", "args": ["true"]}]}
        self.b.save()
        self.rt.bundles.append(self.b)
        self.rt._remember(self.cid)
        self.pid_file = os.path.join(rt.scratch, "crash.pid")
        self.figures = collections.Counter()

    def args(self, verb):
        if verb == "create":
            return ["create", "--bundle", self.b.path, "--pid-file", self.pid_file, self.cid]
        if verb == "start":
            return ["start", self.cid]
        if verb == "kill":
            return ["kill", self.cid, "KILL"]
        return ["delete", "--force", self.cid]

    def ok(self, *args):
        res = self.rt.cmd(*args)
        assert res.rc == 0, "%s failed:\n%s" % (" ".join(args), res)
        return res

    def prepare(self, verb):
        """The container in the state `verb` starts from."""
        if verb == "create":
            return
        self.ok(*self.args("create"))
        if verb in ("kill", "delete"):
            self.ok("start", self.cid)

    def enumerate(self, verb):
        self.prepare(verb)
        res, calls = _trace(self.rt, self.args(verb), verb)
        assert res.rc == 0, "traced %s failed:\n%s" % (verb, res)
        self.ok("delete", "--force", self.cid)
        self.check_clean("after the traced %s" % verb)
        return calls

    def state_after_kill(self, where):
        """`state` answers about whatever the kill left."""
        res = self.rt.state(self.cid)
        if res.rc != 0:
            assert "does not exist" in res.err, "%s: state failed:\n%s" % (where, res)
            return None
        status = res.json()["status"]
        assert status in ("creating", "created", "running", "stopped"), "%s: state says %r" % (where, status)
        return res.json()

    def kill_after_kill(self, where, st):
        """`kill` of what the kill left: it may find the container gone,
        never refuse one whose init is there."""
        res = self.rt.kill(self.cid, "KILL")
        if res.rc == 0:
            return
        acceptable = ("does not exist", "not running", "has exited")
        assert any(a in res.err for a in acceptable), "%s: kill failed:\n%s" % (where, res)
        if st and st["status"] == "creating" and st.get("pid"):
            assert not proc_alive(st["pid"]), "%s: kill refused a half-created container whose init %d " \
                "is alive:\n%s" % (where, st["pid"], res)

    def check_clean(self, where, before=()):
        d = self.rt.state_dir(self.cid)
        assert not os.path.lexists(d), "%s: state directory left: %s" % (where, os.listdir(d))
        cg = cgroup_dirs_named(self.cid)
        assert cg == [], "%s: cgroups left: %s" % (where, cg)
        left = [m for m in host_mounts() if self.cid in m or m.startswith(self.b.path + "/")]
        assert left == [], "%s: mounts left: %s" % (where, left)
        assert _shm_entries(self.cid) == [], "%s: /dev/shm entries left: %s" % (where, _shm_entries(self.cid))
        procs = []
        try:
            wait_for(lambda: not _new_live_children(before), timeout=3, what="processes to go")
        except AssertionError:
            procs = [(p, harness._cmdline(p)) for p in _new_live_children(before)]
        for p, _ in procs:
            os.kill(p, signal.SIGKILL)  # debris of this test only: our own new children
        assert procs == [], "%s: processes left: %s" % (where, procs)

    def reuse(self, where):
        res = self.rt.cmd(*self.args("create"))
        assert res.rc == 0, "%s: the id cannot be used again:\n%s" % (where, res)
        self.ok("start", self.cid)
        self.ok("delete", "--force", self.cid)
        self.check_clean("%s, then create/start/delete" % where)

    def cycle(self, verb, call, n, full=True):
        """Kill `verb` on entering its n-th `call`, recover, check."""
        where = "%s killed on entering %s #%d" % (verb, call, n)
        REAPER.reap_now()
        before = set(proc_children(os.getpid()))
        self.prepare(verb)
        res = _killed_run(self.rt, self.args(verb), call, n)
        killed = res.rc in (-9, 137)
        self.figures["cycles"] += 1
        self.figures["kills"] += killed
        st = self.state_after_kill(where)
        if st and st["status"] == "creating":
            self.figures["left creating"] += 1
        self.kill_after_kill(where, st)
        res = self.rt.delete(self.cid, force=True)
        assert res.rc == 0, "%s: delete --force failed:\n%s" % (where, res)
        self.check_clean(where, before)
        if full:
            self.reuse(where)


@pytest.fixture
def rig(rt, bundle, test_dir):
    return Rig(rt, bundle, test_dir)


@pytest.fixture
def rig_shared(rt, bundle, test_dir):
    """The same, without a mount namespace of its own: the container's
    mounts hang in the runtime's namespace, beneath a recorded tree."""
    r = Rig(rt, bundle, test_dir)
    r.b.drop_ns("mount")
    r.b.save()
    return r


@pytest.mark.timeout(900)
@pytest.mark.parametrize("verb", ["create", "delete"])
def test_kill_at_every_step_without_mount_namespace(rig_shared, verb):
    calls = rig_shared.enumerate(verb)
    points = kill_points(calls)
    assert len(points) > 3, "too few kill points in %s: %s" % (verb, calls)
    for i, (call, n) in enumerate(points):
        rig_shared.cycle(verb, call, n, full=(i % 8 == 0 or i == len(points) - 1))
    print("\n%s: %d calls, %d kill points, %s" % (verb, len(calls), len(points), dict(rig_shared.figures)))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("verb", ["create", "start", "kill", "delete"])
def test_kill_at_every_step(rig, verb):
    calls = rig.enumerate(verb)
    points = kill_points(calls)
    assert len(points) > 3, "too few kill points in %s: %s" % (verb, calls)
    for i, (call, n) in enumerate(points):
        # the next cycle's own create proves the id reusable for the other
        # verbs; for create, a full create/start/delete every few points
        # (and after the last) keeps the test short
        rig.cycle(verb, call, n, full=(verb == "create" and (i % 8 == 0 or i == len(points) - 1)))
    print("\n%s: %d calls, %d kill points, %s" % (verb, len(calls), len(points), dict(rig.figures)))


@pytest.mark.timeout(120)
def test_hook_dies_with_the_runtime(rig, rt):
    """A createRuntime hook without a timeout, the runtime killed while it
    runs: the hook goes with the runtime, and delete --force cleans."""
    rig.b.config["hooks"] = {"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "977"]}]}
    rig.b.save()
    REAPER.reap_now()
    before = set(proc_children(os.getpid()))
    p = harness.spawn(rt.argv(rig.args("create")), env=rt.env(), stdin=harness.subprocess.DEVNULL,
                      stdout=harness.subprocess.DEVNULL, stderr=harness.subprocess.DEVNULL)
    try:
        def hook_pid():
            for c in proc_children(p.pid):
                if harness._cmdline(c) == "sleep 977":
                    return c
            return None

        wait_for(lambda: hook_pid() is not None, timeout=10, what="the hook to run")
        hook = hook_pid()
        os.kill(p.pid, signal.SIGKILL)  # the runtime we started, by its pid
        p.wait(timeout=10)
    finally:
        harness._forget(p)
    gone = rt.wait_pid_gone(hook, timeout=5)
    if not gone:
        os.kill(hook, signal.SIGKILL)  # the hook this test made run, by its pid
    assert gone, "the hook %d outlived the killed runtime" % hook
    st = rig.state_after_kill("create killed in a hook")
    assert st and st["status"] == "creating", "a create killed in its hook should be creating: %s" % st
    # what exists: the cgroups it made by then, named in the record
    paths = st.get("bento", {}).get("cgroup", {}).get("paths", {})
    assert paths and all(p.endswith("/bento-" + rig.cid) for p in paths.values()), st
    res = rt.delete(rig.cid, force=True)
    assert res.rc == 0, "delete --force failed:\n%s" % res
    rig.check_clean("create killed in a hook", before)
    # and the same hook, not killed, still runs to its end (allowed case)
    rig.b.config["hooks"] = {"createRuntime": [{"path": "/bin/sh", "args": ["sh", "-c", "sleep 0.1"]}]}
    rig.b.save()
    rig.reuse("after the hook test")


@pytest.mark.timeout(600)
def test_soak_random_kills(rig):
    """Random kill points over the four verbs, bounded in count and time."""
    cycles = int(os.environ.get("BENTO_CRASH_SOAK", "20"))
    budget = float(os.environ.get("BENTO_CRASH_SOAK_SECONDS", "240"))
    seed = int(os.environ.get("BENTO_CRASH_SEED", str(int(time.time()))))
    rnd = random.Random(seed)
    tables = {v: rig.enumerate(v) for v in ("create", "start", "kill", "delete")}
    t0 = time.monotonic()
    leaks = 0
    failures = []
    done = 0
    while done < cycles and time.monotonic() - t0 < budget:
        verb = rnd.choice(["create", "create", "start", "kill", "delete"])
        calls = tables[verb]
        i = rnd.randrange(len(calls))
        while calls[i][0].startswith("syscall_"):
            i = (i + 1) % len(calls)
        call = calls[i][0]
        n = [c for c, _ in calls[: i + 1]].count(call)
        try:
            rig.cycle(verb, call, n, full=(done % 5 == 0))
        except AssertionError as e:
            leaks += 1
            failures.append(str(e).splitlines()[0])
            # leave a clean slate for the next cycle; the failure is counted
            rig.rt.delete(rig.cid, force=True)
            for c in cgroup_dirs_named(rig.cid):
                harness.remove_cgroup_tree(c)
            shutil.rmtree(rig.rt.state_dir(rig.cid), ignore_errors=True)
        done += 1
    elapsed = time.monotonic() - t0
    print("\nsoak (seed %d): %d cycles, %d runtime kills, %d left creating, %d leaks, %.0f s" %
          (seed, rig.figures["cycles"], rig.figures["kills"], rig.figures["left creating"], leaks, elapsed))
    assert done >= min(cycles, 10), "only %d cycles ran in %.0f s" % (done, elapsed)
    assert leaks == 0, "%d of %d cycles leaked (seed %d):\n%s" % (leaks, done, seed, "\n".join(failures[:10]))


@pytest.mark.timeout(120)
def test_delete_removes_only_its_own_temporaries(rt, bundle, test_dir):
    """What a killed writer leaves (.state.json.<hex>, .config.json.<hex>,
    regular files) goes with delete --force; a symlink of such a name, or
    any other name, is neither followed nor removed, and the removal of
    the directory then fails (fail closed) until it is gone."""
    b = bundle("/bin/sleep", "30")
    cid = "crash-tmp-" + os.urandom(3).hex()
    rt.create_ok(b, cid)
    d = rt.state_dir(cid)
    # and the fixed names older runtimes wrote (looked for only when the
    # directory is not empty without them)
    for name in (".state.json.0123456789ab", ".config.json.abcdef012345",
                 "state.json.tmp", "config.json.tmp"):
        with open(os.path.join(d, name), "w") as f:
            f.write('{"half": ')
    victim = os.path.join(test_dir, "victim")
    with open(victim, "w") as f:
        f.write("keep me")
    trap = os.path.join(d, ".state.json.fedcba987654")
    os.symlink(victim, trap)
    res = rt.delete(cid, force=True)
    assert res.rc not in (0, None), "delete --force removed a directory holding a foreign entry:\n%s" % res
    assert os.path.islink(trap), "the symlink named like a temporary was removed or followed"
    with open(victim) as f:
        assert f.read() == "keep me", "the symlink's target was touched"
    assert sorted(os.listdir(d)) == [".state.json.fedcba987654"], os.listdir(d)
    os.unlink(trap)
    res = rt.delete(cid, force=True)
    assert res.rc == 0, "delete --force of what was left failed:\n%s" % res
    assert not os.path.lexists(d)
    rt.create_ok(b, cid)  # the id again (rt's teardown deletes it)
