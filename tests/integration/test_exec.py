# SPDX-License-Identifier: Apache-2.0
"""`exec`: a second process in a running container joins the init's
namespaces, root, mounts and cgroup, gets its own identity from --process
or from the command line (defaults from the container's process), reports
its exit status, and fails with the real reason."""

import json
import os
import signal
import time

import pytest

from harness import (DEFAULT_CAPS, REAPER, cap_names, ns_inode, proc_alive, proc_status, spawn, wait_for,
                     _forget)
from test_terminal import ConsoleSocket, read_until

PROBE = "/bin/bento-probe"
EXIT_REFUSED = 1  # the probe's status for "the kernel said no"


def running(rt, bundle, *create_opts, configure=None):
    """A started container whose init sleeps; returns (bundle, id, init pid)."""
    b = bundle(PROBE, "sleep", "600")
    if configure:
        configure(b)
    cid, pid = rt.create_ok(b, None, *create_opts)
    rt.start_ok(cid)
    assert rt.status(cid) == "running"
    return b, cid, pid


def exec_json(rt, cid, *args, opts=(), rc=0, **kw):
    res = rt.cmd("exec", *opts, cid, *args, **kw)
    assert res.rc == rc, res
    return res.json()


def exec_line(rt, cid, *args, opts=(), **kw):
    res = rt.cmd("exec", *opts, cid, *args, **kw)
    assert res.rc is not None, res
    return res.out.strip()


def test_joins_every_namespace_of_the_init(rt, bundle):
    _, cid, pid = running(rt, bundle)
    got = exec_json(rt, cid, PROBE, "ns")
    for kind in ("pid", "net", "ipc", "uts", "mnt", "cgroup", "user"):
        assert got[kind] == ns_inode(pid, kind), "exec is not in the init's %s namespace: %s" % (kind, got)
    # the container made its own pid, net, ipc, uts and mount namespaces: all differ from ours
    for kind in ("pid", "net", "ipc", "uts", "mnt"):
        assert got[kind] != ns_inode(os.getpid(), kind), kind
    # and they are the ones `state` reports
    recorded = {n["type"]: n["inode"] for n in rt.state_json(cid)["bento"]["namespaces"]}
    names = {"pid": "pid", "network": "net", "ipc": "ipc", "uts": "uts", "mount": "mnt"}
    for oci, proc in names.items():
        assert recorded[oci] == got[proc], (oci, recorded, got)


def test_in_the_container_pid_namespace_with_outside_parent(rt, bundle):
    _, cid, pid = running(rt, bundle)
    got = exec_json(rt, cid, PROBE, "pid")
    # pid 1 is the init; the exec process is another pid of that namespace and
    # its parent (bento-runtime) lives outside it
    assert got["pid"] > 1 and got["ppid"] == 0, got
    pids = exec_json(rt, cid, PROBE, "pids")
    assert 1 in pids and len(pids) == 2, "expected the init and the probe only: %s" % pids


def test_sees_the_container_root_and_mounts(rt, bundle):
    def mark(b):
        with open(os.path.join(b.rootfs, "exec-marker"), "w") as f:
            f.write("inside\n")
    _, cid, pid = running(rt, bundle, configure=mark)
    got = exec_json(rt, cid, PROBE, "read", "/exec-marker")
    assert got["data"] == "inside\n", got
    mounts = exec_json(rt, cid, PROBE, "mounts")
    targets = {m["target"] for m in mounts}
    assert {"/", "/proc", "/dev", "/dev/pts", "/sys"} <= targets, targets
    # the init sees the same mount table
    with open("/proc/%d/mountinfo" % pid) as f:
        init_count = len(f.read().splitlines())
    assert len(mounts) == init_count
    # and nothing of the host's: the host's root holds /work, the container does not
    assert exec_json(rt, cid, PROBE, "stat", "/work", rc=EXIT_REFUSED)["ok"] is False


