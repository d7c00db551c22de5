# SPDX-License-Identifier: Apache-2.0
"""`bento run --record-exec` (docs/cli/bento-run.md, "EXEC RECORD";
docs/exec-gate.md, "Record mode"): under exec: all the exec gate records every
execve/execveat of the run, the target first, and lets each one through; the
record comes after the run in the human output and as `exec_record` in the
--json verdict.  The argv is read from the sandboxed program's memory, so the
script below hands it spaces, newlines, invalid UTF-8 and an argv far larger
than the gate keeps.  Under exec: none the flag changes nothing but the
record, which says it was not watched; without the flag there is no record.
A gate that dies mid-run leaves the record incomplete and later execs failing.
"""

import glob
import json
import os
import re
import shutil
import tempfile

import pytest

import harness
from harness import run_cmd

BENTO = os.path.join(harness.BUILD, "bin", "bento")
GATE = os.path.join(harness.BUILD, "bin", "bento-exec-gate")
PYTHON = "/usr/bin/python3"

pytestmark = [pytest.mark.timeout(120)]

MANIFEST = """\
entrypoint: ./s.py
interpreter: %s
exec: %s
"""

# Each exec the record must list, in this order, after the target itself.
SCRIPT = r"""
import os, subprocess, sys
subprocess.run(["/bin/true"], check=True)
subprocess.run(["/bin/sh", "-c", "echo x"], check=True)
try:
    subprocess.run(["/nonexistent/prog", "a"])
    print("missing: ran")
except OSError as e:
    print("missing: errno %d" % e.errno)
subprocess.run([b"/bin/true", b"two words", b"line\nbreak", b"bad\xff\xfeutf8"], check=True)
subprocess.run(["/bin/true"] + ["y" * 100] * 1000, check=True)
print("done")
"""

# Under exec: none the later execs must still be refused.
BLOCKED_SCRIPT = r"""
import subprocess
try:
    subprocess.run(["/bin/true"])
    print("exec: ran")
except PermissionError:
    print("exec: refused")
"""

# One exec, then (after the gate has been killed) a second one.
GATE_DIES_SCRIPT = r"""
import subprocess, time
subprocess.run(["/bin/true"], check=True)
time.sleep(1.5)
try:
    subprocess.run(["/bin/true"])
    print("second: ran")
except OSError as e:
    print("second: errno %d" % e.errno)
"""

# Stands in for bento-exec-gate: runs the real one, and kills it with SIGKILL
# once its record holds two lines (the target and the first /bin/true).
KILLER = """\
#!/bin/sh
rec=""; prev=""
for a in "$@"; do [ "$prev" = --record ] && rec=$a; prev=$a; done
%s "$@" &
g=$!
i=0
while [ $i -lt 400 ]; do
    n=$(wc -l < "$rec" 2>/dev/null || echo 0)
    [ "$n" -ge 2 ] && break
    sleep 0.025; i=$((i + 1))
done
sleep 0.3
kill -9 $g
wait $g
exit 0
"""


def flat(text):
    """Wrapped output joined back into sentences."""
    return re.sub(r"\n(?:\[bento\] +|\s{2,})", " ", text)


class World:
    def __init__(self, test_dir):
        if not os.access(BENTO, os.X_OK):
            pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
        self.home = os.path.join(test_dir, "home")
        self.state = os.path.join(test_dir, "state")
        self.work = os.path.join(test_dir, "work")
        # short: the run directory holds unix sockets (107-byte addresses)
        self.tmp = tempfile.mkdtemp(prefix="recexec.", dir="/tmp")
        for d in (self.home, self.state, self.work):
            os.makedirs(d)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def bento(self, *args, env=None):
        return run_cmd([BENTO] + [str(a) for a in args], timeout=60,
                       env=dict(self.env, **(env or {})), cwd=self.work)

    def setup(self, script, exec_mode="all"):
        self.write("s.py", script)
        self.write("m.yaml", MANIFEST % (PYTHON, exec_mode))
        res = self.bento("approve", "--yes", "m.yaml")
        assert res.rc == 0, res


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    run_dirs_before = harness.bento_run_dirs(w.tmp)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    left = harness.bento_run_dirs(w.tmp) - run_dirs_before
    assert not left, "a run directory was left behind: %s" % sorted(left)
    assert not glob.glob("/dev/shm/bento-*/exec-record.jsonl"), "a record was left behind"
    shutil.rmtree(w.tmp, ignore_errors=True)


