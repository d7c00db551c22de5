# SPDX-License-Identifier: Apache-2.0
"""Workspace shields survive what the sandbox does to the directories above
them (threat-model.md, "shield parents").

A write grant on a git checkout keeps .git/config and .git/hooks read-only.
Those shields are mounts inside .git, and .git is an ordinary directory of
the grant: before bento pinned it, the script could rename .git away (the
read-only mounts travel with it), make a fresh .git whose config sets
core.fsmonitor, and the user's next `git status` on the host ran that.
Every existing directory between a write grant and a shield is now a mount
point of its own, so renaming or removing it fails with EBUSY; a missing
shield whose parent is missing too is one scratch mount at the topmost
missing directory.

Covered, each under `bento run` as a real sandbox:
  * rename, rmdir and rename-over of .git, .git/hooks, .git/config, .vscode
    and a missing .cargo fail; .git/config and the hooks stay read-only;
  * the allowed things still work: files in the grant and in .git (objects,
    refs, an index) are writable, and a real `git commit` inside the box
    succeeds;
  * afterwards, on the host, the checkout's config sets no command, no hook
    was added, nothing named .git-old exists, and nothing of a missing
    .cargo reached the host.
"""
import json
import os
import subprocess

import pytest

from test_bento_run import World  # noqa: F401  (the fixture's class)
from test_bento_run import world  # noqa: F401  (pytest fixture)

GIT = "/usr/bin/git"

ATTACK = r'''
import json, os, sys
res = {}
def t(name, f):
    try:
        f()
        res[name] = "ok"
    except OSError as e:
        res[name] = os.strerror(e.errno)
def fresh_git():
    os.makedirs("ws/.git/hooks", exist_ok=True)
    with open("ws/.git/config", "w") as f:
        f.write("[core]\n\tfsmonitor = touch /tmp/pwned\n")
def plant_hook():
    with open("ws/.git/hooks/post-checkout", "w") as f:
        f.write("#!/bin/sh\ntouch /tmp/pwned\n")
    os.chmod("ws/.git/hooks/post-checkout", 0o755)
def replace_config():
    with open("ws/cfg", "w") as f:
        f.write("[core]\n\thooksPath = /tmp\n")
    os.rename("ws/cfg", "ws/.git/config")
t("rename .git", lambda: os.rename("ws/.git", "ws/.git-old"))
t("rmdir .git/hooks", lambda: os.rmdir("ws/.git/hooks"))
t("rename .git/hooks", lambda: os.rename("ws/.git/hooks", "ws/.git/hooks-old"))
t("rename over .git/config", replace_config)
t("append .git/config", lambda: open("ws/.git/config", "a").write("[core]\n\tpager = id\n"))
t("plant a hook", plant_hook)
t("rename .vscode", lambda: os.rename("ws/.vscode", "ws/vscode-old"))
t("rename .cargo", lambda: os.rename("ws/.cargo", "ws/cargo-old"))
t("write .cargo/config.toml", lambda: open("ws/.cargo/config.toml", "w").write("[build]\nrustc-wrapper = 'id'\n"))
t("fresh .git", fresh_git)
t("write in the grant", lambda: open("ws/notes.txt", "w").write("ok\n"))
t("write in .git", lambda: open("ws/.git/description", "w").write("mine\n"))
print(json.dumps(res))
'''

MANIFEST = ("entrypoint: ./attack.py\ninterpreter: /usr/bin/python3\nexec: all\n"
            "write: [./ws]\n")


def _repo(world):
    ws = os.path.realpath(os.path.join(world.work, "ws"))
    os.makedirs(ws)
    subprocess.run([GIT, "init", "-q", ws], check=True)
    os.makedirs(os.path.join(ws, ".vscode"))
    return ws


def _host_config(ws):
    # Read the file itself: never ask git in a checkout the box wrote to.
    with open(os.path.join(ws, ".git", "config")) as f:
        return f.read()


