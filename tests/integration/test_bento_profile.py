# SPDX-License-Identifier: Apache-2.0
"""`bento profile` end to end (docs/cli/bento-profile.md): a probe script watched in the
real sandbox, the manifest it drafts, and that manifest validated, approved and run; the
--json document, the merge into an existing --out, the refusals, the single pass's retry,
the exit statuses, and the interactive converge loop under a pseudo-terminal.

Every test gets its own world: a scratch HOME holding an SSH key (which the profiled
script reads, and which must stay out of the draft), XDG_STATE_HOME for approve's journal,
TMPDIR for the run directory, and a project directory with the script.  Each profile is a
real sandbox run (or two), so the cases are few and each checks several things.
"""

import fcntl
import json
import os
import pty
import re
import select
import shutil
import tempfile
import termios
import time

import yaml

import pytest

import harness
from harness import run_cmd

BENTO = os.path.join(harness.BUILD, "bin", "bento")

pytestmark = [pytest.mark.timeout(150)]

PROBE = """\
#!/usr/bin/python3
# reads data/, writes out/, reads an SSH key, tries the network and an exec
import os, subprocess, urllib.request
here = os.path.dirname(os.path.abspath(__file__))
print(open(os.path.join(here, "data", "sample.txt")).read().strip())
with open(os.path.join(here, "out", "x.txt"), "w") as f:
    f.write("x\\n")
try:
    open(os.path.expanduser("~/.ssh/id_rsa")).read()
    print("SECRET READ")
except OSError:
    print("secret hidden")
try:
    urllib.request.urlopen("https://example.com/", timeout=5)
    print("NETWORK OPEN")
except Exception:
    print("network refused")
subprocess.run(["/bin/true"], check=True)
print("done")
"""


def prose(text):
    """stderr with the wrapping undone."""
    return re.sub(r"\n(?:\[bento\] +|\s{2,})", " ", text)


