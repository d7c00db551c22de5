# SPDX-License-Identifier: Apache-2.0
"""The design card's path (docs/exec-gate.md, "Started by bento-runtime"):
`bento translate m.yaml -o b/` then `bento-runtime run -b b/ ID` works with
no wrapper, because bento-runtime starts the bento-exec-gate beside itself
when the bundle names that gate as its agent, the listener is in the bundle
directory and nobody listens there.  The gate it starts is as strict as the
wrapper's: the target runs, its own execs fail.  A bundle that names another
agent, or whose listener is elsewhere, still fails closed without one."""

import json
import os
import shutil

import pytest

import harness
from harness import RUNTIME, run_cmd
from test_translate import TranslatedBundle, home, bundles_dir, trr  # noqa: F401
from test_translate import parse_steps, assert_refused, run_gated

STEPS = ("say TARGET-RAN x", "exec-raw execve /usr/bin/true", "fork exec-raw execve /usr/bin/true")


def test_exec_none_bundle_runs_without_the_wrapper(trr, home):  # noqa: F811
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["steps"] + list(STEPS)})
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(STEPS, res.out)
    assert s[0].line == "TARGET-RAN", res
    assert_refused(s[1], "EPERM")
    assert_refused(s[2], "EPERM")
    # the gate removed its socket when the runtime connected, and is gone
    assert not os.path.exists(os.path.join(b.path, "exec-gate.sock"))
    harness.wait_for(lambda: not _gates_for(b.path), timeout=10, what="the gate to exit")


def test_exec_all_bundle_runs_without_the_wrapper(trr, home):  # noqa: F811
    steps = ("say TARGET-RAN x", "fork exec-raw execve /usr/bin/true")
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "args": ["steps"] + list(steps)})
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert s[0].line == "TARGET-RAN" and s[1].rc == 0, res  # the child's exec ran


def _edit(b, fn):
    with open(os.path.join(b.path, "config.json")) as f:
        cfg = json.load(f)
    fn(cfg)
    with open(os.path.join(b.path, "config.json"), "w") as f:
        json.dump(cfg, f)


def _gates_for(path):
    found = []
    for pid, _ in harness.proc_stats():
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"bento-exec-gate") and any(path.encode() in a for a in argv):
            found.append(pid)
    return found


def test_a_bundle_naming_another_agent_is_not_served(trr, home):  # noqa: F811
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    _edit(b, lambda c: c["linux"]["seccomp"].update(listenerMetadata="some-other-agent/1"))
    res = trr.rt.run(b)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert "cannot connect to the seccomp agent" in res.err, res
    assert not _gates_for(b.path)


def test_a_listener_outside_the_bundle_is_not_served(trr, home, bundles_dir):  # noqa: F811
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    elsewhere = os.path.join(bundles_dir, "elsewhere.sock")
    _edit(b, lambda c: c["linux"]["seccomp"].update(listenerPath=elsewhere))
    res = trr.rt.run(b)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert not os.path.exists(elsewhere)


def test_the_gate_is_taken_from_beside_the_runtime_only(trr, home, test_dir):  # noqa: F811
    # a bento-runtime copied where no bento-exec-gate is: fail closed, even
    # with a bento-exec-gate on PATH
    lone = os.path.join(test_dir, "lone")
    os.makedirs(lone)
    shutil.copy2(RUNTIME, os.path.join(lone, "bento-runtime"))
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    env = dict(trr.rt.env())
    env["PATH"] = os.path.dirname(RUNTIME) + ":" + env.get("PATH", "/usr/bin:/bin")
    cid = trr.rt.new_id()
    trr.rt._remember(cid)
    res = run_cmd([os.path.join(lone, "bento-runtime"), "--root", trr.rt.root, "run", "--bundle", b.path, cid],
                  env=env, timeout=60)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert "no %s/bento-exec-gate to start" % lone in res.err, res


def test_a_moved_bundle_binds_its_own_shield_files(trr, home, bundles_dir):  # noqa: F811
    # The shield files are named relative to the bundle (runtime-spec allows
    # it for bind sources): after `mv`, the moved bundle's own are bound.
    netrc = home.path(".netrc")
    assert os.path.getsize(netrc) > 0
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["~"], "args": ["read", netrc]})
    srcs = [m["source"] for m in b.config["mounts"] if m["destination"] == netrc]
    assert srcs == ["shield"], srcs
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved"))
    os.rename(b.path, moved.path)
    res = trr.rt.run(moved)
    assert res.rc == 0, res
    assert json.loads(res.out)["data"] == "", res  # the shield, read as empty
    assert not os.path.exists(b.path)