def verdict(res):
    events = [json.loads(line) for line in res.out.splitlines()]
    assert events and events[-1]["event"] == "verdict", res
    return events[-1]


def stdout_of(res):
    """The target's stdout, out of a --json stream."""
    import base64
    return b"".join(base64.b64decode(e["data"]) for e in map(json.loads, res.out.splitlines())
                    if e["event"] == "stdout").decode()


def record_block(err):
    """The exec record lines of the human output (header first)."""
    lines = err.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("[bento] exec record"))
    return lines[start:]


def expected_runs(target):
    return [
        ("/usr/bin/python3", None),  # the target: the interpreter bento runs
        ("/bin/true", ["/bin/true"]),
        ("/bin/sh", ["/bin/sh", "-c", "echo x"]),
        ("/nonexistent/prog", ["/nonexistent/prog", "a"]),
        ("/bin/true", ["/bin/true", "two words", "line\nbreak", "bad\ufffd\ufffdutf8"]),
    ]


def test_json_record_lists_every_exec_in_order_target_first(world):
    world.setup(SCRIPT)
    res = world.bento("run", "--record-exec", "--json", "m.yaml")
    assert res.rc == 0, res
    out = stdout_of(res)
    assert "x\n" in out and "missing: errno 2" in out and "done" in out, res
    rec = verdict(res)["exec_record"]
    assert rec["watched"] is True and rec["complete"] is True, rec
    assert "reason" not in rec, rec
    runs = rec["runs"]
    assert len(runs) == 6, runs
    # the target: the interpreter (a versioned name behind /usr/bin/python3) on the script
    target = runs[0]
    assert os.path.basename(target["exe"]).startswith("python3"), target
    assert target["argv"][-1] == os.path.join(world.work, "s.py"), target
    assert target["pid"] >= 1
    for run, (exe, argv) in zip(runs[1:], expected_runs(None)[1:]):
        assert run["exe"] == exe and run["argv"] == argv, run
        assert "argv_truncated" not in run, run
    # pids are the sandbox's, each child a new process after the target
    assert all(r["pid"] > target["pid"] for r in runs[1:]), runs
    # the huge argv: kept up to the gate's bounds and marked
    huge = runs[5]
    assert huge["exe"] == "/bin/true" and huge["argv_truncated"] is True, huge
    assert 1 < len(huge["argv"]) < 1001, len(huge["argv"])
    assert sum(len(a) for a in huge["argv"]) <= 16 * 1024
    # whole strings until the per-call budget, the last one possibly cut
    assert all(a == "y" * 100 for a in huge["argv"][1:-1])
    assert huge["argv"][-1] and ("y" * 100).startswith(huge["argv"][-1])


