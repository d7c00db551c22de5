# SPDX-License-Identifier: Apache-2.0
"""`bento approve` (docs/approve.md) and the approval lifecycle
(stamp, stale, re-approve) that needs no sandbox: stamping, the journal, re-approval diffs,
refusals (no terminal, grants run refuses, untrustworthy locations), the
terminal prompt, and comments surviving the stamp.  The parts of B5, C4
and C6 that need `bento run` belong to run's tests; the validate half of
C4 runs once validate reports the approval state (skipped before).
Needs only the bento binary ($BENTO_BUILD/bin/bento)."""

import hashlib
import json
import os
import re
import stat
import subprocess

import pytest

import harness

BENTO = os.path.join(os.environ.get("BENTO_BUILD", "build"), "bin", "bento")

GOLDEN = """\
entrypoint: ./x
interpreter: python3
args: ["--b", "--a"]
env: [PATH, HOME, LANG]
read: [/two, /one]
write: [/out/b, /out/a]
network:
  - {host: b.com, port: "80"}
  - {host: a.com, port: "443"}
  - {host: a.com, port: "80"}
exec: all
limits: {memory: 1M, cpu: 50%, pids: 128}
"""

SIMPLE = """\
# reviewed by the build team
entrypoint: ./app.py   # the script
interpreter: python3
read:
  - ./data     # inputs
"""


@pytest.fixture
def env(tmp_path):
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    e = dict(os.environ)
    e["HOME"] = str(home)
    e["XDG_STATE_HOME"] = str(tmp_path / "state")
    work = tmp_path / "work"
    work.mkdir(mode=0o700)
    (work / "app.py").write_text("print('hi')\n")
    return {"env": e, "work": work, "home": home, "state": tmp_path / "state"}


class Ran:
    """harness.run_cmd's result with subprocess.run's names.  Every child
    goes through the harness: the suite's reaper collects any other one and
    would take its exit status away."""

    def __init__(self, res):
        self.returncode, self.stdout, self.stderr = res.rc, res.out, res.err

    def __repr__(self):
        return "exit %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            self.returncode, self.stdout, self.stderr)


def bento(env, *args, cwd=None):
    return Ran(harness.run_cmd([BENTO, *args], timeout=30, env=env["env"],
                               cwd=cwd or env["work"]))


def write(env, text, name="m.yaml", mode=0o644):
    path = env["work"] / name
    path.write_text(text)
    path.chmod(mode)
    return path


def stamp_of(path):
    m = re.search(r"^  approves: ([0-9a-f]{64})$", path.read_text(), re.M)
    return m.group(1) if m else None


def journal_entry(env, path):
    real = os.path.realpath(path)
    name = hashlib.sha256(real.encode()).hexdigest() + ".json"
    return env["state"] / "bento" / "approvals" / name


def prose(text):
    """bento's [bento] lines joined back into one paragraph (they wrap)."""
    return " ".join(l[len("[bento] "):] if l.startswith("[bento] ") else l
                    for l in text.splitlines())


def approve(env, path, *flags):
    return bento(env, "approve", str(path), "--yes", *flags)


def validate_reports_approval(env, path):
    r = bento(env, "validate", str(path))
    assert "approval:" in r.stdout, r
    return r


# ---- B. fingerprint -------------------------------------------------------

def test_b1_golden_fingerprint(env):
    path = write(env, GOLDEN)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert stamp_of(path) == "aa2f73e71ab6923705ca40cd8c9096becc6dcdc3cccc2a834f2e62d777a624ad"


def test_b1_second_vector(env):
    path = write(env, "entrypoint: ./app.py\ninterpreter: python3\n")
    assert approve(env, path).returncode == 0
    assert stamp_of(path) == "3f666b7fd806dfa8a575c58b20ecaae09cf3b4a92757f9e20ac6ec87e19eaefc"


def test_b2_reordering_sets_keeps_the_stamp_but_args_order_matters(env):
    path = write(env, GOLDEN)
    assert approve(env, path).returncode == 0
    text = path.read_text()
    reordered = (text.replace("env: [PATH, HOME, LANG]", "env: [LANG, HOME, PATH]")
                 .replace("read: [/two, /one]", "read: [/one, /two]")
                 .replace("write: [/out/b, /out/a]", "write: [/out/a, /out/b]"))
    path.write_text(reordered)
    r = approve(env, path)
    assert r.returncode == 0
    assert "is already approved for its current permissions." in r.stdout
    path.write_text(reordered.replace('args: ["--b", "--a"]', 'args: ["--a", "--b"]'))
    r = approve(env, path)
    assert r.returncode == 0
    assert "permissions changed since" in r.stdout


