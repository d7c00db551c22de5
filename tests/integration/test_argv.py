# SPDX-License-Identifier: Apache-2.0
"""Every program reads its command line with one parser (bundle/argv.c; the
rules are in bento(1) and bento-runtime(1), "Option syntax"): for every verb
of every program `VERB --help` and `-h` print that verb's help and an unknown
flag beside them is still refused; `--flag value`, `--flag=value` and the
one-letter forms mean the same; `--` ends the options, so a word after it that
starts with a dash is an operand.  The parser's own table is
tests/unit/test-argv.c; `bento run --env=` and `--run-id=` are in
test_bento_run.py."""

import json
import os

import pytest

import harness
from harness import run_cmd

BIN = os.path.join(harness.BUILD, "bin")
RUNTIME = harness.RUNTIME
BENTO = os.path.join(BIN, "bento")
EGRESS = os.path.join(BIN, "bento-egress")
GATE = os.path.join(BIN, "bento-exec-gate")

RUNTIME_VERBS = ["create", "start", "state", "kill", "delete", "run", "exec", "list", "spec",
                 "features", "pause", "resume", "ps", "update", "help"]
BENTO_VERBS = ["run", "translate", "validate", "inspect", "approve", "doctor", "version"]

# (program, verb or None for a program without verbs, what its help names,
#  the exit status and words of an unknown flag)
CASES = [(RUNTIME, v, "[global options] %s" % v, None, "unknown option '--no-such-flag'")
         for v in RUNTIME_VERBS] + \
        [(BENTO, v, "bento %s" % v, 125, "unknown flag: --no-such-flag") for v in BENTO_VERBS] + \
        [(EGRESS, None, "Usage: bento-egress", 2, "unknown option '--no-such-flag'"),
         (GATE, None, "usage: bento-exec-gate", 2, "unknown option '--no-such-flag'")]


def ids(case):
    return os.path.basename(case[0]) + (" " + case[1] if case[1] else "")


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_help_after_the_verb(case, test_dir):
    prog, verb, names, bad_rc, bad_words = case
    words = [verb] if verb else []
    for flag in ("--help", "-h"):
        res = run_cmd([prog] + words + [flag], timeout=10, cwd=test_dir)
        assert res.rc == 0, res
        assert names in res.out and res.err == "", res
    # the denial: an unknown flag is refused, naming it, and prints no help
    if verb == "help":
        return  # `help` takes a verb name, not flags
    res = run_cmd([prog, "--root", os.path.join(test_dir, "root")] + words + ["--no-such-flag"]
                  if prog == RUNTIME else [prog] + words + ["--no-such-flag"], timeout=10,
                  cwd=test_dir)
    assert res.rc not in (0, None) and (bad_rc is None or res.rc == bad_rc), res
    assert bad_words in res.err and names not in res.out, res


# -- --flag value, --flag=value, -f value, -fvalue ------------------------------------

def test_runtime_spellings_of_a_value(test_dir):
    root = os.path.join(test_dir, "root")
    outs = set()
    for args in (["--root", root, "list", "--format", "json"],
                 ["--root=" + root, "list", "--format=json"],
                 ["-root", root, "list", "-f", "json"],
                 ["--root", root, "list", "-fjson"]):
        res = run_cmd([RUNTIME] + args, timeout=10)
        assert res.rc == 0, res
        outs.add(res.out)
    assert len(outs) == 1 and json.loads(outs.pop()) == []
    # the value arrives: spec writes into the directory each spelling names
    for i, args in enumerate((["--bundle", "{}"], ["--bundle={}"], ["-b", "{}"], ["-b{}"])):
        d = os.path.join(test_dir, "b%d" % i)
        os.mkdir(d)
        res = run_cmd([RUNTIME, "spec"] + [a.format(d) for a in args], timeout=10)
        assert res.rc == 0, res
        assert json.load(open(os.path.join(d, "config.json")))["ociVersion"]
    # and a missing one is refused, writing nothing
    res = run_cmd([RUNTIME, "spec", "--bundle"], timeout=10, cwd=test_dir)
    assert res.rc != 0 and "option --bundle needs a value" in res.err, res
    assert not os.path.exists(os.path.join(test_dir, "config.json"))


def test_runtime_double_dash(test_dir):
    root = os.path.join(test_dir, "root")
    # after --, "--help" is the container id, not a request for help
    res = run_cmd([RUNTIME, "--root", root, "state", "--", "--help"], timeout=10)
    assert res.rc != 0 and "Usage" not in res.out, res
    assert "--help" in res.err, res