def test_exec_none_with_network_rules_runs_without_the_wrapper(trr, home):  # noqa: F811
    # The printed wrapper only served the exec gate; the egress proxy is the
    # bundle's own createRuntime hook, and both work from bento-runtime alone.
    steps = ("proxy-connect denied.invalid:443", "exec-raw execve /usr/bin/true")
    b = trr.bundle({"entrypoint": "./probe", "args": ["steps"] + list(steps),
                    "network": [{"host": "example.com", "port": "443"}]})
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert "not in the manifest's network allowlist" in s[0].text, s[0]
    assert_refused(s[1], "EPERM")


def test_a_moved_bundle_with_network_rules_runs(trr, home, bundles_dir):  # noqa: F811
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["~"],
                    "args": ["proxy-connect", "denied.invalid:443"],
                    "network": [{"host": "example.com", "port": "443"}]})
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-net"))
    os.rename(b.path, moved.path)
    res = trr.rt.run(moved)
    assert res.rc == 0, res
    assert "not in the manifest's network allowlist" in res.out, res



def test_a_moved_exec_none_bundle_runs_gated(trr, home, bundles_dir):  # noqa: F811
    # listenerPath names the old place (crun takes only an absolute one);
    # the org.bento.exec-gate.socket annotation names the socket in the
    # bundle, where bento-runtime starts the gate after the move, and the
    # target's own execs are still refused.
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["steps"] + list(STEPS)})
    assert b.config["linux"]["seccomp"]["listenerPath"] == os.path.join(b.path, "exec-gate.sock")
    assert b.config["annotations"]["org.bento.exec-gate.socket"] == "exec-gate.sock"
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-none"))
    os.rename(b.path, moved.path)
    res = trr.rt.run(moved)
    assert res.rc == 0, res
    s = parse_steps(STEPS, res.out)
    assert s[0].line == "TARGET-RAN", res
    assert_refused(s[1], "EPERM")
    assert_refused(s[2], "EPERM")
    assert not os.path.exists(os.path.join(moved.path, "exec-gate.sock"))


def test_a_moved_bundle_without_the_annotation_fails_closed(trr, home, bundles_dir):  # noqa: F811
    # without the annotation the old listenerPath is nobody's gate once the
    # bundle has moved, and bento-runtime does not start one outside the bundle
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    old = os.path.join(b.path, "exec-gate.sock")
    _edit(b, lambda c: c["annotations"].pop("org.bento.exec-gate.socket"))
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-none-abs"))
    os.rename(b.path, moved.path)
    os.makedirs(b.path)  # the old directory exists again, but is not the bundle
    res = trr.rt.run(moved)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert "cannot connect to the seccomp agent" in res.err, res
    assert not os.path.exists(old)


@pytest.mark.parametrize("name", ["../exec-gate.sock", "/tmp/exec-gate.sock", "..", ""])
def test_a_moved_bundle_annotation_names_only_a_file_of_the_bundle(trr, home, bundles_dir, name):  # noqa: F811
    # the annotation cannot point the gate anywhere but into the bundle
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    _edit(b, lambda c: c["annotations"].update({"org.bento.exec-gate.socket": name}))
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-bad"))
    os.rename(b.path, moved.path)
    res = trr.rt.run(moved)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert not _gates_for(bundles_dir) and not os.path.lexists(os.path.join(bundles_dir, "exec-gate.sock"))


def test_a_moved_bundle_served_by_a_wrapper_uses_that_gate(trr, home, bundles_dir):  # noqa: F811
    # a gate already listening at the bundle's socket (the wrapper's) is used,
    # not replaced
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["steps"] + list(STEPS)})
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-wrapped"))
    os.rename(b.path, moved.path)
    res = run_gated(trr.rt, moved)
    assert res.rc == 0, res
    s = parse_steps(STEPS, res.out)
    assert s[0].line == "TARGET-RAN", res
    assert_refused(s[1], "EPERM")


@pytest.mark.parametrize("where", ["in-the-moved-bundle", "at-the-old-path"])
def test_a_moved_bundle_does_not_replace_a_planted_link(trr, home, bundles_dir, where):  # noqa: F811
    # attack: a symlink planted where the gate would listen (in the moved
    # bundle, or at the old listenerPath) is not removed or replaced by a
    # gate of bento-runtime's; the init's connect goes nowhere and fails closed
    b = trr.bundle({"entrypoint": "./probe", "exec": "none", "args": ["say", "TARGET-RAN", "x"]})
    old = b.path
    moved = TranslatedBundle(os.path.join(bundles_dir, "moved-link-" + where))
    os.rename(b.path, moved.path)
    nowhere = os.path.join(bundles_dir, "no-such-agent.sock")
    if where == "at-the-old-path":
        os.makedirs(old)
        link = os.path.join(old, "exec-gate.sock")
    else:
        link = os.path.join(moved.path, "exec-gate.sock")
    os.symlink(nowhere, link)
    res = trr.rt.run(moved)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert "cannot connect to the seccomp agent" in res.err, res
    assert os.readlink(link) == nowhere and not os.path.lexists(nowhere)
    assert not _gates_for(moved.path) and not _gates_for(old)
