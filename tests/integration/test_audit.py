# SPDX-License-Identifier: Apache-2.0
"""`make audit` (contrib/audit/firejail-audit.py) and the shields it added
(translate/shields/rules.c, the block from `make audit`; docs/manifest.md,
"CREDENTIAL SHIELDS").

  * a run that grants the whole home cannot read the stores the audit
    found firejail hiding and bento not (Signal, signal-cli, Element, Riot,
    KDE's cookie jar, the trash, Tor Browser), and still reads the rest of
    the home;
  * the audit fails, naming it, on a firejail entry that is neither
    shielded nor explained, and passes once it is only shielded or
    explained entries; a reason may be limited to one list;
  * against the installed firejail package (skipped without it), the
    checked-in reasons explain every entry.
"""

import os
import shutil
import sys

import pytest

import harness
from test_bento_run import world  # noqa: F401  (the fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AUDIT = os.path.join(ROOT, "contrib", "audit", "firejail-audit.py")
REASONS = os.path.join(ROOT, "contrib", "audit", "firejail-reasons.txt")
SHIELD_CHECK = os.path.join(harness.BUILD, "audit", "shield-check")

NEW_STORES = [".config/Signal/config.json", ".local/share/signal-cli/data/account",
              ".config/Element/sessionstore", ".config/Riot/sessionstore",
              ".kde/share/apps/kcookiejar/cookies", ".kde4/share/apps/kcookiejar/cookies",
              ".local/share/Trash/files/id_ed25519",
              ".local/opt/tor-browser/Browser/profile/key4.db"]


def test_new_shields_hide_the_stores(world):  # noqa: F811
    for rel in NEW_STORES + ["notes.txt", ".config/other/settings"]:
        world.write(os.path.join(world.home, rel), "secret %s\n" % rel)
    script = "".join('if cat "$HOME_DIR/%s" >/dev/null 2>&1; then echo "READ %s"; '
                     'else echo "DENIED %s"; fi\n' % (r, r, r)
                     for r in NEW_STORES + ["notes.txt", ".config/other/settings"])
    m = world.manifest('entrypoint: ./s.sh\ninterpreter: sh\nread: ["~"]\nexec: all\n',
                       script="HOME_DIR=%s\n%s" % (world.home, script))
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    lines = set(res.out.splitlines())
    for rel in NEW_STORES:
        assert "DENIED %s" % rel in lines, res.out
    # the allowed thing: the rest of the granted home is readable
    assert "READ notes.txt" in lines and "READ .config/other/settings" in lines, res.out


# The build this suite runs against, as make must be told to extend it: the
# check-debug tree is built with SANITIZE=1, and a helper linked into it
# without the sanitizer runtimes does not link.
MAKE_VARS = ["BUILDDIR=" + harness.BUILD] + (["SANITIZE=1"] if harness.SANITIZER_SLOWDOWN > 1 else [])


def build_shield_check():
    r = harness.completed_run(["make", "-s", "-C", ROOT] + MAKE_VARS + [SHIELD_CHECK],
                              timeout=300)
    assert r.returncode == 0, r.stderr


def audit(firejail_dir, reasons=REASONS):
    return harness.completed_run([sys.executable, AUDIT, "--shield-check", SHIELD_CHECK,
                                  "--firejail", str(firejail_dir), "--reasons", str(reasons)],
                                 timeout=120)


def test_audit_fails_on_an_unexplained_entry(tmp_path):
    build_shield_check()
    fj = tmp_path / "firejail"
    fj.mkdir()
    known = ("blacklist ${HOME}/.ssh\n"             # shielded (hidden)
             "blacklist ${HOME}/.config/Signal\n"   # shielded by the audit's block
             "read-only ${HOME}/.bashrc\n"          # shielded (read-only)
             "blacklist /etc/shadow\n"              # explained: outside the sandbox
             "noblacklist ${HOME}/.nothing\n")      # not a protection: ignored
    (fj / "disable-common.inc").write_text(known + "blacklist ${HOME}/.bento-audit-secret\n")
    r = audit(fj)
    assert r.returncode == 1, r
    assert "NOT EXPLAINED (unshielded, firejail: hidden, disable-common.inc:6): " \
        "${HOME}/.bento-audit-secret" in r.stdout, r.stdout
    assert "1 not explained" in r.stdout
    # the allowed thing: shielded and explained entries pass
    (fj / "disable-common.inc").write_text(known)
    r = audit(fj)
    assert r.returncode == 0, r.stdout
    assert "4 firejail entries: 3 shielded, 0 weaker, 1 unshielded; 0 not explained" in r.stdout
    assert "/etc/shadow\n            because: outside the sandbox" in r.stdout


def test_a_reason_can_be_limited_to_one_list(tmp_path):
    build_shield_check()
    fj = tmp_path / "firejail"
    fj.mkdir()
    (fj / "disable-programs.inc").write_text("blacklist ${HOME}/.config/someapp\n")
    (fj / "disable-common.inc").write_text("blacklist ${HOME}/.config/otherapp\n")
    reasons = tmp_path / "reasons.txt"
    reasons.write_text("== application data\ndisable-programs.inc:${HOME}/*\n")
    r = audit(fj, reasons)
    assert r.returncode == 1, r.stdout
    assert "${HOME}/.config/otherapp" in r.stdout.split("NOT EXPLAINED", 1)[1]
    assert "someapp\n            because: application data" in r.stdout


def test_audit_without_firejail_lists_says_so(tmp_path):
    build_shield_check()
    r = audit(tmp_path)
    assert r.returncode != 0
    assert "firejail" in r.stderr


def test_installed_firejail_is_fully_explained():
    if not os.path.isdir("/etc/firejail") or not shutil.which("firejail"):
        pytest.skip("firejail is not installed (contrib/install-deps.sh installs it)")
    r = harness.completed_run(["make", "-s", "-C", ROOT] + MAKE_VARS + ["audit"], timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert " 0 not explained" in r.stdout