def test_root_is_the_init_root_with_no_pivot(rt, bundle):
    """With --no-pivot the mount namespace's root is still the host's: exec
    must land in the init's chroot, not there."""
    def mark(b):
        with open(os.path.join(b.rootfs, "exec-marker"), "w") as f:
            f.write("chrooted\n")
    _, cid, _ = running(rt, bundle, "--no-pivot", configure=mark)
    assert exec_json(rt, cid, PROBE, "read", "/exec-marker")["data"] == "chrooted\n"
    assert exec_json(rt, cid, PROBE, "stat", "/work", rc=EXIT_REFUSED)["ok"] is False
    assert exec_line(rt, cid, PROBE, "cwd") == "/"


def test_root_follows_the_init_into_its_chroot(rt, bundle):
    """The root is the init's own root directory, not whatever the mount
    namespace's root happens to be."""
    def cfg(b):
        sub = os.path.join(b.rootfs, "sub")
        os.makedirs(os.path.join(sub, "bin"))
        for name in ("busybox", "bento-probe"):
            os.link(os.path.join(b.rootfs, "bin", name), os.path.join(sub, "bin", name))
        with open(os.path.join(sub, "only-in-sub"), "w") as f:
            f.write("sub\n")
        b.set_args("/bin/busybox", "chroot", "/sub", PROBE, "sleep", "600")
        for s in ("bounding", "effective", "permitted"):
            b.process["capabilities"][s].append("CAP_SYS_CHROOT")
    _, cid, _ = running(rt, bundle, configure=cfg)
    wait_for(lambda: os.readlink("/proc/%d/root" % rt.pids[cid][0]).endswith("/sub"), what="the init's chroot")
    assert exec_json(rt, cid, PROBE, "read", "/only-in-sub")["data"] == "sub\n"
    assert exec_json(rt, cid, PROBE, "stat", "/sub", rc=EXIT_REFUSED)["ok"] is False


def test_cgroup_is_the_init_cgroup(rt, bundle):
    _, cid, pid = running(rt, bundle)
    with open("/proc/%d/cgroup" % pid) as f:
        init_cgroups = f.read()
    got = rt.cmd("exec", cid, PROBE, "read", "/proc/self/cgroup")
    assert got.rc == 0, got
    exec_cgroups = json.loads(got.out)["data"]
    assert exec_cgroups == init_cgroups, "exec is not in the init's cgroups"
    # where the container has a cgroup of its own (state says so), the
    # process is in it on every hierarchy, not in the caller's
    paths = (rt.state_json(cid)["bento"].get("cgroup") or {}).get("paths") or {}
    with open("/proc/self/cgroup") as f:
        ours = f.read()
    if paths:
        assert exec_cgroups != ours
    lines = {l.split(":", 2)[1]: l.split(":", 2)[2] for l in exec_cgroups.splitlines()}
    for ctrl, path in paths.items():
        key = "" if ctrl == "unified" else ctrl
        if key in lines:
            assert lines[key] == path, (ctrl, path, exec_cgroups)


def test_identity_from_the_command_line(rt, bundle):
    _, cid, _ = running(rt, bundle)
    res = rt.cmd("exec", "--user", "1000:1001", "--cwd", "/tmp", "-e", "FOO=bar", "--env=PATH=/bin",
                 cid, PROBE, "facts")
    assert res.rc == 0, res
    facts = res.json()
    ids = facts["ids"]
    assert (ids["uid"], ids["euid"], ids["gid"], ids["egid"]) == (1000, 1000, 1001, 1001), ids
    assert ids["groups"] == [], "the runtime's supplementary groups leaked: %s" % ids
    assert facts["cwd"] == "/tmp"
    env = facts["env"]
    assert "FOO=bar" in env and "PATH=/bin" in env and "TERM=xterm" in env, env
    assert len([e for e in env if e.startswith("PATH=")]) == 1, env
    assert not [e for e in env if e.startswith("BENTO_HOST_ONLY_VARIABLE")], "host environment leaked: %s" % env
    # a non-root uid keeps no capabilities; NNP comes from the container
    assert cap_names(facts["caps"]["effective"]) == set()
    assert facts["nnp"]["no_new_privs"] == 1


