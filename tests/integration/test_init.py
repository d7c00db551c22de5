# SPDX-License-Identifier: Apache-2.0
"""bento-init, the sandbox's process 1 (docs/hooks/bento-init.md): the
target is not process 1 of its pid namespace, so it ends the way it would on
the host (a shell's `kill -TERM $$` is a death by SIGTERM, abort() one by
SIGABRT), its orphans are reaped by the init and not left as zombies, its
exit status passes through, and a signal sent into the box reaches it.
Under exec: none the gate still lets exactly one exec of the target's
through: the init's of the target, and none for the target itself."""

import json
import os
import re
import signal
import subprocess

import pytest

import harness
from test_bento_run import world, _start, _stop, _read, _said  # noqa: F401
from harness import wait_for

PY = "/usr/bin/python3"


def _run(world, script, exec_mode="all", *flags):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: %s\n" % exec_mode, script=script)
    world.approve(m)
    return world.run(m, *flags)


@pytest.mark.parametrize("exec_mode", ["all", "none", "none-strict"])
def test_kill_term_self_is_a_death_by_sigterm(world, exec_mode):  # noqa: F811
    res = _run(world, "echo before\nkill -TERM $$\necho after\n", exec_mode)
    assert res.rc == 143, res
    assert res.out == "before\n", res
    # certain, not "how a death by signal is reported": bento-init said so
    assert "killed by signal 15 (SIGTERM)" in res.err.replace("\n[bento] ", " "), res


def test_json_verdict_names_the_signal(world):  # noqa: F811
    res = _run(world, "kill -TERM $$\n", "all", "--json")
    assert res.rc == 143, res
    last = json.loads(res.out.splitlines()[-1])
    assert last["exit_code"] == 143 and last["signal"] == 15, last


def test_an_exit_with_128_plus_n_is_not_a_signal(world):  # noqa: F811
    res = _run(world, "exit 143\n", "none", "--json")
    assert res.rc == 143, res
    last = json.loads(res.out.splitlines()[-1])
    assert last["exit_code"] == 143 and "signal" not in last, last


@pytest.mark.skipif(not os.access(PY, os.X_OK), reason="no python3")
def test_abort_is_a_death_by_sigabrt(world):  # noqa: F811
    m = world.manifest("entrypoint: %s\nargs: ['-c', 'import os; os.abort()']\nexec: none\n" % PY)
    world.approve(m)
    res = world.run(m)
    assert res.rc == 134, res


@pytest.mark.parametrize("code", [0, 3, 77])
def test_exit_status_passes_through(world, code):  # noqa: F811
    res = _run(world, "exit %d\n" % code, "none")
    assert res.rc == code, res


def test_target_is_not_process_1_and_orphans_are_reaped(world):  # noqa: F811
    # The orphan (a background sleep whose parent shell has gone) is
    # reparented to process 1; once it exits it must not stay a zombie.
    script = ("echo self=$$\n"
              "sh -c 'sleep 0.2 & exit 0'\n"
              "sleep 1\n"
              "for s in /proc/[0-9]*/stat; do read -r l < $s && echo \"$l\"; done\n")
    res = _run(world, script)
    assert res.rc == 0, res
    lines = res.out.splitlines()
    assert lines[0] == "self=2", res
    states = {int(l.split()[0]): l.rsplit(")", 1)[1].split()[0] for l in lines[1:] if l}
    assert states.get(1) == "S", res  # bento-init, waiting
    assert "Z" not in states.values(), res


def test_exec_none_still_refuses_the_targets_exec(world):  # noqa: F811
    res = _run(world, "/bin/true && echo exec-ran\necho rc=$?\n", "none")
    assert res.rc == 0, res
    assert "exec-ran" not in res.out, res
    assert "rc=126" in res.out, res


def test_exec_none_strict_has_an_init_and_refuses_the_targets_forks(world):  # noqa: F811
    # the gate lets bento-init's one fork through, so the target is process
    # 2; the target's own forks are refused (a command needs one: dash says
    # "Cannot fork" and gives up with status 2)
    res = _run(world, "echo self=$$\n/bin/true\necho after\n", "none-strict")
    assert res.rc == 2, res
    assert res.out == "self=2\n", res
    assert "Cannot fork" in res.err, res


def _init_pid(world):
    """The host pid of the box's process 1 (bento-init running the script)."""
    for pid, _ in harness.proc_stats():
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0] == b"/.bento/init" and any(world.dir.encode() in a for a in argv):
            return pid
    return None


def test_a_signal_sent_to_process_1_reaches_the_target(world):  # noqa: F811
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\n",
                       script="trap 'echo got-usr1; exit 9' USR1\necho started\n"
                              "while :; do sleep 0.1; done\n")
    world.approve(m)
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        pid = _init_pid(world)
        assert pid, "no bento-init process found"
        os.kill(pid, signal.SIGUSR1)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 9, _read(err)
    assert "got-usr1" in _read(out)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_sent_to_bento_run_reaches_the_target(world, sig):  # noqa: F811
    # bento passes its first SIGINT or SIGTERM on to the target, which may
    # clean up before the run ends as cancelled (bento-run(1), SIGNALS).
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: none\n",
                       script="trap 'echo got-signal; exit 9' INT TERM\necho started\n"
                              "while :; do sleep 0.1; done\n")
    world.approve(m)
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        os.kill(p.pid, sig)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 125, _read(err)
    assert "the run was cancelled before the target finished" in _read(err)
    assert "got-signal" in _read(out), _read(err)


