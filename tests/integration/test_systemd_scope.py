# SPDX-License-Identifier: Apache-2.0
"""bento-systemd-scope, the program the systemd cgroup driver runs
(runtime/cgroup/systemd-scope/, runtime/cgroup/scope-helper.c).

  * its command line: what it refuses (exit 2, one line naming it) and
    what it accepts, which on a host without a reachable systemd ends in
    the runtime's own words (exit 1);
  * bento-runtime runs the one beside its own executable, never one found
    through PATH, with only the bus and sanitizer variables of its
    environment, no descriptor but 0-2, no blocked signal, and the limits
    as --property; its error line comes back as the runtime's error, and
    one that says nothing or is missing is a clear error too.

The runtime is copied into a directory of the test's, beside a stand-in
helper that records how it was started; nothing else on the host changes.
"""

import json
import os
import shutil

import pytest

import harness

MiB = 1 << 20
SCOPE = os.path.join(harness.BUILD, "bin", "bento-systemd-scope")
NO_SYSTEMD = ("--systemd-cgroup: systemd is not running on this host (no /run/systemd/system), "
              "so there is no systemd to make the container's scope; run without "
              "--systemd-cgroup to use the cgroupfs driver")


def scope(*args):
    return harness.run_cmd([SCOPE] + list(args), env={})


# -- the helper's command line ----------------------------------------------

START = ["start", "--system", "--unit", "t.scope", "--slice", "system.slice", "--pid", "1"]


@pytest.mark.parametrize("args,message", [
    ([], "no verb: start or stop"),
    (["restart"], "unknown verb 'restart': start or stop"),
    (["start", "--bogus"], "unknown option '--bogus'"),
    (["start", "--unit", "t.scope"], "--system or --user is required"),
    (["start", "--system", "--user"], "--system and --user exclude each other"),
    (["start", "--system", "--slice", "s.slice", "--pid", "1"], "--unit UNIT is required"),
    (["start", "--system", "--unit", "a/b.scope", "--slice", "s.slice", "--pid", "1"],
     "--unit UNIT is required: a unit name of at most 256 characters without '/'"),
    (["start", "--system", "--unit", "x" * 257, "--slice", "s.slice", "--pid", "1"],
     "--unit UNIT is required"),
    (["start", "--system", "--unit", "t.scope", "--pid", "1"], "--slice SLICE is required"),
    (["start", "--system", "--unit", "t.scope", "--slice", "s.slice"], "--pid PID is required"),
    (START[:-1] + ["0"], "--pid '0': not a process id"),
    (START[:-1] + ["-5"], "--pid '-5': not a process id"),
    (START[:-1] + ["12abc"], "--pid '12abc': not a process id"),
    (START[:-1] + ["99999999999"], "--pid '99999999999': not a process id"),
    (START + ["--property", "Delegate=1"], "--property 'Delegate=1': not NAME=VALUE"),
    (START + ["--property", "MemoryMax"], "--property 'MemoryMax': not NAME=VALUE"),
    (START + ["--property", "MemoryMaxX=1"], "--property 'MemoryMaxX=1': not NAME=VALUE"),
    (START + ["--property", "MemoryMax=-1"],
     "--property MemoryMax: '-1' is neither a decimal number nor 'infinity'"),
    (START + ["--property", "TasksMax=18446744073709551616"],
     "--property TasksMax: '18446744073709551616' is neither"),
    (START + ["--property", "TasksMax=1"] * 17, "--property: more than 16"),
    (START + ["extra"], "unexpected argument 'extra'"),
    (["stop", "--system", "--unit", "t.scope", "--pid", "1"],
     "stop takes --unit and the bus only"),
    (["stop", "--user"], "--unit UNIT is required"),
])
def test_a_refused_command_line_is_one_line_and_status_2(args, message):
    res = scope(*args)
    assert res.rc == 2, res
    assert res.out == "", res
    lines = res.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bento-systemd-scope: "), res
    assert message in lines[0], res


@pytest.mark.skipif(os.path.exists("/run/systemd/system"),
                    reason="systemd runs on this host: the helper would really ask it")
@pytest.mark.parametrize("args", [
    START + ["--description", "d", "--property", "MemoryMax=infinity",
             "--property", "CPUQuotaPerSecUSec=200000"],
    ["stop", "--user", "--unit", "t.scope"],
])
def test_an_accepted_command_line_without_systemd_fails_in_the_runtimes_words(args):
    res = scope(*args)
    assert res.rc == 1, res
    assert res.err == NO_SYSTEMD + "\n", res


def test_help_and_version():
    res = scope("--help")
    assert res.rc == 0 and res.out.startswith("usage: bento-systemd-scope start"), res
    res = scope("--version")
    assert res.rc == 0 and res.out.startswith("bento-systemd-scope "), res


# -- the runtime runs it and relays it ------------------------------------------

FAKE = """#!/usr/bin/python3
import json, os, sys
fds = []
for name in os.listdir("/proc/self/fd"):
    try:
        os.fstat(int(name))
        fds.append(int(name))
    except OSError:
        pass  # the listing's own descriptor, closed by now
with open("/proc/self/environ", "rb") as f:  # as execve gave it (python adds LC_CTYPE)
    env = dict(v.decode().split("=", 1) for v in f.read().split(b"\\0") if v)
with open("/proc/self/status") as f:
    blocked = [l.split()[1] for l in f if l.startswith("SigBlk:")][0]
with open(%(log)r, "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "argv0": sys.argv[0], "env": env,
                        "fds": sorted(fds), "blocked": blocked}) + "\\n")
mode = %(mode)r
if mode == "refuse":
    sys.stderr.write("--systemd-cgroup: the stand-in says no\\nsecond line, not shown\\n")
    sys.exit(1)
if mode == "silent":
    sys.exit(3)
"""