def test_user_without_gid_keeps_the_container_gid(rt, bundle):
    def cfg(b):
        b.process["user"] = {"uid": 0, "gid": 42}
    _, cid, _ = running(rt, bundle, configure=cfg)
    ids = exec_json(rt, cid, PROBE, "ids", opts=("-u", "7"))
    assert (ids["uid"], ids["gid"]) == (7, 42), ids


def test_defaults_and_cap_from_the_container(rt, bundle):
    def cfg(b):
        b.process["noNewPrivileges"] = False
    _, cid, _ = running(rt, bundle, configure=cfg)
    caps = exec_json(rt, cid, PROBE, "caps")
    assert cap_names(caps["effective"]) == set(DEFAULT_CAPS)
    assert cap_names(caps["bounding"]) == set(DEFAULT_CAPS)
    assert exec_json(rt, cid, PROBE, "nnp")["no_new_privs"] == 0
    caps = exec_json(rt, cid, PROBE, "caps", opts=("--cap", "CAP_SYS_ADMIN", "--no-new-privs"))
    assert cap_names(caps["effective"]) == set(DEFAULT_CAPS) | {"CAP_SYS_ADMIN"}
    assert cap_names(caps["bounding"]) == set(DEFAULT_CAPS) | {"CAP_SYS_ADMIN"}
    assert exec_json(rt, cid, PROBE, "nnp", opts=("--no-new-privs",))["no_new_privs"] == 1
    # what the capability set denies stays denied
    assert exec_line(rt, cid, PROBE, "sethostname", "other") == "EPERM"
    assert exec_line(rt, cid, PROBE, "sethostname", "other", opts=("--cap", "CAP_SYS_ADMIN")) == "OK"


def write_process(test_dir, proc, name="process.json"):
    path = os.path.join(test_dir, name)
    with open(path, "w") as f:
        json.dump(proc, f)
    return path


def test_process_file(rt, bundle, test_dir):
    _, cid, _ = running(rt, bundle)
    proc = {
        "args": [PROBE, "facts"],
        "env": ["PATH=/bin", "ONLY=from-file"],
        "cwd": "/etc",
        "user": {"uid": 1234, "gid": 5678, "additionalGids": [7], "umask": 0o027},
        # a non-root uid keeps capabilities across execve only as ambient ones
        "capabilities": {"bounding": ["CAP_CHOWN"], "effective": ["CAP_CHOWN"], "permitted": ["CAP_CHOWN"],
                         "inheritable": ["CAP_CHOWN"], "ambient": ["CAP_CHOWN"]},
        "rlimits": [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200}],
        "noNewPrivileges": True,
    }
    res = rt.cmd("exec", "--process", write_process(test_dir, proc), cid)
    assert res.rc == 0, res
    f = res.json()
    assert (f["ids"]["uid"], f["ids"]["gid"], f["ids"]["groups"], f["ids"]["umask"]) == (1234, 5678, [7], 0o027)
    # the file's env is the whole env, but for HOME, which runc and crun
    # take from the container's /etc/passwd ("/": uid 1234 is not there)
    assert sorted(f["env"]) == ["HOME=/", "ONLY=from-file", "PATH=/bin"], f["env"]
    assert f["cwd"] == "/etc"
    assert cap_names(f["caps"]["bounding"]) == {"CAP_CHOWN"}
    assert cap_names(f["caps"]["effective"]) == {"CAP_CHOWN"}
    assert f["rlimits"]["RLIMIT_NOFILE"] == {"soft": 100, "hard": 200}
    assert f["nnp"]["no_new_privs"] == 1