def test_a_target_that_ignores_the_signal_is_killed_after_the_grace(world):  # noqa: F811
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\n",
                       script="trap '' INT TERM\necho started\nwhile :; do sleep 0.1; done\n")
    world.approve(m)
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        os.kill(p.pid, signal.SIGTERM)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 125, _read(err)
    assert "the run was cancelled before the target finished" in _read(err)


# bento-init run directly, outside a box: its own messages and statuses
# (it is built without libc, so its error texts are its own copy of
# strerror's: hooks/init/out.c).
INIT = os.path.join(harness.BUILD, "bin", "bento-init")


def _init(*argv, **kw):
    return subprocess.run([INIT] + list(argv), capture_output=True, text=True, timeout=30, **kw)


def test_a_missing_target_is_127_with_the_reason(tmp_path):
    res = _init("--", str(tmp_path / "missing"))
    assert res.returncode == 127, res
    assert res.stdout == "", res
    assert res.stderr == "bento-init: cannot run %s: No such file or directory\n" % (tmp_path / "missing"), res


def test_a_target_that_cannot_run_is_126_with_the_reason(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("not a program\n")
    plain.chmod(0o644)
    res = _init(str(plain))
    assert res.returncode == 126, res
    assert res.stderr == "bento-init: cannot run %s: Permission denied\n" % plain, res
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\0\0\0\0")
    garbage.chmod(0o755)
    res = _init(str(garbage))
    assert res.returncode == 126, res
    assert res.stderr == "bento-init: cannot run %s: Exec format error\n" % garbage, res


def test_usage_errors_are_125():
    for argv in ((), ("--",), ("true",), ("--", "bin/true")):
        res = _init(*argv)
        assert res.returncode == 125, (argv, res)
        assert res.stderr == ("bento-init: usage: bento-init [--status-fd N] [--] "
                              "/ABSOLUTE/COMMAND [ARG...]\n"), (argv, res)
    for fd in ("2", "x", "3x", "99"):
        res = _init("--status-fd", fd, "/bin/true")
        assert res.returncode == 125, (fd, res)
        assert res.stderr == ("bento-init: --status-fd: not an open descriptor above 2: "
                              "Bad file descriptor\n"), (fd, res)


def test_help_and_version():
    res = _init("--version")
    assert res.returncode == 0 and res.stderr == "", res
    assert re.fullmatch(r"bento-init \S+ \(commit \S+\)\n", res.stdout), res
    res = _init("-h")
    assert res.returncode == 0 and res.stdout.startswith("usage: bento-init [--status-fd N]"), res
    assert res.stdout.endswith("  -V, --version   the version\n"), res


@pytest.mark.parametrize("script,line,rc", [("exit 7", "exit 7\n", 7),
                                            ("kill -TERM $$", "signal 15\n", 143)])
def test_the_status_line_and_the_target_does_not_get_its_fd(script, line, rc):
    r, w = os.pipe()
    try:
        res = _init("--status-fd", str(w), "--", "/bin/sh", "-c",
                    "echo $BENTO_T; [ -e /proc/self/fd/%d ] && echo leaked; %s" % (w, script),
                    pass_fds=(w,), env={"BENTO_T": "env-passed"})
        os.close(w)
        w = -1
        with os.fdopen(r, "r") as f:
            r = -1
            said = f.read()
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    assert res.returncode == rc, res
    assert said == line, said
    # the target's environment is bento-init's
    assert res.stdout == "env-passed\n", res


def _ignore_int_block_usr2():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})


def test_the_target_gets_the_mask_and_default_dispositions():
    # the target's mask is the one bento-init started with (SIGUSR2
    # blocked), and what bento-init inherited ignored (SIGINT) is back at
    # the default (grep, not a shell, which would change both itself)
    res = _init("/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status",
                preexec_fn=_ignore_int_block_usr2)
    assert res.returncode == 0, res
    assert res.stdout.splitlines() == ["SigBlk:\t%016x" % (1 << (signal.SIGUSR2 - 1)),
                                       "SigIgn:\t0000000000000000"], res


@pytest.mark.parametrize("sig", [signal.SIGUSR1, 32, 33, signal.SIGRTMAX])
def test_every_catchable_signal_is_forwarded(tmp_path, sig):
    # 32 and 33 included: glibc keeps those two for itself (its
    # sigfillset() leaves them out), so a bento-init built on it neither
    # blocked nor forwarded them and died of them itself
    ready = tmp_path / "ready"
    p = subprocess.Popen([INIT, "--", "/bin/sh", "-c", ": > %s; exec sleep 30" % ready],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: ready.exists(), timeout=30, what="the target to start")
        # the sh has exec'd sleep once the file is there, or is about to:
        # a signal before the exec kills sh the same way
        os.kill(p.pid, sig)
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert rc == 128 + sig, rc
