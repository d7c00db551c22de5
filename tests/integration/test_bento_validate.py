# SPDX-License-Identifier: Apache-2.0
"""`bento validate` (docs/validate.md): the
manifest as written, what each path lands on here, every refusal run would
make (docs/manifest.md, "GRANTS A RUN REFUSES") in run's words, the HOME note (docs/manifest.md, "ENVIRONMENT"), the --strict and
--relocatable verdicts and the --json document.

Every test gets a scratch HOME (with ~/.ssh and friends) so the shields are
anchored somewhere the test controls; root's passwd home stays an anchor as
well, which is harmless here.  Needs only the bento binary
($BENTO_BUILD/bin/bento); nothing here runs a sandbox."""

import json
import os
import re
import shutil
import subprocess

import pytest

import harness

BENTO = os.path.join(os.environ.get("BENTO_BUILD", "build"), "bin", "bento")


sp_run = harness.completed_run

GOOD = """\
entrypoint: ./hello.sh
interpreter: sh
read: [/data/*]
network:
  - {host: api.example.com, port: "443"}
limits: {memory: 128M}
"""

BAD = """\
entrypoint: ./hello.sh
env: ["1X"]
read: [""]
limits: {cpu: "07%"}
"""


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text("secret\n")
    (h / ".ssh" / "tool").write_text("#!/bin/sh\n")
    (h / ".ssh" / "tool").chmod(0o755)
    (h / ".config").mkdir()
    (h / ".local" / "bin").mkdir(parents=True)
    (h / "data").mkdir()
    return h


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    return env


def run(tmp_path, home, text, *flags, name="m.yaml", entry=True):
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if entry:
        for script in ("hello.sh", "x"):
            p = tmp_path / script
            if not p.exists():
                p.write_text("#!/bin/sh\necho hi\n")
                p.chmod(0o755)
    return sp_run([BENTO, "validate", str(path), *flags], capture_output=True,
                          text=True, timeout=60, env=environment(home), cwd=str(tmp_path)), str(path)


def validate(tmp_path, text, *flags, name="m.yaml"):
    """The first stage's helper, kept for the loader tests: HOME in tmp."""
    h = tmp_path / "home"
    h.mkdir(exist_ok=True)
    return run(tmp_path, h, text, *flags, name=name)


def stamp(tmp_path, home, text, name="m.yaml"):
    """Write text with provenance.approves set to its fingerprint, which
    validate --json reports (approve refuses a manifest with a refused grant,
    so tests that need one stamp it this way)."""
    r, path = run(tmp_path, home, text, "--json", name=name)
    fp = json.loads(r.stdout)["fingerprint"]
    (tmp_path / name).write_text(text + "provenance:\n  approves: %s\n" % fp)
    return path


def approve(tmp_path, home, text, name="m.yaml"):
    """Stamp with `bento approve --yes` when it exists, else by fingerprint."""
    path = tmp_path / name
    path.write_text(text)
    for script in ("hello.sh", "x"):
        p = tmp_path / script
        if not p.exists():
            p.write_text("#!/bin/sh\necho hi\n")
            p.chmod(0o755)
    r = sp_run([BENTO, "approve", str(path), "--yes"], capture_output=True, text=True,
                       timeout=60, env=environment(home), cwd=str(tmp_path))
    if r.returncode != 0 and "unknown command" in r.stderr:
        return stamp(tmp_path, home, text, name)
    assert r.returncode == 0, r.stderr
    return str(path)


# --- the manifest as written -------------------------------------------------

def test_good_manifest(tmp_path, home):
    r, path = run(tmp_path, home, GOOD)
    assert r.returncode == 0, r.stderr
    assert "manifest:     %s - ok" % path in r.stdout
    assert "exec:         blocked on the standard exec path (execve)" in r.stdout
    assert "network:      [api.example.com:443]" in r.stdout
    assert "approval:     not approved - run `bento approve`" in r.stdout
    assert "not reported" not in r.stdout
    assert "runnable:     yes" in r.stdout
    assert "grants:       yes" in r.stdout


def test_a1_defaults(tmp_path, home):
    r, path = run(tmp_path, home, "entrypoint: ./x\n")
    assert r.returncode == 0, r.stderr
    assert "manifest:     %s - ok" % path in r.stdout
    assert "exec:         blocked on the standard exec path (execve)" in r.stdout
    assert "network:      denied (no egress)" in r.stdout
    assert "approval:     not approved" in r.stdout