def test_process_file_errors(rt, bundle, test_dir):
    _, cid, _ = running(rt, bundle)
    bad = write_process(test_dir, {"args": [], "cwd": "/", "user": {"uid": 0, "gid": 0}})
    res = rt.cmd("exec", "-p", bad, cid)
    assert res.rc == 1 and "args: must have at least one entry" in res.err, res
    res = rt.cmd("exec", "-p", os.path.join(test_dir, "missing.json"), cid)
    assert res.rc == 1 and "missing.json" in res.err, res
    sched = write_process(test_dir, {"args": ["true"], "cwd": "/", "user": {"uid": 0, "gid": 0},
                                     "scheduler": {"policy": "SCHED_FIFO"}}, "sched.json")
    res = rt.cmd("exec", "-p", sched, cid)
    assert res.rc == 1 and "scheduler" in res.err, "a property the runtime cannot apply must be refused:\n%s" % res
    res = rt.cmd("exec", "-p", sched, "--cwd", "/", cid)
    assert res.rc == 1 and "--process" in res.err, res


def test_exit_status_propagates(rt, bundle):
    _, cid, _ = running(rt, bundle)
    assert rt.cmd("exec", cid, PROBE, "exit", "0").rc == 0
    assert rt.cmd("exec", cid, PROBE, "exit", "7").rc == 7
    res = rt.cmd("exec", cid, PROBE, "kill-self", "TERM")
    assert res.rc == 128 + signal.SIGTERM, res
    # the container goes on running
    assert rt.status(cid) == "running"


def test_output_and_input_are_the_callers(rt, bundle):
    _, cid, _ = running(rt, bundle)
    res = rt.cmd("exec", cid, PROBE, "say", "to-out", "to-err")
    assert res.rc == 0 and res.out.strip() == "to-out" and res.err.strip() == "to-err", res
    res = rt.cmd("exec", cid, PROBE, "stdin", input="fed through\n")
    assert res.rc == 0 and "fed through" in res.out, res


def test_missing_program(rt, bundle):
    _, cid, _ = running(rt, bundle)
    res = rt.cmd("exec", cid, "no-such-program")
    assert res.rc == 127, res
    assert 'exec: "no-such-program": executable file not found in $PATH' in res.err, res
    res = rt.cmd("exec", cid, "/bin/no-such-program")
    assert res.rc == 127 and "no such file or directory" in res.err.lower(), res
    res = rt.cmd("exec", cid, "/etc/passwd")
    assert res.rc == 126 and "permission denied" in res.err.lower(), res
    res = rt.cmd("exec", "--cwd", "/no/such/dir", cid, PROBE, "cwd")
    assert res.rc in (126, 127) and "/no/such/dir" in res.err, res
    assert rt.status(cid) == "running"


def test_unknown_created_and_stopped_containers(rt, bundle):
    res = rt.cmd("exec", "no-such-container", "true")
    assert res.rc == 1 and "does not exist" in res.err, res

    b = bundle(PROBE, "exit", "0")
    cid, pid = rt.create_ok(b)
    res = rt.cmd("exec", cid, PROBE, "pid")
    assert res.rc == 1 and "container not running" in res.err and "created" in res.err, res
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    rt.wait_status(cid, "stopped")
    res = rt.cmd("exec", cid, PROBE, "pid")
    assert res.rc == 1 and "container not running" in res.err and "stopped" in res.err, res


def test_detach_and_pid_file(rt, bundle, test_dir):
    _, cid, pid = running(rt, bundle)
    pid_file = os.path.join(test_dir, "exec.pid")
    t0 = time.monotonic()
    res = rt.cmd("exec", "--detach", "--pid-file", pid_file, cid, PROBE, "sleep", "30")
    assert res.rc == 0, res
    assert time.monotonic() - t0 < 10, "exec --detach waited for the process"
    with open(pid_file) as f:
        xpid = int(f.read())
    try:
        assert proc_alive(xpid), "the detached process is gone"
        assert ns_inode(xpid, "pid") == ns_inode(pid, "pid")
        assert ns_inode(xpid, "mnt") == ns_inode(pid, "mnt")
        # bento-runtime exited: the process belongs to whoever called it
        assert int(proc_status(xpid)["PPid"]) == os.getpid()
        assert proc_status(xpid)["NSpid"].split()[-1] != "1"
    finally:
        os.kill(xpid, signal.SIGKILL)
    assert REAPER.exit_code(xpid) == -signal.SIGKILL


