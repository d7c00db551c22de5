# SPDX-License-Identifier: Apache-2.0
"""Approval follows the name, and the journal stays out of the grants
(issue 14; docs/approve.md "Names and links", "Where the journal may
live").  End to end with `bento run`:

* a manifest name swapped for a symbolic link to another approved manifest
  is refused (and says what it points to and what to do), while the
  approved manifest itself still runs;
* a name approved as a link runs, and is refused once the link leads
  elsewhere; a directory link on the way counts the same;
* a journal record written before identities were recorded still counts
  for a plain path, not for a name through a link;
* a journal inside a write grant of the run (or of the manifest being
  approved) is refused, and the same manifest runs with the journal
  elsewhere.

Each test has its own HOME, XDG_STATE_HOME, TMPDIR and project directory;
the scripts are `sh` one-liners that say which manifest ran.
"""

import hashlib
import json
import os
import re
import shutil
import tempfile

import pytest

import harness
from harness import run_cmd

BENTO = os.path.join(harness.BUILD, "bin", "bento")

pytestmark = [pytest.mark.timeout(120)]


def prose(text):
    """stderr with the wrapping undone (continuation lines joined)."""
    return re.sub(r"\n(?:\[bento\] +|\s{2,})", " ", text)


class World:
    def __init__(self, test_dir):
        if not os.access(BENTO, os.X_OK):
            pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
        self.home = os.path.join(test_dir, "home")
        self.state = os.path.join(test_dir, "state")
        self.work = os.path.join(test_dir, "work")
        # short: the run directory holds a unix socket (107-byte limit)
        self.tmp = tempfile.mkdtemp(prefix="bai.", dir="/tmp")
        for d in (self.home, self.state, self.work):
            os.makedirs(d, mode=0o700)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}

    def manifest(self, name, says, extra=""):
        """name.yaml running a script that prints `ran <says>`."""
        script = os.path.join(self.work, says + ".sh")
        with open(script, "w") as f:
            f.write("echo ran %s\n" % says)
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write("entrypoint: ./%s.sh\ninterpreter: sh\n%s" % (says, extra))
        return path

    def bento(self, *args, env=None, cwd=None):
        e = dict(self.env)
        e.update(env or {})
        return run_cmd([BENTO] + [str(a) for a in args], timeout=60, env=e,
                       cwd=cwd or self.work)

    def approve(self, path, **kw):
        res = self.bento("approve", "--yes", path, **kw)
        assert res.rc == 0, res
        return res

    def entry(self, key):
        name = hashlib.sha256(key.encode()).hexdigest() + ".json"
        return os.path.join(self.state, "bento", "approvals", name)


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    shutil.rmtree(w.tmp, ignore_errors=True)


def ran(res, says):
    return res.rc == 0 and ("ran %s\n" % says) in res.out


def test_a_link_swapped_in_for_an_approved_manifest_is_refused(world):
    narrow = world.manifest("narrow.yaml", "narrow")
    broad = world.manifest("broad.yaml", "broad", "read: [/usr/share]\n")
    world.approve(narrow)
    world.approve(broad)
    assert ran(world.bento("run", "narrow.yaml"), "narrow")

    os.rename(narrow, narrow + ".orig")
    os.symlink("broad.yaml", narrow)
    res = world.bento("run", "narrow.yaml")
    assert res.rc == 125, res
    assert "ran broad" not in res.out
    why = prose(res.err)
    assert "refusing to run: narrow.yaml is now a symbolic link to %s" % broad in why
    assert "approved when that name was the file itself" in why
    assert "run `bento approve narrow.yaml` again" in why
    # The same words as the --json refusal's reason.
    res = world.bento("run", "--json", "narrow.yaml")
    assert res.rc == 125
    event = json.loads(res.out.splitlines()[0])
    assert event["event"] == "refusal"
    assert event["reason"].startswith("narrow.yaml is now a symbolic link to %s" % broad)
    # validate reports it, and --strict fails on it.
    res = world.bento("validate", "--strict", "narrow.yaml")
    assert res.rc == 125
    assert "run refuses this name: narrow.yaml is now a symbolic link" in prose(res.err)

    # The approved manifest itself still runs, under its own name.
    assert ran(world.bento("run", "broad.yaml"), "broad")
    # --allow-unapproved runs what the link points to, and says so.
    res = world.bento("run", "--allow-unapproved", "narrow.yaml")
    assert ran(res, "broad"), res
    assert "Running what it points to now, as --allow-unapproved asks" in prose(res.err)


