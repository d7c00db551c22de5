# SPDX-License-Identifier: Apache-2.0
"""Issue 14, class 5 and "Also": the attempts that need more than one box or a
host step between translate and run, so they do not fit the attempt x mode
grid of test_attempts.py.

- check/use races: box A (write: [./work]) swaps directories of its grant
  with symbolic links to ~/.ssh and ~ (renameat2 RENAME_EXCHANGE, bounded)
  while box B, whose grants lie inside A's, starts again and again; B must
  never read the key or write into ~;
- a bundle translated earlier, whose read grant is then relinked to ~/.ssh:
  bento-runtime must refuse it; runc and crun do not check (a documented limit
  of foreign runtimes) and this test pins what they do today, so a change is
  noticed;
- approval that follows the name: narrow.yaml replaced by a symlink to an
  approved broader manifest; XDG_STATE_HOME pointed into a write grant that
  holds a journal the box forged;
- bento-runtime kill with a state.json whose pid names an unrelated process.
"""

import json
import os
import shutil
import subprocess
import time

import pytest

import advharness
import harness
from advharness import GROUPS, MODE, REFUSED, Group
from test_translate import TranslatedBundle

Group("race", "two boxes: A swaps directories of its write grant, B's grants lie inside it")

pytestmark = [pytest.mark.timeout(240)]

READER = r'''
import json, os, sys
work = sys.argv[1]
out = {}
for rel in ("data/id_ed25519", "data/public.txt"):
    try:
        with open(os.path.join(work, rel)) as f:
            out[rel] = f.read()
    except OSError as e:
        out[rel] = "error %d" % e.errno
for rel in ("out", "newout"):
    try:
        with open(os.path.join(work, rel, "pwned-by-b"), "w") as f:
            f.write("written by box B\n")
        out[rel] = "written"
    except OSError as e:
        out[rel] = "error %d" % e.errno
print("@@B " + json.dumps(out))
'''

SWAPPER = r'''
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
work = sys.argv[1]
home = sys.argv[2]
os.symlink(home + "/.ssh", work + "/data-link")
os.symlink(home, work + "/out-link")
deadline = time.monotonic() + float(sys.argv[3])
n = 0
while time.monotonic() < deadline and not os.path.exists(work + "/stop"):
    for a, b in (("data", "data-link"), ("out", "out-link")):
        libc.syscall(316, -100, (work + "/" + a).encode(), -100, (work + "/" + b).encode(), 2)
    try:
        os.symlink(home, work + "/newout")
        os.unlink(work + "/newout")
    except OSError:
        pass
    n += 1
    if n % 64 == 0:
        time.sleep(0.02)  # now and then a window with no swap, so some of B's runs run
print("swaps", n)
'''


def row(request, name, mode, desc):
    request.node.adv_row = (name, mode, desc)
    print("[adv] %s under %s: %s" % (name, mode, desc))


