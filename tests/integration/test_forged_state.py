# SPDX-License-Identifier: Apache-2.0
"""A forged state.json must not steer kill or delete at a host process.

Each test creates a real container, rewrites its state.json (the pid and
start time of an unrelated `sleep`, the pid-namespace inode of the host, a
cgroup that holds the runtime itself), and checks that `kill`, `kill --all`
and `delete --force` refuse with a message that names what did not match,
that the unrelated process lives, and that once the record is put back the
same verbs work as usual.

Every test is built so that a runtime that obeyed the forged record would
hit only processes the test made: a regression must fail the test, not the
machine.  A record naming the real host's pid namespace keeps its cgroup
(kill --all then goes by the cgroup); the case without a cgroup, where
kill --all walks /proc by that namespace, runs inside a pid namespace of
its own (SANDBOXED_KILL_ALL).  A record naming a cgroup that holds the
runtime names a scratch cgroup that holds only the test's processes."""

import json
import os
import subprocess

import pytest

import harness
from harness import REAPER, proc_alive, run_cmd, wait_for

CGROOT = "/sys/fs/cgroup"
ID_PREFIX = "kill-"


# -- helpers -------------------------------------------------------------------

def state_path(rt, cid):
    return os.path.join(rt.state_dir(cid), "state.json")


def read_record(rt, cid):
    with open(state_path(rt, cid)) as f:
        return json.load(f)


def write_record(rt, cid, rec):
    with open(state_path(rt, cid), "w") as f:
        json.dump(rec, f)


def pid_ns(rec):
    return [n for n in rec["namespaces"] if n["type"] == "pid"][0]


class Victim:
    """An unrelated host process, started by the test: what a forged record
    points the runtime at.  It must survive."""

    def __init__(self):
        self.p = harness.spawn(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        self.pid = self.p.pid
        self.start_time = harness.proc_start_time(self.pid)

    def alive(self):
        return proc_alive(self.pid, self.start_time)

    def stop(self):
        try:
            self.p.kill()
            self.p.wait(timeout=5)
        finally:
            harness._forget(self.p)


@pytest.fixture
def victim():
    v = Victim()
    yield v
    v.stop()


def running(rt, bundle, *mutate):
    b = bundle()
    b.probe("sleep", "120")
    for m in mutate:
        m(b)
    cid, pid = rt.create_ok(b, rt.new_id(ID_PREFIX))
    rt.start_ok(cid)
    rt.wait_status(cid, "running")
    return cid, pid


def assert_refused(res, *words):
    assert res.rc != 0, "a forged record was obeyed:\n%s" % res
    for w in words:
        assert w in res.err, "the refusal should say %r:\n%s" % (w, res)


def assert_normal_kill_and_delete_work(rt, cid, pid, all=False):
    res = rt.kill(cid, "KILL", all=all)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid), "the container's init survived kill"
    rt.wait_status(cid, "stopped")
    res = rt.delete(cid)
    assert res.rc == 0, res
    assert not os.path.exists(rt.state_dir(cid))


# -- a forged pid ----------------------------------------------------------------

def test_forged_pid_is_not_signalled_by_kill_or_delete(rt, bundle, victim):
    cid, pid = running(rt, bundle)
    real = read_record(rt, cid)
    forged = dict(real, pid=victim.pid, startTime=victim.start_time)
    write_record(rt, cid, forged)
    # the forged record looks alive to `state`: only the checks stop the signal
    assert rt.status(cid) == "running"

    for all in (False, True):
        res = rt.kill(cid, "KILL", all=all)
        assert_refused(res, "pid %d recorded for container %s is not in its cgroup" % (victim.pid, cid),
                       "refusing to signal it", "the state directory may have been tampered with")
    res = rt.delete(cid, force=True)
    assert_refused(res, "pid %d recorded for container %s" % (victim.pid, cid), "tampered")
    assert os.path.exists(state_path(rt, cid)), "a refused delete must leave the state directory"
    assert victim.alive(), "the unrelated process named by the forged record was killed"
    assert proc_alive(pid), "the container's own init was killed by a refused verb"

    write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid)
    assert victim.alive()