class World:
    def __init__(self, test_dir):
        if not os.access(BENTO, os.X_OK):
            pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
        self.home = os.path.join(test_dir, "home")
        self.state = os.path.join(test_dir, "state")
        self.tmp = tempfile.mkdtemp(prefix="bpf.", dir="/tmp")
        self.work = os.path.join(test_dir, "work")
        for d in (self.home, self.state, self.work):
            os.makedirs(d)
        os.makedirs(os.path.join(self.home, ".ssh"), mode=0o700)
        self.write(os.path.join(self.home, ".ssh", "id_rsa"), "not a real key\n", 0o600)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}

    def write(self, path, text, mode=0o644):
        path = path if os.path.isabs(path) else os.path.join(self.work, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def bento(self, *args, timeout=120, input=None):
        return run_cmd([BENTO] + [str(a) for a in args], timeout=timeout, env=self.env,
                       cwd=self.work, input=input)

    def probe(self):
        self.write("data/sample.txt", "sample content\n")
        os.makedirs(os.path.join(self.work, "out"))
        return self.write("probe.py", PROBE, 0o755)


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    run_dirs_before = harness.bento_run_dirs(w.tmp)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    left = harness.bento_run_dirs(w.tmp) - run_dirs_before
    assert not left, "a run directory was left behind: %s" % sorted(left)
    shutil.rmtree(w.tmp, ignore_errors=True)


def manifest(world, name):
    with open(os.path.join(world.work, name)) as f:
        return yaml.safe_load(f)


def items(doc, key):
    return sorted((i["kind"], i.get("path") or "%s:%s" % (i.get("host"), i.get("port")),
                   i["reason"]) for i in doc.get(key, []))


# ---------------------------------------------------------------------------
# the end to end


def test_profile_validate_approve_run(world):
    script = world.probe()
    out = os.path.join(world.work, "probe.py.manifest.yaml")
    res = world.bento("profile", "--json", "./probe.py")
    assert res.rc == 0, res
    doc = json.loads(res.out)
    # the target's stdout went to stderr under --json, and it ran in the sandbox: the key
    # was not there, the network refused, the exec let through
    assert "sample content" in res.err and "secret hidden" in res.err, res
    assert "network refused" in res.err and "done" in res.err, res
    assert "SECRET READ" not in res.err and "NETWORK OPEN" not in res.err
    assert doc["complete"] is True and doc["manifest"] == "./probe.py.manifest.yaml", doc
    pol = doc["policy"]
    assert pol["entrypoint"] == "./probe.py"
    assert pol["interpreter"] == "/usr/bin/python3"
    # python lists its script's directory (the import path) and reads the data file
    assert pol["read"] == [".", "./data/sample.txt"], pol
    assert pol["write"] == ["./out"], pol
    assert pol["network"] == ["example.com:443"], pol
    assert pol["exec"] == "all"
    assert pol["env"] == ["HOME", "XDG_STATE_HOME"], pol
    # the key is withheld with its reason, and nowhere in the draft; the broad grants flagged
    key = os.path.join(world.home, ".ssh", "id_rsa")
    assert items(doc, "withheld") == [("read", key, "read-shielded")], doc
    # ./out holds no home shield: its own workspace shields do not flag it
    assert items(doc, "flagged") == [("read", world.work, "whole-workdir")], doc
    text = open(out).read()
    assert ".ssh" not in text and "approves" not in text
    assert re.search(r"^  generated-by: \"?bento profile\"?$", text, re.M), text
    assert "[bento] wrote ./probe.py.manifest.yaml - review it" in res.err
    # the draft is a manifest like any other: unapproved until stamped, then it runs
    res = world.bento("validate", out)
    assert re.search(r"^approval: +not approved", res.out, re.M), res
    res = world.bento("run", out)
    assert res.rc == 125 and "not approved" in prose(res.err), res
    assert world.bento("approve", "--yes", out).rc == 0
    res = world.bento("run", out)
    assert res.rc == 0, res
    assert "sample content" in res.out and "secret hidden" in res.out and "done" in res.out
    assert open(os.path.join(world.work, "out", "x.txt")).read() == "x\n"
    assert os.path.exists(script)


def test_the_observers_library_changes_the_speed_not_the_draft(world):
    """bento profile preloads the observer's library (docs/profile.md, "The preload
    library") into the script's programs; without it (BENTO_OBSERVE_SHIM naming no file)
    the observer sees every call itself.  The draft is the same either way."""
    world.probe()
    world.write("env.py", "#!/usr/bin/python3\nimport os\nprint('preload=[%s]' % "
                          "os.environ.get('LD_PRELOAD', ''))\n", 0o755)
    res = world.bento("profile", "--out", "e.yaml", "./env.py")
    assert res.rc == 0 and "preload=[/.bento/observe-shim.so]" in res.out, res
    docs = []
    for shim in (None, "/nonexistent/bento-observe-shim.so"):
        if shim:
            world.env["BENTO_OBSERVE_SHIM"] = shim
        res = world.bento("profile", "--json", "--out", "p-%d.yaml" % len(docs), "./probe.py")
        assert res.rc == 0, res
        docs.append(json.loads(res.out))
    res = world.bento("profile", "--out", "e2.yaml", "./env.py")
    assert res.rc == 0 and "preload=[]" in res.out, res
    for key in ("policy", "withheld", "flagged", "complete"):
        assert docs[0][key] == docs[1][key], key


def test_merge_into_existing_out_and_refusals(world):
    world.probe()
    # another script's manifest at --out: refused, untouched
    other = world.write("other.yaml", "entrypoint: ./other.py\ninterpreter: python3\n")
    before = open(other).read()
    res = world.bento("profile", "--out", other, "./probe.py")
    assert res.rc == 125, res
    assert "refusing to merge into" in prose(res.err) and "other.py" in prose(res.err), res
    assert open(other).read() == before
    # one that does not parse: refused, --json shape
    bad = world.write("bad.yaml", "entrypoint: [\n")
    res = world.bento("profile", "--json", "--out", bad, "./probe.py")
    assert res.rc == 125, res
    doc = json.loads(res.out)
    assert doc["refused"] is True and "refusing to merge into" in doc["reason"], doc
    # a script that does not exist
    res = world.bento("profile", "./missing.py")
    assert res.rc == 125 and 'entrypoint "./missing.py"' in res.err, res
    assert not os.path.exists(os.path.join(world.work, "missing.py.manifest.yaml"))
    # the same script's manifest: merged, its extra grant kept and said so
    mine = world.write("mine.yaml", "entrypoint: ./probe.py\ninterpreter: /usr/bin/python3\n"
                                    "read: [./extra]\nlimits: {pids: 64}\n")
    res = world.bento("profile", "--json", "--out", mine, "./probe.py")
    assert res.rc == 0, res
    doc = json.loads(res.out)
    assert doc["policy"]["read"] == ["./extra", ".", "./data/sample.txt"], doc
    assert doc["merged"]["kept_read"] == ["./extra"], doc
    assert 'kept from the existing manifest, not shown by this run: read "./extra"' in \
        prose(res.err), res
    assert "pids: 64" in open(mine).read()


def test_single_pass_retry_and_incomplete(world):
    # writes into out/sub, which does not exist: the first pass dies, the retry creates it
    world.write("w.sh", "#!/bin/sh\nset -e\necho hi > out/sub/x.txt\necho written\n", 0o755)
    os.makedirs(os.path.join(world.work, "out"))
    res = world.bento("profile", "./w.sh")
    assert res.rc == 0, res
    assert "running it once more" in prose(res.err), res
    assert res.out.count("written") == 1, res
    assert os.path.isdir(os.path.join(world.work, "out", "sub"))
    m = manifest(world, "w.sh.manifest.yaml")
    assert m["write"] == ["./out/sub"] and m["exec"] == "none" and "read" not in m, m
    # a run that does not finish: exit 4, the reason said, the draft still written
    world.write("fail.sh", "#!/bin/sh\nexit 3\n", 0o755)
    res = world.bento("profile", "./fail.sh")
    assert res.rc == 4, res
    assert "the proposal is incomplete (the profiled run did not finish)" in prose(res.err)
    assert os.path.exists(os.path.join(world.work, "fail.sh.manifest.yaml"))


# ---------------------------------------------------------------------------
# the converge loop, on a pseudo-terminal

LOOP_SCRIPT = """\
#!/bin/sh
read a < data/a.txt
read b < data/b.txt 2>/dev/null || b=none
echo "a=$a b=$b" > out/o.txt
echo "a=$a b=$b"
"""


def _take_terminal():
    # in the child, after setsid: the pty on stdin becomes the controlling terminal, so
    # bento's /dev/tty is it
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def converse(world, args, answers, timeout=120):
    """Run bento on a pty; each time a prompt ends in '> ', send the next answer (None:
    end of input).  Returns (exit status, everything the terminal showed)."""
    master, slave = pty.openpty()
    p = harness.spawn([BENTO] + args, stdin=slave, stdout=slave, stderr=slave, cwd=world.work,
                      env=world.env, start_new_session=True, preexec_fn=_take_terminal)
    os.close(slave)
    shown, pending, deadline = b"", list(answers), time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 1)
        if not r:
            if p.poll() is not None:
                break
            continue
        try:
            data = os.read(master, 4096)
        except OSError:
            break  # EIO: the last holder of the terminal is gone
        if not data:
            break
        shown += data
        if shown.rstrip(b" ").endswith(b">") and pending:
            a = pending.pop(0)
            os.write(master, b"\x04" if a is None else a.encode() + b"\n")
            shown += b"<<sent>>"
    else:
        p.kill()
    rc = p.wait(timeout=30)
    os.close(master)
    return rc, shown.decode(errors="replace")