def test_signals_are_forwarded(rt, bundle):
    _, cid, _ = running(rt, bundle)
    out = os.path.join(rt.scratch, "signals.out")
    with open(out, "wb") as f:
        p = spawn(rt.argv(["exec", cid, PROBE, "signals", "30"]), stdout=f, stderr=f, env=rt.env(),
                  start_new_session=True)
    try:
        wait_for(lambda: b"ready" in open(out, "rb").read(), what="the probe to start")
        p.send_signal(signal.SIGUSR1)
        wait_for(lambda: b"SIGUSR1" in open(out, "rb").read(), what="SIGUSR1 to arrive")
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        _forget(p)
    assert rc == 0, open(out, "rb").read()
    assert b"SIGTERM" in open(out, "rb").read()


def test_preserve_fds_and_no_leaks(rt, bundle, test_dir):
    _, cid, _ = running(rt, bundle)
    secret = os.path.join(test_dir, "fd3.txt")
    with open(secret, "w") as f:
        f.write("passed on\n")
    got = exec_json(rt, cid, PROBE, "fds", fd3=secret)
    assert got["fds"] == [0, 1, 2], "descriptors leaked into the exec'd process: %s" % got
    got = exec_json(rt, cid, PROBE, "readfd", "3", opts=("--preserve-fds", "1"), fd3=secret)
    assert got["data"] == "passed on\n", got
    got = exec_json(rt, cid, PROBE, "fds", opts=("--preserve-fds", "1"), fd3=secret)
    assert got["fds"] == [0, 1, 2, 3], got
    res = rt.cmd("exec", "--preserve-fds", "2", cid, PROBE, "fds", fd3=secret)
    assert res.rc == 1 and "fd 4 is not open" in res.err, res


def test_tty_with_console_socket(rt, bundle, test_dir):
    _, cid, pid = running(rt, bundle)
    sock = ConsoleSocket(os.path.join(test_dir, "exec-console.sock"))
    out = os.path.join(rt.scratch, "exec-tty.out")
    with open(out, "wb") as f:
        p = spawn(rt.argv(["exec", "--tty", "--console-socket", sock.path, cid, PROBE, "tty"]), stdout=f,
                  stderr=f, env=rt.env(), stdin=open(os.devnull, "rb"))
    try:
        master = sock.master()
        try:
            text = read_until(master, b"}").decode("utf-8", "replace")
            # closing the master early would hang the terminal up (SIGHUP)
            rc = p.wait(timeout=20)
        finally:
            os.close(master)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        _forget(p)
    assert rc == 0, open(out, "rb").read()
    got = json.loads(text[text.index("{"):text.rindex("}") + 1])
    assert got["stdin"] and got["stdout"] and got["stderr"], got
    assert got["ttyname"].startswith("/dev/pts/"), got
    # the exec'd terminal did not take /dev/console over
    mounts = exec_json(rt, cid, PROBE, "mounts")
    assert "/dev/console" not in {m["target"] for m in mounts}


def test_tty_detach_needs_console_socket(rt, bundle):
    _, cid, _ = running(rt, bundle)
    res = rt.cmd("exec", "-t", "-d", cid, PROBE, "tty")
    assert res.rc == 1 and "--console-socket" in res.err, res


