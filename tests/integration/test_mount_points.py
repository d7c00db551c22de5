# SPDX-License-Identifier: Apache-2.0
"""Shield mount points in write grants (issue 14, translate/policy/mount-points.h).

A write grant without .cargo, .git, .idea or .vscode needs empty mount
points there for the workspace shields; they land on the host, inside the
grant, and are removed after the run.  The grant is the sandbox's: these
tests have the sandboxed program rename the directories bento (or the
runtime) made and put symlinks to a host directory (the "victim", outside
every grant) in their place, holding an empty config.toml, config,
config.worktree and hooks/ -- exactly the names the cleanup removes.  The
victim must come through untouched under `bento run`, and under a
translated bundle's poststop hook run by bento-runtime and by runc.

And the ordinary case: the points bento made are gone afterwards, nothing
else in the grant was touched, what existed before stays, and a missing
grant is created and used.
"""

import fcntl
import json
import os
import stat
import subprocess
import threading
import time

import pytest

import harness
from harness import run_cmd
from test_bento_run import World, world  # noqa: F401 (fixture)
from test_translate import bundles_dir, engine_argv, engine_state  # noqa: F401 (fixtures)

BENTO = os.path.join(harness.BUILD, "bin", "bento")
VICTIM_FILES = ("config.toml", "config", "config.worktree")

pytestmark = [pytest.mark.timeout(90)]

# The sandboxed program's attack: each directory that holds mount points
# is moved aside (the mount points go with it) and replaced by a symlink
# to the victim.  .idea and .vscode are mount points themselves and cannot
# be moved (EBUSY); the script says what it managed.
# The points are mount points in the sandbox (a missing .cargo or .git is
# one scratch mount at the top), so the move fails with EBUSY; were it
# to succeed, the symlink put in its place must still not lead the cleanup
# to the victim.
ATTACK = """\
for d in .cargo .git .vscode .idea; do
    if mv ws/$d ws/$d-moved 2>/dev/null; then
        ln -s "$VICTIM" ws/$d && echo "swapped $d"
    else
        echo "pinned $d"
    fi
done
"""


def attack_held(out, ws):
    for d in (".cargo", ".git", ".vscode", ".idea"):
        assert "pinned %s" % d in out and "swapped %s" % d not in out, out
        assert not os.path.lexists(os.path.join(ws, d + "-moved")), os.listdir(ws)


def make_victim(base):
    victim = os.path.join(base, "victim")
    os.makedirs(os.path.join(victim, "hooks"))
    for name in VICTIM_FILES:
        open(os.path.join(victim, name), "w").close()
    return victim


def victim_intact(victim):
    names = sorted(os.listdir(victim))
    assert names == sorted(VICTIM_FILES + ("hooks",)), "the victim lost files: %s" % names
    assert os.listdir(os.path.join(victim, "hooks")) == []