def loop_world(world):
    world.write("data/a.txt", "one\n")
    world.write("data/b.txt", "two\n")
    os.makedirs(os.path.join(world.work, "out"))
    return world.write("loop.sh", LOOP_SCRIPT, 0o755)


def test_converge_loop_yes_no(world):
    loop_world(world)
    rc, shown = converse(world, ["profile", "./loop.sh"], ["y", "n", "y"])
    assert rc == 0, shown
    assert "round 1: the target attempted 3 new path(s)" in shown, shown
    assert "converged" in shown, shown
    m = manifest(world, "loop.sh.manifest.yaml")
    assert m["read"] == ["./data/a.txt"] and m["write"] == ["./out"], m
    assert m["exec"] == "none", m


def test_converge_loop_all_and_quit(world):
    loop_world(world)
    rc, shown = converse(world, ["profile", "--out", "all.yaml", "./loop.sh"], ["a"])
    assert rc == 0, shown
    assert shown.count("grant ") == 1, shown  # "all" asked once
    m = manifest(world, "all.yaml")
    assert m["read"] == ["./data/a.txt", "./data/b.txt"] and m["write"] == ["./out"], m
    rc, shown = converse(world, ["profile", "--out", "q.yaml", "./loop.sh"], ["q"])
    assert rc == 4, shown
    assert "you quit before it converged" in shown, shown
    m = manifest(world, "q.yaml")
    assert "read" not in m and "write" not in m, m


def test_converge_loop_ctrl_c_writes_nothing(world):
    loop_world(world)
    rc, shown = converse(world, ["profile", "./loop.sh"], ["\x03"])
    assert rc == -2, shown  # SIGINT's default action: bento ends at the question
    assert "grant read" in shown, shown
    assert not os.path.exists(os.path.join(world.work, "loop.sh.manifest.yaml"))