def test_renaming_a_shield_parent_fails_and_nothing_is_planted(world):
    ws = _repo(world)
    before = _host_config(ws)
    hooks_before = sorted(os.listdir(os.path.join(ws, ".git", "hooks")))
    m = world.manifest(MANIFEST, script=ATTACK, script_name="attack.py")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    got = json.loads(res.out.strip().splitlines()[-1])
    for name in ("rename .git", "rmdir .git/hooks", "rename .git/hooks", "rename .vscode",
                 "rename .cargo"):
        assert got[name] == os.strerror(16), (name, got)  # EBUSY: a mount point
    # from the grant into the pinned .git: another mount (EXDEV), or onto a
    # mount point (EBUSY)
    assert got["rename over .git/config"] in (os.strerror(18), os.strerror(16)), got
    for name in ("append .git/config", "plant a hook", "fresh .git"):
        assert got[name] in (os.strerror(30), os.strerror(13)), (name, got)  # EROFS / EACCES
    # the allowed things still work
    assert got["write in the grant"] == "ok", got
    assert got["write in .git"] == "ok", got
    assert got["write .cargo/config.toml"] == "ok", got  # scratch: see below
    # on the host
    assert _host_config(ws) == before
    assert sorted(os.listdir(os.path.join(ws, ".git", "hooks"))) == hooks_before
    for gone in (".git-old", "vscode-old", "cargo-old", ".cargo"):
        assert not os.path.lexists(os.path.join(ws, gone)), (gone, os.listdir(ws))
    with open(os.path.join(ws, "notes.txt")) as f:
        assert f.read() == "ok\n"
    assert not os.path.exists("/tmp/pwned")


def test_git_still_works_inside_the_box(world):
    ws = _repo(world)
    script = ("set -e\ncd ws\necho hello > a.txt\n"
              "git -c user.name=t -c user.email=t@example.com add a.txt\n"
              "git -c user.name=t -c user.email=t@example.com commit -q -m first\n"
              "git log --oneline | wc -l\n")
    m = world.manifest(MANIFEST.replace("./attack.py", "./s.sh").replace("/usr/bin/python3", "sh"),
                       script=script)
    world.approve(m)
    res = world.run(m, env={"HOME": world.work})
    assert res.rc == 0, res
    assert res.out.strip().splitlines()[-1] == "1", res
    log = subprocess.run([GIT, "-C", ws, "-c", "core.fsmonitor=", "log", "--oneline"],
                         capture_output=True, text=True, check=True)
    assert len(log.stdout.splitlines()) == 1


def test_inspect_names_the_pinned_parents(world, tmp_path):
    ws = _repo(world)
    m = world.manifest(MANIFEST, script=ATTACK, script_name="attack.py")
    bundle = str(tmp_path / "bundle")
    res = world.bento("translate", m, "--output", bundle)
    assert res.rc == 0, res
    with open(os.path.join(bundle, "config.json")) as f:
        mounts = json.load(f)["mounts"]
    dests = [x["destination"] for x in mounts]
    git_dir = os.path.join(ws, ".git")
    assert git_dir in dests
    # the pin comes after the grant and before the shields inside it
    assert dests.index(ws) < dests.index(git_dir) < dests.index(os.path.join(git_dir, "config"))
    res = world.bento("inspect", bundle, "--json")
    assert res.rc == 0, res
    doc = json.loads(res.out)
    assert git_dir in doc["pinned"], doc
    assert git_dir not in doc["write"], doc


def test_a_commondir_cannot_be_planted(world):
    """.git/commondir points git at the config of another directory: where
    the checkout has none, the box sees one that says "." (git keeps working)
    and cannot write or replace it."""
    ws = _repo(world)
    script = ("cd ws\ncat .git/commondir\n"
              "printf '/tmp\\n' > .git/commondir && echo PLANTED\n"
              "mkdir -p ../evil && printf '[core]\\n\\tfsmonitor = id\\n' > ../evil/config\n"
              "rm -f .git/commondir && echo REMOVED\n"
              "git status --short > /dev/null && echo GIT-OK\n")
    m = world.manifest(MANIFEST.replace("./attack.py", "./s.sh").replace("/usr/bin/python3", "sh"),
                       script=script)
    world.approve(m)
    res = world.run(m, env={"HOME": world.work})
    assert res.rc == 0, res
    lines = res.out.split()
    assert lines[0] == "." and "GIT-OK" in lines, res
    assert "PLANTED" not in lines and "REMOVED" not in lines, res
    assert not os.path.lexists(os.path.join(ws, ".git", "commondir"))
