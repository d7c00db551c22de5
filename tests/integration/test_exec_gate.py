# SPDX-License-Identifier: Apache-2.0
"""bento-exec-gate: the seccomp agent behind `exec: none` (docs/exec-gate.md,
"What the gate lets through" and "Fail closed").

The bundles here carry, written by hand, the exact linux.seccomp object the
compiler emits for `exec: none` (and `none-strict`): execve and execveat go
to the gate through SCMP_ACT_NOTIFY and listenerPath.  The probe makes raw
system calls from inside (`exec-raw`, `spawn`, `int80`, `thread`, `steps`
runs several in one process so that no shell has to exec), and we check:

  * bento-runtime (gate in daemon mode, as `bento run` starts it): the target
    runs, then every execve/execveat fails with EPERM, from the target, from
    a forked child and from a thread; a shell's command exits 126; after the
    gate is killed every exec fails with ENOSYS; with no gate, create fails
    and leaves nothing behind;
  * runc and crun (gate in wrapper mode, `bento-exec-gate -- runc run ...`):
    the same, and both refuse to start with no gate.  crun runs inside a
    private mount namespace with a cgroup-v1-only view of /sys/fs/cgroup,
    as ../shared/bench/peers/benchenv.sh does (crun 1.8.1 refuses this
    host's "hybrid" layout);
  * none-strict: fork, vfork and clone without CLONE_THREAD fail with EPERM,
    clone3 with ENOSYS, threads work;
  * foreign system call ABIs (int $0x80, x32 numbers) are killed with
    SIGSYS, while everything else is only refused; on a kernel without ia32
    emulation, int $0x80 faults (SIGSEGV) before the filter sees it, and
    still never runs (the host is asked first, outside any sandbox).
"""

import errno
import json
import os
import re
import select
import shutil
import socket
import stat
import subprocess
import tempfile
import time

import pytest

import harness
from harness import REAPER, expect_create_failure, parse_steps, wait_for

GATE = os.path.join(harness.BUILD, "bin", "bento-exec-gate")
PROBE_IN = "/bin/bento-probe"
SIGSYS_EXIT = harness.SIGSYS_EXIT
STEP_MARK = "@@bento-step-rc="

# -- the seccomp objects `bento translate` must emit ----------------------------


def exec_none_seccomp(listener):
    """linux.seccomp for `exec: none`."""
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "architectures": ["SCMP_ARCH_X86_64"],
        "listenerPath": listener,
        "listenerMetadata": "bento-exec-gate/1",
        "syscalls": [
            {"names": ["execve", "execveat"], "action": "SCMP_ACT_NOTIFY"},
        ],
    }


