# SPDX-License-Identifier: Apache-2.0
"""The Landlock-only tier (docs/degraded.md; docs/cli/bento-run.md "ADMISSION"), for
real: bento runs inside a user namespace in which user.max_user_namespaces is 0,
so its probe finds namespaces unusable (the limit is per user namespace, so the
host is untouched) while Landlock and seccomp still work.  That is what a
Docker container or an Ubuntu host with restricted user namespaces looks like
to bento.

Each test asserts the denial and, beside it, the allowed thing that still
works: a read grant is readable while an ungranted file answers EACCES, a
shielded file under `read: ~` stays unreadable while its neighbour is read, an
AF_INET socket fails with EPERM while AF_UNIX works, and so on.
"""

import base64
import json
import os
import socket
import subprocess

import pytest

import harness
from test_bento_run import World  # noqa: F401  (the fixture's class)
from test_bento_run import BENTO, prose, world  # noqa: F401  (pytest fixture)

pytestmark = [pytest.mark.timeout(120)]

# Run the command in a user namespace whose own user-namespace limit is 0.
CLAMP = ["unshare", "--user", "--map-root-user", "sh", "-c",
         'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "clamp"]

PROBE_PY = r'''
import ctypes, errno, fcntl, json, os, socket, subprocess, sys, termios

out = {}

def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))

def read(p):
    with open(p) as f:
        f.read()

def write(p):
    with open(p, "w") as f:
        f.write("x")

home = os.environ["REALHOME"]
attempt("read_grant", lambda: read(os.path.join(home, "notes.txt")))
attempt("read_shielded", lambda: read(os.path.join(home, ".ssh", "id_rsa")))
attempt("list_shielded", lambda: os.listdir(os.path.join(home, ".ssh")))
attempt("read_ungranted", lambda: read(os.environ["OUTSIDE"]))
attempt("write_grant", lambda: write(os.path.join(os.environ["OUTDIR"], "f")))
attempt("write_read_grant", lambda: write(os.path.join(home, "new")))
attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
attempt("inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close())
attempt("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
libc = ctypes.CDLL(None, use_errno=True)
def ptrace():
    if libc.ptrace(16, os.getppid(), 0, 0) != 0:   # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
attempt("ptrace", ptrace)
def tiocsti():
    fd = os.open("/dev/null", os.O_RDONLY)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    finally:
        os.close(fd)
attempt("tiocsti", tiocsti)
attempt("tcgets_null", lambda: fcntl.ioctl(os.open("/dev/null", os.O_RDONLY), termios.TCGETS, b"\0" * 64))
scratch = os.environ["TMPDIR"]
attempt("write_scratch", lambda: write(os.path.join(scratch, "f")))
out["home"] = os.environ["HOME"]
out["tmpdirs"] = [os.environ.get(v) for v in ("TMPDIR", "TMP", "TEMP")]
out["scratch_mode"] = oct(os.stat(scratch).st_mode & 0o777)
attempt("subprocess", lambda: subprocess.run(["/bin/true"], check=True))
fds = {}
for n in range(3, 1024):  # /proc/self/fd cannot be listed under Landlock
    try:
        flags = fcntl.fcntl(n, fcntl.F_GETFL)
    except OSError:
        continue
    try:
        target = os.readlink("/proc/self/fd/%d" % n)
    except OSError as e:
        target = "fd %d: %s" % (n, errno.errorcode.get(e.errno, str(e.errno)))
    fds[target] = "read-only" if flags & os.O_ACCMODE == os.O_RDONLY else "writable"
out["fds"] = fds
print(json.dumps(out))
'''


def clamp_works():
    """The clamp holds: inside it the limit reads 0 and a user namespace
    cannot be made (ENOSPC)."""
    try:
        r = subprocess.run(CLAMP + ["sh", "-c", "cat /proc/sys/user/max_user_namespaces; "
                                    "unshare --user true"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if r.stdout.strip() == "0" and (r.returncode != 0 or "unshare failed" in r.stderr):
        return None
    return "%s: %s" % (r.stdout.strip(), r.stderr.strip())


def landlock_abi():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syscall(444, None, 0, 1)
    except OSError:
        return 0


@pytest.fixture
def clamped(world):
    why = clamp_works()
    if why:
        pytest.skip("cannot clamp user namespaces here (unshare --user with "
                    "max_user_namespaces=0): %s" % why)
    if landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("the probe script needs /usr/bin/python3")
    os.makedirs(os.path.join(world.home, ".pyenv", "shims"))
    world.write(os.path.join(world.home, "notes.txt"), "readable\n")
    world.outside = world.write(os.path.join(world.dir, "outside.txt"), "not granted\n")
    world.outdir = os.path.join(world.work, "out")
    world.env.update({"REALHOME": world.home, "OUTSIDE": world.outside, "OUTDIR": world.outdir})
    return world


def manifest(w, extra="", exec_mode="all", script=PROBE_PY, write="out"):
    text = ("entrypoint: ./probe.py\ninterpreter: /usr/bin/python3\n"
            "read: [\"~\"]\nwrite: [\"%s\"]\nenv: [REALHOME, OUTSIDE, OUTDIR]\nexec: %s\n%s"
            % (write, exec_mode, extra))
    m = w.manifest(text, script=script, script_name="probe.py")
    w.approve(m)
    return m


def run(w, m, *flags):
    return w.run(m, *flags, wrap=CLAMP)


def probe_result(res):
    lines = [ln for ln in res.out.splitlines() if ln.startswith("{")]
    assert lines, res
    return json.loads(lines[-1])


def test_l1_refused_by_default_and_runs_when_allowed(clamped):
    m = manifest(clamped)
    res = run(clamped, m)
    assert res.rc == 125, res
    err = prose(res.err)
    assert "a core guarantee cannot be fully enforced on this host" in err, res
    assert "filesystem (degraded)" in err, res
    assert "run `bento doctor` for everything the fallback tier does not confine." in err, res
    assert "readable" not in res.out
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    assert probe_result(res)["read_grant"] == "ok", res


def test_l2_confinement(clamped):
    m = manifest(clamped)
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    got = probe_result(res)
    # reads: the grant yes, outside it no
    assert got["read_grant"] == "ok", got
    assert got["read_ungranted"] == "EACCES", got
    # the shield under `read: ~` stays unreadable: its siblings were granted, not ~
    assert got["read_shielded"] == "EACCES", got
    assert got["list_shielded"] == "EACCES", got
    # writes: the write grant and the scratch directory yes, a read grant no
    assert got["write_grant"] == "ok", got
    assert got["write_scratch"] == "ok", got
    assert got["write_read_grant"] == "EACCES", got
    # no IP at all; unix sockets still work
    assert got["inet"] == "EPERM" and got["inet6"] == "EPERM", got
    assert got["unix"] == "ok", got
    # cross-process and terminal injection refused; an ordinary ioctl works
    assert got["ptrace"] == "EPERM", got
    assert got["tiocsti"] == "EPERM", got
    assert got["tcgets_null"] == "ENOTTY", got
    # exec: all: a subprocess runs
    assert got["subprocess"] == "ok", got
    # HOME and the temporary directories are the private scratch directory
    scratch = got["home"]
    assert scratch.startswith(clamped.tmp + "/bento-run-") and scratch.endswith("/scratch"), got
    assert got["tmpdirs"] == [scratch] * 3, got
    assert got["scratch_mode"] == "0o700", got
    # the one descriptor bento leaves it: the run's claim, read-only
    # (docs/degraded.md; docs/cli/bento-run.md, "FILES"); /dev/null is the
    # probe's own (tcgets_null)
    inherited = {t: m for t, m in got["fds"].items() if t != "/dev/null"}
    assert len(inherited) == 1, got
    (claim, mode), = inherited.items()
    assert claim.endswith(".claim") and "/bento/runs/" in claim and mode == "read-only", got
    assert not os.path.exists(claim), claim  # gone with the run
    # ... removed with the run
    assert not os.path.exists(scratch), scratch
    assert clamped.run_dirs() == []
    err = prose(res.err)
    assert "kept unreadable by granting the entries around them" in err, res
    # the host's service sockets stay connectable (no ABI 9 unix-socket right used)
    if os.path.isdir("/run"):
        assert "WARNING: this host cannot shield credentials" in err, res
        assert "\"/run\" (hidden)" in err, res


def test_exec_none_blocks_subprocess_not_target(clamped):
    m = manifest(clamped, exec_mode="none")
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    got = probe_result(res)
    assert got["read_grant"] == "ok", got      # the target itself ran
    assert got["subprocess"] == "EPERM", got   # its own exec is refused


def test_exec_none_shell_command_126(clamped):
    script = "echo start\n/bin/true\necho \"rc=$?\"\n"
    m = clamped.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: none\n", script=script)
    clamped.approve(m)
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    assert res.out == "start\nrc=126\n", res
    assert "Operation not permitted" in res.err, res


DAEMON_PY = r"""
import os, time
if os.fork() == 0:
    os.setsid()                       # out of the launcher's process group
    if os.fork() == 0:                # orphaned once its parent exits
        with open(os.path.join(os.environ["OUTDIR"], "daemon.pid"), "w") as f:
            f.write(str(os.getpid()))
        time.sleep(120)
    os._exit(0)
time.sleep(0.5)
print("parent done")
"""


def test_escaped_daemon_does_not_outlive_the_run(clamped):
    # no pid namespace or cgroup in this tier: a process that left the
    # group (setsid) and was orphaned is adopted by bento and killed at the end
    m = manifest(clamped, script=DAEMON_PY)
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    assert "parent done" in res.out, res
    with open(os.path.join(clamped.outdir, "daemon.pid")) as f:
        pid = int(f.read())
    # gone, not even a zombie, by the time bento exits
    alive = "probe.py" in _cmdline(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive, "the daemon outlived the run"


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def test_l3_network_rule_refused(clamped):
    m = manifest(clamped, extra="network:\n  - {host: example.com, port: \"443\"}\n")
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 125, res
    err = prose(res.err)
    assert "a core guarantee cannot be enforced at all on this host" in err, res
    assert "network (unavailable)" in err, res
    assert "read_grant" not in res.out
    # the same manifest without the rule runs
    res = run(clamped, manifest(clamped), "--allow-degraded")
    assert res.rc == 0, res


def test_l4_write_grant_holding_write_shield_refused(clamped):
    m = manifest(clamped, write="~/.pyenv")
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 125, res
    err = prose(res.err)
    assert "which the degraded tier cannot shield" in err, res
    assert '"%s/.pyenv/' % clamped.home in err, res
    assert "read_grant" not in res.out


def test_json_fields(clamped):
    m = manifest(clamped)
    res = run(clamped, m, "--allow-degraded", "--json", "--record-exec")
    assert res.rc == 0, res
    events = [json.loads(ln) for ln in res.out.splitlines()]
    verdict = [e for e in events if e["event"] == "verdict"][0]
    assert verdict["exit_code"] == 0
    ssh = os.path.join(clamped.home, ".ssh")
    assert {"path": ssh, "kind": "hidden"} in verdict["shields"], verdict
    assert isinstance(verdict["exposed"], list)
    assert all(set(e) >= {"path", "kind", "why"} for e in verdict["exposed"]), verdict
    layers = {la["layer"]: la for la in verdict["report"]["layers"]}
    assert layers["filesystem"]["state"] == "degraded", layers
    assert layers["network"]["state"] == "unavailable", layers
    assert "Landlock-only tier" in layers["network"]["detail"], layers
    rec = verdict["exec_record"]
    assert rec["watched"] is False and "Landlock-only tier" in rec["reason"], rec
    out = b"".join(base64.b64decode(e["data"]) for e in events if e["event"] == "stdout").decode()
    assert json.loads(out.strip().splitlines()[-1])["read_grant"] == "ok", out


def test_network_stdout_refused(clamped):
    """A network socket as stdout would carry output past the fence: refused."""
    m = manifest(clamped)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    try:
        e = dict(clamped.env)
        p = subprocess.run(CLAMP + [os.path.join(harness.BUILD, "bin", "bento"), "run",
                                    "--allow-degraded", m],
                           stdout=cli.fileno(), stderr=subprocess.PIPE, env=e, cwd=clamped.work,
                           timeout=60)
    finally:
        cli.close()
        conn.close()
        srv.close()
    assert p.returncode == 125, p
    assert b"network socket" in p.stderr, p
    # the same run with a pipe as stdout goes ahead
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    assert probe_result(res)["read_grant"] == "ok", res


def test_limits_reported_not_applied_and_run_id_refused(clamped):
    """No cgroup on this tier: a limit is reported unavailable (the run goes on,
    as --allow-degraded waives limits), and a run id, which names that cgroup,
    is refused."""
    m = manifest(clamped, extra="limits: {memory: 64M}\n")
    res = run(clamped, m, "--allow-degraded")
    assert res.rc == 0, res
    assert probe_result(res)["read_grant"] == "ok", res
    assert "limits-memory (hardening tier): unavailable - the Landlock-only tier makes no cgroup" \
        in prose(res.err), res
    res = run(clamped, m, "--allow-degraded", "--run-id", "hdeg_1")
    assert res.rc == 125, res
    assert "the Landlock-only tier makes no cgroup: drop --run-id" in prose(res.err), res
    assert "read_grant" not in res.out


SWEPT_PY = r"""
import fcntl, os, time
# the run's claim, the one descriptor bento leaves the target: let go of it
claim = [n for n in range(3, 1024)
         if os.path.exists("/proc/self/fd/%d" % n) and os.readlink("/proc/self/fd/%d" % n).endswith(".claim")]
fcntl.flock(claim[0], fcntl.LOCK_UN)
# and leave the sweep links out of the scratch directory, at every depth
scratch = os.environ["TMPDIR"]
victim = os.path.join(os.environ["REALHOME"], "victim")
os.symlink(victim, os.path.join(scratch, "link"))
os.makedirs(os.path.join(scratch, "sub", "deeper"))
os.symlink(victim, os.path.join(scratch, "sub", "deeper", "link"))
os.symlink(os.path.join(victim, "keep.txt"), os.path.join(scratch, "sub", "file-link"))
out = os.environ["OUTDIR"]
def said(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
said("ready", scratch)
for step in ("go1", "go2"):
    while not os.path.exists(os.path.join(out, step)):
        time.sleep(0.05)
    said(step + ".seen", str(os.path.exists(scratch)))
"""


def test_a_target_that_drops_its_claim_loses_only_its_scratch(clamped):
    """docs/degraded.md, step 6: the target can let go of its read-only copy
    of the claim.  While bento lives it still holds the claim, so another
    run's sweep leaves the scratch directory; once bento is killed, the next
    sweep removes it, and never follows what the target left there
    (symlinks to a directory and a file it can read, at several depths)."""
    victim = os.path.join(clamped.home, "victim")
    clamped.write(os.path.join(victim, "keep.txt"), "kept\n")
    clamped.write(os.path.join(victim, "sub", "deep.txt"), "kept\n")
    os.makedirs(clamped.outdir, exist_ok=True)
    m = manifest(clamped, script=SWEPT_PY)
    quick = clamped.manifest("entrypoint: ./q.sh\ninterpreter: sh\n", script="echo quick\n",
                             name="q.yaml", script_name="q.sh")
    clamped.approve(quick)
    out = clamped.outdir

    def step(name):
        open(os.path.join(out, name), "w").close()
        seen = os.path.join(out, name + ".seen")
        harness.wait_for(lambda: os.path.exists(seen) and os.path.getsize(seen) > 0, timeout=30,
                         what="the target to look at its scratch")
        with open(seen) as f:
            return f.read()

    p = subprocess.Popen(CLAMP + [BENTO, "run", "--allow-degraded", m], cwd=clamped.work,
                         env=dict(clamped.env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        harness.wait_for(lambda: os.path.exists(os.path.join(out, "ready")), timeout=60,
                         what="the target to drop its claim")
        res = run(clamped, quick, "--allow-degraded")
        assert res.rc == 0 and "quick" in res.out, res
        assert step("go1") == "True", "a live bento's scratch was swept"
        p.kill()  # SIGKILL: the target lives on, holding nothing
        p.wait(20)
        res = run(clamped, quick, "--allow-degraded")
        assert res.rc == 0 and "quick" in res.out, res
        assert step("go2") == "False", "the dead bento's scratch was not swept"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
    with open(os.path.join(victim, "keep.txt")) as f:
        assert f.read() == "kept\n"
    with open(os.path.join(victim, "sub", "deep.txt")) as f:
        assert f.read() == "kept\n"
    assert clamped.run_dirs() == []