def test_converge_loop_resumes_from_an_approved_out(world):
    loop_world(world)
    out = os.path.join(world.work, "loop.sh.manifest.yaml")
    assert world.bento("profile", "./loop.sh").rc == 0
    assert world.bento("approve", "--yes", out).rc == 0
    # its grants are mounted without a question; only what is new is asked about
    world.write("data/c.txt", "three\n")
    with open(os.path.join(world.work, "loop.sh"), "a") as f:
        f.write("read c < data/c.txt\n")
    rc, shown = converse(world, ["profile", "./loop.sh"], ["n"])
    assert rc == 0, shown
    assert re.search(r"resuming from \S+: mounting approved read \S+/data/a\.txt", shown), shown
    assert shown.count("grant ") == 1 and "data/c.txt?" in shown, shown
    m = manifest(world, "loop.sh.manifest.yaml")
    assert "./data/a.txt" in m["read"] and "./data/c.txt" not in m["read"], m
    assert "approves" not in m.get("provenance", {}), m


def test_a_resumed_grant_reaching_another_homes_shields_is_asked(world):
    """Resuming from an approved --out mounts its grants without a question,
    except one that reaches shielded paths in a home that is not the
    caller's (profiling as root, a grant of /home/<someone>): that one is
    asked about, and declining it keeps it out of the rounds and out of the
    file written."""
    loop_world(world)
    other = tempfile.mkdtemp(prefix="zz-bento-it-", dir="/home")
    try:
        os.makedirs(os.path.join(other, ".ssh"))
        out = os.path.join(world.work, "loop.sh.manifest.yaml")
        assert world.bento("profile", "./loop.sh").rc == 0
        with open(out) as f:
            text = f.read()
        with open(out, "w") as f:
            f.write(text.replace("read:\n", "read:\n  - \"%s\"\n" % other, 1))
        assert world.bento("approve", "--yes", out).rc == 0
        rc, shown = converse(world, ["profile", "./loop.sh"], ["n", "n", "n"])
        assert rc == 0, shown
        flat_shown = re.sub(r"\s+", " ", shown)
        assert ("resume: %s reaches shielded paths in a home that is not yours; grant read"
                % other) in flat_shown, shown
        assert flat_shown.count("reaches shielded paths") == 1, shown
        assert re.search(r"resuming from \S+: mounting approved read \S+/data/a\.txt", shown), shown
        assert "mounting approved read %s" % other not in flat_shown, shown
        m = manifest(world, "loop.sh.manifest.yaml")
        assert other not in m["read"] and "./data/a.txt" in m["read"], m
    finally:
        shutil.rmtree(other, ignore_errors=True)


def test_allow_network_single_pass_does_not_run_twice(world):
    """With --allow-network the retry for a missing write directory is not
    made (it would repeat real connections): the first pass is kept, the
    directory is not created, and the banner says egress is forwarded."""
    world.write("w.sh", "#!/bin/sh\nset -e\necho run >&2\necho hi > out/sub/x.txt\n", 0o755)
    os.makedirs(os.path.join(world.work, "out"))
    res = world.bento("profile", "--allow-network", "./w.sh")
    assert res.rc == 4, res  # the run did not finish: incomplete
    said = prose(res.err)
    assert "forwarded, --allow-network" in said, res
    assert "not running it again, since --allow-network would repeat real connections" in said
    assert "running it once more" not in said, res
    assert res.err.count("run\n") == 1, res  # the script ran once
    assert not os.path.exists(os.path.join(world.work, "out", "sub"))


def test_allow_network_is_confirmed_on_a_terminal(world):
    """On a terminal, --allow-network first warns and asks; anything but y
    aborts with exit 125 and writes nothing, y goes on."""
    loop_world(world)
    rc, shown = converse(world, ["profile", "--allow-network", "./loop.sh"], ["n"])
    assert rc == 125, shown
    flat_shown = re.sub(r"\s+", " ", shown)
    assert "WARNING: --allow-network forwards" in flat_shown, shown
    assert "Continue with network forwarding? [y/N]" in flat_shown, shown
    assert "aborted: re-run without --allow-network" in flat_shown, shown
    assert "grant read" not in shown, shown  # nothing ran
    assert not os.path.exists(os.path.join(world.work, "loop.sh.manifest.yaml"))
    rc, shown = converse(world, ["profile", "--allow-network", "./loop.sh"], ["y", "y", "n", "y"])
    assert rc == 0, shown
    assert "grant read" in shown, shown
    assert os.path.exists(os.path.join(world.work, "loop.sh.manifest.yaml"))