def test_human_record_is_quoted_and_last(world):
    world.setup(SCRIPT)
    res = world.bento("run", "--record-exec", "m.yaml")
    assert res.rc == 0, res
    assert "missing: errno 2" in res.out and "done" in res.out, res
    block = record_block(res.err)
    assert block[0] == "[bento] exec record: 6 exec call(s), in order, the target first:", block
    lines = block[1:7]
    assert all(l.startswith("[bento]   pid ") for l in lines), block
    assert '"/usr/bin/python3' in lines[0] and '"%s"' % os.path.join(world.work, "s.py") in lines[0]
    assert lines[1].endswith(': "/bin/true" argv "/bin/true"'), lines[1]
    assert lines[2].endswith(': "/bin/sh" argv "/bin/sh" "-c" "echo x"'), lines[2]
    assert lines[3].endswith(': "/nonexistent/prog" argv "/nonexistent/prog" "a"'), lines[3]
    # a newline in an argument cannot start a line of its own; invalid bytes are escaped
    assert lines[4].endswith(
        ': "/bin/true" argv "/bin/true" "two words" "line\\nbreak" "bad\\xff\\xfeutf8"'), lines[4]
    assert lines[5].endswith("(cut short)"), lines[5][-80:]
    assert len(block) == 7, block  # complete: no incomplete note, nothing after
    assert not any(l.startswith("break") for l in res.err.splitlines())


def test_without_the_flag_no_record(world):
    world.setup(SCRIPT)
    res = world.bento("run", "--json", "m.yaml")
    assert res.rc == 0, res
    assert "exec_record" not in verdict(res)
    assert "done" in stdout_of(res)
    res = world.bento("run", "m.yaml")
    assert res.rc == 0, res
    assert "exec record" not in res.err, res
    # --record-exec=false is the same as leaving it out
    res = world.bento("run", "--record-exec=false", "--json", "m.yaml")
    assert res.rc == 0, res
    assert "exec_record" not in verdict(res)


def test_exec_none_is_not_watched_and_still_blocks(world):
    world.setup(BLOCKED_SCRIPT, exec_mode="none")
    res = world.bento("run", "--record-exec", "--json", "m.yaml")
    assert res.rc == 0, res
    assert "exec: refused" in stdout_of(res), res
    rec = verdict(res)["exec_record"]
    assert rec["watched"] is False and rec["complete"] is False and rec["runs"] == [], rec
    assert "exec: none" in rec["reason"] and "exec: all" in rec["reason"], rec
    res = world.bento("run", "--record-exec", "m.yaml")
    assert res.rc == 0, res
    assert "exec: refused" in res.out, res
    # the record's paragraph comes last
    tail = res.err[res.err.rindex("[bento] exec record: not watched - "):]
    assert all(l.startswith("[bento]   ") for l in tail.splitlines()[1:]), tail
    assert "exec record: not watched - the manifest says exec: none" in flat(res.err), res


def test_a_gate_that_dies_leaves_an_incomplete_record_and_execs_failing(world):
    killer = world.write("killer-gate", KILLER % GATE, mode=0o755)
    world.setup(GATE_DIES_SCRIPT)
    res = world.bento("run", "--record-exec", "--json", "m.yaml", env={"BENTO_EXEC_GATE": killer})
    assert res.rc == 0, res
    # the exec after the gate died was not let through unrecorded: ENOSYS
    assert "second: errno 38" in stdout_of(res), res
    rec = verdict(res)["exec_record"]
    assert rec["watched"] is True and rec["complete"] is False, rec
    assert "did not finish its record" in rec["reason"], rec
    assert [r["exe"] for r in rec["runs"]][1:] == ["/bin/true"], rec


def test_the_gate_alone_records_and_refuses_nothing(world, tmp_path):
    """Record mode's file format straight from the gate: hex strings, the end line."""
    rec = tmp_path / "rec.jsonl"
    res = run_cmd([GATE, "--socket", str(tmp_path / "g.sock"), "--record", str(rec), "--timeout", "1"],
                  timeout=20)
    # no runtime connected: the gate gives up, and writes no end line
    assert res.rc == 1, res
    assert rec.read_text() == "", res
    # an existing file is never overwritten or followed
    link = tmp_path / "link.jsonl"
    os.symlink(str(tmp_path / "elsewhere"), str(link))
    res = run_cmd([GATE, "--socket", str(tmp_path / "h.sock"), "--record", str(link)], timeout=20)
    assert res.rc != 0 and "--record" in res.err, res
    assert not (tmp_path / "elsewhere").exists()
