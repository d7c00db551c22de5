# SPDX-License-Identifier: Apache-2.0
"""`bento run` records guard-blocked destinations as provenance
(docs/manifest.md, "PROVENANCE"; docs/cli/bento-run.md, "NOTES"): a destination a network rule allows
but the egress guard refuses (its name resolved to loopback) lands in the
manifest's provenance.blocked-hosts as a minimal edit that keeps the author's
comments; the approval stays current (provenance is outside the fingerprint);
`bento validate` then notes the rule that covers it.  A file that cannot be
edited in place (flow style), or that is not the file checked before the run
any more (swapped for a symlink, changed), is not written.

Name resolution is real: the egress hook resolves names on the host side,
/etc/hosts first (docs/egress.md), so /etc/hosts decides.  Every `bento run` here
runs under `unshare --mount --net`: in its own mount namespace a test hosts
file is bind-mounted over /etc/hosts, and in its own network namespace (only a
loopback device that is down) nothing can leave the machine, not even a DNS
query.  The hosts file names loopback addresses only (127.0.0.1, 127.0.0.2);
the guard refuses them before any connect().  Both namespaces end with the
command.
"""

import difflib
import json
import os
import re
import shutil
import stat
import tempfile

import pytest

import harness
from harness import run_cmd

BENTO = os.path.join(harness.BUILD, "bin", "bento")

pytestmark = [pytest.mark.timeout(120)]

HOSTS = ("# test hosts file (bento run blocked-hosts tests): loopback only\n"
         "127.0.0.1 svc.bento-blocked.test\n"
         "127.0.0.2 api.bento-blocked.test\n")

# Bind the hosts file (argument $0) over /etc/hosts, then run the command.
RESOLVER = 'mount --bind "$0" /etc/hosts && exec "$@"'

SVC = "svc.bento-blocked.test:8443"
API = "api.bento-blocked.test:9100"

MANIFEST = """\
# egress for the blocked-hosts test: both names resolve to loopback here
entrypoint: ./s.sh
interpreter: sh
exec: all
read: [./bento-probe]   # the static probe makes the CONNECT requests
network:
  - {host: svc.bento-blocked.test, port: "8443"}   # exact name
  - host: .bento-blocked.test                        # any name below
    port: "9000-9999"
%s
# end of policy
"""