def test_a_name_approved_as_a_link_runs_until_it_leads_elsewhere(world):
    broad = world.manifest("broad.yaml", "broad")
    narrow = world.manifest("narrow.yaml", "narrow")
    world.approve(broad)
    world.approve(narrow)
    link = os.path.join(world.work, "current.yaml")
    os.symlink("broad.yaml", link)
    res = world.bento("run", "current.yaml")
    assert res.rc == 125, res
    assert "this host approved that file only as %s" % broad in prose(res.err)

    res = world.approve("current.yaml")
    assert "leads to:     %s" % broad in res.out
    assert "current.yaml is now a symbolic link to %s: the approval covers this name" \
        % broad in " ".join(res.out.split())
    record = json.load(open(world.entry(link)))
    assert record["named_path"] == link and record["named_symlink"] is True
    assert record["manifest_path"] == broad
    assert json.load(open(world.entry(broad)))["named_path"] == link
    assert ran(world.bento("run", "current.yaml"), "broad")

    os.unlink(link)
    os.symlink("narrow.yaml", link)
    res = world.bento("run", "current.yaml")
    assert res.rc == 125, res
    assert "ran narrow" not in res.out
    assert "it was approved as a link to %s" % broad in prose(res.err)


def test_a_directory_link_on_the_way_counts_like_the_last_one(world):
    m = world.manifest("m.yaml", "m")
    alias = os.path.join(os.path.dirname(world.work), "alias")
    os.symlink(world.work, alias)
    world.approve(m)
    res = world.bento("run", os.path.join(alias, "m.yaml"))
    assert res.rc == 125, res
    assert "through a symbolic link in a directory above it" in prose(res.err)
    world.approve(os.path.join(alias, "m.yaml"))
    assert ran(world.bento("run", os.path.join(alias, "m.yaml")), "m")
    assert ran(world.bento("run", m), "m")


def strip_identity(path):
    with open(path) as f:
        doc = json.load(f)
    for key in ("named_path", "named_symlink", "dev", "ino"):
        del doc[key]
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def test_an_old_record_counts_for_a_plain_path_only(world):
    m = world.manifest("m.yaml", "m")
    world.approve(m)
    strip_identity(world.entry(m))
    res = world.bento("run", "m.yaml")
    assert ran(res, "m"), res
    assert "holds no record" not in prose(res.err)  # the old record matched

    os.symlink("m.yaml", os.path.join(world.work, "link.yaml"))
    res = world.bento("run", "link.yaml")
    assert res.rc == 125, res
    why = prose(res.err)
    assert "link.yaml is now a symbolic link to %s" % m in why
    assert "recorded by an older bento" in why
    assert "run `bento approve link.yaml` again" in why


def test_a_journal_inside_a_write_grant_is_refused(world):
    m = world.manifest("m.yaml", "m", "write: [./out]\n")
    world.approve(m)
    assert ran(world.bento("run", "m.yaml"), "m")

    # A state home the box could have written: a forged record there
    # (here a copy of the real one) must not get the manifest run.
    inside = os.path.join(world.work, "out", "state")
    shutil.copytree(world.state, inside)
    journal = os.path.join(inside, "bento", "approvals")
    for env in ({"XDG_STATE_HOME": inside},
                {"XDG_STATE_HOME": os.path.join(world.work, "out")}):
        res = world.bento("run", "m.yaml", env=env)
        assert res.rc == 125, res
        assert "ran m" not in res.out
        why = prose(res.err)
        assert "refusing to run: write grant \"%s\" holds bento's approval journal" \
            % os.path.join(world.work, "out") in why
        assert "set XDG_STATE_HOME to a directory no manifest grants" in why
    assert journal in prose(world.bento("run", "m.yaml", env={"XDG_STATE_HOME": inside}).err)

    # approve refuses to record into it, and leaves the manifest alone.
    before = open(m).read()
    res = world.bento("approve", "--yes", "m.yaml", env={"XDG_STATE_HOME": inside})
    assert res.rc == 125, res
    assert "holds bento's approval journal" in res.err
    assert open(m).read() == before
    res = world.bento("validate", "m.yaml", env={"XDG_STATE_HOME": inside})
    assert "REFUSED: write grant" in res.out and "approval" in res.out

    # A state home reached through a link into the grant counts too.
    link = os.path.join(world.home, "state-link")
    os.symlink(inside, link)
    res = world.bento("run", "m.yaml", env={"XDG_STATE_HOME": link})
    assert res.rc == 125, res
    assert "holds bento's approval journal" in prose(res.err)

    # With the journal elsewhere the same manifest runs.
    assert ran(world.bento("run", "m.yaml"), "m")