def exec_none_strict_seccomp(listener):
    """linux.seccomp for `exec: none-strict` (x86-64)."""
    s = exec_none_seccomp(listener)
    s["syscalls"] += [
        {"names": ["fork", "vfork"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
        {"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
         "args": [{"index": 0, "value": 0x10000, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]},
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    ]
    return s


def gate_bundle(b, listener, strict=False):
    b.linux["seccomp"] = (exec_none_strict_seccomp if strict else exec_none_seccomp)(listener)
    b.process["noNewPrivileges"] = True
    # SIGSYS dumps core by default: no core files from the kill tests
    b.process["rlimits"] = [{"type": "RLIMIT_CORE", "hard": 0, "soft": 0}]
    return b


def with_host_usr(b):
    """The host's /usr read-only at /usr (as bento bundles bind the system
    paths), so that bash and python3 run inside the busybox root."""
    b.add_mount("/usr", "bind", "/usr", ["rbind", "ro"])
    for name in ("lib", "lib64"):
        if os.path.isdir("/usr/" + name) and not os.path.lexists(os.path.join(b.rootfs, name)):
            os.symlink("usr/" + name, os.path.join(b.rootfs, name))
    return b


def exec_raw(call):
    return "exec-raw %s %s exit 0" % (call, PROBE_IN)


# Every way the target can try to exec, and one call that is not an exec.
EXEC_STEPS = [exec_raw("execve"), exec_raw("execveat"),
              "fork " + exec_raw("execve"), "fork " + exec_raw("execveat"),
              "exec %s exit 0" % PROBE_IN, "thread " + exec_raw("execve"),
              "syscall getpid"]
EXEC_EXPECTED = [("EPERM", 1)] * 6 + [("OK", 0)]

STRICT_STEPS = ["spawn fork", "spawn vfork", "spawn clone", "spawn clone3", "forks 1", "threads 4",
                exec_raw("execve"), exec_raw("execveat"), "thread " + exec_raw("execveat"),
                "syscall getpid"]

# In Python, as a real program would meet the block.
PY_SCRIPT = r"""
import errno, json, os, subprocess, threading
def attempt(f):
    try:
        f()
        return "OK"
    except OSError as e:
        return "%s:%s" % (type(e).__name__, errno.errorcode.get(e.errno, e.errno))
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
def thread():
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
print(json.dumps({"subprocess": attempt(lambda: subprocess.run(["ls", "/"], stdout=subprocess.DEVNULL)),
                  "fork": attempt(fork), "thread": attempt(thread)}))
"""


def lines(steps):
    return [(s.line, s.rc) for s in steps]


def check_strict_steps(steps):
    assert lines(steps[:4]) == [("EPERM", 1), ("EPERM", 1), ("EPERM", 1), ("ENOSYS", 1)], steps
    assert steps[4].json() == {"forked": 0, "errno": "EPERM"}, "glibc's fork() is clone: %r" % steps[4]
    assert lines(steps[5:]) == [("OK", 0), ("EPERM", 1), ("EPERM", 1), ("EPERM", 1), ("OK", 0)], steps


# -- the gate ---------------------------------------------------------------------


@pytest.fixture
def gate_dir():
    # short: unix socket paths are limited to 107 bytes
    d = tempfile.mkdtemp(prefix="beg.", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Gate:
    """bento-exec-gate in daemon mode, as `bento run` starts it: ready once
    it has written its byte on --ready-fd."""

    def __init__(self, sock_dir, *extra, name="exec-gate.sock", user=None):
        self.socket = os.path.join(sock_dir, name)
        self.log_path = os.path.join(sock_dir, name + ".log")
        rfd, wfd = os.pipe()
        argv = [GATE, "--socket", self.socket, "--ready-fd", str(wfd), "--verbose"] + list(extra)
        if user is not None:
            argv = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + argv
        with open(self.log_path, "ab") as log:
            self.p = harness.spawn(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(wfd,))
        os.close(wfd)
        try:
            ready = select.select([rfd], [], [], 20)[0]
            byte = os.read(rfd, 1) if ready else b""
        finally:
            os.close(rfd)
        assert byte == b"R", "the gate did not signal readiness:\n%s" % self.log()
        assert stat.S_ISSOCK(os.lstat(self.socket).st_mode)

    @property
    def pid(self):
        return self.p.pid

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait(self, timeout=30):
        try:
            return self.p.wait(timeout=timeout)
        finally:
            harness._forget(self.p)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        return self.wait()

    def served(self):
        """(init pid named by the runtime, [pids let through], denied count)
        from the verbose log."""
        log = self.log()
        init = [int(m) for m in re.findall(r"init pid (\d+)", log)]
        through = [int(m) for m in re.findall(r"^bento-exec-gate: pid (\d+): \w+ let through", log, re.M)]
        denied = len(re.findall(r"^bento-exec-gate: pid \d+: \w+ denied \(EPERM\)$", log, re.M))
        return (init[0] if init else None), through, denied


@pytest.fixture
def gates(gate_dir):
    made = []

    def start(*extra, **kw):
        g = Gate(gate_dir, *extra, **kw)
        made.append(g)
        return g

    yield start
    for g in made:
        g.kill()


def assert_served_one_exec(gate, denied):
    assert gate.wait() == 0, gate.log()
    init, through, n_denied = gate.served()
    assert init is not None, gate.log()
    assert through == [init], "exactly the init's first exec goes through:\n%s" % gate.log()
    assert n_denied == denied, gate.log()
    assert "1 exec let through, %d call(s) denied" % denied in gate.log()
    assert not os.path.lexists(gate.socket), "the gate removes its socket"


# -- bento-runtime, gate in daemon mode ----------------------------------------------


def test_one_exec_let_through_then_every_exec_denied(rt, bundle, gates):
    g = gates()
    b = gate_bundle(bundle(), g.socket)
    b.probe("steps", *EXEC_STEPS)
    res = rt.run(b)
    assert res.rc == 0, res
    steps = parse_steps(EXEC_STEPS, res.out)
    # the steps ran: the target was reached through the one exec let through
    assert lines(steps) == EXEC_EXPECTED, res
    assert_served_one_exec(g, denied=6)


def test_shells_and_python_meet_eperm(rt, bundle, gates):
    """docs/exec-gate.md, "What the gate lets through": a shell's command fails with "Operation not permitted" and
    exit 126; Python's subprocess raises PermissionError, os.fork works."""
    cases = [
        # bash from the host, as a bento bundle binds /usr: `ls` is /bin/ls
        (["/usr/bin/bash", "-c", "ls /"], 126, "Operation not permitted"),
        # busybox sh runs applets named without a path in-process, with no
        # exec at all; named by path they are exec'd
        (["/bin/sh", "-c", "/bin/ls /"], 126, "Operation not permitted"),
        (["/bin/sh", "-c", "%s exit 0" % PROBE_IN], 126, "Operation not permitted"),
    ]
    for i, (argv, want_rc, want_err) in enumerate(cases):
        g = gates(name="g%d.sock" % i)
        b = with_host_usr(gate_bundle(bundle(), g.socket))
        b.set_args(*argv)
        res = rt.run(b)
        assert res.rc == want_rc, res
        assert want_err in res.err + res.out, res
        assert_served_one_exec(g, denied=1)
    g = gates(name="py.sock")
    b = with_host_usr(gate_bundle(bundle(), g.socket))
    b.set_args("/usr/bin/python3", "-c", PY_SCRIPT)
    res = rt.run(b)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"subprocess": "PermissionError:EPERM", "fork": "OK", "thread": "OK"}, res


def open_fds(pid):
    out = {}
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            out[int(fd)] = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            pass
    return out


def test_gate_killed_every_exec_fails_with_enosys(rt, bundle, gates, gate_dir):
    """Fail closed: once the gate is gone the kernel answers ENOSYS."""
    shared = os.path.join(gate_dir, "shared")
    os.makedirs(shared)
    g = gates()
    b = gate_bundle(bundle(), g.socket)
    b.add_mount("/mnt", "bind", shared, ["rbind"])
    cmds = [exec_raw("execve"), "wait-file /mnt/gone 30", exec_raw("execve"), exec_raw("execveat"),
            "fork " + exec_raw("execve"), "thread " + exec_raw("execveat")]
    b.probe("steps", *cmds)
    cid = rt.new_id()
    p = rt.spawn_run(b, cid)
    try:
        wait_for(lambda: STEP_MARK in rt.container_output(cid), timeout=20, what="the first step")
        # while it serves, the gate holds the listener and its signalfd, nothing else
        fds = open_fds(g.pid)
        extra = sorted(v for k, v in fds.items() if k > 2)
        assert extra == ["anon_inode:[signalfd]", "anon_inode:seccomp notify"], fds
        assert not os.path.lexists(g.socket), "the socket goes once the runtime is connected"
        assert g.kill() == -9
        with open(os.path.join(shared, "gone"), "w") as f:
            f.write("gone\n")
    finally:
        rc = rt.finish_spawned(p)
    assert rc == 0, rt.container_output(cid)
    steps = parse_steps(cmds, rt.container_output(cid))
    assert lines(steps) == [("EPERM", 1), ("OK", 0)] + [("ENOSYS", 1)] * 4, steps


def test_no_gate_create_fails_and_leaves_nothing(rt, bundle, gate_dir):
    path = os.path.join(gate_dir, "exec-gate.sock")
    b = gate_bundle(bundle(), path)
    b.probe("exit", "0")
    expect_create_failure(rt, b, message=["cannot connect to the seccomp agent at '%s'" % path,
                                          "No such file or directory"])
    # a socket file left by a gate that was killed while listening
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(path)
        expect_create_failure(rt, b, message=["cannot connect to the seccomp agent", "Connection refused"])
    finally:
        s.close()


def test_one_container_per_gate(rt, bundle, gates):
    """The gate takes one connection and removes its socket: a second
    container naming it cannot be created."""
    g = gates()
    b1 = gate_bundle(bundle(), g.socket)
    b1.probe("steps", exec_raw("execveat"))
    cid, pid = rt.create_ok(b1)
    wait_for(lambda: not os.path.lexists(g.socket), timeout=10, what="the gate to take the connection")
    b2 = gate_bundle(bundle(), g.socket)
    b2.probe("exit", "0")
    expect_create_failure(rt, b2, message=["cannot connect to the seccomp agent", "No such file or directory"])
    assert g.p.poll() is None, "the first container's gate is unaffected"
    rt.start_ok(cid)
    assert REAPER.exit_code(pid, timeout=30) == 0
    rt.wait_status(cid, "stopped")
    assert lines(parse_steps(["?"], rt.container_output(cid))) == [("EPERM", 1)]
    assert_served_one_exec(g, denied=1)


def test_wrapper_mode_with_bento_runtime(rt, bundle, gate_dir):
    sock = os.path.join(gate_dir, "exec-gate.sock")
    b = gate_bundle(bundle(), sock)
    b.probe("steps", *EXEC_STEPS)
    b.save()
    cid = rt.new_id()
    rt._remember(cid)
    res = harness.run_cmd([GATE, "--socket", sock, "--verbose", "--"] + rt.argv(["run", "--bundle", b.path, cid]),
                          env=rt.env(), timeout=60)
    assert res.rc == 0, res
    assert lines(parse_steps(EXEC_STEPS, res.out)) == EXEC_EXPECTED, res
    assert gate_log_counts(res.err) == (1, 6), res
    assert not os.path.lexists(sock)
    # the command's status passes through
    b.probe("exit", "3")
    b.save()
    cid = rt.new_id()
    rt._remember(cid)
    res = harness.run_cmd([GATE, "--socket", sock, "--"] + rt.argv(["run", "--bundle", b.path, cid]),
                          env=rt.env(), timeout=60)
    assert res.rc == 3, res
    # a detached container: the command returns at once, the gate serves the
    # container to its end (it reaps the init as a subreaper), then exits
    b.probe("steps", "sleep 1", exec_raw("execveat"))
    b.save()
    cid = rt.new_id()
    rt._remember(cid)
    res = harness.run_cmd([GATE, "--socket", sock, "--verbose", "--"]
                          + rt.argv(["run", "--detach", "--bundle", b.path, cid]), env=rt.env(), timeout=60)
    assert res.rc == 0, res
    assert lines(parse_steps(["?", "?"], res.out)) == [("", 0), ("EPERM", 1)], res
    assert gate_log_counts(res.err) == (1, 1), res
    assert res.err.index("the command exited") < res.err.index("the filter has no users left"), res


def test_runtime_exec_into_a_gated_container_is_refused(rt, bundle, gates):
    """`exec` would start a second process with the same profile, whose
    listener has nowhere to go: the gate has stopped listening."""
    g = gates()
    b = gate_bundle(bundle(), g.socket)
    b.probe("sleep", "20")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    res = rt.cmd("exec", cid, PROBE_IN, "exit", "0")
    assert res.rc != 0 and "cannot connect to the seccomp agent" in res.err, res
    assert rt.kill(cid, "KILL").rc == 0
    REAPER.exit_code(pid, timeout=20)
    assert_served_one_exec(g, denied=0)


def test_create_and_start_must_fall_within_the_timeout(rt, bundle, gates):
    """bento-runtime connects at create and hands the listener over at start
    (noNewPrivileges): a start after the gate gave up fails."""
    g = gates("--timeout", "1")
    b = gate_bundle(bundle(), g.socket)
    b.probe("exit", "0")
    cid, pid = rt.create_ok(b)
    assert g.wait() == 1
    assert "sent no complete container process state within 1 s" in g.log(), g.log()
    res = rt.start(cid)
    assert res.rc != 0 and "cannot hand the listener to the seccomp agent" in res.err, res
    assert rt.container_output(cid) == "", "the target must not have run"


@pytest.mark.rootless
def test_rootless_runtime_and_gate(rrt, rbundle, gate_dir):
    """Both unprivileged (uid 65534), the container's root mapped to it."""
    os.chown(gate_dir, harness.ROOTLESS_UID, harness.ROOTLESS_GID)
    g = Gate(gate_dir, user=harness.ROOTLESS_UID)
    try:
        assert os.lstat(g.socket).st_uid == harness.ROOTLESS_UID
        b = gate_bundle(rbundle(), g.socket)
        b.probe("steps", *EXEC_STEPS)
        res = rrt.run(b)
        assert res.rc == 0, res
        assert lines(parse_steps(EXEC_STEPS, res.out)) == EXEC_EXPECTED, res
        assert_served_one_exec(g, denied=6)
    finally:
        g.kill()


# -- none-strict and foreign system call ABIs ----------------------------------------


def test_none_strict_blocks_processes_not_threads(rt, bundle, gates):
    g = gates()
    b = gate_bundle(bundle(), g.socket, strict=True)
    b.probe("steps", *STRICT_STEPS)
    res = rt.run(b)
    assert res.rc == 0, res
    check_strict_steps(parse_steps(STRICT_STEPS, res.out))
    assert_served_one_exec(g, denied=3)
    g = gates(name="py.sock")
    b = with_host_usr(gate_bundle(bundle(), g.socket, strict=True))
    b.set_args("/usr/bin/python3", "-c", PY_SCRIPT)
    res = rt.run(b)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"subprocess": "PermissionError:EPERM", "fork": "PermissionError:EPERM",
                                   "thread": "OK"}, res


# A foreign call (i386 `int $0x80`, an x32-numbered call) is the one thing the
# filter kills for.  bento-runtime sets the bad-architecture action to
# KILL_PROCESS, so a foreign call from a second thread takes the whole process
# down; runc and crun keep libseccomp's default, KILL_THREAD, so there only the
# calling thread dies (THREAD-KILLED: the probe saw its second thread die and
# lived on) until the main thread's own foreign call ends the process.
#
# That holds for every call that reaches the kernel's system call entry, x32
# included where the kernel lacks x32 (seccomp looks before the kernel
# dispatches).  A kernel without ia32 emulation has no int $0x80 entry at all:
# the call faults (SIGSEGV) before any filter sees it, and a fault signal ends
# the whole process whichever thread took it.  The host_abis fixture asks the
# host which it is (harness.ForeignAbi); then each ABI gets a run of its own,
# so that int $0x80's fault cannot hide what the filter does with x32.
FOREIGN_STEPS = ["thread int80 20", "thread syscall 0x40000027", "syscall getpid", "int80 20"]


def foreign_runs(host_abis):
    """[(steps, exit status)]: today's one run when the filter sees both
    foreign calls, else one run per ABI with the fate the host predicts."""
    if all(a.fate == SIGSYS_EXIT for a in host_abis.values()):
        return [(FOREIGN_STEPS, SIGSYS_EXIT)]
    return [(["thread " + a.call, "syscall getpid", a.call], a.fate) for a in host_abis.values()]


def check_foreign(res, steps, fate, kill_process):
    """The process ends by the predicted fate (the filter's SIGSYS, or the
    kernel's own fault where it has no entry for the ABI), and no foreign
    call ran."""
    assert res.rc == fate, res
    got = parse_steps(steps, res.out)
    if kill_process or fate != SIGSYS_EXIT:
        # the first thread's foreign call already ended the whole process
        assert got == [], res
        assert "OK" not in res.out, res
        return
    threads = sum(1 for s in steps if s.startswith("thread "))
    assert len(got) == threads + 1, res
    for s in got[:threads]:
        assert (s.line, s.rc) == ("THREAD-KILLED", 3), s
    assert lines(got[threads:]) == [("OK", 0)]


def foreign_fork_steps():
    # a forked child dies (of SIGSYS, or of the kernel's fault), the parent goes on
    return ["fork int80 20", "fork syscall 0x40000027", "syscall getpid"]


@pytest.mark.parametrize("strict", [False, True], ids=["none", "none-strict"])
def test_foreign_abis_are_killed(rt, bundle, gates, strict, host_abis):
    for i, (steps, fate) in enumerate(foreign_runs(host_abis)):
        g = gates(name="foreign%d.sock" % i)
        b = gate_bundle(bundle(), g.socket, strict=strict)
        b.probe("steps", *steps)
        check_foreign(rt.run(b), steps, fate, kill_process=True)
        assert g.wait() == 0, g.log()
    if not strict:
        g = gates(name="fork.sock")
        b = gate_bundle(bundle(), g.socket)
        b.probe("steps", *foreign_fork_steps())
        res = rt.run(b)
        assert res.rc == 0, res
        assert lines(parse_steps(foreign_fork_steps(), res.out)) == [("", host_abis["i386"].fate),
                                                                     ("", host_abis["x32"].fate),
                                                                     ("OK", 0)], res


# -- who gets the one exec: a runtime written here ---------------------------------

# A minimal "runtime" on the host: install the exec-gate filter on itself
# (raw BPF, with a listener), hand the listener and its state to the gate,
# then let another process, or a thread, exec first.
FAKE_RUNTIME = r"""
import ctypes, json, os, socket, struct, sys, threading
sock_path, mode = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)
LD, JEQ, RET = 0x20, 0x15, 0x06
prog = b"".join([
    insn(LD, 0, 0, 4), insn(JEQ, 1, 0, 0xC000003E), insn(RET, 0, 0, 0x80000000),
    insn(LD, 0, 0, 0), insn(JEQ, 2, 0, 59), insn(JEQ, 1, 0, 322),
    insn(RET, 0, 0, 0x7FFF0000), insn(RET, 0, 0, 0x7FC00000)])
buf = ctypes.create_string_buffer(prog)
fprog = struct.pack("HxxxxxxQ", len(prog) // 8, ctypes.addressof(buf))
fbuf = ctypes.create_string_buffer(fprog)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
fd = libc.syscall(317, 1, 1 << 3, fbuf)  # seccomp(SET_MODE_FILTER, NEW_LISTENER)
assert fd >= 0, ctypes.get_errno()
me = os.getpid()
print("pid", me, flush=True)
state = {"ociVersion": "1.0.2", "fds": ["seccompFd"], "pid": me,
         "state": {"ociVersion": "1.0.2", "id": "fake", "status": "creating", "pid": me, "bundle": "/"}}
s = socket.socket(socket.AF_UNIX)
s.connect(sock_path)
socket.send_fds(s, [json.dumps(state).encode()], [fd])
os.close(fd)
s.close()
target = ["/bin/sh", "-c", "echo target-ran; /bin/true; echo second $?"]
if mode == "child-first":
    pid = os.fork()
    if pid == 0:
        try:
            os.execv("/bin/true", ["true"])
        except OSError as e:
            os._exit(e.errno)
    print("child", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
    os.execv(target[0], target)
else:
    t = threading.Thread(target=lambda: os.execv(target[0], target))
    t.start()
    t.join()
"""


@pytest.mark.parametrize("mode", ["child-first", "thread"])
def test_only_the_init_gets_the_one_exec(gates, mode):
    """An exec by another process before the init's is denied and does not
    use up the allowance; a thread of the init counts as the init."""
    g = gates()
    res = harness.run_cmd(["/usr/bin/python3", "-c", FAKE_RUNTIME, g.socket, mode], timeout=30)
    assert res.rc == 0, res
    out = res.out.split()
    assert out[0] == "pid", res
    pid = int(out[1])
    out = out[2:]
    if mode == "child-first":
        assert out[:2] == ["child", str(errno.EPERM)], res
        out = out[2:]
    # the target ran; its own exec was then denied
    assert out[0] == "target-ran" and out[1] == "second" and out[2] != "0", res
    assert g.wait() == 0, g.log()
    init, through, denied = g.served()
    assert init == pid and len(through) == 1, g.log()
    assert denied == (2 if mode == "child-first" else 1), g.log()
    if mode == "thread":
        assert through[0] != pid, "the notification carries the thread's id:\n%s" % g.log()


# -- the gate's own defences ----------------------------------------------------------


def send_message(sock_path, data, fds=()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    if data:
        socket.send_fds(s, [data], list(fds))
    return s


RUNC_LIKE = (b'{"ociVersion":"1.0.2-dev","fds":["seccompFd"],"pid":%d,"state":{"ociVersion":"1.0.2-dev",'
             b'"id":"x","status":"creating","pid":%d,"bundle":"/b"}}')


def test_gate_never_waits_forever_and_refuses_bad_peers(gates):
    # nobody connects
    g = gates("--timeout", "1", name="a.sock")
    t0 = time.monotonic()
    assert g.wait() == 1
    assert time.monotonic() - t0 < 10
    assert "no runtime connected" in g.log() and not os.path.lexists(g.socket), g.log()
    # a peer that connects and says nothing (the socket stays open)
    g = gates("--timeout", "1", name="b.sock")
    s = send_message(g.socket, b"")
    assert g.wait() == 1
    s.close()
    assert "sent no complete container process state within 1 s" in g.log(), g.log()
    # a peer that trickles bytes: the deadline still holds
    g = gates("--timeout", "1", name="c.sock")
    s = send_message(g.socket, b"{")
    for _ in range(15):
        if g.p.poll() is not None:
            break
        try:
            s.send(b" ")
        except OSError:
            break
        time.sleep(0.2)
    assert g.wait() == 1, g.log()
    s.close()
    assert "within 1 s" in g.log(), g.log()
    # a message that is not the container process state
    g = gates(name="d.sock")
    s = send_message(g.socket, b'{"ociVersion": 1}')
    assert g.wait() == 1
    s.close()
    assert "refusing the runtime's message: container process state: ociVersion: expected a string" in g.log()
    # the right shape, but the descriptor is not a seccomp listener
    g = gates(name="e.sock")
    with open("/dev/null", "rb") as devnull:
        s = send_message(g.socket, RUNC_LIKE % (os.getpid(), os.getpid()), [devnull.fileno()])
    assert g.wait() == 1
    s.close()
    assert 'the descriptor named "seccompFd" is not a seccomp listener' in g.log(), g.log()
    # no descriptor at all
    g = gates(name="f.sock")
    s = send_message(g.socket, RUNC_LIKE % (os.getpid(), os.getpid()))
    assert g.wait() == 1
    s.close()
    assert "fds: names 1 descriptor(s), but 0 came with it" in g.log(), g.log()


def test_socket_is_private_and_never_replaced(gates, gate_dir):
    g = gates()
    st = os.lstat(g.socket)
    assert stat.S_IMODE(st.st_mode) & 0o077 == 0, oct(st.st_mode)
    res = harness.run_cmd(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                           "import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])", g.socket])
    assert res.rc != 0 and "PermissionError" in res.err, res
    assert g.p.poll() is None, "a refused connection does not use up the gate"
    # something already at the path is never replaced
    taken = os.path.join(gate_dir, "taken")
    with open(taken, "w") as f:
        f.write("x")
    res = harness.run_cmd([GATE, "--socket", taken])
    assert res.rc == 1 and "'%s' already exists" % taken in res.err, res
    assert open(taken).read() == "x"


def test_command_line(gate_dir):
    res = harness.run_cmd([GATE, "--help"])
    assert res.rc == 0 and "--socket PATH" in res.out and "--ready-fd" in res.out and "-- COMMAND" in res.out, res
    res = harness.run_cmd([GATE])
    assert res.rc == 2 and "--socket PATH is required" in res.err, res
    res = harness.run_cmd([GATE, "--socket", os.path.join(gate_dir, "s"), "--timeout", "0"])
    assert res.rc == 2 and "--timeout" in res.err, res
    res = harness.run_cmd([GATE, "--socket", os.path.join(gate_dir, "s"), "--ready-fd", "99"])
    assert res.rc == 2 and "--ready-fd" in res.err, res
    res = harness.run_cmd([GATE, "--socket", "/" + "x" * 120, "--", "true"])
    assert res.rc == 125 and "longer than a unix socket address" in res.err, res
    sock = os.path.join(gate_dir, "w.sock")
    # wrapper mode: the command's status, 127/126 when it cannot run
    assert harness.run_cmd([GATE, "--socket", sock, "--", "sh", "-c", "exit 7"]).rc == 7
    res = harness.run_cmd([GATE, "--socket", sock, "--", "/nonexistent/cmd"])
    assert res.rc == 127 and "cannot run '/nonexistent/cmd'" in res.err, res
    res = harness.run_cmd([GATE, "--socket", sock, "--", gate_dir])
    assert res.rc == 126, res
    assert not os.path.lexists(sock)
    # the command inherits none of the gate's descriptors, --ready-fd included
    rfd, wfd = os.pipe()
    try:
        res = harness.run_cmd([GATE, "--socket", sock, "--ready-fd", str(wfd), "--", harness.PROBE, "fds"],
                              pass_fds=(wfd,))
        assert res.rc == 0 and json.loads(res.out)["fds"] == [0, 1, 2], res
        assert os.read(rfd, 2) == b"R"
    finally:
        os.close(rfd)
        os.close(wfd)
    # signals sent to the wrapper reach the command
    p = harness.spawn([GATE, "--socket", sock, "--", "sleep", "30"], stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: harness.proc_children(p.pid), timeout=10, what="the command to start")
        p.send_signal(15)
        assert p.wait(timeout=10) == 128 + 15
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        harness._forget(p)
    assert not os.path.lexists(sock)


# -- runc and crun, gate in wrapper mode -----------------------------------------------

# benchenv.sh's cgroup view: a private mount namespace in which
# /sys/fs/cgroup holds only the v1 hierarchies (the same ones, so the same
# cgroups) and no "unified" mount, which crun 1.8.1 refuses on this host.
CGROUP_VIEW = r"""set -eu
if mountpoint -q /sys/fs/cgroup/unified; then
    v1=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
                  if ($(i+1) == "cgroup" && $5 ~ /^\/sys\/fs\/cgroup\//) print $5, $(i+3)
                  break } }' /proc/self/mountinfo)
    mount -t tmpfs -o mode=755 bento-cgroup-view /sys/fs/cgroup
    echo "$v1" | while read -r path opts; do
        mkdir -p "$path"
        mount -t cgroup -o "${opts#rw,}" cgroup "$path"
    done
fi
exec "$@"
"""


class Peer:
    """runc or crun with a scratch --root; crun in the cgroup view."""

    def __init__(self, name, test_dir):
        self.name = name
        self.binary = shutil.which(name)
        self.root = os.path.join(test_dir, name + "-root")
        self.ids = []

    def argv(self, *args):
        cmd = [self.binary, "--root", self.root] + [str(a) for a in args]
        if self.name == "crun":
            return ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", CGROUP_VIEW, "sh"] + cmd
        return cmd

    def run_argv(self, b, cid):
        b.save()
        self.ids.append(cid)
        return self.argv("run", "--bundle", b.path, cid)

    def run(self, b, cid, timeout=60):
        return harness.run_cmd(self.run_argv(b, cid), timeout=timeout)

    def run_gated(self, b, cid, sock, timeout=60):
        return harness.run_cmd([GATE, "--socket", sock, "--verbose", "--"] + self.run_argv(b, cid),
                               timeout=timeout)

    def listed(self):
        res = harness.run_cmd(self.argv("list", "--format", "json"))
        assert res.rc == 0, res
        return [c["id"] for c in json.loads(res.out or "[]") or []]

    def cleanup(self):
        problems = []
        for cid in self.ids:
            harness.run_cmd(self.argv("delete", "--force", cid), timeout=20)
            left = harness.cgroup_dirs_named(cid)
            if left:
                problems.append("%s left cgroups for %s: %s" % (self.name, cid, left))
                for c in left:
                    harness.remove_cgroup_tree(c)
        return problems


@pytest.fixture(params=["runc", "crun"])
def peer(request, test_dir, rootfs_template):
    if not shutil.which(request.param):
        pytest.skip("%s is not installed (contrib/install-deps.sh installs it)" % request.param)
    p = Peer(request.param, test_dir)
    yield p
    problems = p.cleanup()
    assert not problems, "\n".join(problems)


def peer_id(peer):
    return "g%s-%s" % (os.urandom(4).hex(), peer.name)


def gate_log_counts(err):
    """(execs let through, calls denied) in a verbose gate's log.  The gate
    shares stderr with the runtime and the target, whose writes may land
    mid-line around the gate's own (each of its lines is one write), so the
    lines are not anchored."""
    return (len(re.findall(r"bento-exec-gate: pid \d+: \w+ let through", err)),
            len(re.findall(r"bento-exec-gate: pid \d+: \w+ denied \(EPERM\)", err)))


def test_peer_runtime_exec_gate(peer, bundle, gate_dir):
    sock = os.path.join(gate_dir, "exec-gate.sock")
    b = gate_bundle(bundle(), sock)
    b.probe("steps", *EXEC_STEPS)
    res = peer.run_gated(b, peer_id(peer), sock)
    assert res.rc == 0, res
    assert lines(parse_steps(EXEC_STEPS, res.out)) == EXEC_EXPECTED, res
    assert gate_log_counts(res.err) == (1, 6), res
    assert "1 exec let through, 6 call(s) denied" in res.err, res
    assert not os.path.lexists(sock)
    # a shell's command: 126, "Operation not permitted"
    for argv in (["/usr/bin/bash", "-c", "ls /"], ["/bin/sh", "-c", "/bin/ls /"]):
        b = with_host_usr(gate_bundle(bundle(), sock))
        b.set_args(*argv)
        res = peer.run_gated(b, peer_id(peer), sock)
        assert res.rc == 126 and "Operation not permitted" in res.err, res
        assert gate_log_counts(res.err) == (1, 1), res


def test_peer_runtime_refuses_to_start_without_a_gate(peer, bundle, gate_dir):
    sock = os.path.join(gate_dir, "exec-gate.sock")
    b = gate_bundle(bundle(), sock)
    b.probe("exit", "0")
    cid = peer_id(peer)
    REAPER.reap_now()
    before = set(harness.proc_children(os.getpid()))
    res = peer.run(b, cid)
    assert res.rc not in (0, None), res
    assert sock in res.err, "the error names the missing agent:\n%s" % res
    assert "seccomp" in res.err, res
    assert res.out == "", "the target must not have run:\n%s" % res
    REAPER.reap_now()
    assert [p for p in harness.proc_children(os.getpid()) if p not in before and harness.proc_alive(p)] == []
    assert cid not in peer.listed()
    assert harness.cgroup_dirs_named(cid) == []
    assert harness.mounts_under(b.path) == []


def test_peer_runtime_none_strict_and_foreign_abis(peer, bundle, gate_dir, host_abis):
    sock = os.path.join(gate_dir, "exec-gate.sock")
    b = gate_bundle(bundle(), sock, strict=True)
    b.probe("steps", *STRICT_STEPS)
    res = peer.run_gated(b, peer_id(peer), sock)
    assert res.rc == 0, res
    check_strict_steps(parse_steps(STRICT_STEPS, res.out))
    assert gate_log_counts(res.err) == (1, 3), res
    for strict in (False, True):
        for steps, fate in foreign_runs(host_abis):
            b = gate_bundle(bundle(), sock, strict=strict)
            b.probe("steps", *steps)
            res = peer.run_gated(b, peer_id(peer), sock)
            check_foreign(res, steps, fate, kill_process=False)
    b = with_host_usr(gate_bundle(bundle(), sock, strict=True))
    b.set_args("/usr/bin/python3", "-c", PY_SCRIPT)
    res = peer.run_gated(b, peer_id(peer), sock)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"subprocess": "PermissionError:EPERM", "fork": "PermissionError:EPERM",
                                   "thread": "OK"}, res


def test_peer_runtime_gate_killed_fails_closed(peer, bundle, gates, gate_dir, test_dir):
    shared = os.path.join(gate_dir, "shared")
    os.makedirs(shared)
    g = gates()
    b = gate_bundle(bundle(), g.socket)
    b.add_mount("/mnt", "bind", shared, ["rbind"])
    cmds = [exec_raw("execveat"), "wait-file /mnt/gone 30", exec_raw("execve"), exec_raw("execveat"),
            "fork " + exec_raw("execve")]
    b.probe("steps", *cmds)
    out = os.path.join(test_dir, "peer.out")
    with open(out, "wb") as f:
        p = harness.spawn(peer.run_argv(b, peer_id(peer)), stdin=subprocess.DEVNULL, stdout=f,
                          stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: STEP_MARK in open(out, errors="replace").read(), timeout=20, what="the first step")
        assert g.kill() == -9
        with open(os.path.join(shared, "gone"), "w") as f:
            f.write("gone\n")
        rc = p.wait(timeout=40)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, 9)
            p.wait()
        harness._forget(p)
    text = open(out, errors="replace").read()
    assert rc == 0, text
    assert lines(parse_steps(cmds, text)) == [("EPERM", 1), ("OK", 0)] + [("ENOSYS", 1)] * 3, text


def test_peer_runtime_exec_into_a_gated_container_is_refused(peer, bundle, gates, test_dir):
    g = gates()
    b = gate_bundle(bundle(), g.socket)
    b.probe("sleep", "20")
    cid = peer_id(peer)
    b.save()
    peer.ids.append(cid)
    res = harness.run_cmd(peer.argv("run", "--detach", "--bundle", b.path, cid),
                          out_path=os.path.join(test_dir, "detached.out"))
    assert res.rc == 0, res
    res = harness.run_cmd(peer.argv("exec", cid, PROBE_IN, "exit", "0"))
    assert res.rc != 0 and g.socket in res.err and "seccomp" in res.err, res
    assert harness.run_cmd(peer.argv("kill", cid, "KILL")).rc == 0
    assert g.wait() == 0, g.log()
    assert gate_log_counts(g.log()) == (1, 0), g.log()