def test_forged_pid_without_a_recorded_cgroup_is_caught_by_the_pid_namespace(rt, bundle, victim):
    # the record's cgroup dropped as well: the pid namespace alone must catch it
    cid, pid = running(rt, bundle)
    real = read_record(rt, cid)
    forged = {k: v for k, v in real.items() if k != "cgroupPath"}
    forged.update(pid=victim.pid, startTime=victim.start_time)
    write_record(rt, cid, forged)

    res = rt.kill(cid, "KILL", all=True)
    assert_refused(res, "pid %d recorded for container %s is not in its pid namespace" % (victim.pid, cid),
                   "tampered")
    res = rt.delete(cid, force=True)
    assert_refused(res, "is not in its pid namespace")
    assert victim.alive() and proc_alive(pid)

    write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid)


def test_record_with_nothing_to_check_the_pid_against_is_refused(rt, bundle, victim):
    # no cgroup and a pid namespace said to be joined: nothing the kernel
    # could confirm, so nothing is signalled
    cid, pid = running(rt, bundle)
    real = read_record(rt, cid)
    forged = {k: v for k, v in real.items() if k != "cgroupPath"}
    forged.update(pid=victim.pid, startTime=victim.start_time)
    forged["namespaces"] = [dict(n, joined=True, path="/proc/1/ns/pid") if n["type"] == "pid" else n
                            for n in real["namespaces"]]
    write_record(rt, cid, forged)

    res = rt.kill(cid, "KILL")
    assert_refused(res, "pid %d recorded for container %s cannot be checked" % (victim.pid, cid))
    assert victim.alive() and proc_alive(pid)

    write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid)


# -- a forged pid namespace ------------------------------------------------------

def test_kill_all_refuses_the_hosts_pid_namespace(rt, bundle, victim):
    # the real init, but the record says its namespace is the host's.  The
    # record keeps its cgroup: a runtime that obeyed it would signal that
    # cgroup, not the host (see the sandboxed test for the case without)
    cid, pid = running(rt, bundle)
    real = read_record(rt, cid)
    forged = json.loads(json.dumps(real))
    pid_ns(forged)["inode"] = os.stat("/proc/self/ns/pid").st_ino
    write_record(rt, cid, forged)

    res = rt.kill(cid, "KILL", all=True)
    assert_refused(res, "pid namespace %d recorded for container %s is the runtime's own" %
                   (pid_ns(forged)["inode"], cid), "tampered")
    res = rt.delete(cid, force=True)
    assert_refused(res, "the runtime's own")
    assert victim.alive() and proc_alive(pid)

    write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid, all=True)


# Run inside a pid namespace of its own (pid 1: this script), so that a
# runtime that obeyed the forged record, and signalled every process of
# "the runtime's own" pid namespace, would kill this namespace and nothing
# of the host.
SANDBOXED_KILL_ALL = r"""
set -u
rt() { "$RUNTIME" --root "$ROOT" "$@"; }
sleep 600 & victim=$!
rt create --bundle "$BUNDLE" --pid-file "$SCRATCH/pid" "$CID" </dev/null >/dev/null 2>&1 || exit 10
rt start "$CID" || exit 11
cp "$ROOT/$CID/state.json" "$SCRATCH/state.real"
/usr/bin/python3 -c '
import json, os, sys
rec = json.load(open(sys.argv[1]))
del rec["cgroupPath"]
[n.update(inode=os.stat("/proc/self/ns/pid").st_ino) for n in rec["namespaces"] if n["type"] == "pid"]
json.dump(rec, open(sys.argv[1], "w"))
' "$ROOT/$CID/state.json" || exit 12
rt kill --all "$CID" KILL 2>&1; echo "forged-kill-rc=$?"
kill -0 "$victim" && echo victim-alive
kill -0 "$(cat "$SCRATCH/pid")" && echo init-alive
cp "$SCRATCH/state.real" "$ROOT/$CID/state.json"
rt kill --all "$CID" KILL; echo "kill-rc=$?"
rt delete --force "$CID"; echo "delete-rc=$?"
kill "$victim"
"""