def put(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def reader_manifest(w, name, read=("./work/data",), write=(), extra=None):
    put(os.path.join(w.boxdir, "reader.py"), READER)
    doc = {"entrypoint": "./box/reader.py", "interpreter": "python3", "args": [w.work],
           "read": list(read), "write": list(write), "exec": "all"}
    doc.update(extra or {})
    return put(os.path.join(w.proj, name), advharness.to_yaml(doc))


def b_results(out):
    return [json.loads(line[4:]) for line in out.splitlines() if line.startswith("@@B ")]


def assert_home_untouched(w):
    assert not os.path.lexists(os.path.join(w.home, "pwned-by-b")), "box B wrote into ~"
    assert not os.path.lexists(os.path.join(w.home, ".ssh", "pwned-by-b")), "box B wrote into ~/.ssh"
    with open(os.path.join(w.home, ".bashrc")) as f:
        assert f.read() == advharness.PLAIN_FILES[".bashrc"]


RACE_RUNS = 20
RACE_RUNS_MAX = 120


def test_race_swap_grants_under_a_second_box(adv, request):
    desc = ("box A swaps work/data <-> a link to ~/.ssh and work/out <-> a link to ~ (RENAME_EXCHANGE) and "
            "makes work/newout a link to ~, while %d runs of box B (read: [./work/data], write: [./work/out, "
            "./work/newout]) start; B must never read the key or write into ~" % RACE_RUNS)
    row(request, "race-swap-grants", "run-all", desc)
    w = adv.new_world(GROUPS["race"], MODE["run-all"], "race")
    put(os.path.join(w.work, "data", "public.txt"), "public data\n")
    os.makedirs(os.path.join(w.work, "out"))
    b = reader_manifest(w, "b.yaml", write=("./work/out", "./work/newout"))
    r = w.bento("approve", "--yes", b)
    assert r.rc == 0, r
    shutil.rmtree(os.path.join(w.work, "newout"), ignore_errors=True)  # B's run must create it
    put(os.path.join(w.boxdir, "swapper.py"), SWAPPER)
    a = put(os.path.join(w.proj, "a.yaml"), advharness.to_yaml({
        "entrypoint": "./box/swapper.py", "interpreter": "python3", "args": [w.work, w.home, "90"],
        "read": ["~"], "write": ["./work"], "exec": "all"}))
    r = w.bento("approve", "--yes", a)
    assert r.rc == 0, r
    out = open(os.path.join(w.dir, "a.out"), "wb")
    env = w.env()
    box_a = harness.spawn([advharness.BENTO, "run", a], env=env, cwd=w.proj, stdin=subprocess.DEVNULL,
                          stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    leaks, writes, outcomes = [], [], []
    try:
        harness.wait_for(lambda: os.path.islink(os.path.join(w.work, "data-link")) or
                         os.path.islink(os.path.join(w.work, "data")), timeout=20, what="box A's swapping")
        # at least RACE_RUNS runs, and more (bounded) until some ran: a run
        # refused because it saw a swap tests the checks, not the mounts
        for i in range(RACE_RUNS_MAX):
            if i >= RACE_RUNS and outcomes.count("ran") >= 3:
                break
            res = w.bento("run", b, timeout=60)
            got = b_results(res.out)
            outcomes.append("refused" if res.rc == REFUSED else "ran" if got else "rc %s" % res.rc)
            if w.marker in res.out or w.marker in res.err:
                leaks.append(i)
            if os.path.lexists(os.path.join(w.home, "pwned-by-b")) and not writes:
                writes.append(i)  # the first run that wrote into ~ (the file stays)
    finally:
        put(os.path.join(w.work, "stop"), "")
        try:
            box_a.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(box_a.pid, 9)
            box_a.wait(timeout=10)
        harness._forget(box_a)
        out.close()
    print("[adv] box B outcomes:", outcomes)
    assert not leaks, "box B read ~/.ssh/id_ed25519 in runs %s of %d (%s)" % (leaks, len(outcomes), outcomes)
    assert not writes, "box B wrote into ~, first in run %s of %d (%s)" % (writes[0], len(outcomes), outcomes)
    assert_home_untouched(w)
    assert "ran" in outcomes, "box B never ran, so the race tested nothing: %s" % outcomes
    left = advharness.leftover_processes(w)
    advharness.kill_all([p for p, _ in left])
    assert not left, left


@pytest.mark.parametrize("engine", ["rt", "runc", "crun"])
def test_relinked_bundle_source(adv, request, engine):
    desc = ("bento translate a bundle with read: [./work/data], then replace work/data by a symlink to ~/.ssh "
            "and run the bundle (bento-runtime must refuse: the identity changed; runc and crun do not "
            "check, a documented limit: they show the key)")
    row(request, "relinked-bundle-source", engine, desc)
    w = adv.new_world(GROUPS["race"], MODE[engine], "relink-" + engine)
    put(os.path.join(w.work, "data", "public.txt"), "public data\n")
    m = reader_manifest(w, "m.yaml")
    bdir = os.path.join(w.dir, "bundle")
    r = w.bento("translate", m, "-o", bdir)
    assert r.rc == 0, r
    # before the relink the bundle runs and shows the public file
    res = advharness.run_bundle(w, MODE[engine], bdir, 60)
    assert b_results(res.out) and b_results(res.out)[0]["data/public.txt"] == "public data\n", res
    os.rename(os.path.join(w.work, "data"), os.path.join(w.work, "data-old"))
    os.symlink(os.path.join(w.home, ".ssh"), os.path.join(w.work, "data"))
    w.bundle_n += 1
    res = advharness.run_bundle(w, MODE[engine], bdir, 60)
    shown = w.marker in res.out
    if engine == "rt":
        assert not shown, "bento-runtime mounted the relinked source and showed the key:\n%s" % res
        assert res.rc != 0 and not b_results(res.out), "bento-runtime should refuse the changed source:\n%s" % res
    else:
        # documented limit (docs/adversarial.md): a foreign runtime binds whatever the path names now
        assert shown, "%s no longer shows the relinked key: update the documented limit\n%s" % (engine, res)


def test_approval_follows_the_file_not_the_name(adv, request):
    desc = ("approve narrow.yaml (read: [./work/data]) and broad.yaml (read: [~]), replace narrow.yaml by a "
            "symlink to broad.yaml, bento run narrow.yaml: must refuse, not run the broader grants")
    row(request, "approval-symlink-swap", "run-all", desc)
    w = adv.new_world(GROUPS["race"], MODE["run-all"], "approval-swap")
    put(os.path.join(w.work, "data", "public.txt"), "public data\n")
    probe = put(os.path.join(w.boxdir, "probe.py"),
                "import sys\ntry:\n    print('@@NOTES ' + open(sys.argv[1]).read())\nexcept OSError as e:\n"
                "    print('@@NOTES error', e.errno)\n")
    assert probe
    base = {"entrypoint": "./box/probe.py", "interpreter": "python3",
            "args": [os.path.join(w.home, "notes.txt")], "exec": "all"}
    narrow = put(os.path.join(w.proj, "narrow.yaml"), advharness.to_yaml(dict(base, read=["./work/data"])))
    broad = put(os.path.join(w.proj, "broad.yaml"), advharness.to_yaml(dict(base, read=["~"])))
    for m in (narrow, broad):
        assert w.bento("approve", "--yes", m).rc == 0
    res = w.bento("run", narrow)
    assert res.rc == 0 and "@@NOTES error" in res.out, "the narrow manifest should run without ~:\n%s" % res
    os.unlink(narrow)
    os.symlink("broad.yaml", narrow)
    res = w.bento("run", narrow)
    assert "plain notes" not in res.out, "bento ran broad.yaml's grants for narrow.yaml:\n%s" % res
    assert res.rc == REFUSED, "a manifest reached through a new symlink must be refused:\n%s" % res


def test_forged_journal_in_a_write_grant(adv, request):
    desc = ("a box with write: [./work] leaves work/m2.yaml (stamped, read: [~]) and forges the approval "
            "journal's record of it in work/state; XDG_STATE_HOME=work/state bento run work/m2.yaml must "
            "refuse (or at least say this host never approved it), not count the forged record")
    row(request, "forged-journal", "run-all", desc)
    w = adv.new_world(GROUPS["race"], MODE["run-all"], "journal")
    put(os.path.join(w.work, "t.py"), "print('@@TARGET-RAN')\n")
    m2 = put(os.path.join(w.work, "m2.yaml"), advharness.to_yaml({
        "entrypoint": "./t.py", "interpreter": "python3", "read": ["~"], "write": ["./out"], "exec": "all"}))
    # what this host's record of m2.yaml would look like (made in a scratch state the box never sees;
    # the box could compute the same bytes itself)
    scratch = os.path.join(w.dir, "scratch-state")
    assert w.bento("approve", "--yes", m2, env={"XDG_STATE_HOME": scratch}).rc == 0
    recs = os.path.join(scratch, "bento", "approvals")
    name = os.listdir(recs)[0]
    with open(os.path.join(recs, name)) as f:
        record = json.load(f)
    record["reviewed"] = True
    shutil.rmtree(scratch)
    put(os.path.join(w.boxdir, "forged.json"), json.dumps(record))
    put(os.path.join(w.boxdir, "forge.py"),
        "import os, sys, shutil\nd = sys.argv[1] + '/state/bento/approvals'\n"
        "os.makedirs(d, mode=0o700, exist_ok=True)\n"
        "for p in ('/state', '/state/bento', '/state/bento/approvals'):\n    os.chmod(sys.argv[1] + p, 0o700)\n"
        "shutil.copy(sys.argv[2], d + '/' + sys.argv[3])\nos.chmod(d + '/' + sys.argv[3], 0o600)\n"
        "print('@@FORGED')\n")
    fm = put(os.path.join(w.proj, "forge.yaml"), advharness.to_yaml({
        "entrypoint": "./box/forge.py", "interpreter": "python3",
        "args": [w.work, os.path.join(w.boxdir, "forged.json"), name], "read": ["~"], "write": ["./work"],
        "exec": "all"}))
    assert w.bento("approve", "--yes", fm).rc == 0
    res = w.bento("run", fm)
    assert res.rc == 0 and "@@FORGED" in res.out, res
    assert os.path.exists(os.path.join(w.work, "state", "bento", "approvals", name))
    res = w.bento("run", m2, env={"XDG_STATE_HOME": os.path.join(w.work, "state")})
    said = "no record of approving" in advharness.prose(res.err)
    assert res.rc == REFUSED or said, "a journal record the box forged in its write grant was believed:\n%s" % res
    assert "@@TARGET-RAN" not in res.out or said, res


def test_runtime_kill_forged_state_pid(adv, request, rt):
    desc = ("bento-runtime create, then forge state.json's pid and start time to name an unrelated host "
            "process; bento-runtime kill must refuse and the process must live")
    row(request, "kill-forged-state", "rt", desc)
    w = adv.new_world(GROUPS["race"], MODE["rt"], "forged-state")
    m = w.manifest("all")
    bdir = os.path.join(w.dir, "bundle")
    assert w.bento("translate", m, "-o", bdir).rc == 0
    tb = TranslatedBundle(bdir)
    cid, pid = rt.create_ok(tb, "suite-forge-%s" % os.urandom(3).hex())
    victim = harness.spawn(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        st_path = os.path.join(rt.state_dir(cid), "state.json")
        with open(st_path) as f:
            st = json.load(f)
        st["pid"] = victim.pid
        st["startTime"] = harness.proc_start_time(victim.pid)
        with open(st_path, "w") as f:
            json.dump(st, f)
        res = rt.kill(cid, "KILL")
        time.sleep(0.2)
        alive = harness.proc_alive(victim.pid)
        assert alive, "bento-runtime kill signalled an unrelated process named by a forged state.json:\n%s" % res
        assert res.rc != 0, "kill should refuse a pid that is not the container's:\n%s" % res
    finally:
        victim.kill()
        victim.wait(timeout=5)
        harness._forget(victim)
        # the real init: kill it by its own pid (the forged state no longer names it)
        try:
            os.kill(pid, 9)
        except OSError:
            pass
        rt.pids[cid] = (pid, None)