def test_a30_json(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\n", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["exec"] == "none"
    assert doc["network"] == []
    assert doc["approval"] == "unapproved"
    assert doc["runnable"] is True
    assert len(doc["fingerprint"]) == 64
    assert "not_reported" not in doc


def test_good_manifest_json(tmp_path, home):
    r, _ = run(tmp_path, home, GOOD, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["exec"] == "none"
    assert doc["network"] == ["api.example.com:443"]
    assert doc["limits"] == {"memory": "128M"}
    assert doc["approval"] == "unapproved"
    assert doc["missing_read_grants"] == ["/data/*"]


def test_bad_manifest(tmp_path):
    r, path = validate(tmp_path, BAD)
    assert r.returncode == 125
    assert r.stdout == ""
    assert r.stderr.startswith("bento: the manifest has 3 problems:\n")
    assert "%s:3:8: policy: read[0] is empty" % path in r.stderr
    assert "%s:2:7: policy: invalid env name \"1X\"" % path in r.stderr
    assert "%s:4:15: policy: limits.cpu \"07%%\" must be a plain decimal percentage" % path \
        in r.stderr


def test_hostile_input(tmp_path):
    r, path = validate(tmp_path, "entrypoint: ./x\nread: &a [/x]\nwrite: *a\n")
    assert r.returncode == 125
    assert "%s:2:7: manifest: line 2 uses a YAML anchor, alias, or merge key" % path in r.stderr
    r, _ = validate(tmp_path, b"entrypoint: \"./x\\e[31m\\a\"\n")
    assert r.returncode == 125
    assert "control character (U+001B)" in r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr


def test_script_instead_of_manifest(tmp_path):
    r, path = validate(tmp_path, "#!/bin/sh\necho hi\n", name="s.sh")
    assert r.returncode == 125
    assert "looks like a script, not a manifest" in r.stderr


def test_usage_errors(tmp_path):
    r = sp_run([BENTO, "validate"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 125
    assert "validate needs a manifest path" in r.stderr
    assert "usage: bento validate" in r.stderr
    r = sp_run([BENTO, "nope"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 125
    assert "Run `bento --help` to see the commands." in r.stderr


def test_version():
    r = sp_run([BENTO, "version"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    assert r.stdout.startswith("bento ")
    assert "Platform: linux/" in r.stdout


# --- resolution on this host ----------------------------------------------------

def test_resolved_grants(tmp_path, home):
    (tmp_path / "rel").mkdir()
    os.symlink(str(home / "data"), str(tmp_path / "link"))
    r, _ = run(tmp_path, home, "entrypoint: ./x\nread: [\"~/data\", ./rel, ./link, /usr]\n")
    assert r.returncode == 0, r.stderr
    assert '  on this host: "%s/data" (from "~/data")' % home in r.stdout
    assert '  on this host: "%s/rel" (from "./rel")' % tmp_path in r.stdout
    assert '  on this host: "%s/data" (from "./link")' % home in r.stdout
    assert '(from "/usr")' not in r.stdout
    assert '  on this host: "%s/x"' % tmp_path in r.stdout
    doc = json.loads(run(tmp_path, home, "entrypoint: ./x\nread: [\"~/data\", /usr]\n",
                         "--json")[0].stdout)
    assert doc["resolved_read"] == [{"path": "~/data", "on_host": "%s/data" % home}]


def test_interpreter_on_this_host(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\ninterpreter: sh\ninterpreter_args: [-e]\n")
    assert r.returncode == 0, r.stderr
    assert "interpreter:  sh\n  on this host: \"/" in r.stdout
    assert '  args passed to the interpreter, before the entrypoint: "-e"' in r.stdout
    assert "read them as code" in r.stdout  # a callout


def test_broad_grant_note(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\nread: [\"~\", /etc]\n")
    assert r.returncode == 0, r.stderr
    assert 'note: read: "~" is a whole home or top-level directory' in r.stdout
    assert 'note: read: "/etc" is a whole home or top-level directory' in r.stdout


# --- refusals, one per docs/manifest.md, "GRANTS A RUN REFUSES" check ----------------------------------------------------

REFUSALS = [
    # 1: write /
    ('write: ["/"]',
     'REFUSED: write grant "/" would make the entire host root writable; grant a specific'),
    # 2: read inside a shield (A37)
    ('read: ["~/.ssh/id_rsa"]',
     'REFUSED: grant "{home}/.ssh/id_rsa" is inside the always-shielded path "{home}/.ssh"'),
    # 3: write inside a DenyAll shield
    ('write: ["~/.ssh/keys"]',
     'REFUSED: write grant "{home}/.ssh/keys" is inside the always-shielded path'),
    # 6: write at a DenyWrite shield
    ('write: ["~/.local/bin"]',
     'REFUSED: write grant "{home}/.local/bin" is at or inside the write-shielded path'),
    # 7: write containing a DenyAll shield
    ('write: ["~/.config"]',
     'REFUSED: write grant "{home}/.config" contains the always-shielded path'),
    # 8: a host process's directory
    ('read: [/proc/self/status]', "a host process's directory in /proc"),
    # 9: managed mounts (A39)
    ('read: [/proc]', 'REFUSED: grant "/proc" resolves to "/proc", a pseudo-filesystem the'),
    ('read: [/dev]', 'a pseudo-filesystem the'),
    ('read: [/tmp]', 'a pseudo-filesystem the'),
    # 10: a symlink loop
    ('read: [./loop-a]', 'loops through itself on the host'),
    # 11: a write grant that is a file
    ('write: [./afile]', 'is a file; grant its parent directory instead'),
    # 12: the entrypoint inside a shield
    ('read: []', 'would expose the shielded path'),
]


@pytest.mark.parametrize("grants,expect", REFUSALS)
def test_refusals(tmp_path, home, grants, expect):
    os.symlink("loop-b", str(tmp_path / "loop-a"))
    os.symlink("loop-a", str(tmp_path / "loop-b"))
    (tmp_path / "afile").write_text("x")
    entry = "~/.ssh/tool" if "expose" in expect else "./x"
    text = "entrypoint: %s\n%s\n" % (entry, grants)
    r, _ = run(tmp_path, home, text)
    assert r.returncode == 0, r.stderr  # validate reports; it does not fail
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert expect.format(home=home) in flat, r.stdout
    assert "grants:       NO - the grants marked REFUSED above cannot be honored" in r.stdout
    doc = json.loads(run(tmp_path, home, text, "--json")[0].stdout)
    assert doc["runnable"] is True  # a refused grant leaves runnable true
    # the original's shape: run's sentences as strings, the parts beside them
    assert doc["refused_grants"] and all(isinstance(s, str) for s in doc["refused_grants"]), doc
    assert [d["reason"] for d in doc["refused_grant_details"]] == doc["refused_grants"], doc
    assert all(set(d) == {"field", "grant", "reason"} for d in doc["refused_grant_details"]), doc
    sentence = expect.format(home=home)
    sentence = sentence[len("REFUSED: "):] if sentence.startswith("REFUSED: ") else sentence
    assert sentence in " ".join(doc["refused_grants"]), doc


def test_workspace_redirect(tmp_path, home):
    proj, real = tmp_path / "proj", tmp_path / "realgit"
    (real / "hooks").mkdir(parents=True)
    proj.mkdir()
    os.symlink(str(real), str(proj / ".git"))
    r, _ = run(tmp_path, home, "entrypoint: ./x\nwrite: [./proj]\n")
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert "but a symlinked directory component redirects it to" in flat, r.stdout


def test_opt_in_shield(tmp_path, home):
    r, _ = run(tmp_path, home, 'entrypoint: ./x\nread: ["~/.ssh"]\n')
    assert r.returncode == 0, r.stderr
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert "this grant names a credential store bento shields on every run, exactly" in flat
    assert "EXCEPT the 1 shielded path this manifest grants by name" in flat
    doc = json.loads(run(tmp_path, home, 'entrypoint: ./x\nread: ["~/.ssh"]\n',
                         "--json")[0].stdout)
    assert doc["shielded_grants"] == [{"path": "%s/.ssh" % home, "holds": "credentials"}]


def test_footer_plain(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\n")
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert "Everything not listed above is denied. Credentials, SSH keys and shell profiles " \
        "stay shielded even under the grants above." in flat


# --- notes ------------------------------------------------------------------------

def test_home_note_default(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\n")
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert "note: HOME inside the sandbox is /tmp" in flat
    assert "a script that expands `~` itself will miss them" in flat


def test_home_note_passed(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\nenv: [HOME]\n")
    assert '  HOME inside the sandbox: "%s" (this host\'s)' % home in r.stdout
    assert "HOME inside the sandbox is /tmp" not in r.stdout


def test_env_unset_note(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\nenv: [BENTO_TEST_UNSET_VAR]\n")
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert "note: env BENTO_TEST_UNSET_VAR is allowed by the manifest but not set on this host" \
        in flat


def test_a34_fileish_write(tmp_path, home):
    text = "entrypoint: ./x\nwrite: [./out/log.txt]\n"
    r, _ = run(tmp_path, home, text)
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert 'note: the write grant "./out/log.txt" is spelled like a file' in flat
    doc = json.loads(run(tmp_path, home, text, "--json")[0].stdout)
    assert doc["fileish_write_grants"] == ["%s/out/log.txt" % tmp_path]
    path = approve(tmp_path, home, text)
    r = sp_run([BENTO, "validate", path, "--strict"], capture_output=True, text=True,
                       env=environment(home), timeout=60)
    assert r.returncode == 0, r.stderr  # a note never fails
    assert not (tmp_path / "out").exists()  # validate creates nothing


def test_a35_missing_read(tmp_path, home):
    text = "entrypoint: ./x\nread: [./nope]\n"
    r, _ = run(tmp_path, home, text)
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert 'note: the read grant "./nope" names nothing on this host' in flat
    doc = json.loads(run(tmp_path, home, text, "--json")[0].stdout)
    assert doc["missing_read_grants"] == ["%s/nope" % tmp_path]


def test_a41_loopback(tmp_path, home):
    r, _ = run(tmp_path, home, 'entrypoint: ./x\nnetwork:\n  - {host: localhost, port: "8080"}\n')
    assert r.returncode == 0, r.stderr
    assert 'note: "localhost" is a loopback address' in r.stdout


def test_blocked_hosts_note(tmp_path, home):
    text = ('entrypoint: ./x\nnetwork:\n  - {host: "*.example.com", port: "443"}\n'
            .replace("*.example.com", ".example.com") +
            'provenance:\n  blocked-hosts: ["db.example.com:443", "garbage"]\n')
    r, _ = run(tmp_path, home, text)
    assert r.returncode == 0, r.stderr
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert 'covers a destination an earlier run reached, "db.example.com" port "443"' in flat
    assert 'blocked-hosts entry "garbage" is not host:port' in flat
    doc = json.loads(run(tmp_path, home, text, "--json")[0].stdout)
    assert doc["network_blocked"][0]["host"] == "db.example.com"
    assert doc["network_blocked_unreadable"] == ["garbage"]


def test_exec_modes(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\nexec: none-strict\n")
    assert "exec:         blocked, strictly (no subprocesses; fork/vfork/clone blocked, " \
        "threads allowed)" in r.stdout
    r, _ = run(tmp_path, home, "entrypoint: ./x\nexec: all\nlimits: {memory: 128M, cpu: " \
               "\"50%\", pids: 32}\n")
    assert "exec:         allowed (the script may spawn subprocesses)" in r.stdout
    assert "limits:       memory 128M, cpu 50%, pids 32" in r.stdout
    assert "may spawn any subprocess" in r.stdout  # a callout


# --- runnability ---------------------------------------------------------------------

def test_a32_missing_entrypoint(tmp_path, home):
    text = "entrypoint: ./missing\n"
    r, _ = run(tmp_path, home, text)
    assert "runnable:     NO - this host cannot start what the manifest names" in r.stdout
    path = stamp(tmp_path, home, text)
    r = sp_run([BENTO, "validate", path, "--strict"], capture_output=True, text=True,
                       env=environment(home), timeout=60)
    assert r.returncode == 125
    assert 'bento: manifest cannot run on this host: entrypoint "%s/missing": ' % tmp_path \
        in r.stderr


def test_a33_missing_interpreter(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\ninterpreter: no-such-interp-xyz\n", "--json")
    doc = json.loads(r.stdout)
    assert doc["runnable"] is False
    assert doc["runnable_problems"][0].startswith('interpreter "no-such-interp-xyz" not found')


def test_unresolvable_home(tmp_path, home):
    env = environment(home)
    del env["HOME"]
    path = tmp_path / "m.yaml"
    path.write_text('entrypoint: ./x\nread: ["~/data"]\n')
    (tmp_path / "x").write_text("#!/bin/sh\n")
    r = sp_run([BENTO, "validate", str(path)], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "runnable:     unknown - this host could not answer" in r.stdout
    r = sp_run([BENTO, "validate", str(path), "--json"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert "runnable" not in json.loads(r.stdout)


# --- --strict ----------------------------------------------------------------------------

def test_a31_strict_unapproved(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\n", "--json", "--strict")
    assert r.returncode == 125
    assert "bento: manifest is not approved" in r.stderr
    json.loads(r.stdout)  # the document is still printed first


def test_strict_approved_clean(tmp_path, home):
    path = approve(tmp_path, home, "entrypoint: ./x\nread: [\"~/data\"]\n")
    r = sp_run([BENTO, "validate", path, "--strict"], capture_output=True, text=True,
                       env=environment(home), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "approval:     current (approved for these permissions)" in r.stdout


def test_strict_stale(tmp_path, home):
    path = stamp(tmp_path, home, "entrypoint: ./x\n")
    text = open(path).read().replace("entrypoint: ./x\n", "entrypoint: ./x\nexec: all\n")
    open(path, "w").write(text)
    r = sp_run([BENTO, "validate", path, "--strict"], capture_output=True, text=True,
                       env=environment(home), timeout=60)
    assert r.returncode == 125
    assert "bento: manifest approval is stale: permissions changed since it was approved" \
        in r.stderr
    assert "approval:     STALE - the permissions changed since this manifest was approved" \
        in r.stdout


def test_a36_strict_refused_grant(tmp_path, home):
    path = stamp(tmp_path, home, 'entrypoint: ./x\nwrite: ["/"]\n')
    r = sp_run([BENTO, "validate", path, "--strict"], capture_output=True, text=True,
                       env=environment(home), timeout=60)
    assert r.returncode == 125
    assert 'bento: manifest cannot run on this host: write grant "/" would make the entire ' \
        'host root writable' in r.stderr
    assert "grants:       NO" in r.stdout


# --- --relocatable ------------------------------------------------------------------------

def test_a40_relocatable(tmp_path, home):
    r, _ = run(tmp_path, home, "entrypoint: ./x\nread: [/usr/share]\n", "--relocatable")
    assert r.returncode == 125
    assert 'bento: manifest is not relocatable: read grant "/usr/share"' in r.stderr
    assert "relocatable:  NO" in r.stdout
    (tmp_path / "sub").mkdir()
    r, _ = run(tmp_path, home, "entrypoint: ./x\nread: [./sub]\n", "--relocatable")
    assert r.returncode == 0, r.stderr
    assert "relocatable:  yes (every path anchors to the manifest's own directory)" in r.stdout
    r, _ = run(tmp_path, home, 'entrypoint: ./x\nwrite: ["~/data"]\n', "--relocatable", "--json")
    doc = json.loads(r.stdout)
    assert doc["relocatable"] is False
    # the original's shape: the phrases --relocatable's refusal names, the parts beside them
    assert doc["pinned_paths"] == ['write grant "~/data"']
    assert doc["pinned_path_details"] == [{"field": "write grant", "path": "~/data"}]
    # the allowed thing: a relocatable manifest has neither
    r, _ = run(tmp_path, home, "entrypoint: ./x\nread: [./sub]\n", "--relocatable", "--json")
    doc = json.loads(r.stdout)
    assert doc["relocatable"] is True
    assert "pinned_paths" not in doc and "pinned_path_details" not in doc


# --- the credential-alias scan (a note) -----------------------------------------------

def test_alias_hard_link(tmp_path, home):
    os.link(str(home / ".ssh" / "id_rsa"), str(home / "data" / "copy"))
    text = 'entrypoint: ./x\nread: ["~/data"]\n'
    r, _ = run(tmp_path, home, text)
    assert r.returncode == 0, r.stderr
    flat = " ".join(line.strip() for line in r.stdout.splitlines())
    assert '"%s/data/copy" is a second name (a hard link or a bind mount) for the shielded ' \
        'credential "%s/.ssh/id_rsa"' % (home, home) in flat
    doc = json.loads(run(tmp_path, home, text, "--json")[0].stdout)
    assert doc["credential_aliases"] == [{"path": "%s/data/copy" % home,
                                          "credential": "%s/.ssh/id_rsa" % home}]
    path = approve(tmp_path, home, text)
    r = sp_run([BENTO, "validate", path, "--strict"], env=environment(home))
    assert r.returncode == 0, r.stderr  # an alias is a note for validate


def test_alias_opted_store_is_not_an_alias(tmp_path, home):
    os.link(str(home / ".ssh" / "id_rsa"), str(home / "data" / "copy"))
    r, _ = run(tmp_path, home, 'entrypoint: ./x\nread: ["~/data", "~/.ssh"]\n', "--json")
    assert "credential_aliases" not in json.loads(r.stdout)


@pytest.mark.skipif(os.geteuid() != 0, reason="bind mounts need root")
def test_alias_bind_mount(tmp_path, home):
    target = home / "data" / "m"
    target.mkdir()
    script = "mount --bind %s %s && exec %s validate --json %s" % (
        home / ".ssh", target, BENTO, tmp_path / "m.yaml")
    (tmp_path / "m.yaml").write_text('entrypoint: ./x\nread: ["~/data"]\n')
    (tmp_path / "x").write_text("#!/bin/sh\n")
    r = sp_run(["unshare", "-m", "sh", "-c", script], env=environment(home))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {"path": str(target), "credential": "%s/.ssh" % home} in doc["credential_aliases"]


def stat_asked(log, home, name):
    """Did the traced run stat home/name?  By its absolute path, or by its name below the home's
    own descriptor: the path memo looks names up from a listed directory it keeps open."""
    text = log.read_text()
    return ('"%s/%s"' % (home, name)) in text or \
        re.search(r'stat\w*\(\d+, "%s"' % re.escape(name), text) is not None


def test_alias_scan_asks_a_store_for_its_identity_only_to_compare(tmp_path, home):
    """A credential store's own identity (its lstat) only matters when the scan compares it with
    something in a grant; with nothing there to compare, the store is listed (for its links and
    files) and not stat()ed.  The hard link beside it is still found."""
    if shutil.which("strace") is None:
        pytest.fail("strace is not installed")
    (home / ".password-store").mkdir()  # listed with the home, after the first rules
    (home / "data" / "plain").write_text("x\n")
    log = tmp_path / "strace.log"
    path = tmp_path / "m.yaml"
    path.write_text('entrypoint: ./x\nread: ["~/data"]\n')
    (tmp_path / "x").write_text("#!/bin/sh\n")
    trace = ["strace", "-f", "-qq", "-o", str(log), "-e", "trace=newfstatat,lstat,statx,stat"]
    r = sp_run(trace + [BENTO, "validate", "--json", str(path)], capture_output=True, text=True,
               env=environment(home), timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "credential_aliases" not in doc and "credential_aliases_partial" not in doc
    assert not stat_asked(log, home, ".password-store")
    # a second name of a file in a store: the comparison is made, the alias found
    os.link(str(home / ".ssh" / "id_rsa"), str(home / "data" / "copy"))
    r = sp_run(trace + [BENTO, "validate", "--json", str(path)], capture_output=True, text=True,
               env=environment(home), timeout=60)
    assert json.loads(r.stdout)["credential_aliases"] == [
        {"path": "%s/data/copy" % home, "credential": "%s/.ssh/id_rsa" % home}]
    assert stat_asked(log, home, ".password-store")


def test_trust_warning_for_stamped_manifest(tmp_path, home):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (shared / "x").write_text("#!/bin/sh\n")
    (shared / "x").chmod(0o755)
    (shared / "m.yaml").write_text("entrypoint: ./x\n")
    r = sp_run([BENTO, "validate", str(shared / "m.yaml")], env=environment(home))
    assert r.returncode == 0 and r.stderr == ""  # unstamped: nothing to warn about
    (shared / "m.yaml").write_text("entrypoint: ./x\nprovenance:\n  approves: %s\n" % ("0" * 64))
    r = sp_run([BENTO, "validate", str(shared / "m.yaml")], env=environment(home))
    assert r.returncode == 0, r.stderr
    flat = " ".join(line.replace("[bento]", "").strip() for line in r.stderr.splitlines())
    assert r.stderr.startswith("[bento] ")
    assert "the directory %s is world-writable" % shared in flat
    assert "approval:     STALE" in r.stdout