def test_kill_all_without_a_cgroup_refuses_the_hosts_pid_namespace(rt, bundle):
    # no cgroup in the record: `kill --all` would walk /proc for the
    # recorded pid namespace, here "the host's" (this sandbox's)
    b = bundle()
    b.probe("sleep", "120")
    b.save()
    rt.bundles.append(b)
    cid = rt.new_id(ID_PREFIX + "sandboxed-")
    rt._remember(cid)
    env = dict(rt.env(), RUNTIME=rt.binary, ROOT=rt.root, BUNDLE=b.path, CID=cid, SCRATCH=rt.scratch)
    res = run_cmd(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "/bin/sh", "-c",
                   SANDBOXED_KILL_ALL], env=env)
    assert res.rc == 0, res
    assert "is the runtime's own" in res.out and "tampered" in res.out, res
    assert "forged-kill-rc=0" not in res.out, "kill --all obeyed the forged pid namespace:\n%s" % res
    assert "victim-alive" in res.out and "init-alive" in res.out, res
    assert "kill-rc=0" in res.out and "delete-rc=0" in res.out, res
    assert not os.path.exists(rt.state_dir(cid))


def test_kill_all_without_a_cgroup_walks_only_the_pid_namespace(rt, bundle, victim):
    # the walk of /proc that `kill --all` does for a record without a
    # cgroup: STOP reaches the init's child (the init itself is alive, so
    # the kernel did not do it) and nothing outside the namespace
    b = bundle()
    b.set_args("/bin/sh", "-c", "/bin/bento-probe sleep 120 & exec /bin/bento-probe sleep 120")
    cid, pid = rt.create_ok(b, rt.new_id(ID_PREFIX))
    rt.start_ok(cid)
    children = wait_for(lambda: [c for c in harness.proc_children(pid) if proc_alive(c)], timeout=10,
                        what="the container's second process")
    real = read_record(rt, cid)
    write_record(rt, cid, {k: v for k, v in real.items() if k != "cgroupPath"})
    try:
        res = rt.kill(cid, "STOP", all=True)
        assert res.rc == 0, res
        for p in [pid] + children:
            wait_for(lambda: harness.proc_state(p) == "T", timeout=5, what="pid %d to stop" % p)
        assert harness.proc_state(victim.pid) != "T", "kill --all stopped a process outside the container"
        assert rt.kill(cid, "CONT", all=True).rc == 0
        for p in [pid] + children:
            wait_for(lambda: harness.proc_state(p) != "T", timeout=5, what="pid %d to continue" % p)
    finally:
        write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid, all=True)


# -- a forged cgroup -------------------------------------------------------------

def scratch_hierarchy():
    """(key, mount point) of a hierarchy without a freezer, for cgroups the
    test makes: v1 "pids" where there is one (v1, hybrid), else the
    unified one (v2)."""
    keys = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            hid, ctrls, _ = line.rstrip("\n").split(":", 2)
            keys["unified" if hid == "0" and not ctrls else ctrls] = True
    if "pids" in keys and os.path.isdir(os.path.join(CGROOT, "pids")):
        return "pids", os.path.join(CGROOT, "pids")
    if os.path.exists(os.path.join(CGROOT, "cgroup.procs")):
        return "unified", CGROOT
    pytest.skip("no v1 pids hierarchy and no cgroup2 at %s" % CGROOT)


