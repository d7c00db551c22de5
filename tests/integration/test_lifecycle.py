# SPDX-License-Identifier: Apache-2.0
"""create / start / state / kill / delete / run / list / spec / features."""

import datetime
import json
import os
import re
import select
import socket
import threading
import time

import pytest

import harness
from harness import (REAPER, RFC3339, RUNTIME, Runtime, cgroup_dirs_named, is_child_subreaper, proc_alive, proc_children, proc_status, run_cmd,
                     wait_for)


def same_file(a, b):
    sa, sb = os.stat(a), os.stat(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def test_harness_is_a_subreaper_in_a_private_mount_namespace(private_mount_namespace):
    # the suite itself: container inits are reparented to us, and nothing a
    # test mounts can reach the host's mount table
    assert is_child_subreaper()
    assert private_mount_namespace is True
    assert harness.ORIGINAL_MNT_NS and os.stat("/proc/self/ns/mnt").st_ino != harness.ORIGINAL_MNT_NS
    root = [l.split() for l in open("/proc/self/mountinfo") if l.split()[4] == "/"][-1]
    assert not any(f.startswith("shared:") for f in root[6:root.index("-")]), "/ still propagates to the host"


def test_version_output():
    res = run_cmd([RUNTIME, "--version"], timeout=10)
    assert res.rc == 0, res
    lines = res.out.splitlines()
    assert len(lines) >= 3, res
    assert re.fullmatch(r"bento-runtime version \S+", lines[0]), res
    assert re.fullmatch(r"commit: \S+", lines[1]), res
    assert lines[2] == "spec: 1.2.0", res


def test_create_parks_init_and_start_execs_it(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    probe = os.path.join(b.rootfs, "bin", "bento-probe")

    # create returned: the init is alive, a child of this (subreaper) process,
    # and has not exec'd the user program yet
    assert proc_alive(pid)
    assert int(proc_status(pid)["PPid"]) == os.getpid(), "init should be reparented to the caller"
    assert not same_file("/proc/%d/exe" % pid, probe), "init ran process.args before start"

    st = rt.state_json(cid)
    assert st["status"] == "created"
    assert st["pid"] == pid
    assert st["id"] == cid
    assert st["bundle"] == b.path and os.path.isabs(st["bundle"])
    assert st["ociVersion"]
    assert RFC3339.match(st["created"]), st["created"]
    created = datetime.datetime.fromisoformat(st["created"].replace("Z", "+00:00"))
    age = (datetime.datetime.now(datetime.timezone.utc) - created).total_seconds()
    assert -5 < age < 120, "created timestamp %s is not now" % st["created"]
    assert os.path.realpath(os.path.join(b.path, st["rootfs"])) == os.path.realpath(b.rootfs)
    assert st["owner"] in ("root", "0")
    assert isinstance(st.get("annotations", {}), dict)

    rt.start_ok(cid)
    wait_for(lambda: same_file("/proc/%d/exe" % pid, probe), timeout=5, what="init to exec the probe")
    st = rt.state_json(cid)
    assert st["status"] == "running" and st["pid"] == pid

    res = rt.kill(cid, "TERM")
    assert res.rc == 0, res
    rt.wait_status(cid, "stopped")
    assert rt.state_json(cid)["pid"] == 0
    # the probe (pid 1 of its namespace) exits 128+15 on TERM; we reaped it
    assert REAPER.exit_code(pid) == 143

    res = rt.delete(cid)
    assert res.rc == 0, res
    assert not os.path.exists(rt.state_dir(cid))
    res = rt.state(cid)
    assert res.rc != 0 and "container does not exist" in res.err, res


def test_exit_status_of_started_container_reaches_caller(rt, bundle):
    b = bundle()
    b.probe("exit", "7")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 7
    rt.wait_status(cid, "stopped")


def test_start_twice_fails_and_changes_nothing(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    rt.wait_status(cid, "running")

    res = rt.start(cid)
    assert res.rc != 0, "second start succeeded:\n%s" % res
    st = rt.state_json(cid)
    assert st["status"] == "running" and st["pid"] == pid
    assert proc_alive(pid)

    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")
    res = rt.start(cid)
    assert res.rc != 0, "start of a stopped container succeeded:\n%s" % res
    assert rt.status(cid) == "stopped"


@pytest.mark.parametrize("code", [0, 3, 77])
def test_run_returns_exit_code_and_deletes(rt, bundle, code):
    b = bundle()
    b.probe("exit", str(code))
    res = rt.run(b)
    assert res.rc == code, res
    assert not os.path.exists(rt.state_dir(res.cid))
    st = rt.state(res.cid)
    assert st.rc != 0 and "container does not exist" in st.err, st


def test_run_keep_leaves_stopped_container(rt, bundle):
    b = bundle()
    b.probe("exit", "5")
    cid = rt.new_id()
    res = rt.run(b, cid, "--keep")
    assert res.rc == 5, res
    st = rt.state_json(cid)
    assert st["status"] == "stopped" and st["pid"] == 0
    assert rt.delete(cid).rc == 0
    assert not os.path.exists(rt.state_dir(cid))


def test_run_exit_code_of_signal_from_inside(rt, bundle):
    # without a pid namespace the probe is not an init and can die by its own signal
    b = bundle()
    b.drop_ns("pid")
    b.probe("kill-self", "TERM")
    res = rt.run(b)
    assert res.rc == 128 + 15, res


def test_run_exit_code_of_kill_from_outside(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid = rt.new_id()
    p = rt.spawn_run(b, cid)
    rt.wait_status(cid, "running", timeout=15)
    res = rt.kill(cid, "KILL")
    assert res.rc == 0, res
    rc = rt.finish_spawned(p, timeout=20)
    assert rc == 128 + 9, "run should exit 137 when its container is SIGKILLed, got %s" % rc
    assert not os.path.exists(rt.state_dir(cid))


def test_run_detach_returns_with_container_running(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid = rt.new_id()
    res = rt.run(b, cid, "--detach", timeout=20)
    assert res.rc == 0, res
    assert res.elapsed < 15, "run --detach did not return promptly"
    st = rt.state_json(cid)
    assert st["status"] == "running"
    pid = st["pid"]
    assert proc_alive(pid)
    rt.pids[cid] = (pid, None)
    res = rt.delete(cid, force=True)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid)


# -- run --report (bento's one process per sandbox) ---------------------------

def run_report(rt, b, tmp_path, *opts, **kw):
    report = os.path.join(str(tmp_path), "report.json")
    res = rt.run(b, None, "--report", report, *opts, **kw)
    with open(report) as f:
        rep = json.load(f)
    assert os.stat(report).st_mode & 0o777 == 0o600, oct(os.stat(report).st_mode)
    assert not os.path.exists(rt.state_dir(res.cid)), "run --report left its state directory"
    return res, rep


@pytest.mark.parametrize("code", [0, 137])
def test_run_report_has_the_exit_status_and_the_state_facts(rt, bundle, tmp_path, code):
    b = bundle()
    b.probe("exit", str(code))
    res, rep = run_report(rt, b, tmp_path)
    assert res.rc == code, res
    assert rep["created"] is True and rep["started"] is True, rep
    # an exit with 137 is not a SIGKILL: the report tells them apart
    assert rep["status"] == {"exited": code}, rep
    facts = rep["bento"]
    assert isinstance(facts["namespaces"], list), rep
    # the mount table is read live and the init is gone by now: none shown
    assert "mounts" not in facts, rep
    assert facts.get("oomKills", 0) == 0, rep


def test_run_report_signal_death_from_inside(rt, bundle, tmp_path):
    # without a pid namespace the probe is not an init and can die by its own signal
    b = bundle()
    b.drop_ns("pid")
    b.probe("kill-self", "KILL")
    res, rep = run_report(rt, b, tmp_path)
    assert res.rc == 128 + 9, res
    assert rep["created"] and rep["started"], rep
    assert rep["status"] == {"signaled": 9}, rep


def test_run_report_failed_start(rt, bundle, tmp_path):
    # executable, so create's lookup passes; its execve fails after the
    # release (the interpreter is missing): created, never started
    b = bundle()
    path = os.path.join(b.rootfs, "bin", "not-executable")
    with open(path, "w") as f:
        f.write("#!/no/such/interpreter\nexit 0\n")
    os.chmod(path, 0o755)
    b.set_args("/bin/not-executable")
    log = os.path.join(str(tmp_path), "log.json")
    res, rep = run_report(rt, b, tmp_path, global_opts=["--log", log, "--log-format", "json"])
    assert res.rc not in (0, None), res
    assert rep["created"] is True and rep["started"] is False, rep
    assert "status" not in rep, rep
    assert "namespaces" in rep.get("bento", {}), rep
    # the runtime's words are in the log; on the container's stderr there is
    # only what the init itself said there (as after `start`)
    assert "not-executable" in open(log).read()
    assert res.err.count("bento-runtime:") <= 1, res


def test_run_report_failed_create(rt, bundle, tmp_path):
    b = bundle()
    b.config["root"]["path"] = "/no/such/rootfs"
    res, rep = run_report(rt, b, tmp_path)
    assert res.rc not in (0, None), res
    assert rep == {"created": False, "started": False}, rep


def test_run_report_is_refused_with_detach(rt, bundle, tmp_path):
    b = bundle()
    b.probe("sleep", "60")
    report = os.path.join(str(tmp_path), "report.json")
    res = rt.run(b, None, "--detach", "--report", report)
    assert res.rc != 0, res
    assert "--report" in res.err and "--detach" in res.err, res
    assert not os.path.exists(report)
    assert not os.path.exists(rt.state_dir(res.cid))


# -- run --exit-fd (bento starts its post-run work while the delete runs) ----

def test_run_exit_fd_says_the_status_before_the_delete(rt, bundle, tmp_path):
    b = bundle()
    b.probe("exit", "3")
    # a poststop hook (the delete runs it) that marks its end after a pause:
    # the line must be there while the mark is not yet
    mark = os.path.join(str(tmp_path), "poststop-done")
    b.config.setdefault("hooks", {})["poststop"] = [
        {"path": "/bin/sh", "args": ["sh", "-c", 'sleep 3; : > "$0"', mark]}]
    r, w = os.pipe()
    seen = {}

    def reader():
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(r, 64)
            if not chunk:
                break
            data += chunk
        seen["line"] = data
        seen["mark_then"] = os.path.exists(mark)
        seen["rest"] = os.read(r, 64)  # then end of file: the runtime closed it

    t = threading.Thread(target=reader)
    t.start()
    try:
        res = rt.run(b, None, "--exit-fd", str(w), pass_fds=(w,))
    finally:
        os.close(w)
        t.join(30)
        os.close(r)
    assert res.rc == 3, res
    assert seen["line"] == b"%d\n" % (3 << 8), seen
    assert seen["mark_then"] is False, "the exit line came after the delete's poststop hook"
    assert seen["rest"] == b"", seen
    assert os.path.exists(mark), "the poststop hook did not run"
    assert not os.path.exists(rt.state_dir(res.cid))


def test_run_exit_fd_ends_without_a_line_when_nothing_ran(rt, bundle):
    b = bundle()
    b.config["root"]["path"] = "/no/such/rootfs"
    r, w = os.pipe()
    try:
        res = rt.run(b, None, "--exit-fd", str(w), pass_fds=(w,))
    finally:
        os.close(w)
    try:
        assert os.read(r, 64) == b"", "a status line for a container never created"
    finally:
        os.close(r)
    assert res.rc not in (0, None), res


def test_run_exit_fd_reader_gone_does_not_stop_the_delete(rt, bundle, tmp_path):
    # the reader closed its end: the write fails with EPIPE, and the runtime
    # still deletes the container and writes its report
    b = bundle()
    b.probe("exit", "5")
    r, w = os.pipe()
    os.close(r)
    try:
        res, rep = run_report(rt, b, tmp_path, "--exit-fd", str(w), pass_fds=(w,))
    finally:
        os.close(w)
    assert res.rc == 5, res
    assert rep["status"] == {"exited": 5}, rep


@pytest.mark.parametrize("case", ["detach", "stdout", "closed", "preserved"])
def test_run_exit_fd_refusals(rt, bundle, case):
    b = bundle()
    b.probe("sleep", "60")
    r, w = os.pipe()
    try:
        opts, fds = ["--exit-fd", str(w)], (w,)
        if case == "detach":
            opts = ["--detach"] + opts
        elif case == "stdout":
            opts, fds = ["--exit-fd", "1"], ()
        elif case == "closed":
            opts, fds = ["--exit-fd", "250"], ()
        else:  # fd w goes into the container with --preserve-fds
            opts = ["--preserve-fds", str(w - 2)] + opts
        res = rt.run(b, None, *opts, pass_fds=fds)
    finally:
        os.close(w)
        os.close(r)
    assert res.rc != 0, res
    assert "--exit-fd" in res.err, res
    assert not os.path.exists(rt.state_dir(res.cid))


# -- run --wait-fd (bento starts the runtime while it still writes the bundle) ----


def run_in_thread(rt, b, cid, *opts, pass_fds=()):
    box = {}
    t = threading.Thread(target=lambda: box.update(res=rt.run(b, cid, *opts, pass_fds=pass_fds)))
    t.start()
    return t, box


def test_run_wait_fd_starts_at_the_go_and_holds_what_it_was_given(rt, bundle):
    """Before the go the runtime has made nothing, not even the container's
    state; the descriptors that come with the go stay open in the runtime
    (not in the container) until it ends, and the run is as without the
    option."""
    b = bundle()
    b.probe("sleep", "1")
    cid = rt.new_id()
    mine, theirs = socket.socketpair()
    r, w = os.pipe()
    try:
        t, box = run_in_thread(rt, b, cid, "--wait-fd", str(theirs.fileno()),
                               pass_fds=(theirs.fileno(),))
        time.sleep(0.5)
        assert t.is_alive() and not os.path.exists(rt.state_dir(cid))
        socket.send_fds(mine, [b"h"], [w])
        os.close(w)
        w = -1
        mine.sendall(b"g")
        # the container runs a second: the held end keeps the pipe open meanwhile
        assert select.select([r], [], [], 0.3)[0] == [], "the held descriptor was closed early"
        t.join(60)
        assert box["res"].rc == 0, box["res"]
        assert os.read(r, 1) == b"", "the runtime ended and the held end with it"
    finally:
        mine.close()
        theirs.close()
        os.close(r)
        if w >= 0:
            os.close(w)
    assert not os.path.exists(rt.state_dir(cid))


def test_run_wait_fd_end_of_file_ends_the_run_having_made_nothing(rt, bundle):
    """The caller gave the run up: the runtime ends with 0 and never reads
    the bundle (one that names no rootfs would fail)."""
    b = bundle()
    b.config["root"]["path"] = "/no/such/rootfs"
    cid = rt.new_id()
    mine, theirs = socket.socketpair()
    t, box = run_in_thread(rt, b, cid, "--wait-fd", str(theirs.fileno()),
                           pass_fds=(theirs.fileno(),))
    time.sleep(0.3)
    theirs.close()
    mine.close()
    t.join(30)
    assert box["res"].rc == 0, box["res"]
    assert not os.path.exists(rt.state_dir(cid))


@pytest.mark.parametrize("case", ["detach", "same-as-exit-fd", "a-pipe", "a-wrong-byte"])
def test_run_wait_fd_refusals(rt, bundle, case):
    b = bundle()
    b.probe("exit", "0")
    cid = rt.new_id()
    mine, theirs = socket.socketpair()
    r, w = os.pipe()
    try:
        fd = theirs.fileno()
        opts, fds = ["--wait-fd", str(fd)], (fd,)
        if case == "detach":
            opts = ["--detach"] + opts
        elif case == "same-as-exit-fd":
            opts = opts + ["--exit-fd", str(fd)]
        elif case == "a-pipe":
            opts, fds = ["--wait-fd", str(w)], (w,)
        else:
            mine.sendall(b"x")
        res = rt.run(b, cid, *opts, pass_fds=fds)
    finally:
        for f in (mine, theirs):
            f.close()
        os.close(r)
        os.close(w)
    assert res.rc != 0, res
    assert "--wait-fd" in res.err, res
    assert not os.path.exists(rt.state_dir(cid))


def test_kill_accepts_signal_numbers_and_names(rt, bundle):
    b = bundle()
    b.probe("signals", "60")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    wait_for(lambda: "ready" in rt.container_output(cid), timeout=10, what="probe ready")

    sent = [("USR1", "SIGUSR1"), ("SIGUSR2", "SIGUSR2"), ("10", "SIGUSR1"), ("HUP", "SIGHUP"), ("12", "SIGUSR2")]
    for n, (arg, name) in enumerate(sent, 1):
        res = rt.kill(cid, arg)
        assert res.rc == 0, res
        wait_for(lambda: len(rt.container_output(cid).split()) >= n + 1, timeout=5,
                 what="probe to report signal %s" % arg)
    got = rt.container_output(cid).split()
    assert got == ["ready"] + [name for _, name in sent]

    res = rt.kill(cid, "NOTASIGNAL")
    assert res.rc != 0, "an unknown signal name was accepted:\n%s" % res
    assert rt.status(cid) == "running" and proc_alive(pid)

    res = rt.kill(cid)  # default: TERM
    assert res.rc == 0, res
    assert REAPER.exit_code(pid) == 0
    assert rt.container_output(cid).split()[-1] == "SIGTERM"
    rt.wait_status(cid, "stopped")


def test_kill_stopped_container_fails(rt, bundle):
    b = bundle()
    b.probe("exit", "0")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    rt.wait_status(cid, "stopped")
    res = rt.kill(cid, "KILL")
    assert res.rc != 0, res
    assert "container not running" in res.err, res
    assert rt.status(cid) == "stopped"


def test_kill_all_reaches_every_process(rt, bundle):
    # no pid namespace: killing the init alone would leave its child running
    b = bundle()
    b.drop_ns("pid")
    b.set_args("/bin/sh", "-c", "/bin/bento-probe sleep 120 & exec /bin/bento-probe sleep 120")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    children = wait_for(lambda: [c for c in proc_children(pid) if proc_alive(c)], timeout=10,
                        what="the container's second process")
    res = rt.kill(cid, "KILL", all=True)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid), "init survived kill --all"
    for c in children:
        assert rt.wait_pid_gone(c), "child %d survived kill --all" % c
    rt.wait_status(cid, "stopped")


def test_delete_running_needs_force(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    res = rt.delete(cid)
    assert res.rc != 0, "delete of a running container without --force succeeded:\n%s" % res
    assert os.path.isdir(rt.state_dir(cid))
    assert rt.status(cid) == "running" and proc_alive(pid)

    res = rt.delete(cid, force=True)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid)
    assert not os.path.exists(rt.state_dir(cid))
    res = rt.state(cid)
    assert res.rc != 0 and "container does not exist" in res.err, res


def test_delete_created_container_without_force(rt, bundle):
    """runtime-spec says delete of a container that is not stopped fails;
    like runc and crun, a created one is killed and deleted instead.
    buildah (podman build's RUN steps) deletes without --force after a
    failed start or network setup, while the container is still created:
    refusing there would leave its parked init and cgroup behind."""
    b = bundle()
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    res = rt.delete(cid)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid), "the parked init survived delete"
    assert not os.path.exists(rt.state_dir(cid))


def test_delete_unknown(rt):
    res = rt.delete("no-such-container", force=True)
    assert res.rc == 0, "delete --force of an unknown id must succeed:\n%s" % res
    res = rt.delete("no-such-container")
    assert res.rc != 0 and "does not exist" in res.err, res


@pytest.mark.parametrize("verb", [["state"], ["start"], ["kill"], ["kill", "KILL"]])
def test_unknown_container(rt, verb):
    args = [verb[0], "no-such-container"] + verb[1:]
    res = rt.cmd(*args)
    assert res.rc != 0, res
    assert "container does not exist" in res.err, res


def test_duplicate_id_rejected(rt, bundle):
    b1, b2 = bundle(), bundle()
    b1.probe("sleep", "60")
    b2.probe("sleep", "60")
    cid, pid = rt.create_ok(b1)
    res = rt.create(b2, cid)
    assert res.rc != 0, "second create with the same id succeeded:\n%s" % res
    st = rt.state_json(cid)
    assert st["status"] == "created" and st["pid"] == pid and st["bundle"] == b1.path
    assert proc_alive(pid)


@pytest.mark.parametrize("bad_id", ["../escape", "a/b", ".hidden", "", "with space", "semi;colon"])
def test_invalid_id_rejected(rt, bundle, test_dir, bad_id):
    b = bundle()
    res = rt.create(b, bad_id)
    if res.rc != 0:
        rt.ids.remove(bad_id)  # nothing to force-delete (and the id is unusable)
    assert res.rc != 0, "id %r was accepted:\n%s" % (bad_id, res)
    assert not os.path.exists(rt.root) or os.listdir(rt.root) == [], os.listdir(rt.root)
    assert not os.path.exists(os.path.join(test_dir, "escape"))
    name = bad_id.rstrip("/").split("/")[-1]
    if name:
        left = cgroup_dirs_named(name, exact=True)
        assert left == [], "refused id left cgroups: %s" % left


def test_list_formats(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    created, _ = rt.create_ok(b)
    running, _ = rt.create_ok(b)
    rt.start_ok(running)
    b2 = bundle()
    b2.probe("exit", "0")
    stopped = rt.new_id()
    assert rt.run(b2, stopped, "--keep").rc == 0

    res = rt.cmd("list", "--format", "json")
    assert res.rc == 0, res
    by_id = {c["id"]: c for c in res.json()}
    assert set(by_id) == {created, running, stopped}
    assert by_id[created]["status"] == "created"
    assert by_id[running]["status"] == "running"
    assert by_id[stopped]["status"] == "stopped"
    assert by_id[running]["bundle"] == b.path and by_id[running]["pid"] > 0
    for c in by_id.values():
        assert RFC3339.match(c["created"]), c

    res = rt.cmd("list", "-q")
    assert res.rc == 0, res
    assert sorted(res.out.split()) == sorted([created, running, stopped])

    res = rt.cmd("list")
    assert res.rc == 0, res
    lines = res.out.splitlines()
    assert "ID" in lines[0].upper()
    for cid in (created, running, stopped):
        assert any(line.split()[0] == cid for line in lines[1:]), res

    for cid in (created, running, stopped):
        assert rt.delete(cid, force=True).rc == 0
    res = rt.cmd("list", "--format=json")
    assert res.rc == 0 and res.json() == [], res
    res = rt.cmd("list", "-q")
    assert res.rc == 0 and res.out.strip() == "", res


def test_spec_writes_default_config_once(rt, test_dir):
    d = os.path.join(test_dir, "specdir")
    os.makedirs(d)
    res = rt.cmd("spec", "--bundle", d)
    assert res.rc == 0, res
    path = os.path.join(d, "config.json")
    with open(path, "rb") as f:
        first = f.read()
    cfg = json.loads(first)
    assert cfg["ociVersion"].startswith("1.")
    assert cfg["process"]["args"] and cfg["root"]["path"]
    types = {n["type"] for n in cfg["linux"]["namespaces"]}
    assert {"pid", "mount"} <= types and "user" not in types

    res = rt.cmd("spec", "--bundle", d)
    assert res.rc != 0, "spec overwrote an existing config.json:\n%s" % res
    with open(path, "rb") as f:
        assert f.read() == first

    d2 = os.path.join(test_dir, "specdir2")
    os.makedirs(d2)
    res = rt.cmd("spec", "--rootless", cwd=d2)  # default bundle: the working directory
    assert res.rc == 0, res
    with open(os.path.join(d2, "config.json")) as f:
        cfg = json.load(f)
    assert "user" in {n["type"] for n in cfg["linux"]["namespaces"]}
    assert cfg["linux"]["uidMappings"] and cfg["linux"]["gidMappings"]


def test_features(rt):
    res = rt.cmd("features")
    assert res.rc == 0, res
    f = res.json()
    assert f["ociVersionMin"].startswith("1.") and f["ociVersionMax"].startswith("1.")
    ns = set(f["linux"]["namespaces"])
    assert {"pid", "network", "ipc", "uts", "mount", "user", "cgroup"} <= ns
    assert {"ro", "rw", "bind", "rbind", "nosuid", "nodev", "noexec"} <= set(f["mountOptions"])
    assert "CAP_SYS_ADMIN" in f["linux"]["capabilities"]


def test_option_value_forms(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    b.save()
    rt.bundles.append(b)
    cid = rt.new_id()
    rt.ids.append(cid)
    pidfile = os.path.join(rt.scratch, "eq.pid")
    res = run_cmd([RUNTIME, "--root=%s" % rt.root, "create", "--bundle=%s" % b.path, "--pid-file=%s" % pidfile, cid],
                  timeout=30, env=rt.env(), out_path=rt.out_path(cid), err_path=rt.err_path(cid))
    assert res.rc == 0, res
    with open(pidfile) as f:
        pid = int(f.read())
    rt.pids[cid] = (pid, None)
    res = run_cmd([RUNTIME, "--root", rt.root, "state", cid], timeout=10, env=rt.env())
    assert res.rc == 0 and res.json()["pid"] == pid, res
    res = run_cmd([RUNTIME, "--root=%s" % rt.root, "delete", "--force", cid], timeout=10, env=rt.env())
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid)


def test_bundle_defaults_to_working_directory(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    cid = rt.new_id()
    res = rt.create(b, cid, bundle_opt=False, cwd=b.path)
    assert res.rc == 0, res
    assert rt.state_json(cid)["bundle"] == b.path


def test_config_edits_after_create_have_no_effect(rt, bundle):
    b = bundle()
    b.probe("say", "before", "-")
    cid, pid = rt.create_ok(b)
    b.probe("say", "after", "-")
    b.save()
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    assert rt.container_output(cid).split() == ["before"]


def test_default_root_directory(binaries, bundle, test_dir):
    root = "/run/bento-runtime"
    scratch = os.path.join(test_dir, "scratch-default-root")
    os.makedirs(scratch)
    r = Runtime(root=root, scratch=scratch, use_root_option=False)
    try:
        b = bundle()
        b.probe("sleep", "60")
        cid, pid = r.create_ok(b)
        assert os.path.isdir(os.path.join(root, cid)), "no state under the default root %s" % root
        assert r.state_json(cid)["status"] == "created"
        assert r.delete(cid, force=True).rc == 0
        assert not os.path.exists(os.path.join(root, cid))
    finally:
        problems = r.cleanup()
    assert not problems, problems


def test_short_option_forms(rt, bundle):
    b = bundle()
    b.probe("sleep", "60")
    b.save()
    rt.bundles.append(b)
    cid = rt.new_id()
    rt.ids.append(cid)
    res = rt.cmd("create", "-b", b.path, cid, out_path=rt.out_path(cid), err_path=rt.err_path(cid))
    assert res.rc == 0, res
    pid = rt.state_json(cid)["pid"]
    rt.pids[cid] = (pid, None)
    assert rt.start_ok(cid)
    res = rt.cmd("kill", "-a", cid, "KILL")
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid)
    res = rt.cmd("delete", "-f", cid)
    assert res.rc == 0, res
    assert not os.path.exists(rt.state_dir(cid))

    cid2 = rt.new_id()
    res = rt.run(b, cid2, "-d")
    assert res.rc == 0, res
    st = rt.state_json(cid2)
    assert st["status"] == "running"
    rt.pids[cid2] = (st["pid"], None)
    assert rt.delete(cid2, force=True).rc == 0


def test_debug_flag_keeps_behaviour(rt, bundle):
    res = rt.cmd("state", "no-such-container", global_opts=["--debug"])
    assert res.rc != 0 and "container does not exist" in res.err, res
    b = bundle()
    b.probe("exit", "4")
    res = rt.run(b, global_opts=["--debug"])
    assert res.rc == 4, res