@pytest.fixture
def runtime_copy(rt, test_dir):
    """rt with its binary copied to test_dir/bin; returns a function that
    puts a stand-in bento-systemd-scope beside it (or none)."""
    bindir = os.path.join(test_dir, "bin")
    os.makedirs(bindir)
    copy = os.path.join(bindir, "bento-runtime")
    shutil.copy2(rt.binary, copy)
    real, rt.binary = rt.binary, copy
    log = os.path.join(test_dir, "helper.log")

    def place(mode):
        if mode is None:
            return log
        path = os.path.join(bindir, "bento-systemd-scope")
        with open(path, "w") as f:
            f.write(FAKE % {"log": log, "mode": mode})
        os.chmod(path, 0o755)
        return log

    yield place
    rt.binary = real


def calls(log):
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [json.loads(line) for line in f]


def limited(bundle):
    b = bundle()
    b.linux["resources"] = {"memory": {"limit": 64 * MiB}, "pids": {"limit": 100}}
    return b


def refused_create(rt, bundle, test_dir, message, env_extra=None, fd3=True):
    """create --systemd-cgroup of a bundle with limits must fail, say
    message and leave nothing behind; by default with one extra descriptor
    (3) and bus and other variables in the runtime's environment.
    Returns the container's id."""
    b = limited(bundle)
    cid = rt.new_id("h23s-")
    env = rt.env()
    env.update(env_extra or {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus",
                             "XDG_RUNTIME_DIR": "/nonexistent/xdg", "SYSTEMD_LOG_LEVEL": "debug"})
    extra = os.path.join(test_dir, "fd3")
    open(extra, "w").close()
    b.save()
    rt.bundles.append(b)
    rt._remember(cid)
    res = rt.cmd("--systemd-cgroup", "create", "--bundle", b.path, cid,
                 fd3=extra if fd3 else None, env=env)
    assert res.rc != 0, res
    assert message in res.err, res
    harness.assert_nothing_left(rt, cid, b)
    return cid, res


def test_the_runtime_relays_the_helpers_line_and_starts_it_clean(rt, bundle, runtime_copy, test_dir):
    log = runtime_copy("refuse")
    cid, res = refused_create(rt, bundle, test_dir, "--systemd-cgroup: the stand-in says no")
    assert "second line" not in res.err, res
    [call] = calls(log)
    assert call["argv"] == ["start", "--system", "--unit", "bento-%s.scope" % cid,
                            "--slice", "system.slice", "--pid", call["argv"][7],
                            "--description", "bento-runtime container %s" % cid,
                            "--property", "MemoryMax=%d" % (64 * MiB),
                            "--property", "TasksMax=100"], call
    assert int(call["argv"][7]) > 1, call
    assert call["argv0"].endswith("/bin/bento-systemd-scope"), call
    # the buses' variables and nothing else of the runtime's (its PATH,
    # HOME, SYSTEMD_LOG_LEVEL...); the sanitizers' under check-debug
    env = {k: v for k, v in call["env"].items() if not k.endswith("SAN_OPTIONS")}
    assert env == {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus",
                   "XDG_RUNTIME_DIR": "/nonexistent/xdg"}, call
    # the runtime's descriptor 3 and its own are not the helper's
    assert call["fds"] == [0, 1, 2], call
    assert int(call["blocked"], 16) == 0, call


def test_a_scope_that_does_not_hold_the_init_is_stopped(rt, bundle, runtime_copy, test_dir):
    """A helper that reports success but made no scope: the runtime sees
    the init is not in one, says so, and runs the helper again to stop it."""
    log = runtime_copy("succeed")
    cid, _ = refused_create(rt, bundle, test_dir,
                            "systemd did not move the container into its scope")
    start, stop = calls(log)
    assert start["argv"][:2] == ["start", "--system"], start
    assert stop["argv"] == ["stop", "--system", "--unit", "bento-%s.scope" % cid], stop


def test_a_helper_that_says_nothing_is_a_clear_error(rt, bundle, runtime_copy, test_dir):
    runtime_copy("silent")
    refused_create(rt, bundle, test_dir,
                   "bento-systemd-scope failed (exit status 3) and said nothing")


def test_without_a_helper_beside_it_the_runtime_uses_none_from_path(rt, bundle, runtime_copy,
                                                                   test_dir):
    """Only the program beside the runtime counts: one in PATH is not run."""
    log = runtime_copy(None)
    decoy = os.path.join(test_dir, "path")
    os.makedirs(decoy)
    with open(os.path.join(decoy, "bento-systemd-scope"), "w") as f:
        f.write(FAKE % {"log": log, "mode": "succeed"})
    os.chmod(os.path.join(decoy, "bento-systemd-scope"), 0o755)
    env = rt.env()
    env["PATH"] = decoy + ":" + env["PATH"]
    refused_create(rt, bundle, test_dir,
                   "--systemd-cgroup: there is no %s to run (No such file or directory), so "
                   "there is no way to ask systemd for the container's scope; run without "
                   "--systemd-cgroup to use the cgroupfs driver"
                   % os.path.join(test_dir, "bin", "bento-systemd-scope"),
                   env_extra=env, fd3=False)
    assert calls(log) == []