def tree(top):
    """Every name under top (not following symlinks) with its identity."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            out[os.path.relpath(p, top)] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_size,
                                            st.st_mtime_ns if not stat.S_ISDIR(st.st_mode) else 0)
    return out


def project(base, script, write="./ws"):
    """base/ws (a grant holding keep.txt), base/s.sh, base/m.yaml."""
    ws = os.path.join(base, "ws")
    os.makedirs(ws, exist_ok=True)
    with open(os.path.join(ws, "keep.txt"), "w") as f:
        f.write("kept\n")
    with open(os.path.join(base, "s.sh"), "w") as f:
        f.write(script)
    m = os.path.join(base, "m.yaml")
    with open(m, "w") as f:
        f.write("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [%s]\n" % write)
    return m, ws


# ---------------------------------------------------------------------------
# bento run: bento makes the points and removes the very objects it made


def test_run_does_not_follow_a_swapped_in_symlink(world):
    victim = make_victim(world.dir)
    m, ws = project(world.work, ATTACK.replace('"$VICTIM"', '"%s"' % victim))
    res = world.run(m, "--allow-unapproved")
    assert res.rc == 0, res
    attack_held(res.out, ws)
    victim_intact(victim)
    # the points were bento's, and are gone
    for d in (".cargo", ".git", ".idea", ".vscode"):
        assert not os.path.lexists(os.path.join(ws, d)), os.listdir(ws)


def test_run_removes_what_it_made_and_nothing_else(world):
    m, ws = project(world.work, "test -d ws/.cargo && test -d ws/.git && "
                                "test -d ws/.vscode && echo seen\n")
    # there before the run: shielded, not made by bento, so not removed
    os.makedirs(os.path.join(ws, ".idea"))
    open(os.path.join(ws, ".envrc"), "w").close()
    before = tree(ws)
    res = world.run(m, "--allow-unapproved")
    assert res.rc == 0 and "seen" in res.out, res  # the points existed during the run
    assert tree(ws) == before, "the grant changed: %s" % sorted(set(tree(ws)) ^ set(before))
    assert "left in place" not in res.err, res


def test_run_creates_a_missing_grant_and_its_points(world):
    m, _ = project(world.work, "test -d new/deeper/.git && echo seen\n",
                   write="./new/deeper")
    grant = os.path.join(world.work, "new", "deeper")
    res = world.run(m, "--allow-unapproved")
    assert res.rc == 0 and "seen" in res.out, res
    assert os.path.isdir(grant) and os.listdir(grant) == [], os.listdir(grant)  # the grant stays
    assert stat.S_IMODE(os.stat(grant).st_mode) == 0o700


# ---------------------------------------------------------------------------
# a translated bundle: the poststop hook walks beneath each grant


def translate(base, bundles, m, name="b"):
    home = os.path.join(base, "home")
    os.makedirs(home, exist_ok=True)
    out = os.path.join(bundles, name)
    res = run_cmd([BENTO, "translate", m, "-o", out], env={"PATH": "/usr/bin:/bin", "HOME": home},
                  timeout=60)
    assert res.rc == 0, res
    with open(os.path.join(out, "config.json")) as f:
        return out, json.load(f)


class Plain:
    """What harness.Runtime needs of a bundle."""

    def __init__(self, path):
        self.path = path

    def save(self):
        pass


def hook_args(cfg):
    (hook,) = cfg["hooks"]["poststop"]
    return hook["args"]


def test_hook_argv_names_each_grant_and_its_identity(test_dir, bundles_dir):  # noqa: F811
    m, ws = project(test_dir, "true\n")
    _, cfg = translate(test_dir, bundles_dir, m)
    args = hook_args(cfg)
    st = os.stat(ws)
    assert args[:5] == ["bento", "__remove-mount-points", "--beneath", ws,
                        "%d:%d" % (st.st_dev, st.st_ino)], args
    paths = args[5:]
    assert paths and all(p.startswith(ws + "/") for p in paths), args
    # a missing .cargo or .git is one scratch mount: its top is the point
    assert ws + "/.cargo" in paths and ws + "/.git" in paths, args
    assert not any(p.startswith(ws + "/.cargo/") for p in paths), args


def attack_bundle(test_dir, bundles_dir):
    victim = make_victim(test_dir)
    m, ws = project(test_dir, ATTACK.replace('"$VICTIM"', '"%s"' % victim))
    out, cfg = translate(test_dir, bundles_dir, m)
    return victim, ws, out, cfg


def test_hook_under_bento_runtime_does_not_follow_a_swapped_in_symlink(rt, test_dir, bundles_dir):  # noqa: F811
    victim, ws, out, _ = attack_bundle(test_dir, bundles_dir)
    res = rt.run(Plain(out))
    assert res.rc == 0, res
    attack_held(res.out, ws)
    victim_intact(victim)
    assert not os.path.lexists(os.path.join(ws, ".idea"))  # the hook removed the points


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine_state", ["runc"], indirect=True)
def test_hook_under_runc_does_not_follow_a_swapped_in_symlink(test_dir, bundles_dir, engine_state):  # noqa: F811
    engine, state, ids = engine_state
    victim, ws, out, _ = attack_bundle(test_dir, bundles_dir)
    cid = "mountpoints-%s" % os.urandom(4).hex()
    ids.append(cid)
    res = run_cmd(engine_argv(engine, state, "run", "--bundle", out, cid), timeout=40)
    assert res.rc == 0, res
    attack_held(res.out, ws)
    victim_intact(victim)
    assert not os.path.lexists(os.path.join(ws, ".idea"))


def test_hook_removes_the_points_and_nothing_else(rt, test_dir, bundles_dir):  # noqa: F811
    m, ws = project(test_dir, "test -d ws/.cargo && test -d ws/.git && echo seen\n")
    os.makedirs(os.path.join(ws, ".idea"))
    open(os.path.join(ws, ".envrc"), "w").close()
    out, _ = translate(test_dir, bundles_dir, m)
    before = tree(ws)
    res = rt.run(Plain(out))
    assert res.rc == 0 and "seen" in res.out, res
    assert tree(ws) == before, "the grant changed: %s" % sorted(set(tree(ws)) ^ set(before))


def test_hook_acts_on_no_grant_that_was_replaced(rt, test_dir, bundles_dir):  # noqa: F811
    """The grant was made again after translate (another inode): bento-runtime
    refuses the bundle (its identity record), and the hook, run as another
    runtime would run it, removes nothing in the new grant."""
    m, ws = project(test_dir, "true\n")
    out, cfg = translate(test_dir, bundles_dir, m)
    os.rename(ws, ws + ".old")  # kept, so that its inode is not reused at once
    os.makedirs(os.path.join(ws, ".git"))  # as a runtime would have made it
    res = rt.run(Plain(out))
    assert res.rc != 0 and "is not what bento checked" in res.err, res
    run_cmd([BENTO] + hook_args(cfg)[1:], timeout=20, input="")
    assert os.path.isdir(os.path.join(ws, ".git")), os.listdir(ws)  # left, not removed


def test_hook_with_arguments_it_does_not_know_removes_nothing(test_dir):
    grant = os.path.join(test_dir, "g")
    os.makedirs(os.path.join(grant, ".idea"))
    st = os.stat(grant)
    for args in ([os.path.join(grant, ".idea")],  # the old form, without --beneath
                 ["--beneath", grant, "%d:%d" % (st.st_dev, st.st_ino), "/etc/.idea"],
                 ["--beneath", grant, "x", os.path.join(grant, ".idea")]):
        res = run_cmd([BENTO, "__remove-mount-points"] + args, timeout=20, input="")
        assert res.rc == 1 and "removing no shield mount point" in res.err, res
        assert os.path.isdir(os.path.join(grant, ".idea"))
    res = run_cmd([BENTO, "__remove-mount-points", "--beneath", grant, "%d:%d" % (st.st_dev, st.st_ino),
                   os.path.join(grant, ".idea")], timeout=20, input="")
    assert res.rc == 0 and not os.path.exists(os.path.join(grant, ".idea")), res


# ---------------------------------------------------------------------------
# two runs on one write grant: removing a name that is a mount point in
# another live mount namespace detaches the mounts there, so no run may
# remove a point another live run has its shield on (point-locks.h)

# Waits (bounded) for a file the test creates in the grant.
WAIT_FOR = """\
wait_for() { i=0; while [ ! -e "ws/$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; }
"""

# What a sandbox tries once the other run has ended: plant the files the
# workspace shields keep read-only, and write something it may write.
PLANT = """\
plant() {
    for d in .vscode .idea; do
        if mkdir -p ws/$d 2>/dev/null && echo '{}' > ws/$d/tasks.json 2>/dev/null; then
            echo "wrote $d"; else echo "denied $d"; fi
    done
    if mkdir -p ws/.cargo 2>/dev/null && echo x > ws/.cargo/config.toml 2>/dev/null; then
        echo "wrote .cargo"; else echo "denied .cargo"; fi
    if mkdir -p ws/.git/hooks 2>/dev/null && echo x > ws/.git/hooks/post-checkout 2>/dev/null; then
        echo "wrote hooks"; else echo "denied hooks"; fi
    echo "$1" > ws/$1-wrote.txt && echo "allowed"
}
"""

PLANTED = (".vscode/tasks.json", ".idea/tasks.json", ".cargo/config.toml", ".git/hooks/post-checkout")
POINTS = (".vscode", ".idea", ".cargo", ".git")


def two_manifests(world):
    ws = os.path.join(world.work, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "keep.txt"), "w") as f:
        f.write("kept\n")
    # A waits for a-go; B waits for b-go, then plants
    world.manifest("entrypoint: ./a.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n",
                   WAIT_FOR + PLANT + "touch ws/a-started\nwait_for a-go\nplant a > ws/a-result.txt\n",
                   name="a.yaml", script_name="a.sh")
    world.manifest("entrypoint: ./b.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n",
                   WAIT_FOR + PLANT + "touch ws/b-started\nwait_for b-go\nplant b\n",
                   name="b.yaml", script_name="b.sh")
    return ws


def wait_for(path, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert time.monotonic() < deadline, "timed out waiting for %s" % what
        time.sleep(0.02)


def in_thread(fn, *args):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("res", fn(*args)), daemon=True)
    t.start()
    return t, box


def nothing_planted(ws):
    planted = [p for p in PLANTED if os.path.lexists(os.path.join(ws, p))]
    assert planted == [], "a sandbox wrote past its shields onto the host: %s" % planted


def records_of(ws):
    st = os.stat(ws)
    d = "/run/bento/mount-points"
    prefix = "%d-%d." % (st.st_dev, st.st_ino)
    return [n for n in os.listdir(d) if n.startswith(prefix)] if os.path.isdir(d) else []


@pytest.mark.timeout(150)
def test_a_run_ending_first_removes_no_point_another_run_uses(world):
    ws = two_manifests(world)
    a, a_box = in_thread(world.run, "a.yaml", "--allow-unapproved")
    wait_for(os.path.join(ws, "a-started"), "run A")
    assert os.path.isdir(os.path.join(ws, ".vscode"))  # A's point, there when B starts
    b, b_box = in_thread(world.run, "b.yaml", "--allow-unapproved")
    wait_for(os.path.join(ws, "b-started"), "run B")
    open(os.path.join(ws, "a-go"), "w").close()
    a.join(90)
    assert a_box["res"].rc == 0, a_box["res"]
    # A is gone; B's shields must still hold
    open(os.path.join(ws, "b-go"), "w").close()
    b.join(90)
    res = b_box["res"]
    assert res.rc == 0, res
    nothing_planted(ws)
    # A's points, read-only under B (B's own in .git are scratch: checked
    # on the host above)
    for d in (".vscode", ".idea", ".cargo"):
        assert "denied %s" % d in res.out, res
    assert "allowed" in res.out and open(os.path.join(ws, "b-wrote.txt")).read() == "b\n", res
    # the last run out removed every point, A's included
    left = sorted(set(os.listdir(ws)) & set(POINTS))
    assert left == [], "points left in the grant: %s" % left
    assert records_of(ws) == []


def grant_in_use(ws):
    """Does a run (or its runtime) hold the grant's lock?  Asked with
    LOCK_EX | LOCK_NB, let go at once."""
    st = os.stat(ws)
    path = "/run/bento/mount-points/%d-%d.lock" % (st.st_dev, st.st_ino)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@pytest.mark.timeout(150)
def test_a_killed_bento_keeps_its_sandbox_s_points_and_the_next_run_cleans(world):
    ws = two_manifests(world)
    env = dict(world.env)
    a = subprocess.Popen([BENTO, "run", "--allow-unapproved", "a.yaml"], cwd=world.work, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(os.path.join(ws, "a-started"), "run A")
        a.kill()  # SIGKILL: A's runtime and sandbox live on
        a.wait(20)
        assert grant_in_use(ws), "A's runtime let go of the grant with bento"
        # B runs to its end while A's sandbox lives: B must leave A's points
        open(os.path.join(ws, "b-go"), "w").close()
        res = world.run("b.yaml", "--allow-unapproved")
        assert res.rc == 0, res
        assert os.path.isdir(os.path.join(ws, ".vscode")), "B removed a point under A's sandbox"
        open(os.path.join(ws, "a-go"), "w").close()
        wait_for(os.path.join(ws, "a-result.txt"), "run A's sandbox")
        deadline = time.monotonic() + 30
        while grant_in_use(ws):
            assert time.monotonic() < deadline, "A's runtime did not end"
            time.sleep(0.05)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait(20)
    with open(os.path.join(ws, "a-result.txt")) as f:
        out = f.read()
    assert "allowed" in out, out
    nothing_planted(ws)  # A's shields held after B ended (scratch ones: writes vanish)
    # the points A's bento never removed wait for the next run, which is last
    assert os.path.isdir(os.path.join(ws, ".vscode"))
    assert records_of(ws) != []
    res = world.run("b.yaml", "--allow-unapproved")  # b-go is there: plants at once
    assert res.rc == 0, res
    nothing_planted(ws)
    left = sorted(set(os.listdir(ws)) & set(POINTS))
    assert left == [], "points left in the grant: %s" % left
    assert records_of(ws) == []