def test_b3_absent_exec_is_exec_none(env):
    a = write(env, "entrypoint: ./app.py\n", name="a.yaml")
    b = write(env, "entrypoint: ./app.py\nexec: none\n", name="b.yaml")
    assert approve(env, a).returncode == 0
    assert approve(env, b).returncode == 0
    assert stamp_of(a) == stamp_of(b)


def test_b4_comments_reformatting_and_blocked_hosts_keep_the_stamp(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    text = path.read_text()
    text = text.replace("read:\n  - ./data     # inputs\n", "read: ['./data']\n")
    text = "# a new comment\n" + text + "  blocked-hosts: [\"10.0.0.1:80\"]\n"
    path.write_text(text)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "is already approved for its current permissions." in r.stdout


def test_b5_approval_is_checked_before_resolution(env, tmp_path):
    """The run half of B5 belongs to run's tests; approve resolves nothing
    into the stamp, so the same file stamped from another cwd is current."""
    path = write(env, "entrypoint: ./app.py\ninterpreter: python3\nread: [./data]\n")
    assert approve(env, path).returncode == 0
    r = bento(env, "approve", "--yes", str(path), cwd=tmp_path)
    assert "is already approved" in r.stdout


def test_b6_script_contents_are_not_covered(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    (env["work"] / "app.py").write_text("import os\nos.system('curl evil')\n")
    r = approve(env, path)
    assert "is already approved" in r.stdout


# ---- C. approval lifecycle ------------------------------------------------

def test_c1_approve_yes_stamps_and_records(env):
    path = write(env, SIMPLE)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith("approved %s for its current permissions.\n" % path)
    text = path.read_text()
    assert "  generated-by: bento approve\n" in text
    assert re.search(r"^  generated-at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", text, re.M)
    fp = stamp_of(path)
    assert fp
    entry = journal_entry(env, path)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700
    doc = json.loads(entry.read_text())
    assert doc["fingerprint"] == fp
    assert doc["reviewed"] is False
    assert doc["manifest_path"] == os.path.realpath(path)
    assert "provenance" not in doc["policy"]
    # What was approved, by identity: the name as given, whether it was a
    # link, and the file the stamp went to.
    st = os.stat(path)
    assert doc["named_path"] == str(path)
    assert doc["named_symlink"] is False
    assert (doc["dev"], doc["ino"]) == (st.st_dev, st.st_ino)
    # The record is signed with this host's journal key (the session keeps
    # it on a tmpfs: harness.isolate_journal_key).
    assert re.fullmatch(r"[0-9a-f]{64}", doc["mac"]), doc
    assert set(doc) == {"fingerprint", "policy", "manifest_path", "stamped_at", "reviewed",
                        "named_path", "named_symlink", "dev", "ino", "mac"}


def test_c1_comments_and_layout_survive_the_stamp(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    text = path.read_text()
    assert text.startswith(SIMPLE)
    assert text[len(SIMPLE):].startswith("provenance:\n  generated-by: bento approve\n")


def test_c2_no_terminal_without_yes_is_refused(env):
    path = write(env, SIMPLE)
    before = path.read_bytes()
    r = bento(env, "approve", str(path))
    assert r.returncode == 125
    assert "bento: not approved: stdin is not a terminal" in r.stderr
    assert "--yes" in r.stderr
    assert path.read_bytes() == before
    assert not journal_entry(env, path).exists()


def test_c3_second_approve_is_a_no_op(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    before = path.read_bytes()
    r = approve(env, path)
    assert r.returncode == 0
    assert r.stdout == "%s is already approved for its current permissions.\n" % path
    assert path.read_bytes() == before


def test_c4_edited_manifest_is_stale(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    path.write_text(path.read_text().replace("  - ./data     # inputs\n",
                                             "  - ./data     # inputs\n  - ./more\n"))
    r = validate_reports_approval(env, path)
    assert "approval:     STALE" in r.stdout
    r = bento(env, "validate", "--strict", str(path))
    assert r.returncode == 125
    assert "approval is stale" in r.stderr


def test_c5_reapproval_shows_the_diff(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    path.write_text(path.read_text().replace("  - ./data     # inputs\n",
                                             "  - ./data     # inputs\n  - ./more\n"))
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "was approved before, but its permissions changed since" in r.stdout
    assert "non-interactively - nobody read it" in r.stdout
    assert '\n+   - "./more"\n' in r.stdout
    assert '\n    - "./data"\n' in r.stdout
    assert r.stdout.index("+   - ") < r.stdout.index("approved %s for" % path)
    assert "# inputs" in path.read_text()  # still a textual edit


def test_c5_reapproval_without_a_record_says_why(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    journal_entry(env, path).unlink()
    path.write_text(path.read_text().replace("interpreter: python3", "interpreter: python3.11"))
    r = approve(env, path)
    assert r.returncode == 0
    assert "holds no record of the earlier approval" in r.stdout


def test_current_stamp_without_a_local_record_is_restamped(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    journal_entry(env, path).unlink()
    r = approve(env, path)
    assert r.returncode == 0
    assert "carries a current stamp, but this host holds no record" in r.stdout
    assert journal_entry(env, path).exists()


def test_c7_a_grant_run_refuses_is_never_stamped(env):
    (env["home"] / ".ssh").mkdir()
    path = write(env, 'entrypoint: ./app.py\nwrite: ["~/.ssh"]\n')
    before = path.read_bytes()
    r = approve(env, path)
    assert r.returncode == 125
    assert "bento: not approved: the policy holds a grant run refuses" in r.stderr
    assert path.read_bytes() == before


def test_c8_world_writable_manifest_is_warned_and_clamped(env):
    path = write(env, SIMPLE, mode=0o666)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "world-writable" in r.stderr
    assert "was group/world-writable (0666); writing it back as 0644" in r.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_group_writable_manifest_is_warned(env):
    path = write(env, SIMPLE, mode=0o664)
    os.chown(path, -1, 4242)  # a group nobody is known to be alone in
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "writable by its group 4242" in r.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_c9_world_writable_directory_is_refused(env):
    d = env["work"] / "open"
    d.mkdir()
    d.chmod(0o777)
    path = d / "m.yaml"
    path.write_text(SIMPLE)
    before = path.read_bytes()
    r = approve(env, path)
    assert r.returncode == 125
    assert r.stderr.startswith("bento: refusing to approve %s: " % path)
    assert "is world-writable" in r.stderr
    assert path.read_bytes() == before


def test_sticky_world_writable_directory_is_accepted(env):
    d = env["work"] / "sticky"
    d.mkdir()
    d.chmod(0o1777)
    path = d / "m.yaml"
    path.write_text(SIMPLE)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    # stamped, and the stamp is current: the directory did not stop it
    assert re.fullmatch(r"[0-9a-f]{64}", stamp_of(path) or ""), path.read_text()
    again = approve(env, path)
    assert again.returncode == 0 and "is already approved for its current permissions." in again.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_c10_manifest_owned_by_another_uid(env):
    path = write(env, SIMPLE)
    os.chown(path, 12345, -1)
    before = path.read_bytes()
    r = approve(env, path)
    assert r.returncode == 125
    assert "refusing to approve %s: %s is owned by uid 12345" % (path, path) in r.stderr
    assert "chown 0" in r.stderr
    assert path.read_bytes() == before


def test_symlinked_manifest_is_stamped_through_the_link(env):
    real = write(env, SIMPLE, name="real.yaml")
    link = env["work"] / "link.yaml"
    link.symlink_to(real)
    r = approve(env, link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()
    assert stamp_of(real)
    assert journal_entry(env, real).exists()


def test_callouts_name_what_deserves_a_second_look(env):
    path = write(env, "entrypoint: ./app.py\ninterpreter: python3\ninterpreter_args: [-u]\n"
                      "write: [/tmp/bento-approve-callout, .]\nexec: all\nread: [/usr]\n")
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Worth a second look before stamping:" in out
    assert "exec: all" in out
    assert "read them as code" in out
    assert "lies under /tmp" in out
    assert "covers this manifest" in out
    assert "covers the entrypoint" in out
    assert 'read grant "/usr" is a whole home or top-level directory' in out
    callouts = out.split("Worth a second look before stamping:\n")[1].split("\napproved")[0]
    lines = [l for l in callouts.splitlines() if l.startswith("  - ")]
    assert lines == sorted(lines)


def prompt(env, path, answer):
    """approve on a pseudo-terminal with no controlling terminal, so the
    prompt falls back to stdin; returns (exit status, stderr)."""
    master, slave = os.openpty()
    p = harness.spawn([BENTO, "approve", str(path)], stdin=slave, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True, env=env["env"],
                      start_new_session=True)
    os.close(slave)
    try:
        os.write(master, answer.encode())
        out, err = p.communicate(timeout=30)
    finally:
        os.close(master)
        harness._forget(p)  # pylint: disable=protected-access
    return p.returncode, out, err


def test_prompt_yes_approves_as_reviewed(env):
    path = write(env, SIMPLE)
    code, out, err = prompt(env, path, "  Yes \n")
    assert code == 0, err
    assert "Approve these permissions? [y/N] > " in err
    assert json.loads(journal_entry(env, path).read_text())["reviewed"] is True
    assert "approved %s for its current permissions." % path in out


def test_prompt_anything_else_is_no(env):
    path = write(env, SIMPLE)
    before = path.read_bytes()
    code, _, err = prompt(env, path, "yep\n")
    assert code == 125
    assert "bento: not approved:" in err
    assert path.read_bytes() == before


def test_usage_errors(env):
    r = bento(env, "approve")
    assert r.returncode == 125
    assert "bento: approve needs a manifest path" in r.stderr
    assert "usage: bento approve <manifest> [--yes]" in r.stderr
    r = bento(env, "approve", "a.yaml", "b.yaml")
    assert r.returncode == 125
    assert "approve takes a manifest path and nothing else, but got 2 arguments" in r.stderr
    r = bento(env, "approve", "--force", "a.yaml")
    assert r.returncode == 125
    assert "unknown flag: --force" in r.stderr
    assert "Run `bento approve --help`" in r.stderr


def test_help(env):
    r = bento(env, "approve", "--help")
    assert r.returncode == 0
    assert "bento approve <manifest> [--yes]" in r.stdout
    assert "--yes" in r.stdout


def test_bad_manifest_is_refused(env):
    path = write(env, "entrypoint: ./app.py\nnope: 1\n")
    r = approve(env, path)
    assert r.returncode == 125
    assert "unknown field" in r.stderr


def test_group_writable_private_directory_is_warned_not_refused(env):
    d = env["work"] / "gw"
    d.mkdir()
    d.chmod(0o770)  # root's group is private to root in the test image
    if os.geteuid() != 0:
        pytest.skip("the group of a user's directory may have other members")
    path = d / "m.yaml"
    path.write_text(SIMPLE)
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "is group-writable (mode 0770)" in r.stderr
    assert "chmod g-w" in r.stderr


def test_not_a_regular_file_is_refused(env):
    fifo = env["work"] / "m.yaml"
    os.mkfifo(fifo)
    r = approve(env, fifo)
    assert r.returncode == 125
    assert "is not a regular file, so there is nothing to vouch for its permissions" in r.stderr


def test_untrusted_journal_is_not_used_for_the_diff(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    journal_entry(env, path).chmod(0o666)
    path.write_text(path.read_text().replace("interpreter: python3", "interpreter: python3.11"))
    r = approve(env, path)
    assert r.returncode == 0, r.stderr
    assert "journal is not private" in r.stdout
    assert "\n+ " not in r.stdout


def test_validate_notes_a_stamp_this_host_did_not_record(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    journal_entry(env, path).unlink()
    r = validate_reports_approval(env, path)
    assert "approval:     current" in r.stdout
    assert "holds no record of approving these permissions" in prose(r.stderr)


def test_validate_warns_about_a_stamped_manifest_others_can_write(env):
    path = write(env, SIMPLE)
    assert approve(env, path).returncode == 0
    path.chmod(0o666)
    r = validate_reports_approval(env, path)
    assert "its approval stamp attests only what whoever can write it" in prose(r.stderr)
    unstamped = write(env, SIMPLE, name="u.yaml", mode=0o666)
    r = bento(env, "validate", str(unstamped))
    assert "attests only" not in r.stderr  # only a stamped manifest is warned about