def test_egress_spellings_of_a_value():
    outs = set()
    for args in (["--allow", "a.test:443"], ["--allow=a.test:443"], ["-a", "a.test:443"],
                 ["-aa.test:443"]):
        res = run_cmd([EGRESS, "--check"] + args, timeout=10)
        assert res.rc == 0, res
        outs.add(res.out)
    assert outs == {"a.test:443\n"}
    # -- ends the options: an operand after it is refused as one
    res = run_cmd([EGRESS, "--check", "--allow", "a.test:443", "--"], timeout=10)
    assert res.rc == 0 and res.out == "a.test:443\n", res
    res = run_cmd([EGRESS, "--check", "--", "--allow=a.test:443"], timeout=10)
    assert res.rc == 2 and 'unexpected argument "--allow=a.test:443"' in res.err, res
    res = run_cmd([EGRESS, "--check", "--allow"], timeout=10)
    assert res.rc == 2 and "option --allow needs a value" in res.err, res


def test_exec_gate_spellings_of_a_value(test_dir):
    sock = os.path.join(test_dir, "s")
    for args in (["--timeout", "0"], ["--timeout=0"], ["-t", "0"], ["-t0"]):
        res = run_cmd([GATE, "--socket", sock] + args, timeout=10)
        assert res.rc == 2 and "--timeout: '0' is not a number of seconds" in res.err, res
    assert not os.path.lexists(sock)
    # --socket=PATH and -- COMMAND: wrapper mode, the command's own status
    res = run_cmd([GATE, "--socket=" + sock, "--", "sh", "-c", "exit 7"], timeout=30)
    assert res.rc == 7, res
    assert not os.path.lexists(sock)


@pytest.fixture
def project(test_dir):
    home = os.path.join(test_dir, "home")
    os.makedirs(home)
    with open(os.path.join(test_dir, "s.sh"), "w") as f:
        f.write("echo hi\n")
    m = os.path.join(test_dir, "m.yaml")
    with open(m, "w") as f:
        f.write("entrypoint: ./s.sh\ninterpreter: sh\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": os.path.join(test_dir, "st"),
           "LANG": "C"}
    return m, env


def test_bento_boolean_flag_spellings(project, test_dir):
    m, env = project
    for args, is_json in ((["--json"], True), (["--json=true"], True), (["--json=T"], True),
                          (["--json=false"], False), (["--json", "--json=0"], False),
                          ([], False)):
        res = run_cmd([BENTO, "validate", m] + args, timeout=60, env=env, cwd=test_dir)
        assert res.rc == 0, res
        if is_json:
            assert isinstance(json.loads(res.out), dict), res
        else:
            assert not res.out.startswith("{"), res
    res = run_cmd([BENTO, "validate", m, "--json=maybe"], timeout=60, env=env, cwd=test_dir)
    assert res.rc == 125 and "invalid value for --json: maybe" in res.err and res.out == "", res


def test_bento_double_dash_and_operands(project, test_dir):
    m, env = project
    # flags after the operand are flags; after -- a dash-word is an operand
    res = run_cmd([BENTO, "validate", m, "--json"], timeout=60, env=env, cwd=test_dir)
    assert res.rc == 0 and json.loads(res.out), res
    res = run_cmd([BENTO, "validate", "--", "--json"], timeout=60, env=env, cwd=test_dir)
    assert res.rc == 125 and res.out == "", res
    assert "--json" in res.err and "unknown flag" not in res.err, res
    res = run_cmd([BENTO, "validate", "--", m], timeout=60, env=env, cwd=test_dir)
    assert res.rc == 0, res
    res = run_cmd([BENTO, "version", "--"], timeout=10)
    assert res.rc == 0 and res.out.startswith("bento "), res
    res = run_cmd([BENTO, "version", "--", "x"], timeout=10)
    assert res.rc == 125 and "version takes no arguments, but got 1" in res.err, res
    # a flag's value is the next word, even --help: no help, and the value arrives
    res = run_cmd([BENTO, "translate", m, "-o", "--help"], timeout=60, env=env, cwd=test_dir)
    assert "usage: bento translate" not in res.out, res
    assert res.rc == 0 and os.path.exists(os.path.join(test_dir, "--help", "config.json")), res


def test_bento_translate_output_spellings(project, test_dir):
    m, env = project
    configs = []
    for i, args in enumerate((["-o", "b0"], ["--output", "b1"], ["--output=b2"], ["-ob3"])):
        res = run_cmd([BENTO, "translate", m] + args, timeout=60, env=env, cwd=test_dir)
        assert res.rc == 0, res
        with open(os.path.join(test_dir, "b%d" % i, "config.json")) as f:
            configs.append(json.load(f)["process"]["args"])
    assert all(c == configs[0] for c in configs), configs
    res = run_cmd([BENTO, "translate", m, "--output="], timeout=60, env=env, cwd=test_dir)
    assert res.rc == 125 and "translate needs -o DIR" in res.err, res
