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
import pwd
import re
import shutil
import stat
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
    """The record as a bento before the identity fields (and the mac) wrote it."""
    with open(path) as f:
        doc = json.load(f)
    for key in ("named_path", "named_symlink", "dev", "ino", "mac"):
        del doc[key]
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def test_an_old_record_is_not_authenticated(world):
    m = world.manifest("m.yaml", "m")
    world.approve(m)
    res = world.bento("run", "m.yaml")
    assert ran(res, "m") and "holds no record" not in prose(res.err), res
    strip_identity(world.entry(m))
    # Unsigned, it is no record of this host's: the run says so (and that
    # it is not authenticated, so an upgraded user knows to re-approve).
    res = world.bento("run", "m.yaml")
    assert ran(res, "m"), res
    why = prose(res.err)
    assert "holds no record of approving" in why and "not authenticated" in why, res

    os.symlink("m.yaml", os.path.join(world.work, "link.yaml"))
    res = world.bento("run", "link.yaml")
    assert res.rc == 125, res
    assert "link.yaml is now a symbolic link to %s" % m in prose(res.err), res
    assert not ran(res, "m"), res


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


# ---- the journal key: records a sandbox could lay out are not believed ----

def plant(state, name, doc):
    """A record laid out as a box with a write grant on state could: the
    journal's directories 0700, the file 0600, the right name."""
    d = os.path.join(state, "bento", "approvals")
    os.makedirs(d, mode=0o700, exist_ok=True)
    for p in (state, os.path.join(state, "bento"), d):
        os.chmod(p, 0o700)
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    os.chmod(path, 0o600)
    return path


def test_a_record_forged_without_the_key_is_not_believed(world):
    m = world.manifest("m.yaml", "m")
    # What this host's record of m.yaml looks like, made where the run
    # below never looks (a box could compute all of it but the mac).
    scratch = os.path.join(world.work, "scratch")
    world.approve(m, env={"XDG_STATE_HOME": scratch})
    name = os.listdir(os.path.join(scratch, "bento", "approvals"))[0]
    with open(os.path.join(scratch, "bento", "approvals", name)) as f:
        genuine = json.load(f)
    shutil.rmtree(scratch)
    assert genuine["reviewed"] is False and re.fullmatch(r"[0-9a-f]{64}", genuine["mac"])
    forged_state = os.path.join(world.work, "state")
    relocated = {"XDG_STATE_HOME": forged_state}
    no_mac = {k: v for k, v in genuine.items() if k != "mac"}
    other_key = dict(genuine, mac=hashlib.sha256(os.urandom(32)).hexdigest())
    tampered = dict(genuine, reviewed=True)  # "a human read it", the mac kept
    for forged in (no_mac, other_key, tampered):
        plant(forged_state, name, forged)
        res = world.bento("run", "m.yaml", env=relocated)
        assert ran(res, "m"), res  # the stamp is current: a note, not a refusal
        why = prose(res.err)
        assert "this host holds no record of approving these permissions" in why, (forged, res)
        assert "not authenticated" in why, res
    # The genuine record, signed with this host's key, is believed as it is
    # (it vouches for the very file and stamp this host approved) ...
    plant(forged_state, name, genuine)
    res = world.bento("run", "m.yaml", env=relocated)
    assert ran(res, "m") and "no record of approving" not in prose(res.err), res
    # ... and so is a real approval made there.
    plant(forged_state, name, no_mac)
    world.approve(m, env=relocated)
    res = world.bento("run", "m.yaml", env=relocated)
    assert ran(res, "m") and "no record of approving" not in prose(res.err), res


KEY_READER = r'''
import os, sys
d = os.path.join(sys.argv[1], ".local/state/bento")
for name in ("journal.key", "visible.txt"):
    try:
        with open(os.path.join(d, name), "rb") as f:
            print("%s: read %s" % (name, f.read().hex()))
    except OSError as e:
        print("%s: error %d" % (name, e.errno))
'''


def in_passwd_home(world, home, *args):
    """bento run with a scratch directory bound over the passwd home (in a
    mount namespace of its own, so nothing reaches the host's home), and
    HOME pointing there too: the key bento looks for, and what read: ["~"]
    shows, are the scratch ones."""
    real = pwd.getpwuid(os.geteuid()).pw_dir
    script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    env = dict(world.env, HOME=real)
    return run_cmd(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                    home, real, BENTO] + [str(a) for a in args], timeout=60, env=env,
                   cwd=world.work)


def test_the_journal_key_is_hidden_in_a_sandbox_reading_home(world, test_dir):
    home = os.path.join(test_dir, "passwd-home")
    os.makedirs(home, mode=0o700)
    with open(os.path.join(world.work, "reader.py"), "w") as f:
        f.write(KEY_READER)
    m = os.path.join(world.work, "m.yaml")
    with open(m, "w") as f:
        f.write('entrypoint: ./reader.py\ninterpreter: python3\nread: ["~"]\nargs: ["%s"]\n'
                % pwd.getpwuid(os.geteuid()).pw_dir)
    res = in_passwd_home(world, home, "approve", "--yes", m)
    assert res.rc == 0, res
    kdir = os.path.join(home, ".local", "state", "bento")
    with open(os.path.join(kdir, "journal.key"), "rb") as f:
        secret = f.read()
    assert len(secret) == 32, secret
    assert stat.S_IMODE(os.stat(os.path.join(kdir, "journal.key")).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(kdir).st_mode) == 0o700
    with open(os.path.join(kdir, "visible.txt"), "w") as f:
        f.write("beside the key")
    res = in_passwd_home(world, home, "run", "m.yaml")
    assert res.rc == 0, res
    # The allowed thing works: the key's own directory is readable ...
    assert "visible.txt: read %s" % b"beside the key".hex() in res.out, res
    # ... and the key is not: hidden (a zero-byte file), not merely unwritable.
    assert "journal.key: read \n" in res.out, res
    assert secret.hex() not in res.out, res
    # The record approve signed with that key is believed.
    assert "no record of approving" not in prose(res.err), res