@pytest.fixture
def runner_cgroup():
    """A scratch cgroup D with a child D/runner: the runtime runs in
    D/runner, so a record naming D (or D/runner) names a cgroup holding the
    runtime's own.  Removed afterwards (what is left in it moves back)."""
    key, mnt = scratch_hierarchy()
    rel = "/kill-forge-%s" % os.urandom(4).hex()
    d = mnt + rel
    os.makedirs(d + "/runner")
    yield key, mnt, rel
    for sub in (d + "/runner", d):
        try:
            with open(sub + "/cgroup.procs") as f:
                for p in f.read().split():
                    try:
                        with open(mnt + "/cgroup.procs", "w") as o:
                            o.write(p)
                    except OSError:
                        pass
        except OSError:
            pass
    harness.remove_cgroup_tree(d)


def move_into(procs_dir, pid):
    with open(os.path.join(procs_dir, "cgroup.procs"), "w") as f:
        f.write(str(pid))


def runtime_in(rt, cgdir, *args):
    """bento-runtime, moved into cgroup cgdir before it starts."""
    argv = ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgdir] + rt.argv(args)
    return run_cmd(argv, env=rt.env())


def forge_cgroup(rec, key, path):
    forged = json.loads(json.dumps(rec))
    forged["cgroupPath"] = path
    cg = forged["applied"]["cgroup"]
    cg["paths"] = {key: path}
    cg["created"] = {key: 1}
    return forged


@pytest.mark.parametrize("which", ["parent", "own"])
def test_delete_refuses_a_recorded_cgroup_that_holds_the_runtime(rt, bundle, victim, runner_cgroup, which):
    # a stopped container: no pid to check, only the cgroup its delete
    # would kill everything in and remove; naming one that holds the
    # runtime (the host's root, the VM's own) would kill the host
    key, mnt, rel = runner_cgroup
    forged_path = rel if which == "parent" else rel + "/runner"
    move_into(mnt + forged_path, victim.pid)
    b = bundle()
    b.probe("exit", "0")
    cid, pid = rt.create_ok(b, rt.new_id(ID_PREFIX))
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    rt.wait_status(cid, "stopped")
    real = read_record(rt, cid)
    assert "applied" in real and "cgroup" in real["applied"], real
    write_record(rt, cid, forge_cgroup(real, key, forged_path))

    res = runtime_in(rt, mnt + rel + "/runner", "delete", "--force", cid)
    assert_refused(res, "is, or contains, the runtime's own cgroup", forged_path, "tampered")
    assert victim.alive(), "delete killed what is in a forged cgroup"
    assert os.path.isdir(mnt + forged_path), "delete removed a forged cgroup"
    assert os.path.exists(state_path(rt, cid))

    write_record(rt, cid, real)
    res = runtime_in(rt, mnt + rel + "/runner", "delete", cid)
    assert res.rc == 0, res
    assert not os.path.exists(rt.state_dir(cid))
    assert victim.alive()


def test_kill_refuses_a_forged_pid_in_a_forged_cgroup_that_holds_the_runtime(rt, bundle, victim,
                                                                             runner_cgroup):
    # pid and cgroup forged together: the victim is in the recorded cgroup,
    # but that cgroup holds the runtime, so it is not the container's
    key, mnt, rel = runner_cgroup
    move_into(mnt + rel, victim.pid)
    cid, pid = running(rt, bundle)
    real = read_record(rt, cid)
    forged = forge_cgroup(real, key, rel)
    forged.update(pid=victim.pid, startTime=victim.start_time)
    pid_ns(forged)["joined"] = True
    pid_ns(forged)["path"] = "/proc/1/ns/pid"
    write_record(rt, cid, forged)

    for args in (("kill", cid, "KILL"), ("kill", "--all", cid, "KILL"), ("delete", "--force", cid)):
        res = runtime_in(rt, mnt + rel + "/runner", *args)
        assert_refused(res, "is, or contains, the runtime's own cgroup")
    assert victim.alive() and proc_alive(pid)

    write_record(rt, cid, real)
    assert_normal_kill_and_delete_work(rt, cid, pid)