# Two guard refusals, one destination no rule allows (403), one allowed name
# that does not resolve at all (502, "unreachable", not a guard refusal).
SCRIPT = """\
./bento-probe proxy-connect svc.bento-blocked.test:8443
./bento-probe proxy-connect api.bento-blocked.test:9100
./bento-probe proxy-connect api.bento-blocked.test:7000
./bento-probe proxy-connect gone.bento-blocked.test:9200
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
        self.tmp = tempfile.mkdtemp(prefix="brb.", dir="/tmp")
        for d in (self.home, self.state, self.work):
            os.makedirs(d)
        self.hosts = os.path.join(test_dir, "hosts")
        self.write(self.hosts, HOSTS)
        shutil.copyfile(harness.PROBE, os.path.join(self.work, "bento-probe"))
        os.chmod(os.path.join(self.work, "bento-probe"), 0o755)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}

    def write(self, path, text, mode=0o644):
        path = path if os.path.isabs(path) else os.path.join(self.work, path)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def read(self, name="m.yaml"):
        with open(os.path.join(self.work, name)) as f:
            return f.read()

    def bento(self, *args, resolver=False):
        wrap = ["unshare", "--mount", "--net", "--", "sh", "-c", RESOLVER, self.hosts] if resolver else []
        return run_cmd(wrap + [BENTO] + [str(a) for a in args], timeout=60, env=self.env, cwd=self.work)

    def run(self, *args):
        return self.bento("run", *args, resolver=True)

    def approve(self, name="m.yaml"):
        res = self.bento("approve", "--yes", name)
        assert res.rc == 0, res
        return self.read(name)

    def validate_json(self, name="m.yaml"):
        res = self.bento("validate", "--json", name)
        assert res.rc == 0, res
        return res.json()


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    run_dirs_before = harness.bento_run_dirs(w.tmp)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    left = harness.bento_run_dirs(w.tmp) - run_dirs_before
    assert not left, "a run directory was left behind: %s" % sorted(left)
    shutil.rmtree(w.tmp, ignore_errors=True)


def replies(res):
    return [json.loads(line) for line in res.out.splitlines() if line.startswith("{")]


def verdict(res):
    events = [json.loads(line) for line in res.out.splitlines()]
    assert events and events[-1]["event"] == "verdict", res
    return events[-1]


def diff(before, after):
    """(removed lines, added lines) from before to after."""
    d = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    return [l[2:] for l in d if l.startswith("- ")], [l[2:] for l in d if l.startswith("+ ")]


def recorded_notes(res):
    return [l for l in res.err.splitlines() if l.startswith("[bento] note: recorded ")]


def test_run_records_blocked_names_and_validate_notes_the_rules(world):
    world.write("s.sh", SCRIPT)
    world.write("m.yaml", MANIFEST % "")
    stamped = world.approve()

    res = world.run("m.yaml")
    assert res.rc == 0, res
    assert [r["status"] for r in replies(res)] == [502, 502, 403, 502], res
    after = world.read()

    # the one note says what was recorded, where, and that the approval stands
    notes = recorded_notes(res)
    assert notes == ['[bento] note: recorded "%s", "%s" in provenance.blocked-hosts of m.yaml: '
                     'the egress guard refused them although a rule allows them. Provenance is '
                     'outside the fingerprint, so the approval is unchanged.' % (API, SVC)], res
    # a minimal edit: every line of the stamped file kept, three added
    removed, added = diff(stamped, after)
    assert removed == []
    assert added == ["  blocked-hosts:", '    - "%s"' % API, '    - "%s"' % SVC]
    assert "# egress for the blocked-hosts test" in after and "# end of policy" in after
    assert "    port: \"9000-9999\"\n" in after
    st = os.lstat(os.path.join(world.work, "m.yaml"))
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644
    assert not [n for n in os.listdir(world.work) if n.startswith(".bento-approve-")]
    # neither the denied destination nor the unresolvable one is recorded
    assert "7000" not in after.split("provenance:")[1] and "gone." not in after

    # outside the fingerprint: validate calls the approval current and notes the rules
    res = world.bento("validate", "m.yaml")
    assert res.rc == 0, res
    text = flat(res.out)
    assert "approval:     current (approved for these permissions)" in res.out, res
    assert 'network "svc.bento-blocked.test" port "8443" covers a destination' in text, res
    assert 'network ".bento-blocked.test" port "9000-9999" covers a destination' in text, res
    assert '"api.bento-blocked.test" port "9100"' in text, res
    doc = world.validate_json()
    assert doc["approval"] == "current"
    assert sorted((b["host"], b["port"], b["rule_host"], b["rule_port"]) for b in doc["network_blocked"]) == [
        ("api.bento-blocked.test", "9100", ".bento-blocked.test", "9000-9999"),
        ("svc.bento-blocked.test", "8443", "svc.bento-blocked.test", "8443")]
    assert "network_blocked_unreadable" not in doc

    # a second run (--json) finds nothing new: the file is not touched
    before = os.stat(os.path.join(world.work, "m.yaml"))
    res = world.run("--json", "m.yaml")
    assert res.rc == 0, res
    v = verdict(res)
    assert v["guard_blocked"] == [{"host": "api.bento-blocked.test", "port": "9100"},
                                  {"host": "svc.bento-blocked.test", "port": "8443"}]
    assert "recorded_blocked_hosts" not in v
    assert recorded_notes(res) == []
    assert 'network "svc.bento-blocked.test" port "8443" covers a destination the egress guard ' \
           'refused before' in res.err, res
    assert world.read() == after
    now = os.stat(os.path.join(world.work, "m.yaml"))
    assert (now.st_ino, now.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)

    # approve (docs/approve.md, "What approve does, in order") calls out each rule's recorded destination and carries the list
    world.write("m.yaml", after.replace("exec: all\n", "exec: all\nenv: [LANG]\n"))
    res = world.bento("approve", "--yes", "m.yaml")
    assert res.rc == 0, res
    for entry in (API, SVC):
        assert '  - a network rule covers "%s", which the egress guard refused on an earlier run' \
               % entry in res.out, res
    restamped = world.read()
    assert '  blocked-hosts:\n    - "%s"\n    - "%s"\n' % (API, SVC) in restamped
    assert "# end of policy" in restamped and world.validate_json()["approval"] == "current"


def test_json_verdict_and_a_hand_written_list_merged_through_a_symlink(world):
    world.write("s.sh", SCRIPT)
    world.write("m.yaml", MANIFEST % (
        "provenance:\n"
        "  blocked-hosts:\n"
        "    - \"a.bento-blocked.test:9001\"   # seen last week\n"))
    os.symlink("m.yaml", os.path.join(world.work, "link.yaml"))
    stamped = world.approve("link.yaml")

    res = world.run("--json", "link.yaml")
    assert res.rc == 0, res
    v = verdict(res)
    assert v["recorded_blocked_hosts"] == [API, SVC], v
    assert len(v["guard_blocked"]) == 2
    assert recorded_notes(res) and "provenance.blocked-hosts of link.yaml" in recorded_notes(res)[0]

    # written into the file the link names; the link stays a link
    assert os.path.islink(os.path.join(world.work, "link.yaml"))
    after = world.read()
    removed, added = diff(stamped, after)
    assert removed == []
    assert added == ['    - "%s"' % API, '    - "%s"' % SVC]
    assert after.index('"a.bento-blocked.test:9001"   # seen last week') < after.index(API)
    assert world.validate_json("link.yaml")["approval"] == "current"


def test_flow_style_is_left_alone(world):
    """A textual edit is impossible: run says so and does not rewrite the
    file canonically (that would drop its comments)."""
    world.write("s.sh", SCRIPT)
    text = MANIFEST % 'provenance: {blocked-hosts: ["a.bento-blocked.test:9001"]}   # flow\n'
    world.write("m.yaml", text)

    res = world.run("--allow-unapproved", "m.yaml")
    assert res.rc == 0, res
    assert world.read() == text
    assert recorded_notes(res) == []
    line = [l for l in res.err.splitlines() if "not recorded in provenance.blocked-hosts" in l]
    assert line == ['[bento] note: the egress guard refused "%s", "%s" although a rule allows '
                    'them, but they were not recorded in provenance.blocked-hosts of m.yaml: its '
                    'provenance block is written in flow style ({...}); add them there by hand to '
                    'keep the record.' % (API, SVC)], res


def test_a_manifest_replaced_during_the_run_is_not_written(world):
    """The script may rewrite its own directory: a manifest changed during the
    run, or swapped for a symlink to a copy, is not the file that was checked,
    so nothing is written, and never through the link."""
    world.write("s.sh", "echo '# appended by the script' >> m.yaml\n" + SCRIPT)
    text = MANIFEST % "write: [./]\n"
    world.write("m.yaml", text)
    res = world.run("--allow-unapproved", "m.yaml")
    assert res.rc == 0, res
    assert world.read() == text + "# appended by the script\n"
    assert "it changed during the run; add them there by hand" in res.err, res

    world.write("s.sh", "cp m.yaml victim.yaml && ln -s victim.yaml swap && mv -f swap m.yaml\n" + SCRIPT)
    world.write("m.yaml", text)
    res = world.run("--allow-unapproved", "m.yaml")
    assert res.rc == 0, res
    assert os.path.islink(os.path.join(world.work, "m.yaml")), res
    assert world.read("victim.yaml") == text
    assert "it was moved or replaced during the run" in res.err, res
    assert recorded_notes(res) == []
