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
import signal

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