def test_usage_errors(rt, bundle):
    _, cid, _ = running(rt, bundle)
    for args, want in ((["exec"], "container id"), (["exec", cid], "command"),
                       (["exec", "-u", "root", cid, "true"], "UID"),
                       (["exec", "-e", "NOEQUALS", cid, "true"], "KEY=VALUE"),
                       (["exec", "--cwd", "rel", cid, "true"], "absolute")):
        res = rt.cmd(*args)
        assert res.rc == 1 and want in res.err, res


@pytest.mark.rootless
def test_rootless_exec(rrt, rbundle):
    b = rbundle(PROBE, "sleep", "600")
    cid, pid = rrt.create_ok(b)
    rrt.start_ok(cid)
    res = rrt.cmd("exec", cid, PROBE, "facts")
    assert res.rc == 0, res
    f = res.json()
    assert f["ids"]["uid"] == 0, "root of the container's user namespace: %s" % f["ids"]
    assert f["ns"]["user"] == ns_inode(pid, "user") != ns_inode(os.getpid(), "user")
    assert f["ns"]["pid"] == ns_inode(pid, "pid")
    res = rrt.cmd("exec", "-u", "1", cid, PROBE, "ids")
    assert res.rc != 0, "uid 1 is not mapped in a one-id user namespace:\n%s" % res


@pytest.mark.parametrize("nnp", [True, False])
def test_container_seccomp_filter_applies(rt, bundle, nnp):
    def cfg(b):
        b.process["noNewPrivileges"] = nnp
        b.linux["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
                              "syscalls": [{"names": ["sethostname"], "action": "SCMP_ACT_ERRNO",
                                            "errnoRet": 18}]}  # EXDEV
    _, cid, _ = running(rt, bundle, configure=cfg)
    # CAP_SYS_ADMIN would allow it (see above): the filter is what says no
    assert exec_line(rt, cid, PROBE, "sethostname", "x", opts=("--cap", "CAP_SYS_ADMIN")) == "EXDEV"
    assert exec_json(rt, cid, PROBE, "nnp") == {"no_new_privs": int(nnp), "seccomp": 2}
    # a non-root exec gets the filter too (without NNP it goes in before the uid switch)
    assert exec_json(rt, cid, PROBE, "nnp", opts=("-u", "1000")) == {"no_new_privs": int(nnp), "seccomp": 2}


LANDLOCK = {
    "handledAccess": {"handledAccessFS": ["execute", "read_file", "read_dir", "write_file", "make_reg"]},
    "rules": {"pathBeneath": [
        {"allowedAccess": ["execute", "read_file", "read_dir"], "paths": ["/bin", "/proc"]},
        {"allowedAccess": ["read_file", "read_dir", "write_file", "make_reg"], "paths": ["/tmp"]},
    ]},
}


def test_container_landlock_applies(rt, bundle, test_dir):
    def cfg(b):
        b.add_mount("/tmp", type="tmpfs", source="tmpfs", options=["nosuid", "nodev", "mode=1777"])
        b.process["landlock"] = LANDLOCK
    _, cid, _ = running(rt, bundle, configure=cfg)
    assert exec_line(rt, cid, PROBE, "write", "/tmp/allowed", "x") == "OK"
    assert exec_line(rt, cid, PROBE, "write", "/dev/shm/denied", "x") == "EACCES"
    # a --process file without landlock of its own is still under the container's
    proc = {"args": [PROBE, "write", "/dev/shm/denied", "x"], "cwd": "/", "env": ["PATH=/bin"],
            "user": {"uid": 0, "gid": 0}, "noNewPrivileges": True}
    res = rt.cmd("exec", "-p", write_process(test_dir, proc), cid)
    assert res.rc == EXIT_REFUSED and res.out.strip() == "EACCES", res
    # and cannot get out of it by dropping noNewPrivileges: it does not run at all
    proc["noNewPrivileges"] = False
    res = rt.cmd("exec", "-p", write_process(test_dir, proc, "nnp-off.json"), cid)
    assert res.rc == 126 and res.out.strip() == "" and "landlock" in res.err.lower(), res
